"""The postings and signage API (docs/signage.md).

- ``/postings/``: list (filter by establishment, table, and ``at`` for what was in force then), read, create
  (validated as saved), ``/postings/{id}/override`` (a compliance officer asks), ``/postings/{id}/override/approve``
  and ``.../refuse`` (a second one answers), ``/postings/{id}/signage.pdf``;
- ``/tables/{id}/posting?at=...``: what a table showed at a moment; ``/tables/{id}/signage.pdf``: its sign;
- ``/signage/batches``: a Celery job printing every (or the chosen) tables of an establishment.
"""

import django_filters
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom import permissions, values
from cardroom.access import scope_of
from cardroom.api.base import ScopedReadOnlyViewSet
from cardroom.api.jobs import JobSerializer
from cardroom.api.schema import may_conflict
from cardroom.models import Establishment, Table
from fees.models import TablePosting

from . import content, printing, render, services, tasks
from .models import PrintOverride, SignPrint
from .postings import (
    at_moment,
    current_override,
    error_findings,
    pending_override,
    post_table,
    read_posting,
    validation_run,
)

AT = OpenApiParameter("at", str, description="A date and time with its offset, e.g. 2026-03-03T02:30:00-08:00 "
                                             "(default: now).")
LAYOUT = OpenApiParameter("layout", str, enum=list(render.LAYOUTS), description="letter (default) or tent.")
PDF = {(200, "application/pdf"): OpenApiTypes.BINARY}
PRINT_CONFLICT = ("the posting has error findings and no approved compliance override, its sign does not fit the "
                  "layout (saved before postings were checked for it: the message says what is too long), or the "
                  "same sign was printed at the same moment.")
PREVIEW_DOC = ("GET answers an unrecorded preview, watermarked PREVIEW; POST prints the sign, which is recorded "
               "(numbered, with an audit entry) and refused (409) while the posting has error findings and no "
               "compliance override.")


class PaytableRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    bet = serializers.CharField()
    number = serializers.CharField(help_text="As printed, e.g. 'WSGC 1'.")


class BonusLimitSerializer(serializers.Serializer):
    bet = serializers.CharField()
    minimum = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    maximum = serializers.DecimalField(max_digits=12, decimal_places=2)
    paytable = PaytableRefSerializer(allow_null=True, help_text="House-banked posting: the paytable the bet pays by.")


class PrintOverrideSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(PrintOverride.Status.choices)
    reason = serializers.CharField(help_text="Why the sign may be printed despite its errors, as asked.")
    requested_by = serializers.CharField()
    requested_at = serializers.DateTimeField()
    decided_by = serializers.CharField(allow_null=True, help_text="The second officer, who approved or refused it.")
    decided_at = serializers.DateTimeField(allow_null=True)
    decision_reason = serializers.CharField(help_text="Why it was approved or refused (empty while awaited).")


def override_data(override):
    if override is None:
        return None
    return {"id": override.pk, "status": override.status, "reason": override.reason,
            "requested_by": override.requested_by.get_username(), "requested_at": override.requested_at,
            "decided_by": override.decided_by.get_username() if override.decided_by_id else None,
            "decided_at": override.decided_at, "decision_reason": override.decision_reason}


class PrintingSerializer(serializers.Serializer):
    blocked = serializers.BooleanField(help_text="Error findings and no approved override: the sign cannot be printed.")
    override = PrintOverrideSerializer(allow_null=True, help_text="The approved override the sign prints under.")
    pending_override = PrintOverrideSerializer(
        allow_null=True, help_text="An override asked for and awaiting a second compliance officer.")
    prints = serializers.IntegerField(help_text="Signs printed for this posting.")
    last_printed_at = serializers.DateTimeField(allow_null=True)
    printed_version = serializers.IntegerField(
        allow_null=True, help_text="The schedule version the last sign printed shows (null: never printed, or no "
                                   "schedule).")
    version_in_force = serializers.IntegerField(allow_null=True, help_text="The schedule version in force now.")
    version_in_force_since = serializers.DateField(allow_null=True)
    out_of_date = serializers.BooleanField(
        help_text="The last sign was printed under another schedule version than the one in force: reprint it.")
    reprint_due = serializers.BooleanField(
        help_text="Never printed, out of date, or changed since the last print: a reading of its option (an "
                  "interpretation) approved or withdrawn since, which puts a notice on the sign or takes one off.")
    why = serializers.CharField(help_text="Why a print is due, e.g. 'printed under version 1; version 2 in force "
                                          "since 2027-03-05: reprint it' or 'a reading approved on 2026-11-26 adds a "
                                          "notice: reprint it' (empty when none is).")


class OverrideReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(help_text="Why (10 characters or more); kept with the override and in the audit "
                                             "log.")


class PostingSerializer(serializers.ModelSerializer):
    table = serializers.SerializerMethodField()
    establishment = serializers.CharField(source="table.establishment.slug", read_only=True)
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    game_name = serializers.CharField(source="game.name", read_only=True)
    schedule = serializers.SlugRelatedField(slug_field="code", read_only=True)
    currency = serializers.CharField(read_only=True, help_text="The schedule's, or (house-banked) the jurisdiction's.")
    rules = serializers.SlugRelatedField(
        slug_field="version", read_only=True, allow_null=True,
        help_text="House-banked posting without a schedule: the approved rules version (null with a schedule).")
    bonus_limits = serializers.SerializerMethodField()
    superseded_by = serializers.SerializerMethodField()
    validation = serializers.SerializerMethodField()
    printing = serializers.SerializerMethodField()
    verify_url = serializers.SerializerMethodField()

    class Meta:
        model = TablePosting
        fields = ["id", "table", "establishment", "game", "game_name", "schedule", "option_number", "rules", "decks",
                  "aggregate_payout_limit", "currency", "min_wager", "max_wager", "seats", "notes", "effective_from",
                  "superseded_by", "bonus_limits", "validation", "printing", "verify_url", "created_at"]

    def get_table(self, posting) -> dict:
        return {"id": posting.table_id, "label": posting.table.label}

    @extend_schema_field(BonusLimitSerializer(many=True))
    def get_bonus_limits(self, posting):
        return [{"bet": b.bet, "minimum": None if b.minimum is None else str(b.minimum), "maximum": str(b.maximum),
                 "paytable": None if b.paytable_id is None else
                 {"id": b.paytable_id, "bet": b.paytable.bet, "number": b.paytable.number}}
                for b in posting.bonus_limits.all()]

    def get_superseded_by(self, posting) -> dict | None:
        later = posting.superseded_by()
        return None if later is None else {"id": later.pk, "effective_from": later.effective_from}

    def get_validation(self, posting) -> dict:
        run = validation_run(posting)
        return {"run": run.pk, "as_of": run.as_of, "errors": run.errors, "warnings": run.warnings,
                "findings": [{"id": f.pk, "rule": f.rule, "severity": f.severity, "message": f.message,
                              "citation": f.citation} for f in run.findings.order_by("id")]}

    @extend_schema_field(PrintingSerializer)
    def get_printing(self, posting):
        errors = error_findings(posting)
        granted = current_override(posting) if errors else None
        sign = printing.sign_states([posting], timezone.now(), posting.table.establishment.zone)[posting.pk]
        version = sign["version"]
        return {
            "blocked": bool(errors) and granted is None,
            "override": override_data(granted),
            "pending_override": override_data(pending_override(posting)) if errors and granted is None else None,
            "prints": sign["prints"], "last_printed_at": sign["last_printed"],
            "printed_version": sign["printed_version"], "version_in_force": version and version.number,
            "version_in_force_since": version and version.effective_from, "out_of_date": sign["out_of_date"],
            "reprint_due": sign["reprint"], "why": sign["why"],
        }

    def get_verify_url(self, posting) -> str:
        return content.verify_url(posting)


class PostingFilter(django_filters.FilterSet):
    establishment = django_filters.CharFilter(field_name="table__establishment__slug")
    table = django_filters.CharFilter(field_name="table__label", help_text="The table's label, e.g. 7.")
    table_id = django_filters.NumberFilter(field_name="table_id")

    class Meta:
        model = TablePosting
        fields = ["establishment", "table", "table_id"]


def pdf_response(pdf, name):
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response


def layout_param(request):
    layout = request.query_params.get("layout") or "letter"
    if layout not in render.LAYOUTS:
        raise exceptions.ValidationError({"layout": f"must be one of {', '.join(render.LAYOUTS)}, not {layout!r}."})
    return layout


def sign_response(request, posting):
    """``posting``'s sign: a GET never changes anything, so it answers a preview; a POST prints (and records)."""
    layout, preview = layout_param(request), request.method == "GET"
    rendered, _ = services.print_sign(request.user, posting=posting, layout=layout, channel=SignPrint.Channel.API,
                                      preview=preview)
    name = printing.filename(posting.table.establishment, [posting.table], layout)
    return pdf_response(rendered.pdf, ("preview-" if preview else "") + name)


class PostingViewSet(ScopedReadOnlyViewSet):
    """Table postings: what each table shows from a moment on. Never changed: post a new one to change it."""

    queryset = TablePosting.objects.select_related(
        "table__establishment__jurisdiction", "game", "schedule", "rules").prefetch_related("bonus_limits__paytable")
    serializer_class = PostingSerializer
    filterset_class = PostingFilter
    ordering_fields = ["effective_from", "id"]
    permission_names = {"*": "cardroom.view_records", "create": "signage.post_table",
                        "signage:post": "signage.print_sign", "override": "signage.override_print",
                        "override_approve": "signage.override_print", "override_refuse": "signage.override_print"}

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.establishments_q("table__establishment__"))

    def filter_queryset(self, queryset):
        queryset = super().filter_queryset(queryset)
        raw = self.request.query_params.get("at")
        if raw not in (None, "") and self.action == "list":
            queryset = queryset.in_force_at(at_moment(raw))
        return queryset

    @extend_schema(parameters=[AT])
    def list(self, request, *args, **kwargs):
        """Postings, latest first; with ``at``, only the posting each table showed at that moment."""
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=inline_serializer("PostingInput", {
            "table": serializers.IntegerField(), "game": serializers.CharField(required=False),
            "schedule": serializers.CharField(required=False, help_text="The collection schedule's code; required "
                                              "unless a house-banked game posts rules and decks instead."),
            "option": serializers.IntegerField(required=False, help_text="The schedule option (with schedule)."),
            "rules": serializers.CharField(required=False, help_text="House-banked game without a schedule: the "
                                           "approved rules version (or its id), e.g. '3 Card Bonus (WSGC enclosure "
                                           "2014)'."),
            "decks": serializers.IntegerField(required=False, help_text="With rules: decks dealt, as the rules "
                                              "allow (One for the Money: 6 or 8)."),
            "aggregate_payout_limit": serializers.CharField(required=False, help_text="With rules: the aggregate "
                                                            "payout limit (WAC 230-15-490), a decimal string."),
            "min_wager": serializers.CharField(), "max_wager": serializers.CharField(),
            "seats": serializers.IntegerField(required=False), "notes": serializers.CharField(required=False),
            "effective_from": serializers.DateTimeField(required=False),
            "bonus_limits": serializers.ListField(
                child=serializers.DictField(), required=False,
                help_text="[{bet, minimum, maximum, paytable}]; paytable (number as printed, or id) with rules only."),
        }),
        responses={201: PostingSerializer},
    )
    def create(self, request, *args, **kwargs):
        """Post a table. It is validated as it is saved; the findings come back in ``validation``."""
        scope = scope_of(request)  # signage.post_table held: asked by the view; the table's own, by read_posting
        fields = read_posting(request.data, scope=scope, now=timezone.now())
        posting, _ = post_table(request.user, fields=fields)
        return Response(self.get_serializer(self.get_queryset().get(pk=posting.pk)).data,
                        status=status.HTTP_201_CREATED)

    def _override_step(self, request, step, status_code=status.HTTP_200_OK):
        posting = self.get_object()
        body = values.obj(request.data, allowed=("reason",), required=("reason",))
        # BadInput, NotAllowed, StateConflict: cardroom.api.errors
        step(request.user, posting=posting, reason=body["reason"])
        return Response(self.get_serializer(self.get_queryset().get(pk=posting.pk)).data, status=status_code)

    @extend_schema(request=OverrideReasonSerializer, responses={201: PostingSerializer})
    @may_conflict("an override of the posting is already approved, or already awaits a second officer.")
    @action(detail=True, methods=["post"])
    def override(self, request, pk=None):
        """Ask for a posting with error findings to be printed anyway (a compliance officer of the establishment,
        with the reason). It prints once a second officer approves (``override/approve``)."""
        return self._override_step(request, services.request_override, status.HTTP_201_CREATED)

    @extend_schema(request=OverrideReasonSerializer, responses={200: PostingSerializer})
    @may_conflict("no override of the posting awaits a second officer.")
    @action(detail=True, methods=["post"], url_path="override/approve")
    def override_approve(self, request, pk=None):
        """Approve the override asked for, with the reason: the sign may then be printed. A second compliance
        officer of the establishment (or an administrator) only: whoever asked for it cannot (403)."""
        return self._override_step(request, services.approve_override)

    @extend_schema(request=OverrideReasonSerializer, responses={200: PostingSerializer})
    @may_conflict("no override of the posting awaits a second officer.")
    @action(detail=True, methods=["post"], url_path="override/refuse")
    def override_refuse(self, request, pk=None):
        """Refuse the override asked for, with the reason: the sign stays blocked. Not by whoever asked for it."""
        return self._override_step(request, services.refuse_override)

    @extend_schema(parameters=[LAYOUT], request=None, responses=PDF, description=PREVIEW_DOC)
    @may_conflict(PRINT_CONFLICT, methods=["POST"])
    @action(detail=True, methods=["get", "post"], url_path="signage.pdf")
    def signage(self, request, pk=None):
        """This posting's sign: GET a preview, POST to print it."""
        return sign_response(request, self.get_object())


def visible_table(request, pk):
    scope = scope_of(request)
    return get_object_or_404(Table.objects.filter(scope.establishments_q("establishment__"))
                             .select_related("establishment__jurisdiction"), pk=pk)


class TablePostingView(APIView):
    permission_names = {"get": "cardroom.view_records"}

    @extend_schema(parameters=[AT], responses={200: PostingSerializer})
    def get(self, request, pk):
        """What table ``pk`` showed at moment ``at`` (default now): one query, one posting."""
        table = visible_table(request, pk)
        at = at_moment(request.query_params.get("at"))
        posting = TablePosting.objects.in_force(table, at)
        if posting is None:
            raise exceptions.NotFound(f"Table {table.label} had no posting in force at {at.isoformat()}.")
        return Response(PostingSerializer(posting, context={"request": request}).data)


class TableSignageView(APIView):
    permission_names = {"get": "cardroom.view_records", "post": "signage.print_sign"}  # a preview, a print

    def sign(self, request, pk):
        table = visible_table(request, pk)
        posting = TablePosting.objects.in_force(table, timezone.now())
        if posting is None:
            raise exceptions.NotFound(f"Table {table.label} has no posting in force; post it first.")
        return sign_response(request, posting)

    @extend_schema(parameters=[LAYOUT], responses=PDF, description=PREVIEW_DOC)
    def get(self, request, pk):
        """A preview of the sign of the posting in force now at table ``pk`` (nothing is recorded)."""
        return self.sign(request, pk)

    @extend_schema(parameters=[LAYOUT], request=None, responses=PDF, description=PREVIEW_DOC)
    @may_conflict(PRINT_CONFLICT)
    def post(self, request, pk):
        """Print the sign of the posting in force now at table ``pk`` (recorded)."""
        return self.sign(request, pk)


class BatchView(APIView):
    permission_names = {"post": "signage.print_sign"}

    @extend_schema(
        request=inline_serializer("BatchInput", {
            "establishment": serializers.CharField(), "layout": serializers.ChoiceField(list(render.LAYOUTS)),
            "tables": serializers.ListField(child=serializers.IntegerField(), required=False),
        }),
        responses={202: JobSerializer},
    )
    def post(self, request):
        """Start printing the signs of an establishment's tables (or the chosen ones) as one PDF. Poll the job
        at ``/api/v1/jobs/{uuid}/`` for progress and download it from its ``download`` link when done."""
        data = values.obj(request.data, allowed=("establishment", "layout", "tables"), required=("establishment",))
        tables = None  # left out (or null): the whole floor; given, it must name tables ([] is refused)
        if data.get("tables") is not None:
            tables = values.items(data["tables"], max_items=1000, what="tables", required=False)
            tables = [values.named("tables", values.identifier, table) for table in tables]
        scope = scope_of(request)
        slug = data.get("establishment")
        establishment = Establishment.objects.filter(scope.establishments_q()).filter(slug=slug).first() \
            if isinstance(slug, str) else None
        if establishment is None:
            raise exceptions.ValidationError({"establishment": f"no establishment {slug!r} among those you may see."})
        permissions.require(request.user, "signage.print_sign", establishment)
        layout = data.get("layout") or "letter"
        if layout not in render.LAYOUTS:
            raise exceptions.ValidationError({"layout": f"must be one of {', '.join(render.LAYOUTS)}, not {layout!r}."})
        job = tasks.start_batch(request.user, establishment=establishment, layout=layout, tables=tables)
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)


__all__ = ["BatchView", "PostingViewSet", "TablePostingView", "TableSignageView"]
