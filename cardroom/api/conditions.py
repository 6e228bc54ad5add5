"""Approval conditions met per establishment: ``/api/v1/approval-conditions/fulfilments/``.

Compliance officers record, for their own establishments, that a prerequisite condition of an approval was met
(the day, the reference of the evidence); a record is never changed or deleted: a correction is a new record
naming the one it corrects (``corrects``, with a reason), and ``{id}/withdraw/`` says, with a reason, that the
condition is not met after all. Everyone who may see an establishment reads its records (regulators their
jurisdiction's); only compliance officers of the establishment and administrators write (cardroom.conditions).
"""

import django_filters
from django import forms
from django.db.models import OuterRef, Subquery
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response

from cardroom import conditions, permissions
from cardroom.access import scope_of
from cardroom.models import Approval, ConditionFulfilment

from .base import ScopedReadOnlyViewSet
from .fields import DayField, TextField, WholeField
from .schema import may_conflict

MAX_ID = 2**63 - 1


class FulfilmentSerializer(serializers.ModelSerializer):
    approval = serializers.CharField(source="condition.approval.key", read_only=True,
                                     help_text="The approval's key, as in /api/v1/approvals/{key}/.")
    condition = serializers.IntegerField(source="condition.order", read_only=True,
                                         help_text="The condition's number (order) in its approval.")
    condition_text = serializers.CharField(source="condition.text", read_only=True)
    citation = serializers.SerializerMethodField(help_text="Where the condition is written.")
    establishment = serializers.CharField(source="establishment.slug", read_only=True)
    recorded_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    corrected_by = serializers.IntegerField(read_only=True, allow_null=True,
                                            help_text="The record that corrects or withdraws this one, if any.")
    standing = serializers.SerializerMethodField(help_text="No later record corrects or withdraws this one.")

    class Meta:
        model = ConditionFulfilment
        fields = ["id", "approval", "condition", "condition_text", "citation", "establishment", "met_on",
                  "evidence", "note", "withdrawn", "corrects", "corrected_by", "standing", "reason", "recorded_by",
                  "recorded_at"]

    def get_citation(self, record) -> str:
        approval = record.condition.approval
        return f"{approval.source.title}, {record.condition.citation}"

    def get_standing(self, record) -> bool:
        return getattr(record, "corrected_by", None) is None


class FulfilmentInputSerializer(serializers.Serializer):
    approval = TextField(max_length=80, help_text="The approval's key, e.g. one-for-the-money-wa-2014.")
    condition = WholeField(min_value=1, max_value=32767, help_text="The condition's number (order) in the approval.")
    establishment = TextField(max_length=80, help_text="The establishment's slug (or id) where it was met.")
    met_on = DayField(help_text="The day it was met (not after today).")
    evidence = TextField(max_length=conditions.EVIDENCE_MAX, help_text=(
        "Reference of the evidence, e.g. the Commission's letter approving the internal controls."))
    note = TextField(max_length=conditions.NOTE_MAX, single_line=False, required=False, allow_blank=True)
    corrects = WholeField(required=False, min_value=1, max_value=MAX_ID, help_text=(
        "Id of the standing record this one corrects (required when the condition is recorded as met already)."))
    reason = TextField(max_length=conditions.REASON_MAX, single_line=False, required=False, allow_blank=True,
                       help_text="Why: required for a correction.")

    def validate(self, attrs):
        unknown = set(self.initial_data) - set(self.fields) if isinstance(self.initial_data, dict) else ()
        if unknown:
            raise serializers.ValidationError(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}.")
        return attrs


class WithdrawSerializer(serializers.Serializer):
    reason = TextField(max_length=conditions.REASON_MAX, single_line=False, min_length=3,
                       help_text="Why the condition is not met after all.")


class IdFilter(django_filters.NumberFilter):
    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class FulfilmentFilter(django_filters.FilterSet):
    establishment = django_filters.CharFilter(field_name="establishment__slug")
    approval = django_filters.CharFilter(field_name="condition__approval__key")
    condition = IdFilter(field_name="condition__order", max_value=32767)
    standing = django_filters.BooleanFilter(field_name="corrected_by", lookup_expr="isnull",
                                            label="Only the records standing (true) or those corrected (false).")
    withdrawn = django_filters.BooleanFilter()

    class Meta:
        model = ConditionFulfilment
        fields = []


class FulfilmentViewSet(ScopedReadOnlyViewSet):
    """Where approval conditions were met: per establishment, with the day, the evidence and who recorded it.
    ``POST`` records one (compliance officers of the establishment); ``{id}/withdraw/`` withdraws one."""

    queryset = ConditionFulfilment.objects.select_related(
        "condition__approval__source", "establishment", "recorded_by",
    ).annotate(corrected_by=Subquery(ConditionFulfilment.objects.filter(corrects=OuterRef("pk")).values("pk")[:1]))
    serializer_class = FulfilmentSerializer
    filterset_class = FulfilmentFilter
    ordering_fields = ["id", "met_on", "recorded_at"]
    ordering = ["id"]
    permission_names = {"*": "cardroom.view_records", "create": "cardroom.record_condition",
                        "withdraw": "cardroom.record_condition"}

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.establishments_q("establishment__"))

    @extend_schema(request=FulfilmentInputSerializer, responses={201: FulfilmentSerializer})
    @may_conflict("the condition is recorded as met already (name the record in corrects, with a reason), or the "
                  "record named has been corrected or withdrawn already.")
    def create(self, request, *args, **kwargs):
        """Record that an establishment met a condition of an approval (201)."""
        scope = scope_of(request)
        data = FulfilmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        establishment = conditions.recordable_establishments(scope).by_key(given["establishment"])
        if establishment is None:
            raise exceptions.ValidationError({"establishment": (
                f"Unknown establishment {given['establishment']!r} (among those you record conditions at).")})
        approval = Approval.objects.filter(scope.placed_q()).filter(key=given["approval"]).first()
        if approval is None:
            raise exceptions.ValidationError({"approval": f"Unknown approval {given['approval']!r}."})
        condition = approval.conditions.filter(order=given["condition"]).first()
        if condition is None:
            raise exceptions.ValidationError({"condition": (
                f"{approval.key} has no condition {given['condition']} (it has {approval.conditions.count()}).")})
        record = conditions.record_condition_met(
            request.user, condition=condition, establishment=establishment, met_on=given["met_on"],
            evidence=given["evidence"], note=given.get("note", ""), corrects=given.get("corrects"),
            reason=given.get("reason", ""))
        return Response(self.get_serializer(self.get_queryset().get(pk=record.pk)).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(request=WithdrawSerializer, responses={201: FulfilmentSerializer})
    @may_conflict("the record has been corrected or withdrawn already.")
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        """Say, with a reason, that the condition is not met after all: a new record withdrawing this one (201)."""
        record = self.get_object()  # 404 for a record you may not see
        permissions.require(request.user, "cardroom.record_condition", record)
        data = WithdrawSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        withdrawal = conditions.withdraw_condition_met(request.user, record=record,
                                                       reason=data.validated_data["reason"])
        return Response(self.get_serializer(self.get_queryset().get(pk=withdrawal.pk)).data,
                        status=status.HTTP_201_CREATED)
