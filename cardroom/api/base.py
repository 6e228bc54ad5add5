"""Shared pieces of the API: scoped read-only viewsets, citations, date parameters."""

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, viewsets

from cardroom import values
from cardroom.access import scope_of


def as_of_param(request, name="as_of"):
    """The ``?as_of=YYYY-MM-DD`` date, today (in the service's time zone) when absent."""
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return timezone.localdate()
    return values.named(name, values.day, raw)


def known_at_param(request, name="known_at"):
    """The ``?known_at=`` moment (a day: its end), or None for the record as it stands now."""
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return None
    return values.named(name, values.known_at, raw, zone=timezone.get_current_timezone())


@extend_schema_field(OpenApiTypes.OBJECT)
class CitationField(serializers.Field):
    """Where a row came from: {"source": key, "title": ..., "citation": ...}."""

    def __init__(self, **kwargs):
        kwargs.setdefault("source", "*")
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, obj):
        return {"source": obj.source.key, "title": obj.source.title, "citation": obj.citation}


class ScopedReadOnlyViewSet(viewsets.ReadOnlyModelViewSet):
    """A read-only viewset whose rows are filtered to what the requesting user may see."""

    # The largest request body accepted (cardroom.middleware); an action may raise it: @action(max_body_bytes=...).
    max_body_bytes = None
    # Reading needs only a sign-in: the rows are the user's scope. A subclass that writes names each write's
    # permission beside this (cardroom.api.permissions).
    permission_names = {"*": "cardroom.view_records"}

    def __init_subclass__(cls, **kwargs):
        """A row id in the address is digits only (at most 18: a bigint). DRF's default, anything up to a slash
        or a dot, let ``/tables/7%0C/`` reach table 7: int() strips the form feed."""
        super().__init_subclass__(**kwargs)
        if cls.lookup_field == "pk" and "lookup_value_regex" not in vars(cls):
            cls.lookup_value_regex = "[0-9]{1,18}"

    def scope_queryset(self, queryset, scope):
        raise NotImplementedError

    def get_queryset(self):
        return self.scope_queryset(super().get_queryset(), scope_of(self.request))
