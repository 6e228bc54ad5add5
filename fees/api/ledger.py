"""The ledger API: collection entries (single and bulk), rounds of play, reconciliations.

Floor supervisors and compliance officers of a table's establishment record entries and rounds and run
reconciliations there; regulators read everything in their jurisdiction; nobody else sees anything. Rows are
never changed or deleted (PUT, PATCH and DELETE are not offered): a correction is a new entry.
"""

import datetime

import django_filters
from celery.result import EagerResult
from django import forms
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom import values
from cardroom.access import scope_of
from cardroom.api.base import ScopedReadOnlyViewSet
from cardroom.api.fields import DayField, MomentField, MoneyField, TextField, WholeField
from cardroom.api.filters import DayBounded, FilterBackend
from cardroom.api.pagination import KeysetPagination
from cardroom.api.schema import may_conflict
from cardroom.models import Establishment
from fees import ledger
from fees.ledger import compact
from fees.models import CollectionEntry, Reconciliation, RoundOfPlay
from fees.months import overview
from fees.months.selectors import closed_months, closed_words
from fees.quotes import receipts

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", str, location=OpenApiParameter.HEADER, required=False,
    description="Key of the entry (single) or of the batch (bulk), when the body does not give one.",
)


def writable_table(scope, value, field="table"):
    table = ledger.writable_tables(scope).filter(pk=value).first()
    if table is None:
        raise exceptions.ValidationError({field: f"no table {value} among the tables you may record at."})
    return table


def reconcile_after_commit(table_days, user):
    """Once the batch is committed, the table-days it recorded on are reconciled by a task (a worker's, or
    in-process in the embedded default), so a large batch does not hold the request and the variance page shows
    them without waiting for the nightly run (``fees.tasks.reconcile_table_days``)."""
    from fees import tasks

    pairs = sorted([table_id, day.isoformat()] for table_id, day in table_days)
    transaction.on_commit(lambda: tasks.reconcile_table_days.delay(pairs, user.pk))


# -- serializers ---------------------------------------------------------------------------------------------

class PlacedSerializer(serializers.ModelSerializer):
    table_label = serializers.CharField(source="table.label", read_only=True)
    establishment = serializers.CharField(source="table.establishment.slug", read_only=True)


class CollectionEntrySerializer(PlacedSerializer):
    corrected_by = serializers.IntegerField(read_only=True, allow_null=True,
                                            help_text="The entry that corrects this one, if any.")
    effective = serializers.SerializerMethodField(help_text="Counted in reconciliation: no entry corrects it.")
    recorded_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = CollectionEntry
        fields = ["id", "idempotency_key", "table", "table_label", "establishment", "gaming_day", "reference",
                  "collected_at", "payer", "seat", "player", "fee_kind", "amount", "currency", "corrects",
                  "corrected_by", "effective", "reason", "recorded_by", "recorded_at"]

    def get_effective(self, entry) -> bool:
        return getattr(entry, "corrected_by", None) is None


class EntryInputSerializer(serializers.Serializer):
    """One collection entry as posted (documentation; the ledger service reads and checks the body)."""

    idempotency_key = TextField(max_length=100, required=False, help_text=(
        "Unique within the establishment. Required, unless the Idempotency-Key header gives it (one entry) or the "
        "batch has a key (a row without one is '<batch key>:<row index>')."))
    table = WholeField(required=False, min_value=1, help_text="Table id (not needed for a correction).")
    gaming_day = DayField(required=False, help_text="Default: the gaming day of collected_at in the room's time "
                                                    "zone; when given, it must be that day.")
    reference = TextField(max_length=64, required=False, help_text="Hand or round reference.")
    collected_at = MomentField(required=False, help_text="With its offset, e.g. 2026-03-03T02:30:00-08:00")
    payer = serializers.ChoiceField(choices=CollectionEntry.Payer.choices, required=False)
    seat = WholeField(required=False, allow_null=True, min_value=1)
    player = TextField(max_length=64, required=False, allow_blank=True)
    fee_kind = serializers.ChoiceField(choices=CollectionEntry.FeeKind.choices, required=False)
    amount = MoneyField(help_text="Decimal string, e.g. \"3.00\".")
    currency = serializers.CharField(required=False, help_text="If given, must be the table's currency.")
    corrects = WholeField(required=False, min_value=1, help_text="Id of the entry this one corrects.")
    corrects_key = TextField(max_length=100, required=False, help_text="Or its idempotency key.")
    reason = TextField(max_length=500, single_line=False, required=False, help_text="Required for a correction.")


class BulkInputSerializer(serializers.Serializer):
    idempotency_key = TextField(
        max_length=80, required=False, help_text="Batch key: a row without its own key gets '<batch key>:<row index>'."
    )
    entries = EntryInputSerializer(many=True, max_length=ledger.MAX_BATCH,
                                   help_text=f"At most {ledger.MAX_BATCH:,} entries.")


class BulkResultSerializer(serializers.Serializer):
    received = serializers.IntegerField()
    created = serializers.IntegerField()
    already_recorded = serializers.IntegerField()


class RebuiltField(serializers.JSONField):
    """One of a round's fee lines, fees by payer or explanation, rebuilt from its compact form
    (``fees.ledger.compact``) once per round; the pricings' bodies are read once per answer."""

    PARTS = ("explanation", "expected_lines", "expected_by_payer")

    def __init__(self, part, **kwargs):
        super().__init__(read_only=True, source="*", **kwargs)
        self.index = self.PARTS.index(part)

    def to_representation(self, round_):
        parts = getattr(round_, "_rebuilt", None)
        if parts is None:
            context = getattr(self.parent, "context", None)
            memo = context.setdefault("pricing_bodies", {}) if isinstance(context, dict) else None
            parts = round_._rebuilt = compact.rebuilt(round_, memo)
        return parts[self.index]


class RoundSerializer(PlacedSerializer):
    schedule = serializers.CharField(source="schedule_code", read_only=True)
    option = serializers.IntegerField(source="option_number", read_only=True)
    expected_by_payer = RebuiltField("expected_by_payer", help_text="Fees by payer (and player).")
    expected_lines = RebuiltField("expected_lines", help_text="The engine's fee lines.")
    explanation = RebuiltField("explanation", help_text="What was owed and why, as the engine explained it.")
    recorded_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = RoundOfPlay
        fields = ["id", "table", "table_label", "establishment", "gaming_day", "reference", "played_at", "facts",
                  "posting", "schedule", "schedule_version", "option", "expected_total", "currency",
                  "expected_by_payer", "expected_lines", "explanation", "recorded_by", "recorded_at"]


class RoundInputSerializer(serializers.Serializer):
    table = WholeField(min_value=1)
    gaming_day = DayField(required=False, help_text="Default: the gaming day of played_at in the room's time zone; "
                                                    "when given, it must be that day.")
    reference = TextField(max_length=64, help_text="Hand or round reference, unique per table and day.")
    played_at = MomentField()
    facts = serializers.JSONField(help_text=(
        "As in the quote API: {'wagers': [...]} (California), {'players', 'reached_flop', 'reached_river'} "
        "(poker) or {'game_started_at', 'game_ended_at', 'players': [...]} (time collection)."
    ))

    def validate(self, attrs):
        unknown = set(self.initial_data) - set(self.fields)
        if unknown:
            raise serializers.ValidationError(
                f"unknown field(s): {', '.join(sorted(unknown))}; what was played goes under 'facts'."
            )
        if not isinstance(attrs["facts"], dict):
            raise serializers.ValidationError({"facts": "must be an object: wagers, poker facts or a time period."})
        return attrs


class ReconciliationSerializer(PlacedSerializer):
    run_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Reconciliation
        fields = ["id", "table", "table_label", "establishment", "gaming_day", "trigger", "status", "currency",
                  "expected_total", "collected_total", "difference", "rounds", "entries", "hands", "hands_balanced",
                  "hands_with_variance", "variances", "owed_now_total", "retroactive_difference", "restatements",
                  "run_by", "run_at"]
        extra_kwargs = {"expected_total": {"help_text": "Owed when collected: each round priced under the version "
                                                        "its table's sign showed when it was played."}}

    retroactive_difference = serializers.DecimalField(
        max_digits=12, decimal_places=2, read_only=True, allow_null=True,
        help_text="Owed as known now minus owed when collected; null when no retroactive version applies.")


class ReconciliationRunSerializer(serializers.Serializer):
    table = WholeField(min_value=1)
    gaming_day = DayField()


# -- filters -------------------------------------------------------------------------------------------------

class IdFilter(django_filters.NumberFilter):
    """A row id: a whole number within what the database can hold (anything else is a 400)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", ledger.MAX_ID)
        super().__init__(*args, **kwargs)


class PlacedFilter(django_filters.FilterSet):
    table = IdFilter(field_name="table_id")
    establishment = django_filters.CharFilter(field_name="table__establishment__slug")
    gaming_day = django_filters.DateFilter()
    gaming_day_from = django_filters.DateFilter(field_name="gaming_day", lookup_expr="gte")
    gaming_day_to = django_filters.DateFilter(field_name="gaming_day", lookup_expr="lte")


LIST_DAYS = f"to list, this or gaming_day; at most {settings.LEDGER_LIST_MAX_DAYS} days from first to last"


class LedgerDaysFilter(DayBounded, PlacedFilter):
    """A list of entries or rounds names its gaming days (``DayBounded``): the tables are partitioned by month of
    gaming day on PostgreSQL (fees.months.partitions), and a list reads only its days' months."""

    gaming_day = django_filters.DateFilter(help_text="One gaming day (or gaming_day_from and gaming_day_to).")
    gaming_day_from = django_filters.DateFilter(field_name="gaming_day", lookup_expr="gte",
                                                help_text=f"The first gaming day listed, included ({LIST_DAYS}).")
    gaming_day_to = django_filters.DateFilter(field_name="gaming_day", lookup_expr="lte",
                                              help_text=f"The last gaming day listed, included ({LIST_DAYS}).")


class EntryFilter(LedgerDaysFilter):
    reference = django_filters.CharFilter()
    payer = django_filters.ChoiceFilter(choices=CollectionEntry.Payer.choices)
    fee_kind = django_filters.ChoiceFilter(choices=CollectionEntry.FeeKind.choices)
    effective = django_filters.BooleanFilter(method="filter_effective")

    class Meta:
        model = CollectionEntry
        fields = []


    def filter_effective(self, queryset, name, value):
        # As an EXISTS on the day's corrections (a correction keeps its original's day, so its partition), which
        # PostgreSQL can read as a join of the day's few corrections, not a lookup per row.
        corrected = Exists(CollectionEntry.objects.filter(corrects=OuterRef("pk"), gaming_day=OuterRef("gaming_day")))
        return queryset.exclude(corrected) if value else queryset.filter(corrected)


class RoundFilter(LedgerDaysFilter):
    reference = django_filters.CharFilter()

    class Meta:
        model = RoundOfPlay
        fields = []


class ReconciliationFilter(PlacedFilter):
    status = django_filters.ChoiceFilter(choices=Reconciliation.Status.choices)
    trigger = django_filters.ChoiceFilter(choices=Reconciliation.Trigger.choices)

    class Meta:
        model = Reconciliation
        fields = []


# -- viewsets ------------------------------------------------------------------------------------------------

class LedgerViewSet(ScopedReadOnlyViewSet):
    lookup_value_regex = "[0-9]{1,18}"
    # Recording: the establishment's staff, at the tables ``ledger.writable_tables`` lets them write to.
    permission_names = {"*": "cardroom.view_records", "create": "fees.record_ledger", "bulk": "fees.record_ledger",
                        "run": "fees.record_ledger"}

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.establishments_q("table__establishment__"))


class BigLedgerViewSet(LedgerViewSet):
    """Entries and rounds: millions of rows a month. A list names its gaming days (at most
    settings.LEDGER_LIST_MAX_DAYS: ``LedgerDaysFilter``) and pages by key (``KeysetPagination``) in one order, a
    day's rows table by table, each table's in the order recorded: the key of the index reconciliation reads
    (gaming day, table), and the row's id. Nothing counts the list, nothing skips rows to reach a page. A list
    whose days fall in a closed month says so (``closed_months``: its rows are in its audit bundle, not here)."""

    pagination_class = KeysetPagination
    keyset = ("gaming_day", "table_id", "id")
    filter_backends = [FilterBackend]  # no ?ordering=: the pages follow the key

    def list(self, request, *args, **kwargs):
        response = super().list(request, *args, **kwargs)  # the days are valid and bounded once it answers
        params = request.query_params
        first, last = (params.get("gaming_day") or params.get("gaming_day_from"),
                       params.get("gaming_day") or params.get("gaming_day_to"))
        if isinstance(response.data, dict) and first and last:
            response.data["closed_months"] = closed_months_listed(datetime.date.fromisoformat(first),
                                                                  datetime.date.fromisoformat(last))
        return response


def closed_months_listed(first, last):
    """The closed months of a period as the API lists them (the ledger lists' ``closed_months``, the months
    endpoint): one query."""
    return [{"month": f"{c.month:%Y-%m}", "closed_at": c.closed_at.isoformat(), "closed_by": c.closed_by,
             "archived": c.archived, "says": closed_words(c)} for c in closed_months(first, last)]


class CollectionEntryViewSet(BigLedgerViewSet):
    """What was collected at the tables, a list of gaming days at a time. ``POST`` one entry here, or thousands to
    ``bulk/``."""

    # A correction keeps the gaming day of the entry it corrects: looked for on that day, it is looked for in
    # that day's partition alone.
    queryset = CollectionEntry.objects.select_related("table__establishment", "recorded_by").annotate(
        corrected_by=Subquery(CollectionEntry.objects.filter(
            corrects=OuterRef("pk"), gaming_day=OuterRef("gaming_day")).values("pk")[:1])
    )
    serializer_class = CollectionEntrySerializer
    filterset_class = EntryFilter

    @extend_schema(request=EntryInputSerializer, parameters=[IDEMPOTENCY_HEADER],
                   responses={201: CollectionEntrySerializer, 200: CollectionEntrySerializer})
    @may_conflict("the idempotency key is already recorded for a different entry, the entry corrected has "
                  "been corrected already, or a concurrent batch held the ledger.")
    def create(self, request, *args, **kwargs):
        """Record one entry (201), or return the one already recorded under its idempotency key (200)."""
        scope = scope_of(request)  # fees.record_ledger held: asked by the view
        entry, created = ledger.record_entry(request.data, scope=scope, user=request.user,
                                             key=request.headers.get("Idempotency-Key"))
        entry = self.get_queryset().get(pk=entry.pk)
        return Response(self.get_serializer(entry).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(request=BulkInputSerializer, parameters=[IDEMPOTENCY_HEADER],
                   responses={201: BulkResultSerializer, 200: BulkResultSerializer})
    @may_conflict("a row's idempotency key is already recorded for a different entry, an entry corrected has "
                  "been corrected already, or a concurrent batch held the ledger. Nothing was recorded.")
    @action(detail=False, methods=["post"], max_body_bytes=settings.LEDGER_BULK_MAX_BYTES)
    def bulk(self, request):
        """Record a batch, all or nothing: one bad row rejects it (400 naming the row) and nothing is saved.

        Retrying a batch records nothing twice: the answer counts rows created and rows already recorded.
        201 when anything was created, 200 when everything was already recorded. Once a batch that created
        anything is committed, the gaming days it touched are reconciled, per table, by a task.
        """
        scope = scope_of(request)  # fees.record_ledger held: asked by the view
        body = values.obj(request.data, allowed=("idempotency_key", "entries"), required=("entries",),
                          what='The body ({"idempotency_key": ..., "entries": [...]})')
        batch_key = body.get("idempotency_key", request.headers.get("Idempotency-Key"))
        result = ledger.record_entries(body.get("entries"), scope=scope, user=request.user, batch_key=batch_key)
        if result.created:
            reconcile_after_commit(result.table_days, request.user)
        return Response(result.as_dict(), status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


class RoundViewSet(BigLedgerViewSet):
    """Rounds of play with the fee the engine expected against the posting in force at the table, a list of
    gaming days at a time."""

    queryset = compact.with_pricing_digest(RoundOfPlay.objects.select_related("table__establishment", "recorded_by"))
    serializer_class = RoundSerializer
    filterset_class = RoundFilter

    @extend_schema(request=RoundInputSerializer, responses={201: RoundSerializer, 200: RoundSerializer})
    @may_conflict("the table, day and reference are already recorded with different facts.")
    def create(self, request, *args, **kwargs):
        """Record a round (201); the same table, day and reference with the same facts returns it (200)."""
        scope = scope_of(request)  # fees.record_ledger held: asked by the view
        data = RoundInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        table = writable_table(scope, values["table"])
        round_, created = ledger.record_round(
            table=table, gaming_day=values.get("gaming_day"), reference=values["reference"].strip(),
            played_at=values["played_at"], facts=values["facts"], user=request.user,
        )
        round_ = self.get_queryset().get(pk=round_.pk)
        return Response(self.get_serializer(round_).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ReconciliationViewSet(LedgerViewSet):
    """Reconciliations per table and gaming day: expected against collected, with the variances hand by hand."""

    queryset = Reconciliation.objects.select_related("table__establishment", "run_by")
    serializer_class = ReconciliationSerializer
    filterset_class = ReconciliationFilter
    ordering_fields = ["run_at", "gaming_day"]

    @extend_schema(
        request=ReconciliationRunSerializer,
        responses={201: ReconciliationSerializer, 202: inline_serializer("ReconciliationQueued", {
            "task_id": serializers.CharField(), "table": serializers.IntegerField(),
            "gaming_day": serializers.DateField(), "status": serializers.CharField()})},
    )
    @action(detail=False, methods=["post"])
    def run(self, request):
        """Reconcile one table and gaming day now (through the task queue). 201 with the result when the task
        ran in-process; 202 with the task id when a worker will run it."""
        from fees import tasks

        scope = scope_of(request)  # fees.record_ledger held: asked by the view
        data = ReconciliationRunSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = writable_table(scope, data.validated_data["table"])
        day = data.validated_data["gaming_day"]
        result = tasks.reconcile_table_day.delay(table.pk, day.isoformat(), request.user.pk)
        if isinstance(result, EagerResult):
            reconciliation = self.get_queryset().get(pk=result.get())
            return Response(self.get_serializer(reconciliation).data, status=status.HTTP_201_CREATED)
        return Response({"task_id": result.id, "table": table.pk, "gaming_day": day.isoformat(), "status": "queued"},
                        status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description=(
        "A cardroom.reconciliation/1 receipt (docs/receipts.md): the table, gaming day and hands counted, the "
        "result, the schedule versions the rounds were priced under with their content hashes, hashed as a whole."))})
    @action(detail=True, methods=["get"])
    def receipt(self, request, pk=None):
        """The receipt of this reconciliation, to check later with ``python manage.py replay_receipt``."""
        return Response(receipts.reconciliation_receipt(self.get_object(), user=request.user))


class MonthsView(APIView):
    """GET /api/v1/ledger/months?establishment=<slug>: the Months page's JSON twin (``fees.months.overview``)."""

    permission_names = {"get": "cardroom.view_records"}  # as the ledger lists: whoever sees the room's ledger

    @extend_schema(parameters=[OpenApiParameter("establishment", str, required=True, description=(
        "The establishment (its slug): one whose ledger you may see."))],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description=(
            "Each month of the room's ledger, newest first: its state (open, held, closing, closed, removed) and "
            "why it is held, its totals per currency (decimal strings; a closed month's as its closing sealed them, "
            "'totals_from': 'sealed'), its audit bundles (file, SHA-256, bytes, whether still kept), who closed it "
            "and when, earlier closings reopened, and where the live rows differ from the seal.")),
            404: OpenApiResponse(description="No establishment of that slug among those whose ledger you may see.")})
    def get(self, request):
        """A room's months: open, held and why, closing, closed or with its archive removed, with their totals."""
        scope = scope_of(request)
        slug = request.query_params.get("establishment")
        if slug in (None, ""):
            raise exceptions.ValidationError({"establishment": "is required: the slug of the establishment."})
        establishment = (Establishment.objects.filter(scope.establishments_q()).select_related("jurisdiction")
                         .filter(slug=slug).first())
        if establishment is None:
            raise exceptions.NotFound(f"No establishment {slug!r} among those whose ledger you may see.")
        months = overview.room_months(establishment)
        return Response({"establishment": establishment.slug, "close_after_days": settings.LEDGER_CLOSE_AFTER_DAYS,
                         "states": {state: words for state, (_, words) in overview.STATES.items()},
                         "months": [m.as_dict() for m in months]})
