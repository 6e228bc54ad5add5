from decimal import Decimal

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, status
from rest_framework import serializers as fields
from rest_framework.decorators import action
from rest_framework.response import Response

from cardroom import permissions, values
from cardroom.api.base import ScopedReadOnlyViewSet, as_of_param, known_at_param
from cardroom.api.schema import may_conflict
from cardroom.models import AuditLogEntry
from fees.engine import diff
from fees.models import ScheduleDocument, ScheduleVersion
from fees.schedules import editing, services
from fees.schedules import selectors as drafts

from . import serializers

AS_OF = OpenApiParameter(
    "as_of", str, description="Resolve the document as of this date (YYYY-MM-DD); default today.", required=False
)
KNOWN_AT = OpenApiParameter(
    "known_at", str, required=False, description=(
        "Answer as the record stood at this moment (YYYY-MM-DD for the end of that day, or a date and time with its "
        "offset): versions published later, a retroactive change among them, are left out. Default: now."))
VERSION_PATH = r"versions/(?P<number>[0-9]+)"
HISTORY = inline_serializer("ScheduleHistory", {
    "changes": inline_serializer("ScheduleVersionChange", many=True, fields={
        "version": fields.IntegerField(),
        "status": fields.CharField(help_text="The version's status once this change was made."),
        "effective_from": fields.DateField(allow_null=True), "when": fields.DateTimeField(),
        "who": fields.CharField(allow_null=True, help_text="The user who made the change (or the command that took "
                                                           "a review step), if any."),
        "why": fields.CharField(allow_null=True, help_text="The reason recorded with the change."),
        "type": fields.CharField(help_text="Created, Changed, Deleted (or Review: a review step with no record)."),
        "change": fields.ChoiceField(["created", "changed", "deleted", "reviewed"]),
        "kind": fields.ChoiceField(["version", "option", "tier", "reading", "review"], help_text="What was changed."),
        "what": fields.CharField(help_text="version v2, option 3, option 3 tier 2 or a reading of one of them."),
        "detail": fields.CharField(help_text="The option's label, or the tier's fee and bounds as printed."),
        "option": fields.IntegerField(allow_null=True), "tier": fields.IntegerField(allow_null=True),
        "summary": fields.CharField(help_text="For a version created: 'Draft v2 started from v1: 49 options and "
                                              "312 tiers copied' (the copies are not listed one by one)."),
        "fields": inline_serializer("ScheduleFieldChange", many=True, fields={
            "field": fields.CharField(), "label": fields.CharField(help_text="The field as a person names it."),
            "kind": fields.ChoiceField(["money", "choice", "person", "reference", "moment", "day", "flag", "list",
                                        "number", "text"]),
            "old": fields.JSONField(allow_null=True, help_text="Before (null: created). Amounts are decimal strings."),
            "new": fields.JSONField(allow_null=True, help_text="After (null: deleted)."),
            "old_label": fields.CharField(required=False, allow_null=True, help_text="A choice's label."),
            "new_label": fields.CharField(required=False, allow_null=True),
            "currency": fields.CharField(required=False, help_text="For an amount: the document's currency."),
        }),
        "copied": inline_serializer("ScheduleVersionCopied", allow_null=True, fields={
            "options": fields.IntegerField(), "tiers": fields.IntegerField(), "readings": fields.IntegerField(),
        }),
        "review": inline_serializer("ScheduleVersionReviewStep", allow_null=True, fields={
            "step": fields.ChoiceField(["requested", "approved", "refused", "withdrawn"]),
            "label": fields.CharField(), "by": fields.CharField(), "at": fields.DateTimeField(),
            "reason": fields.CharField(),
        }),
    }),
    "versions": inline_serializer("ScheduleVersionReasons", many=True, fields={
        "number": fields.IntegerField(), "status": fields.CharField(),
        "reason": fields.CharField(help_text="The draft's reason: why this version exists."),
        "publication_reason": fields.CharField(help_text="Why it is published, as said when it was asked for."),
        "retroactive_reason": fields.CharField(),
    }),
    "actions": inline_serializer("ScheduleVersionAction", many=True, fields={
        "when": fields.DateTimeField(), "who": fields.CharField(), "action": fields.CharField(),
        "data": fields.JSONField(),
    }),
})


MAX_VERSION_NUMBER = 2**31 - 1  # what the version's number column holds
DIFF_PARAMETERS = [
    OpenApiParameter(name, {"type": "integer", "minimum": 1, "maximum": MAX_VERSION_NUMBER}, required=True,
                     description=f"The version number to compare {word} (a version you may see: drafts only for "
                     "those who may edit the schedule).")
    for name, word in (("from", "from"), ("to", "with"))
]


def options_of(version):
    return version.options.prefetch_related("tiers")


def _money(value):
    return None if value is None else str(value.quantize(values.CENT))


def _tier_values(record, currency):
    if record is None:
        return None
    return {**record, "currency": currency}


def _option_value(value):
    return _money(value) if isinstance(value, Decimal) else value


def version_diff_data(document, old, new):
    """The API's answer for ``fees.engine.diff.diff_versions`` of two versions: every option by number, the tiers
    added, removed or changed with old and new values, and the counts."""
    changes_ = diff.diff_versions(old.diff_records(), new.diff_records())
    currency = document.currency
    options = []
    for option in changes_.options:
        if option.status in (diff.ADDED, diff.REMOVED):
            record = option.new or option.old
            fields_ = [(name, None, record.get(name)) if option.status == diff.ADDED else (name, record.get(name), None)
                       for name in diff.OPTION_FIELDS if record.get(name) not in (None, "")]
        else:
            fields_ = option.fields
        options.append({
            "number": option.number, "status": option.status, "label": option.label,
            "fields": [{"field": name, "label": diff.LABELS.get(name, name), "old": _option_value(before),
                        "new": _option_value(after)} for name, before, after in fields_],
            "tiers": [{"status": tier.status, "fields": list(tier.fields), "old": _tier_values(tier.old, currency),
                       "new": _tier_values(tier.new, currency)}
                      for tier in option.tiers if tier.status != diff.SAME],
        })
    summary = {"options_same": len(changes_.unchanged), **changes_.counts()}
    return {
        "schedule": document.code, "currency": document.currency,
        "from": {"number": old.number, "status": old.status, "effective_from": old.effective_from},
        "to": {"number": new.number, "status": new.status, "effective_from": new.effective_from},
        "summary": summary, "options": options,
    }


class ScheduleViewSet(ScopedReadOnlyViewSet):
    """Collection-rate schedules by code. A document resolves to the version in force on ``?as_of=``."""

    queryset = ScheduleDocument.objects.select_related("jurisdiction", "establishment", "source").prefetch_related(
        "games"
    )
    serializer_class = serializers.ScheduleSummarySerializer
    lookup_field = "code"
    lookup_value_regex = "[^/]+"
    filterset_fields = {"jurisdiction__code": ["exact"], "establishment__slug": ["exact", "isnull"],
                        "games__slug": ["exact"]}
    ordering_fields = ["code"]
    # Held anywhere to try; the schedule's own is asked again once it is found (a schedule you may not see: 404).
    permission_names = {"*": "cardroom.view_records", "update_version": "fees.edit_schedule",
                        "delete_version": "fees.edit_schedule", "new_draft": "fees.edit_schedule",
                        "request_publication": "fees.edit_schedule", "withdraw": "fees.edit_schedule",
                        "approve": "fees.approve_schedule", "refuse": "fees.approve_schedule"}

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.placed_q()).distinct()

    # -- helpers ---------------------------------------------------------------------------------------------

    def visible_versions(self, document):
        return drafts.visible_versions(self.request.user, document, document.versions.select_related(
            "published_by", "created_by", "based_on", "review_requested_by"))

    def version_in_force(self, document):
        as_of, known_at = as_of_param(self.request), known_at_param(self.request)
        version = document.version_as_of(as_of, known_at=known_at)
        if version is None:
            known = f" as the record stood at {known_at.isoformat()}" if known_at else ""
            raise exceptions.NotFound(f"{document.code} has no published version in force on {as_of.isoformat()}"
                                      f"{known}.")
        return as_of, version

    def get_version(self, document, number):
        return get_object_or_404(self.visible_versions(document), number=number)

    def editable_document(self):
        document = self.get_object()
        permissions.require(self.request.user, "fees.edit_schedule", document)
        return document

    def context_for(self, document, **extra):
        return {**self.get_serializer_context(), "currency": document.currency, **extra}

    # -- reads -----------------------------------------------------------------------------------------------

    @extend_schema(parameters=[AS_OF, KNOWN_AT], responses=serializers.ScheduleDetailSerializer)
    def retrieve(self, request, *args, **kwargs):
        document = self.get_object()
        as_of, version = self.version_in_force(document)
        context = self.context_for(document, as_of=as_of, known_at=known_at_param(request), version=version,
                                   options=options_of(version),
                                   visible_versions=self.visible_versions(document))
        return Response(serializers.ScheduleDetailSerializer(document, context=context).data)

    @extend_schema(parameters=[AS_OF, KNOWN_AT], responses=serializers.FeeOptionSerializer(many=True))
    @action(detail=True, methods=["get"], url_path="options")
    def option_list(self, request, code=None):
        """The options, with their tiers, of the version in force on ``?as_of=``."""
        document = self.get_object()
        _, version = self.version_in_force(document)
        page = self.paginate_queryset(options_of(version))
        data = serializers.FeeOptionSerializer(page, many=True, context=self.context_for(document)).data
        return self.get_paginated_response(data)

    @extend_schema(parameters=[AS_OF, KNOWN_AT], responses=serializers.FeeOptionSerializer)
    @action(detail=True, methods=["get"], url_path=r"options/(?P<number>[0-9]+)")
    def option_detail(self, request, code=None, number=None):
        document = self.get_object()
        _, version = self.version_in_force(document)
        option = get_object_or_404(options_of(version), number=number)
        return Response(serializers.FeeOptionSerializer(option, context=self.context_for(document)).data)

    @extend_schema(responses=serializers.VersionSummarySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)  # every version, in one list
    def versions(self, request, code=None):
        document = self.get_object()
        data = serializers.VersionSummarySerializer(self.visible_versions(document), many=True).data
        return Response(data)

    @extend_schema(responses=serializers.VersionDetailSerializer)
    @action(detail=True, methods=["get"], url_path=VERSION_PATH)
    def version(self, request, code=None, number=None):
        document = self.get_object()
        version = self.get_version(document, number)
        return Response(serializers.VersionDetailSerializer(version, context=self.context_for(document)).data)

    @extend_schema(parameters=DIFF_PARAMETERS, responses=serializers.VersionDiffSerializer)
    @action(detail=True, methods=["get"], url_path="diff", pagination_class=None)
    def version_diff(self, request, code=None):
        """Two versions, option by option and tier by tier (``?from=N&to=M``): options added, removed, changed or
        the same; tiers added, removed or changed with the old and new value of every field; and the counts. The
        same comparison as the compare page (``fees.engine.diff``)."""
        document = self.get_object()
        numbers, problems = {}, {}
        for name in ("from", "to"):
            raw = request.query_params.get(name)
            if raw in (None, ""):
                problems[name] = "is required: the number of a version of this schedule."
                continue
            try:
                numbers[name] = values.whole_text(raw, minimum=1, maximum=MAX_VERSION_NUMBER)
            except values.Invalid as exc:
                problems[name] = str(exc)
        if problems:
            raise exceptions.ValidationError(problems)
        visible = self.visible_versions(document)
        found = {}
        for name, number in numbers.items():
            found[name] = visible.filter(number=number).first()
            if found[name] is None:  # a draft the user may not see is answered as one that does not exist
                raise exceptions.NotFound(f"{document.code} has no version {number} ({name}).")
        data = version_diff_data(document, found["from"], found["to"])
        return Response(serializers.VersionDiffSerializer(data).data)

    @extend_schema(responses=HISTORY)
    @action(detail=True, methods=["get"])
    def history(self, request, code=None):
        """Who changed this document's versions (those you may see), their options and tiers, when and why, newest
        first: every changed field with its old and new value (``fees.schedules.history``), the review steps of publication,
        each version's reasons (the draft's and the publication's); and every logged action on the versions."""
        from fees.schedules.history import document_history

        document = self.get_object()
        versions = list(self.visible_versions(document))
        audit = AuditLogEntry.objects.filter(
            object_type=ScheduleVersion._meta.label, object_id__in=[str(v.pk) for v in versions]
        )
        return Response({
            "changes": document_history(document, versions)[::-1],
            "versions": [{"number": v.number, "status": v.status, "reason": v.reason,
                          "publication_reason": v.publication_reason, "retroactive_reason": v.retroactive_reason}
                         for v in versions],
            "actions": [
                {"when": e.created_at, "who": e.actor_label, "action": e.action, "data": e.data} for e in audit
            ],
        })

    # -- writes (compliance officers) ----------------------------------------------------------------------

    @extend_schema(request=serializers.VersionUpdateSerializer, responses=serializers.VersionDetailSerializer)
    @may_conflict("the version is published, and a published version is never changed.")
    @version.mapping.patch
    def update_version(self, request, code=None, number=None):
        """Change a draft's effective date, reason or provisions. A published version answers 409."""
        document = self.editable_document()
        version = self.get_version(document, number)
        serializer = serializers.VersionUpdateSerializer(version, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        editing.edit_draft(request.user, version=version, fields=serializer.validated_data,
                           why=f"Draft edited through the API by {request.user.get_username()}")
        return Response(serializers.VersionDetailSerializer(version, context=self.context_for(document)).data)

    @extend_schema(responses={204: None})
    @may_conflict("the version is published, or another draft is based on it.")
    @version.mapping.delete
    def delete_version(self, request, code=None, number=None):
        """Discard a draft. A published version answers 409."""
        document = self.editable()
        services.discard_draft(request.user, version=self.get_version(document, number))
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _answer(self, document, version):
        version = self.get_version(document, version.number)  # fresh, with who and when
        return Response(serializers.VersionDetailSerializer(version, context=self.context_for(document)).data)

    def editable(self, permission=services.EDIT):
        """The schedule, when the user holds ``permission`` on it (asked before its versions are looked up)."""
        document = self.get_object()
        permissions.require(self.request.user, permission, document)
        return document

    def _step(self, number, step, permission=services.EDIT):
        """Take ``step`` (a ``fees.schedules.services`` publication step) with the body's reason; answer with the version."""
        document = self.editable(permission)
        version = self.get_version(document, number)
        serializer = serializers.ReviewSerializer(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        step(self.request.user, version=version, **serializer.validated_data)
        return self._answer(document, version)

    @extend_schema(request=serializers.PublicationRequestSerializer, responses=serializers.VersionDetailSerializer)
    @may_conflict("the version is not a draft: published, or already awaiting a second officer.")
    @action(detail=True, methods=["post"], url_path=VERSION_PATH + "/publication-request")
    def request_publication(self, request, code=None, number=None):
        """Ask for a draft to be published. It is checked as every door checks it (400 saying why: a version dated
        before today needs ``retroactive`` and its reason; a draft that changes nothing from the version in force
        is refused), then frozen until a second officer approves or refuses it."""
        document = self.editable()
        serializer = serializers.PublicationRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        version, given = self.get_version(document, number), serializer.validated_data
        # The effective date is the draft's (PATCH sets it); the retroactive confirmation, as stored unless given.
        services.request_publication(
            request.user, version=version, reason=given["reason"], effective_from=version.effective_from,
            retroactive=given.get("retroactive", version.retroactive),
            retroactive_reason=given.get("retroactive_reason", version.retroactive_reason))
        return self._answer(document, version)

    @extend_schema(request=serializers.ReviewSerializer, responses=serializers.VersionDetailSerializer)
    @may_conflict("the version is not awaiting a second officer.")
    @action(detail=True, methods=["post"], url_path=VERSION_PATH + "/approve")
    def approve(self, request, code=None, number=None):
        """Publish a version awaiting a second officer. Whoever asked for it, started it or changed it cannot
        (403); it becomes immutable."""
        return self._step(number, services.approve_publication, services.APPROVE)

    @extend_schema(request=serializers.ReviewSerializer, responses=serializers.VersionDetailSerializer)
    @may_conflict("the version is not awaiting a second officer.")
    @action(detail=True, methods=["post"], url_path=VERSION_PATH + "/refuse")
    def refuse(self, request, code=None, number=None):
        """Send a version awaiting a second officer back to draft, with the reason (not by whoever asked)."""
        return self._step(number, services.refuse_publication, services.APPROVE)

    @extend_schema(request=serializers.ReviewSerializer, responses=serializers.VersionDetailSerializer)
    @may_conflict("the version is not awaiting a second officer.")
    @action(detail=True, methods=["post"], url_path=VERSION_PATH + "/withdraw")
    def withdraw(self, request, code=None, number=None):
        """Take back a request for publication, so that the draft can be edited again."""
        return self._step(number, services.withdraw_publication)

    @extend_schema(request=serializers.NewDraftSerializer, responses={201: serializers.VersionDetailSerializer})
    @may_conflict("a draft cannot be started from this version now (the message says why).")
    @action(detail=True, methods=["post"], url_path=VERSION_PATH + "/drafts")
    def new_draft(self, request, code=None, number=None):
        """Start a new draft version as a copy of this one, to be edited and then published."""
        document = self.editable()
        serializer = serializers.NewDraftSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        draft = services.start_draft(request.user, based_on=self.get_version(document, number),
                                     **serializer.validated_data)
        return Response(serializers.VersionDetailSerializer(draft, context=self.context_for(document)).data,
                        status=status.HTTP_201_CREATED)

