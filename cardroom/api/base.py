"""Shared pieces of the API: scoped read-only viewsets, citations, date parameters."""

import datetime

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, serializers, viewsets

from cardroom.access import Scope


def scope_of(request):
    if not hasattr(request, "_cardroom_scope"):
        request._cardroom_scope = Scope(request.user)
    return request._cardroom_scope


def as_of_param(request, name="as_of"):
    """The ``?as_of=YYYY-MM-DD`` date, today (in the service's time zone) when absent."""
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return timezone.localdate()
    try:
        return datetime.date.fromisoformat(raw)
    except ValueError:
        raise exceptions.ValidationError({name: f"must be a date written YYYY-MM-DD, not {raw!r}."}) from None


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

    def scope_queryset(self, queryset, scope):
        raise NotImplementedError

    def get_queryset(self):
        return self.scope_queryset(super().get_queryset(), scope_of(self.request))
