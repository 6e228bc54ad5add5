"""The list filters (django-filter), read as strictly as everything else: a true/false filter given anything but
true or false is refused (400), where django-filter would quietly not filter at all. An empty value is the
same as leaving the parameter out (an HTML form sends every field), and the schema says so (allowEmptyValue).

A list of a table too big to read whole (the ledger: millions of rows a month) names the days it reads
(``DayBounded``), so that the database reads those days' partitions and no others."""

import django_filters
from django.conf import settings
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError

TRUE_OR_FALSE = {"true", "false", "True", "False", "1", "0"}


class DayBounded:
    """A FilterSet whose list must name its gaming days: one (``gaming_day``), or a range (``gaming_day_from`` and
    ``gaming_day_to``, both included) of at most settings.LEDGER_LIST_MAX_DAYS days. One row, by its id, needs
    none. The FilterSet declares the three date filters; FilterBackend asks ``days_refused`` of a list."""

    one_day, first_day, last_day = "gaming_day", "gaming_day_from", "gaming_day_to"

    def days_refused(self):
        """{parameter: why} for a list whose (valid) filters do not bound its days; {} when they do."""
        days = self.form.cleaned_data
        one, first, last = days.get(self.one_day), days.get(self.first_day), days.get(self.last_day)
        limit = settings.LEDGER_LIST_MAX_DAYS
        most = f"at most {limit} days from {self.first_day}, both included"
        if one is not None:
            return {}
        if first is None and last is None:
            what = self._meta.model._meta.verbose_name_plural
            return {self.first_day: (
                f"a list of {what} names its gaming days: {self.one_day} (one day), or {self.first_day} and "
                f"{self.last_day} ({most}).")}
        if last is None:
            return {self.last_day: f"is required with {self.first_day}: the last gaming day listed, {most}."}
        if first is None:
            return {self.first_day: f"is required with {self.last_day}: the first gaming day listed, at most "
                                    f"{limit} days before {self.last_day}, both included."}
        if last < first:
            return {self.last_day: f"must not be before {self.first_day} ({first.isoformat()})."}
        span = (last - first).days + 1
        if span > limit:
            return {self.last_day: f"must be {most}: {first.isoformat()} to {last.isoformat()} is {span:,} days."}
        return {}


class FilterBackend(DjangoFilterBackend):
    def get_filterset(self, request, queryset, view):
        filterset = super().get_filterset(request, queryset, view)
        if filterset is not None:
            refused = {
                name: f"must be true or false, not {request.query_params[name][:40]!r}."
                for name, declared in filterset.filters.items()
                if isinstance(declared, django_filters.BooleanFilter)
                and request.query_params.get(name, "") not in TRUE_OR_FALSE | {""}
            }
            if isinstance(filterset, DayBounded) and getattr(view, "action", None) == "list" and filterset.is_valid():
                refused.update(filterset.days_refused())
            if refused:
                raise ValidationError(refused)
        return filterset
