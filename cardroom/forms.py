"""Form fields that read through ``cardroom.values``, for the admin and the pages: a form accepts exactly what
the API accepts (Django's own fields take year 1, "1e3", "1_000" and fullwidth digits)."""

import datetime

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from . import values


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


class MomentField(forms.SplitDateTimeField):
    """A local date and time (the admin's two boxes), made aware in the current zone and bounded."""

    def compress(self, data_list):
        moment = super().compress(data_list)
        if moment is None:
            return None
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment)
        return _read(values.in_range, moment)


class LocalMomentField(forms.DateTimeField):
    """A local date and time in one box (YYYY-MM-DD HH:MM), made aware in the current zone and bounded."""

    def to_python(self, value):
        moment = super().to_python(value)
        if moment is None:
            return None
        return _read(values.in_range, moment)


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
