"""Form fields that read through ``cardroom.values``, for the admin and the pages: a form accepts exactly what
the API accepts (Django's own fields take year 1, "1e3", "1_000" and fullwidth digits)."""

import datetime

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from . import values
from .moments import zone_name
from .exceptions import StateConflict


def show_error(form, error, beside=None):
    """A service's ``BadInput`` (or ``StateConflict``) on the form that asked, the one way a page or the admin shows
    it: beside the field it names when the form has that field (``beside`` maps a service's field name to the form's
    where they differ), else above the form. Returns the page's status: 409 for a conflict, else 400."""
    field = getattr(error, "field", None)
    field = (beside or {}).get(field, field)
    form.add_error(field if field in form.fields else None, str(error))
    return 409 if isinstance(error, StateConflict) else 400


def _read(read, value, **options):
    try:
        return read(value, **options)
    except values.Invalid as error:
        message = str(error)
        raise ValidationError(message[:1].upper() + message[1:]) from None


class DayField(forms.DateField):
    """A date written YYYY-MM-DD, between 1900 and 2199."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, datetime.date):
            return _read(values.day, value if type(value) is datetime.date else value.date())
        return _read(values.day, value.strip())


def _spoken(local):
    return f"{local.hour}:{local.minute:02d} on {local.day} {local:%b %Y}"


def _offset(moment):
    minutes = int(moment.utcoffset().total_seconds()) // 60
    return f"{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def local_moment(local, zone=None, *, offset_accepted=False):
    """A local date and time (naive) made aware in ``zone`` (the current zone unless given) and bounded. A time
    that does not exist there (clocks went forward over it) or happens twice (clocks went back over it) is refused
    with a sentence saying so, not guessed: a guess puts the moment an hour off. ``offset_accepted``: the field
    also reads a time with its offset, so the message says how to write each of the two."""
    zone = zone or timezone.get_current_timezone()
    first, second = local.replace(tzinfo=zone, fold=0), local.replace(tzinfo=zone, fold=1)
    if first.utcoffset() != second.utcoffset():
        # zoneinfo answers fold=0 with the offset before a change: a wall time that round-trips through UTC exists.
        if first.astimezone(datetime.UTC).astimezone(zone).replace(tzinfo=None) != local:
            raise ValidationError(
                f"{_spoken(local)} does not exist in {zone_name(zone)} (clocks went forward from {first.tzname()} "
                f"to {second.tzname()}): give a time before or after the change.", code="nonexistent")
        how = (f" Write it with its offset: {local:%Y-%m-%d %H:%M}{_offset(first)} for the first "
               f"({first.tzname()}), {local:%Y-%m-%d %H:%M}{_offset(second)} for the second ({second.tzname()})."
               if offset_accepted else " Give a time before or after the change.")
        raise ValidationError(f"{_spoken(local)} happens twice in {zone_name(zone)} (clocks went back from "
                              f"{first.tzname()} to {second.tzname()}).{how}", code="ambiguous")
    try:
        return values.in_range(first)
    except values.Invalid:  # the bounds are in UTC: say so, and show the time as it was written
        shown = f"{local.date().isoformat()} {local:%H:%M} {zone_name(zone)}"
        raise ValidationError(f"Must be between {values.FIRST_DAY} 00:00 and {values.LAST_DAY} 23:59 UTC, not "
                              f"{shown}.", code="out_of_range") from None


class _Local:
    """Reads the date and time naive, so that ``local_moment`` decides it (not Django's generic "may be ambiguous
    or may not exist"). ``zone``: the zone it is read in, a room's where the form knows it; else the current one."""

    zone = None

    def _aware(self, moment, offset_accepted):
        if timezone.is_aware(moment):
            return _read(values.in_range, moment)
        return local_moment(moment, self.zone, offset_accepted=offset_accepted)


class MomentField(_Local, forms.SplitDateTimeField):
    """A local date and time (the admin's two boxes), made aware in the current zone and bounded."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.fields = (DayField(required=False), self.fields[1])  # the date read as everywhere else

    def compress(self, data_list):
        if data_list and data_list[0] not in self.empty_values and data_list[1] not in self.empty_values:
            return self._aware(datetime.datetime.combine(*data_list), offset_accepted=False)
        return super().compress(data_list)  # Django's errors for a missing half


class LocalMomentField(_Local, forms.DateTimeField):
    """A local date and time in one box (YYYY-MM-DD HH:MM, or with its offset), made aware in the current zone and
    bounded."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, datetime.datetime):
            return self._aware(value, offset_accepted=True)
        text = str(value).strip()
        try:
            moment = parse_datetime(text) or forms.fields.BaseTemporalField.to_python(self, text)
        except (ValueError, ValidationError):  # ValueError: the shape of one, but no such day or hour
            raise ValidationError(f"Must be a date and time written YYYY-MM-DD HH:MM (e.g. 2026-03-03 02:30), "
                                  f"not {text!r}.", code="invalid") from None
        return self._aware(moment, offset_accepted=True)


class DecimalField(forms.DecimalField):
    """A plain decimal number in ASCII digits (a leading minus allowed), no exponent or underscore."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        text = str(value).strip()
        return _read(values.decimal, text, places=self.decimal_places, minimum=None)


class IntegerField(forms.IntegerField):
    """A whole number in ASCII digits (Python's int() also reads "1_000" and fullwidth digits)."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if type(value) is int:
            return value
        return _read(values.whole_text, str(value).strip())


class MoneyField(forms.DecimalField):
    """An amount of money: plain ASCII digits, never negative, at most two decimal places (``values.money``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal", "size": 8, "autocomplete": "off"}))
        super().__init__(max_digits=12, decimal_places=2, **kwargs)

    def to_python(self, value):
        if value in self.empty_values:
            return None
        return _read(values.money, str(value).strip())


class TextField(forms.CharField):
    """One line of printable text (or several, with ``single_line=False``), stripped (``values.text``)."""

    def __init__(self, *, max_length, single_line=True, **kwargs):
        self.single_line = single_line
        super().__init__(max_length=max_length, strip=False, **kwargs)

    def to_python(self, value):
        if value in self.empty_values:
            return ""
        return _read(values.text, value, max_length=self.max_length, required=False, single_line=self.single_line)
