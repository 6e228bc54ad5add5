import django_filters
from django.db.models import Prefetch

from cardroom.models import Approval, Establishment, Game, Jurisdiction, Paytable, Table

from . import serializers
from .base import ScopedReadOnlyViewSet


class JurisdictionViewSet(ScopedReadOnlyViewSet):
    queryset = Jurisdiction.objects.all()
    serializer_class = serializers.JurisdictionSerializer
    lookup_field = "code"

    def scope_queryset(self, queryset, scope):
        return queryset.filter(pk__in=scope.jurisdictions_qs().values("pk"))


class EstablishmentViewSet(ScopedReadOnlyViewSet):
    queryset = Establishment.objects.select_related("jurisdiction")
    serializer_class = serializers.EstablishmentSerializer
    lookup_field = "slug"
    filterset_fields = {"jurisdiction__code": ["exact"], "kind": ["exact"]}
    ordering_fields = ["name", "slug"]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.establishments_q())


class TableViewSet(ScopedReadOnlyViewSet):
    queryset = Table.objects.select_related("establishment", "game")
    serializer_class = serializers.TableSerializer
    filterset_fields = {"establishment__slug": ["exact"], "game__slug": ["exact"], "active": ["exact"]}
    ordering_fields = ["label", "establishment__name"]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.establishments_q("establishment__"))


class GameFilter(django_filters.FilterSet):
    registration_number = django_filters.CharFilter(lookup_expr="iexact")
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Game
        fields = ["category", "registration_number", "name"]


class GameViewSet(ScopedReadOnlyViewSet):
    queryset = Game.objects.select_related("source").prefetch_related("rules__source", "bet_limits__source")
    serializer_class = serializers.GameSerializer
    lookup_field = "slug"
    filterset_class = GameFilter
    ordering_fields = ["name", "registration_number"]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(pk__in=Game.objects.filter(scope.games_q()).values("pk"))


class PaytableViewSet(ScopedReadOnlyViewSet):
    queryset = Paytable.objects.select_related("game", "source").prefetch_related(
        "lines", "house_edges__source", "house_edges__approval"
    )
    serializer_class = serializers.PaytableSerializer
    filterset_fields = {"game__slug": ["exact"], "bet": ["exact", "icontains"], "number": ["exact"]}

    def scope_queryset(self, queryset, scope):
        return queryset.filter(game__in=Game.objects.filter(scope.games_q()).values("pk"))


class ApprovalViewSet(ScopedReadOnlyViewSet):
    queryset = Approval.objects.select_related("game", "jurisdiction", "establishment", "source").prefetch_related(
        "conditions", Prefetch("house_edges__source"), "house_edges__approval"
    )
    serializer_class = serializers.ApprovalSerializer
    lookup_field = "key"
    filterset_fields = {
        "game__slug": ["exact"], "jurisdiction__code": ["exact"], "establishment__slug": ["exact"],
        "status": ["exact"], "scope": ["exact"],
    }
    ordering_fields = ["decided_on", "effective_from", "key"]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.placed_q())
