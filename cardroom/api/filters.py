"""The list filters (django-filter), read as strictly as everything else: a true/false filter given anything but
true or false is refused (400), where django-filter would quietly not filter at all. An empty value is the
same as leaving the parameter out (an HTML form sends every field), and the schema says so (allowEmptyValue)."""

import django_filters
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError

TRUE_OR_FALSE = {"true", "false", "True", "False", "1", "0"}


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
            if refused:
                raise ValidationError(refused)
        return filterset
