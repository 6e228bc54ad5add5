"""How a schedule's ambiguous values are read: ``/api/v1/schedules/{code}/interpretations/`` (``fees.schedules.interpretations``).

Everyone who sees the schedule reads the approved readings of its published versions; those who may edit it see
every reading of every version they see, proposed, refused and withdrawn ones too. ``POST`` proposes one (anyone
who may edit the schedule); ``{id}/approve/`` and ``{id}/refuse/`` are a second officer's (as for publishing the
schedule), never the proposer's; ``{id}/withdraw/`` takes a proposal back or retires an approved reading.
"""

import django_filters
from django.shortcuts import get_object_or_404
from django.utils.functional import cached_property
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from cardroom import permissions
from cardroom.access import scope_of
from cardroom.api.fields import DayField, TextField, WholeField
from cardroom.api.schema import may_conflict
from fees.models import Interpretation, ScheduleDocument, ScheduleVersion
from fees.schedules import interpretations, services
from fees.schedules import selectors as drafts

from .views import MAX_VERSION_NUMBER

CODE = OpenApiParameter("code", str, OpenApiParameter.PATH,
                        description="The schedule's code, e.g. CMV-CA-FEES-PAI-GOW.")
FIELDS = (*Interpretation.OPTION_FIELDS, *Interpretation.TIER_FIELDS)


class InterpretationSerializer(serializers.ModelSerializer):
    schedule = serializers.CharField(source="version.document.code", read_only=True)
    version = serializers.IntegerField(source="version.number", read_only=True)
    option = serializers.IntegerField(source="option_number", read_only=True)
    tier = serializers.IntegerField(source="tier_order", read_only=True, allow_null=True,
                                    help_text="The row read (its position in the option); null: the option itself.")
    printed = serializers.SerializerMethodField(help_text=(
        "What the version prints for the field (an amount as a decimal string, \"\" for no bound); null when the "
        "version no longer has that option or row."))
    value = serializers.CharField(read_only=True, help_text="What it is read as (\"\" for an open bound).")
    value_label = serializers.SerializerMethodField(help_text="The reading as a person reads it.")
    source = serializers.SlugRelatedField(slug_field="key", read_only=True, allow_null=True)
    recorded_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    reviewed_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True,
                                               help_text="Who approved, refused or withdrew it.")
    footnote = serializers.SerializerMethodField(help_text="How signs and findings mark it.")

    class Meta:
        model = Interpretation
        fields = ["id", "schedule", "version", "option", "tier", "field", "printed", "value", "value_label",
                  "statement", "decided_on", "citation", "source", "footnote", "status", "recorded_by",
                  "recorded_at", "reviewed_by", "reviewed_at", "review_reason", "carried_from"]

    def get_printed(self, reading) -> str | None:
        printed = self.context.get("printed")
        if printed is None:
            printed = interpretations.printed_values([reading])
        return printed.get(reading.pk)

    def get_value_label(self, reading) -> str:
        return interpretations.label(reading.field, reading.value, reading.version.document.currency)

    def get_footnote(self, reading) -> str:
        return interpretations.footnote(reading)


class ProposalSerializer(serializers.Serializer):
    version = WholeField(min_value=1, max_value=MAX_VERSION_NUMBER, help_text="The version read (published or not).")
    option = WholeField(min_value=1, max_value=2**31 - 1, help_text="The option's number.")
    tier = WholeField(min_value=0, max_value=32767, required=False, allow_null=True,
                      help_text="The row's position in the option; leave out (or null) to read the option's basis.")
    field = serializers.ChoiceField(choices=FIELDS, help_text="basis (an option); measure, lower, upper, fee_kind, "
                                                              "payer or taken (a row).")
    value = TextField(max_length=60, required=False, allow_blank=True, help_text=(
        "What it is read as: one of the field's choices (never unstated), or for lower and upper an amount as a "
        "decimal string, \"\" (or left out) for no bound."))
    statement = TextField(max_length=interpretations.STATEMENT_MAX, single_line=False,
                          help_text="The reading in words, as a player or a regulator would be told it.")
    decided_on = DayField(help_text="The date of the reading (e.g. of the Bureau's answer); not after today.")
    citation = TextField(max_length=interpretations.CITATION_MAX,
                         help_text="Where it comes from: the answer, letter or rule.")
    source = TextField(max_length=80, required=False, allow_blank=True,
                       help_text="The key of the source document it comes from, if recorded (/api/v1/ sources).")

    def validate(self, attrs):
        unknown = set(self.initial_data) - set(self.fields) if isinstance(self.initial_data, dict) else ()
        if unknown:
            raise serializers.ValidationError(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}.")
        return attrs


class ReasonSerializer(serializers.Serializer):
    reason = TextField(max_length=interpretations.REASON_MAX, single_line=False, min_length=3,
                       help_text="Why: kept with the reading, in its history and in the audit log.")


class InterpretationFilter(django_filters.FilterSet):
    version = django_filters.NumberFilter(field_name="version__number", min_value=1, max_value=MAX_VERSION_NUMBER)
    option = django_filters.NumberFilter(field_name="option_number", min_value=1, max_value=2**31 - 1)
    tier = django_filters.NumberFilter(field_name="tier_order", min_value=0, max_value=32767)
    field = django_filters.ChoiceFilter(choices=[(f, f) for f in FIELDS])
    status = django_filters.ChoiceFilter(choices=Interpretation.Status.choices)

    class Meta:
        model = Interpretation
        fields = []


@extend_schema(parameters=[CODE])
class InterpretationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """How a schedule's ambiguous values are read (a basis, a measure, a closed top): each reading with what is
    printed, its statement, date and citation, who proposed it and who approved it."""

    queryset = Interpretation.objects.select_related("version__document", "source", "recorded_by", "reviewed_by")
    serializer_class = InterpretationSerializer
    filterset_class = InterpretationFilter
    ordering_fields = ["id", "recorded_at", "decided_on"]
    ordering = ["id"]
    lookup_value_regex = "[0-9]{1,18}"
    permission_names = {"*": "cardroom.view_records", "create": "fees.edit_schedule", "withdraw": "fees.edit_schedule",
                        "approve": "fees.approve_schedule", "refuse": "fees.approve_schedule"}

    @cached_property
    def document(self):
        """The schedule in the address: 404 for one you may not see."""
        scope = scope_of(self.request)
        return get_object_or_404(ScheduleDocument.objects.filter(scope.placed_q()), code=self.kwargs["code"])

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator: no request, no schedule
            return Interpretation.objects.none()
        document = self.document
        queryset = super().get_queryset().filter(version__document=document)
        if drafts.sees_drafts(self.request.user, document):
            return queryset
        # Everyone else reads what is in use: the approved readings of published versions.
        return queryset.filter(version__status=ScheduleVersion.Status.PUBLISHED,
                               status=Interpretation.Status.APPROVED)

    def list(self, request, *args, **kwargs):
        """Every reading of the schedule's versions you may see, filtered by version, option, tier, field, status."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        context = {**self.get_serializer_context(), "printed": interpretations.printed_values(page)}
        return self.get_paginated_response(InterpretationSerializer(page, many=True, context=context).data)

    def _editor(self):  # asked before the body is read; the service asks again
        permissions.require(self.request.user, services.EDIT, self.document)

    def _reviewer(self):
        permissions.require(self.request.user, services.APPROVE, self.document)

    def _answer(self, reading, code=status.HTTP_200_OK):
        return Response(self.get_serializer(self.get_queryset().get(pk=reading.pk)).data, status=code)

    @extend_schema(request=ProposalSerializer, responses={201: InterpretationSerializer})
    @may_conflict("the field already has a proposed or approved reading (withdraw it first).")
    def create(self, request, *args, **kwargs):
        """Propose how one value of a version is read (201): approved by a second officer, it is used by quotes,
        validation and signs, which say it is an interpretation. The printed data never changes."""
        self._editor()
        data = ProposalSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        version = self.document.versions.filter(number=given["version"]).first()
        if version is None or not (version.is_published or drafts.sees_drafts(self.request.user)):
            raise exceptions.ValidationError({"version": f"{self.document.code} has no version {given['version']}."})
        reading = services.propose_interpretation(
            request.user, version=version, option=given["option"], tier=given.get("tier"), field=given["field"],
            value=given.get("value", ""), statement=given["statement"], decided_on=given["decided_on"],
            citation=given["citation"], source=given.get("source") or None)
        return self._answer(reading, status.HTTP_201_CREATED)

    def _step(self, request, step, check):
        check()
        reading = self.get_object()
        data = ReasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        step(request.user, reading=reading, reason=data.validated_data["reason"])
        return self._answer(reading)

    @extend_schema(request=ReasonSerializer, responses=InterpretationSerializer)
    @may_conflict("the reading is not awaiting a second officer.")
    @action(detail=True, methods=["post"])
    def approve(self, request, code=None, pk=None):
        """A second officer approves a proposed reading: from now on it is used, and said to be one. Whoever proposed
        it cannot (403)."""
        return self._step(request, services.approve_interpretation, self._reviewer)

    @extend_schema(request=ReasonSerializer, responses=InterpretationSerializer)
    @may_conflict("the reading is not awaiting a second officer.")
    @action(detail=True, methods=["post"])
    def refuse(self, request, code=None, pk=None):
        """A second officer refuses a proposed reading, with the reason (not whoever proposed it)."""
        return self._step(request, services.refuse_interpretation, self._reviewer)

    @extend_schema(request=ReasonSerializer, responses=InterpretationSerializer)
    @may_conflict("the reading has been refused or withdrawn already.")
    @action(detail=True, methods=["post"])
    def withdraw(self, request, code=None, pk=None):
        """Take back a proposal, or retire an approved reading: the value is read as printed again."""
        return self._step(request, services.withdraw_interpretation, self._editor)
