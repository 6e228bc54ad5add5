"""Compliance API: check a proposed posting (saves nothing), stored validation runs and their findings."""

import datetime

from django.db.models import Q
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom import permissions
from cardroom.access import scope_of
from cardroom.api.base import ScopedReadOnlyViewSet
from cardroom.api.fields import DayField, TextField, WholeField
from cardroom.api.permissions import READ
from cardroom.api.schema import may_conflict
from cardroom.models import Establishment
from fees.models import ScheduleVersion

from . import checking, findings, services
from .models import Finding, RuleParameter, ValidationRun

EXAMPLE = {
    "jurisdiction": "CA", "game": "GEGR-002247", "schedule": "GEGA-002888", "option": 7, "min_wager": "5",
    "max_wager": "500", "seats": 6, "bonus_limits": {"pair_plus": "100"}, "as_of": "2026-11-21",
}
# A house-banked game without a collection schedule: rules, decks, a paytable per bonus bet (docs/compliance.md).
HOUSE_BANKED_EXAMPLE = {
    "establishment": "demo-evergreen-card-room", "game": "one-for-the-money",
    "rules": "Perfect Match (WSGC enclosure 2014)", "decks": 6, "min_wager": "10", "max_wager": "300",
    "bonus_limits": {"Perfect Match": "5"}, "paytables": {"Perfect Match": "WSGC 1"},
    "aggregate_payout_limit": "1000", "as_of": "2026-11-21",
}


class CheckView(APIView):
    """Check a proposed table posting against the rules in force on ``as_of``. Nothing is saved."""

    permission_names = {"post": "cardroom.view_records"}  # a question, not a change: whoever reads may ask

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT,
                   examples=[OpenApiExample("California posting", request_only=True, value=EXAMPLE),
                             OpenApiExample("Washington house-banked posting", request_only=True,
                                            value=HOUSE_BANKED_EXAMPLE)])
    def post(self, request):
        body = checking.check_request(request.data, scope=scope_of(request), today=timezone.localdate())
        return Response(body)


class FindingSerializer(serializers.ModelSerializer):
    acknowledged = serializers.BooleanField(read_only=True)
    table = serializers.SerializerMethodField()
    schedule = serializers.SerializerMethodField()

    class Meta:
        model = Finding
        fields = ["id", "run", "rule", "severity", "subject_type", "subject", "message", "citation", "parameters",
                  "establishment", "table", "schedule", "option_number", "acknowledged", "acknowledged_at",
                  "acknowledged_by", "acknowledgement_reason", "acknowledgement_of", "facts", "changes"]

    def get_table(self, obj) -> str | None:
        return obj.table.label if obj.table_id else None

    def get_schedule(self, obj) -> str | None:
        return obj.schedule.code if obj.schedule_id else None


class RunSerializer(serializers.ModelSerializer):
    ok = serializers.BooleanField(read_only=True)
    establishment = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    schedule_version = serializers.StringRelatedField()

    class Meta:
        model = ValidationRun
        fields = ["id", "kind", "trigger", "as_of", "establishment", "schedule_version", "created_at",
                  "postings_checked", "options_linted", "errors", "warnings", "infos", "ok"]


class ValidationRunInputSerializer(serializers.Serializer):
    establishment = TextField(max_length=80, required=False, help_text="The establishment's slug (or id).")
    schedule = TextField(max_length=40, required=False, help_text="A schedule's code.")
    version = WholeField(required=False, min_value=1, max_value=10_000)
    everything = serializers.BooleanField(required=False, default=False)
    as_of = DayField(required=False)


class ParameterSerializer(serializers.ModelSerializer):
    jurisdiction = serializers.SlugRelatedField(slug_field="code", read_only=True)
    source = serializers.SlugRelatedField(slug_field="key", read_only=True)

    class Meta:
        model = RuleParameter
        fields = ["id", "jurisdiction", "key", "value", "unit", "effective_from", "status", "source", "citation",
                  "note"]


def runs_q(scope):
    """Runs over an establishment or a schedule the user may see; runs over everything: those who may validate
    everything (their findings are still visible, one by one, to everyone who may see each place)."""
    placed = permissions.where(scope, READ, ValidationRun)
    scheduled = permissions.where(scope, READ, ValidationRun, via="schedule_version__document")
    everything = permissions.where(scope, services.EVERYTHING, ValidationRun)
    return Q(establishment__isnull=False) & placed | Q(schedule_version__isnull=False) & scheduled | everything


class RunViewSet(ScopedReadOnlyViewSet):
    """Validation runs you may see; ``POST run/`` starts one (compliance officers and administrators)."""

    queryset = ValidationRun.objects.select_related("establishment", "schedule_version__document")
    serializer_class = RunSerializer
    filterset_fields = ["kind", "trigger", "establishment__slug"]
    permission_names = {"*": "cardroom.view_records", "run": "compliance.run_validation"}

    def scope_queryset(self, queryset, scope):
        return queryset.filter(runs_q(scope)).distinct()

    @extend_schema(request=ValidationRunInputSerializer, responses={201: RunSerializer})
    @action(detail=False, methods=["post"])
    def run(self, request):
        scope = scope_of(request)
        data = ValidationRunInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        as_of = values.get("as_of") or timezone.localdate()
        if values.get("establishment"):
            key = values["establishment"]
            qs = Establishment.objects.filter(scope.establishments_q())
            establishment = qs.by_key(key)
            if establishment is None:
                raise exceptions.ValidationError({"establishment": f"Unknown establishment {key!r}."})
            run = services.run_establishment(request.user, establishment=establishment, as_of=as_of)
        elif values.get("schedule"):
            version = ScheduleVersion.objects.filter(
                document__code=values["schedule"], status=ScheduleVersion.Status.PUBLISHED,
                **({"number": values["version"]} if values.get("version") else {}),
            ).filter(scope.placed_q("document__")).order_by("-number").first()
            if version is None:
                raise exceptions.ValidationError({"schedule": f"Unknown published schedule {values['schedule']!r}."})
            run = services.run_schedule(request.user, version=version, as_of=as_of)
        elif values.get("everything"):
            run = services.run_everything(request.user, as_of=as_of)
        else:
            raise exceptions.ValidationError({"detail": "Say what to validate: establishment, schedule or everything."})
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


class AcknowledgeSerializer(serializers.Serializer):
    reason = TextField(max_length=2000, single_line=False, min_length=3, help_text="How the finding was handled.")


class FindingViewSet(ScopedReadOnlyViewSet):
    """Stored findings you may see; filter by run, severity, rule, table, schedule or acknowledged."""

    queryset = Finding.objects.select_related("table", "schedule")
    serializer_class = FindingSerializer
    filterset_fields = {"run": ["exact"], "severity": ["exact"], "rule": ["exact"], "table": ["exact"],
                        "schedule__code": ["exact"], "establishment__slug": ["exact"],
                        "acknowledged_at": ["isnull"]}
    permission_names = {"*": "cardroom.view_records", "acknowledge": "compliance.acknowledge_finding"}

    def scope_queryset(self, queryset, scope):
        return permissions.rows(scope, READ, queryset)

    @extend_schema(request=AcknowledgeSerializer, responses=FindingSerializer)
    @may_conflict("the finding has been acknowledged already.")
    @action(detail=True, methods=["post"])
    def acknowledge(self, request, pk=None):
        """Say, with a reason, how a finding was handled (compliance officers). A second time answers 409."""
        data = AcknowledgeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        finding = findings.acknowledge(request.user, finding=self.get_object(), reason=data.validated_data["reason"])
        return Response(FindingSerializer(finding).data)


class ParameterViewSet(ScopedReadOnlyViewSet):
    """Rule parameters (dated, cited values), for the jurisdictions you may see."""

    queryset = RuleParameter.objects.select_related("jurisdiction", "source")
    serializer_class = ParameterSerializer
    filterset_fields = ["key", "status", "jurisdiction__code"]

    def scope_queryset(self, queryset, scope):
        return permissions.rows(scope, READ, queryset)


class LintView(APIView):
    """Schedule lint over every published version you may see (or ``?schedule=CODE``). Nothing is saved."""

    permission_names = {"get": "cardroom.view_records"}

    @extend_schema(responses=OpenApiTypes.OBJECT, parameters=[OpenApiParameter(
        "schedule", str, description="Only the findings about this schedule (its code).")])
    def get(self, request):
        scope = scope_of(request)
        versions = [v for v in checking.published_versions() if scope.sees_placed(
            v.document.establishment_id,
            v.document.establishment.jurisdiction_id if v.document.establishment_id else None,
            v.document.jurisdiction_id)]
        code = request.query_params.get("schedule")
        from .facts import document_facts
        from .rules import lint_documents

        documents = [document_facts(v) for v in versions]
        findings = lint_documents(documents, cliffs=True)  # asked for: the fee cliffs too (not kept in runs)
        if code:
            findings = [f for f in findings if f.subject.get("schedule") == code
                        or f.subject.get("other", {}).get("schedule") == code]
        return Response({"as_of": datetime.date.today().isoformat(), "findings": [f.as_dict() for f in findings]})
