"""GET /api/v1/schedules/{code}/versions/{number}/impact: what a version would have collected over recorded rounds
(``fees.quotes.impact``), for the page before publishing and for anyone who sees the version and the establishment's
ledger. Scoped as the schedules API: drafts only for those who may edit the schedule, else 404."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom import values
from cardroom.access import scope_of
from cardroom.models import Establishment
from fees.models import FeeTier, ScheduleDocument, ScheduleVersion
from fees.quotes import impact
from fees.schedules import selectors as drafts

from .ledger import ReconciliationSerializer
from .views import MAX_VERSION_NUMBER

PARAMETERS = [
    OpenApiParameter("establishment", str, required=True, description=(
        "The establishment (its slug) whose recorded rounds are priced again: one whose ledger you may see, where "
        "the schedule can be posted.")),
    OpenApiParameter("from", {"type": "string", "format": "date"}, required=False, description=(
        "First gaming day (YYYY-MM-DD). Give both from and to, or neither: then from the version's effective date "
        f"to today for a retroactive version, else the last {impact.DEFAULT_DAYS} gaming days with rounds of the "
        f"schedule there. At most {impact.MAX_DAYS} days.")),
    OpenApiParameter("to", {"type": "string", "format": "date"}, required=False,
                     description="Last gaming day (YYYY-MM-DD), at most 92 days after from."),
]


@extend_schema_field({"type": "string", "pattern": r"^-?[0-9]+\.[0-9]{2}$", "example": "-12.50",
                      "description": "An amount of money (may be negative) as a decimal string, in 'currency'."})
class SignedMoneyField(serializers.Field):
    def to_representation(self, value):
        return f"{value:.2f}"


class ImpactFiguresSerializer(serializers.Serializer):
    rounds = serializers.IntegerField(help_text="Rounds recorded.")
    expected = SignedMoneyField(help_text="What was expected for them when recorded, under the version then in force.")
    repriced = SignedMoneyField(help_text="What this version would expect for the rounds it can price.")
    difference = SignedMoneyField(help_text="repriced minus expected, over the rounds this version can price.")
    unpriced = serializers.IntegerField(help_text="Rounds this version cannot price (see problems).")


class ImpactDaySerializer(serializers.Serializer):
    table = serializers.IntegerField(source="table.pk")
    table_label = serializers.CharField(source="table.label")
    gaming_day = serializers.DateField(source="day")
    priced_under = serializers.ListField(child=serializers.IntegerField(), source="versions",
                                         help_text="The versions its rounds were priced under.")
    rounds = serializers.IntegerField(source="figures.rounds")
    expected = SignedMoneyField(source="figures.expected")
    repriced = SignedMoneyField(source="figures.repriced")
    difference = SignedMoneyField(source="figures.difference")
    unpriced = serializers.IntegerField(source="figures.unpriced")


class ImpactProblemSerializer(serializers.Serializer):
    option = serializers.IntegerField()
    message = serializers.CharField(help_text="Why this version cannot price these rounds.")
    rounds = serializers.IntegerField()


class ImpactTierSerializer(serializers.Serializer):
    order = serializers.IntegerField(help_text="Position within the option, as printed.")
    measure = serializers.ChoiceField(choices=FeeTier.Measure.choices)
    lower = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    upper = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    fee = serializers.DecimalField(max_digits=12, decimal_places=2)
    printed_bounds = serializers.CharField(allow_blank=True)
    printed_fee = serializers.CharField(allow_blank=True)


class ImpactEdgeSerializer(serializers.Serializer):
    priced_under = serializers.IntegerField(help_text="The version compared with (the rounds were priced under it).")
    option = serializers.IntegerField()
    # Text, not an enum: the same choices as the diff's TierChange.status, named once in the schema there.
    status = serializers.CharField(help_text="changed, added or removed (fees.engine.diff: tiers matched by what they are).")
    fee_kind = serializers.ChoiceField(choices=FeeTier.FeeKind.choices)
    fields = serializers.ListField(child=serializers.CharField(), help_text="What differs, as a person names it.")
    before = ImpactTierSerializer(allow_null=True, help_text="The tier as priced under; null when added.")
    after = ImpactTierSerializer(allow_null=True, help_text="This version's tier; null when removed.")
    rounds = serializers.IntegerField(help_text="Rounds with a fee priced by either tier.")
    difference = SignedMoneyField(help_text="The part of the difference this tier accounts for.")


class ImpactPostingSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="posting.pk")
    table = serializers.IntegerField(source="posting.table_id")
    table_label = serializers.CharField(source="posting.table.label")
    option = serializers.IntegerField(source="posting.option_number")
    effective_from = serializers.DateTimeField(source="posting.effective_from")
    until = serializers.DateTimeField(allow_null=True, help_text="When the next posting took over; null: in force.")


# Declared with type(): fields named "from" and "to", like the query's parameters.
PeriodSerializer = type("ImpactPeriodSerializer", (serializers.Serializer,), {
    "__module__": __name__, "from": serializers.DateField(), "to": serializers.DateField(),
})


class ImpactReachSerializer(serializers.Serializer):
    period = PeriodSerializer(source="*", help_text="From the version's effective date to today.")
    postings = ImpactPostingSerializer(many=True, help_text="Postings of the schedule there in force in the period.")
    reconciliations = ReconciliationSerializer(many=True, help_text=(
        "The latest reconciliation of each of their tables and gaming days in the period, in open months: publishing "
        "reconciles them again, recording what is owed as known now beside what was owed when collected."))
    runs = serializers.IntegerField(help_text="Every reconciliation run on those tables and days, earlier ones too.")
    closed_months = serializers.ListField(child=serializers.DateField(), help_text=(
        "First days of the closed months in the period: publishing leaves them as they are (reopening one first, "
        "with manage.py reopen_month, is what would restate it)."))


class ImpactSerializer(serializers.Serializer):
    schedule = serializers.CharField()
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ScheduleVersion.Status.choices)
    effective_from = serializers.DateField(allow_null=True)
    establishment = serializers.CharField()
    period = PeriodSerializer()
    currency = serializers.CharField(help_text="Every amount in the answer is in this currency.")
    totals = ImpactFiguresSerializer()
    days = ImpactDaySerializer(many=True, help_text="Per table and gaming day with rounds, in floor order then by day.")
    problems = ImpactProblemSerializer(many=True)
    tier_edges = ImpactEdgeSerializer(many=True, help_text=(
        "Tiers that differ from the version the rounds were priced under, those that move the most first."))
    unattributed = SignedMoneyField(help_text="The part of the difference no tier accounts for (an option's basis "
                                              "changed, say).")
    retroactive = ImpactReachSerializer(allow_null=True, help_text=(
        "For a version not yet published dated before today: what publishing it reaches back to; else null."))




def _day(request, name):
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return None
    return values.named(name, values.day, raw)


class ImpactView(APIView):
    permission_names = {"get": "cardroom.view_records"}  # a draft's impact: fees.view_drafts (fees.schedules.selectors)

    @extend_schema(parameters=PARAMETERS, responses=ImpactSerializer)
    def get(self, request, code, number):
        """What this version would have collected over the rounds recorded at an establishment in a period, against
        what the versions in force then expected: per table and gaming day, in total, and the tier edges that move
        the most; for a retroactive version, the postings and reconciliations publishing it would change."""
        scope = scope_of(request)
        document = get_object_or_404(ScheduleDocument.objects.filter(scope.placed_q()), code=code)
        if number > MAX_VERSION_NUMBER:
            raise exceptions.NotFound(f"{document.code} has no version {number}.")
        version = (drafts.visible_versions(request.user, document).filter(number=number)
                   .select_related("document__source").first())
        if version is None:  # a draft the user may not see is answered as one that does not exist
            raise exceptions.NotFound(f"{document.code} has no version {number}.")
        slug = request.query_params.get("establishment")
        if slug in (None, ""):
            raise exceptions.ValidationError({"establishment": "is required: the slug of the establishment whose "
                                                               "rounds are priced again."})
        establishment = (Establishment.objects.filter(scope.establishments_q()).select_related("jurisdiction")
                         .filter(slug=slug).first())
        if establishment is None:
            raise exceptions.ValidationError({"establishment": f"no establishment {slug!r} among those whose ledger "
                                                               "you may see."})
        start, end = _day(request, "from"), _day(request, "to")
        if (start is None) != (end is None):
            raise exceptions.ValidationError("Give both from and to, or neither for the default period.")
        if start is None:
            start, end = impact.default_period(version, establishment)
        report = impact.impact(version, establishment, start, end)
        reach = impact.reach(version, establishment)
        figures = report.figures
        return Response(ImpactSerializer({
            "schedule": document.code, "version": version.number, "status": version.status,
            "effective_from": version.effective_from, "establishment": establishment.slug,
            "period": {"from": start, "to": end}, "currency": report.currency, "totals": figures.totals,
            "days": report.rows, "problems": figures.problems, "tier_edges": [
                {"priced_under": e.priced_under, "option": e.option, "status": e.status, "fee_kind": e.fee_kind,
                 "fields": e.fields, "before": e.before, "after": e.after, "rounds": e.rounds,
                 "difference": e.difference} for e in figures.edges],
            "unattributed": figures.unattributed,
            "retroactive": None if reach is None else {
                "from": reach.start, "to": reach.end,
                "postings": [{"posting": posting, "until": until} for posting, until in reach.postings],
                "reconciliations": reach.reconciliations, "runs": reach.runs,
                "closed_months": reach.closed_months},
        }).data)
