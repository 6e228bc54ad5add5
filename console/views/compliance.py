"""A compliance officer's pages for one establishment: findings, schedules and drafts, approvals, postings.

Scoped as the API: the establishment must be one of the user's compliance establishments (else 404); its
schedules are its own and its jurisdiction's shared ones; drafts are seen and changed by those who may edit
the schedule (``fees.view_drafts``, ``fees.edit_schedule``: cardroom.permissions). Every change goes through the
services the API uses: ``fees.services`` (drafts, publishing), ``fees.editing`` (tiers),
``compliance.findings.acknowledge``, ``compliance.checking.run_establishment`` / ``run_schedule``,
``signage.services.request_override`` (and a second officer's ``approve_override`` / ``refuse_override``, or the
request withdrawn).
"""

import datetime

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from cardroom import conditions as record_conditions
from cardroom import forms as strict_forms
from cardroom import permissions, values
from cardroom.conditions import conditions_at
from cardroom.exceptions import BadInput, StateConflict
from cardroom.inbox import awaiting
from cardroom.models import Approval, ApprovalCondition, ConditionFulfilment, Table
from cardroom.ordering import natural
from compliance import checking, inbox
from compliance.facts import APPROVAL_PREFETCH, approval_facts
from compliance.findings import AlreadyAcknowledged, acknowledge
from compliance.models import Finding, ValidationRun
from compliance.rules.postings import EXPIRING_WITHIN, approval_state
from fees import diff, editing, services
from fees import drafts as fees_drafts
from fees.forms import NewDraftForm, PublishForm, TierReasonForm, reason_field, tier_formset, too_many_rows
from fees.in_force import among as in_force  # the version in force among versions in hand
from fees.models import FeeOption, FeeTier, ScheduleDocument, ScheduleVersion, TablePosting
from fees.option_label import option_label
from fees.reviews import PUBLICATION
from signage.models import PrintOverride
from signage import services as signage_services

from ..access import compliance_establishments, establishment_or_404, page

SECTION = "compliance"
SEEN_KEY = "console.compliance.findings_seen.{}"
PREVIOUS_KEY = "console.compliance.findings_seen_before.{}"
FINDINGS_PAGE_SIZE = 50


@page("compliance")
def home(request, scope):
    establishments = list(compliance_establishments(scope))
    if len(establishments) == 1:
        return redirect("console:compliance", establishments[0].slug)
    return render(request, "console/choose.html", {"establishments": establishments, "section": SECTION,
                                                   "target": "console:compliance"})


def _render(request, template, establishment, context, status=200):
    return render(request, f"console/compliance/{template}",
                  {"section": SECTION, "establishment": establishment, **context}, status=status)


def _room(scope, slug):
    return establishment_or_404(compliance_establishments(scope), slug)


def _last_seen(request, establishment, before=False):
    """When the inbox was last looked at (``before``: the look before that, for its later pages)."""
    raw = request.session.get((PREVIOUS_KEY if before else SEEN_KEY).format(establishment.pk))
    return datetime.datetime.fromisoformat(raw) if raw else None


# -- home ------------------------------------------------------------------------------------------------------


@page("compliance")
def establishment(request, establishment, scope):
    """The inbox at a glance (new since the last look at it), drafts under way, prints blocked, approvals."""
    establishment = _room(scope, establishment)
    now = timezone.now()
    seen = _last_seen(request, establishment)
    counts = inbox.standing_counts(inbox.standing(establishment, now), since=seen)
    documents = _documents(scope, establishment)
    drafts = []
    if fees_drafts.sees_drafts(request.user):
        drafts = [v for v in ScheduleVersion.objects.filter(document__in=documents, status=ScheduleVersion.Status.DRAFT)
                  .select_related("document", "created_by").order_by("document__code", "number")
                  if fees_drafts.sees_drafts(request.user, v.document)]
    postings = _posting_rows(establishment, now)
    approvals = _approval_rows(establishment, timezone.localdate())
    return _render(request, "home.html", establishment, {
        "counts": counts, "seen": seen, "open": sum(c["open"] for c in counts.values()),
        "new": sum(c["new"] for c in counts.values()),
        "last_run": ValidationRun.objects.filter(kind=ValidationRun.Kind.ESTABLISHMENT, establishment=establishment)
        .select_related("started_by").first(),
        "schedules": documents.count(), "drafts": drafts,
        "postings": len(postings), "blocked": [r for r in postings if r["blocked"]],
        "approvals": len(approvals), "approvals_attention": [r for r in approvals if r["attention"]],
        "may_run": permissions.allowed(request.user, "compliance.run_validation", establishment),
        "awaiting": awaiting(request.user, establishment, scope),
    })


# -- schedules --------------------------------------------------------------------------------------------------


def _documents(scope, establishment):
    """The establishment's own schedules and its jurisdiction's shared ones, within the user's scope."""
    return (ScheduleDocument.objects.filter(scope.placed_q())
            .filter(jurisdiction_id=establishment.jurisdiction_id)
            .filter(Q(establishment__isnull=True) | Q(establishment=establishment))
            .select_related("jurisdiction", "establishment", "source"))


def _visible(scope, document, versions):
    """A document's versions as the API shows them: drafts only to those who may see them (fees.drafts)."""
    return fees_drafts.visible_versions(scope.user, document, versions)


class TimelineForm(forms.Form):
    as_of = strict_forms.DayField(label="In force on", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    known_at = strict_forms.DayField(label="As the record stood on (optional)", required=False,
                                     widget=forms.DateInput(attrs={"type": "date"}),
                                     help_text="Leave out for the record as it stands now.")


def _looked_up(timeline, versions):
    """Both timelines for the day asked: the version in force then, now and as the record stood on a day."""
    if not timeline.is_valid() or not timeline.cleaned_data.get("as_of"):
        return None
    day, known = timeline.cleaned_data["as_of"], timeline.cleaned_data.get("known_at")
    known_at = (datetime.datetime.combine(known, datetime.time.max, timezone.get_current_timezone())
                if known else None)
    return {"as_of": day, "known_at": known, "now": in_force(versions, day),
            "then": in_force(versions, day, known_at) if known_at else None}


class SearchForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Code or title")

    def clean_q(self):
        try:
            return values.text(self.cleaned_data["q"], max_length=100, required=False)
        except values.Invalid as error:
            raise forms.ValidationError(f"The search {error}") from None


@page("compliance")
def schedules(request, establishment, scope):
    establishment = _room(scope, establishment)
    form = SearchForm(request.GET or None)
    documents = _documents(scope, establishment).prefetch_related(
        Prefetch("versions", queryset=ScheduleVersion.objects.order_by("number")), "games").order_by("code")
    status = 200
    query = ""
    if form.is_bound:
        if form.is_valid():
            query = form.cleaned_data["q"]
        else:
            status = 400
            documents = documents.none()
    if query:
        documents = documents.filter(Q(code__icontains=query) | Q(title__icontains=query))
    today = timezone.localdate()
    rows = []
    for document in documents:
        versions = list(document.versions.all())
        rows.append({"document": document, "in_force": in_force(versions, today),
                     "drafts": [v for v in _visible(scope, document, versions) if not v.is_published],
                     "later": [v for v in versions
                               if v.is_published and v.effective_from and v.effective_from > today]})
    counts = dict(FeeOption.objects.filter(version__in=[r["in_force"] for r in rows if r["in_force"]])
                  .values("version").annotate(n=Count("id")).values_list("version", "n"))
    for row in rows:
        row["options"] = counts.get(row["in_force"].pk, 0) if row["in_force"] else 0
    return _render(request, "schedules.html", establishment, {"form": form, "rows": rows, "query": query,
                                                              "today": today}, status=status)


def _document(scope, establishment, code):
    document = get_object_or_404(_documents(scope, establishment), code=code)
    versions = _visible(scope, document, list(
        document.versions.select_related("created_by", "published_by", "based_on", "review_requested_by")
        .order_by("number")))
    return document, versions


def _version(versions, number):
    found = next((v for v in versions if v.number == number), None)
    if found is None:
        raise Http404(f"No version {number}.")
    return found


def _number(raw, what):
    """A whole number from the address (``?option=7``); None when absent; 400 when malformed."""
    if raw in (None, ""):
        return None
    try:
        return values.whole_text(raw, minimum=1, maximum=1_000_000)
    except values.Invalid as error:
        raise BadRequest(f"{what} {error}") from None


class BadRequest(Exception):
    pass


@page("compliance")
def schedule(request, establishment, code, scope, number=None):
    """A schedule as in force today (or one version): an option picker and one option's tiers at a time."""
    establishment = _room(scope, establishment)
    document, versions = _document(scope, establishment, code)
    today = timezone.localdate()
    current = in_force(versions, today)
    version = _version(versions, number) if number is not None else current
    if version is None:  # nothing in force yet: the latest published version, else the latest draft
        published = [v for v in versions if v.is_published]
        version = (published or versions or [None])[-1]
    try:
        wanted = _number(request.GET.get("option"), "option")
    except BadRequest as error:
        return _render(request, "schedule.html", establishment, _schedule_context(
            scope, document, versions, version, current, None, [], today) | {"bad": str(error)}, status=400)
    options = list(FeeOption.objects.filter(version=version).prefetch_related("tiers").order_by("number")
                   ) if version else []
    for o in options:  # what tells the options apart, not the table limits they may all share
        o.picker_label = option_label(o.number, o.tiers.all(), document.currency)
    option = options[0] if options and wanted is None else next((o for o in options if o.number == wanted), None)
    if wanted is not None and option is None:
        raise Http404(f"{document.code} version {version.number} has no option {wanted}.")
    tiers = list(FeeTier.objects.filter(option=option).order_by("order")) if option else []
    context = _schedule_context(scope, document, versions, version, current, option, tiers, today, options)
    if request.htmx and request.htmx.target == "option-panel":
        return _render(request, "_option.html", establishment, context)
    timeline = TimelineForm(request.GET if "as_of" in request.GET else None)
    context.update(timeline=timeline, looked_up=_looked_up(timeline, versions))
    return _render(request, "schedule.html", establishment, context, status=400 if timeline.errors else 200)


def _schedule_context(scope, document, versions, version, current, option, tiers, today, options=()):
    options = list(options)
    at = next((i for i, o in enumerate(options) if option and o.pk == option.pk), None)
    may_edit = permissions.allowed(scope.user, "fees.edit_schedule", document)
    return {
        "document": document, "versions": list(reversed(versions)), "version": version, "current": current,
        "option": option, "tiers": tiers, "options": options, "today": today,
        "previous": options[at - 1] if at else None,
        "next": options[at + 1] if at is not None and at + 1 < len(options) else None,
        "may_edit": may_edit, "editable": bool(version and not version.is_locked and may_edit),
        "may_validate": bool(version and version.is_published
                             and permissions.allowed(scope.user, "compliance.run_validation", document)),
        "compare": CompareForm(versions=versions, initial=_compare_defaults(version, versions)),
    }


def _compare_defaults(version, versions):
    """The shown version against the one it was started from, else against the newest other version."""
    if version is None:
        return {}
    if version.based_on_id and any(v.pk == version.based_on_id for v in versions):
        return {"from": version.based_on.number, "to": version.number}
    others = [v for v in versions if v.pk != version.pk]
    if not others:
        return {"from": version.number, "to": version.number}
    other = others[-1]
    return ({"from": other.number, "to": version.number} if other.number < version.number
            else {"from": version.number, "to": other.number})


class CompareForm(forms.Form):
    """``?from=N&to=M``: two of the versions the user may see."""

    def __init__(self, *args, versions, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(v.number, f"v{v.number} ({v.get_status_display().lower()}"
                    + (f", from {v.effective_from}" if v.effective_from else "") + ")") for v in versions]
        self.fields["from"] = forms.TypedChoiceField(coerce=int, choices=choices, label="From version")
        self.fields["to"] = forms.TypedChoiceField(coerce=int, choices=choices, label="To version")


@page("compliance")
def compare(request, establishment, code, scope):
    """Two versions side by side, tier by tier, with what changed marked."""
    establishment = _room(scope, establishment)
    document, versions = _document(scope, establishment, code)
    form = CompareForm(request.GET or None, versions=versions)
    context = {"document": document, "form": form, "show_all": request.GET.get("all") == "1"}
    if not form.is_bound:
        return _render(request, "compare.html", establishment, context)
    if not form.is_valid():
        return _render(request, "compare.html", establishment, context, status=400)
    old = _version(versions, form.cleaned_data["from"])
    new = _version(versions, form.cleaned_data["to"])
    context |= {"old": old, "new": new, "diff": diff.diff_versions(old.diff_records(labels=True),
                                                                 new.diff_records(labels=True))}
    return _render(request, "compare.html", establishment, context)


def _editable(scope, establishment, code, number):
    """A draft the user may change; 403 if they may not, 409 (a page saying so) if it is published."""
    document, versions = _document(scope, establishment, code)
    if not scope.may_edit_schedule(document):
        raise PermissionDenied("Only a compliance officer responsible for this schedule may change it.")
    return document, versions, _version(versions, number)


def _published_refusal(request, establishment, document, version):
    message = (f"{document.code} version {version.number} is published and can no longer be changed: start a new "
               "draft from it instead." if version.is_published else
               f"{document.code} version {version.number} is awaiting a second officer and cannot be changed: "
               "withdraw the request for publication (on its publish page) to edit it again.")
    return _render(request, "refused.html", establishment, {"document": document, "version": version,
                                                            "message": message}, status=409)


@page("compliance")
def new_draft(request, establishment, code, number, scope):
    """Start a new draft from a version: its effective date and the reason are asked for."""
    establishment = _room(scope, establishment)
    document, _, based_on = _editable(scope, establishment, code, number)
    form = NewDraftForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                draft = services.start_draft(request.user, based_on, **form.cleaned_data)
            except StateConflict as error:
                messages.error(request, str(error))
                return _render(request, "new_draft.html", establishment,
                               {"document": document, "based_on": based_on, "form": form}, status=409)
            messages.success(request, f"Draft version {draft.number} started from version {based_on.number}. "
                                      "Edit its tiers, then publish it.")
            return redirect("console:compliance-version", establishment.slug, document.code, draft.number)
        return _render(request, "new_draft.html", establishment,
                       {"document": document, "based_on": based_on, "form": form}, status=400)
    return _render(request, "new_draft.html", establishment, {"document": document, "based_on": based_on,
                                                              "form": form})


@page("compliance")
def edit_tiers(request, establishment, code, number, option, scope):
    """One option's tiers of a draft, as a grid; saved row by row through the audited path, with the reason."""
    establishment = _room(scope, establishment)
    document, _, version = _editable(scope, establishment, code, number)
    if version.is_locked:
        return _published_refusal(request, establishment, document, version)
    option = get_object_or_404(FeeOption.objects.filter(version=version), number=option)
    try:
        extra = min(_number(request.GET.get("add"), "add") or 1, 20)
    except BadRequest:
        extra = 1
    data = request.POST if request.method == "POST" else None
    if data is not None and (too_many := too_many_rows(data)):  # before building a form per claimed row
        return _render(request, "refused.html", establishment, {"document": document, "version": version,
                                                                "message": too_many}, status=400)
    formset = tier_formset(option, data, extra=extra)
    reason = TierReasonForm(data)
    context = {"document": document, "version": version, "option": option, "formset": formset, "reason": reason,
               "extra": extra}
    if request.method != "POST":
        return _render(request, "edit_tiers.html", establishment, context)
    if not (formset.is_valid() and reason.is_valid()):
        return _render(request, "edit_tiers.html", establishment, context, status=400)
    try:
        changed, added, removed = editing.save_tiers(option, formset, user=request.user,
                                                      reason=reason.cleaned_data["reason"])
    except StateConflict as error:
        messages.error(request, str(error))
        return _render(request, "edit_tiers.html", establishment, context, status=409)
    if changed or added or removed:
        messages.success(request, f"Option {option.number}: {changed} tier(s) changed, {added} added, "
                                  f"{removed} removed.")
    else:
        messages.info(request, f"Option {option.number}: nothing changed.")
    url = reverse("console:compliance-version", args=[establishment.slug, document.code, version.number])
    return redirect(f"{url}?option={option.number}")


class ReviewForm(forms.Form):
    reason = reason_field(label="Why", help_text="Kept with the step and in the audit log.")


@page("compliance")
def publish(request, establishment, code, number, scope):
    """A draft: what publishing would change and raise, then the effective date, the reason and (if needed) the
    retroactive confirmation, sent to a second officer. A version awaiting one: the same facts, and approve or
    refuse (not for whoever asked for it, started or changed it), or withdraw the request."""
    establishment = _room(scope, establishment)
    document, versions, version = _editable(scope, establishment, code, number)
    if version.is_published:
        return _published_refusal(request, establishment, document, version)
    today = timezone.localdate()
    awaiting = version.status == ScheduleVersion.Status.IN_REVIEW
    form = None if awaiting else PublishForm(
        request.POST or None, version=version, today=today,
        initial={"effective_from": version.effective_from, "reason": version.publication_reason or version.reason,
                 "retroactive": version.retroactive, "retroactive_reason": version.retroactive_reason})
    review = ReviewForm(request.POST or None) if awaiting else None
    may_approve = (awaiting and permissions.allowed(request.user, services.APPROVE, document)
                   and request.user.pk not in PUBLICATION.involved(version))
    status = 200
    if request.method == "POST":
        step = request.POST.get("step", "request")
        valid = review.is_valid() if awaiting else form.is_valid()
        target = review if awaiting else form
        if valid:
            try:
                done = _review_step(request, version, step, target.cleaned_data, awaiting=awaiting, scope=scope)
            except StateConflict as error:
                target.add_error(None, str(error))
                status = 409
            except BadInput as error:
                target.add_error(getattr(error, "field", None) if getattr(error, "field", None) in target.fields
                                 else None, str(error))
                status = 400
            else:
                messages.success(request, done)
                return redirect("console:compliance-version", establishment.slug, document.code, version.number)
        else:
            status = 400
    version.refresh_from_db()
    current = in_force([v for v in versions if v.pk != version.pk], today)
    changes = diff.diff_versions(current.diff_records(labels=True) if current else [],
                                 version.diff_records(labels=True))
    tables = Table.objects.filter(establishment=establishment, active=True).select_related(
        "establishment__jurisdiction", "game")
    preview = checking.preview_version(version, tables=list(tables))
    preview["lint_new"], preview["lint_known"] = _split_known(preview["lint"], document, version, current)
    preview["postings"] = [{"posting": posting, "findings": [f for f in found if f.severity != "info"],
                            "notes": sum(1 for f in found if f.severity == "info")}
                           for posting, found in preview["postings"]]
    return _render(request, "publish.html", establishment, {
        "document": document, "version": version, "current": current, "diff": changes, "preview": preview,
        "form": form, "review": review, "awaiting": awaiting, "may_approve": may_approve,
        "reviews": version.reviews.all(), "today": today}, status=status)


PUBLICATION_STEPS = {  # step on a version awaiting a second officer: (service, what is said once it is done)
    "withdraw": (services.withdraw_publication, ": the request is withdrawn; the draft can be edited again."),
    "refuse": (services.refuse_publication, " is refused and back to draft; your reason is recorded."),
    "approve": (services.approve_publication, " is published. It can no longer be changed."),
}


def _review_step(request, version, step, data, *, awaiting, scope):
    """Take one step of the two-person publication (``fees.services``); returns the message to show."""
    user, label = request.user, f"{version.document.code} version {version.number}"
    if not awaiting:
        services.request_publication(user, version, reason=data["reason"], effective_from=data["effective_from"],
                                     retroactive=data["retroactive"], retroactive_reason=data["retroactive_reason"])
        return f"{label}: publication asked for. A second compliance officer now approves or refuses it."
    service, done = PUBLICATION_STEPS.get(step, PUBLICATION_STEPS["approve"])
    service(user, version, reason=data["reason"])
    return f"{label}{done}"


def _split_known(findings, document, version, current):
    """The draft's schedule findings: (new ones, those the version in force raises already)."""
    if current is None:
        return findings, []

    def key(finding, number):
        text = finding.message.replace(f"{document.code} v{number} ", f"{document.code} v* ")
        return finding.rule, finding.subject.get("option"), text

    _, raised = checking.schedule_findings(current)
    known = {key(f, current.number) for f in raised}
    fresh = [f for f in findings if key(f, version.number) not in known]
    return fresh, [f for f in findings if key(f, version.number) in known]


@page("compliance")
def discard(request, establishment, code, number, scope):
    establishment = _room(scope, establishment)
    document, _, version = _editable(scope, establishment, code, number)
    if version.is_locked:
        return _published_refusal(request, establishment, document, version)
    if request.method == "POST":
        try:
            services.discard_draft(request.user, version)
        except StateConflict as error:
            messages.error(request, str(error))
            return redirect("console:compliance-version", establishment.slug, document.code, version.number)
        messages.success(request, f"Draft version {number} of {document.code} discarded.")
        return redirect("console:compliance-schedule", establishment.slug, document.code)
    return _render(request, "discard.html", establishment, {"document": document, "version": version})


@require_POST
@page("compliance")
def validate_version(request, establishment, code, number, scope):
    """Lint a published version now and compare it with the others (the API's run over a schedule)."""
    establishment = _room(scope, establishment)
    document, versions = _document(scope, establishment, code)
    version = _version(versions, number)
    if not version.is_published:
        raise Http404("Only a published version is validated; a draft's findings are on its publish page.")
    permissions.require(request.user, "compliance.run_validation", document)
    run = checking.run_schedule(version, user=request.user)
    messages.success(request, f"{document.code} version {version.number} validated: {run.errors} error(s), "
                              f"{run.warnings} warning(s), {run.infos} note(s).")
    return redirect(reverse("console:compliance-findings", args=[establishment.slug]))


# -- findings -------------------------------------------------------------------------------------------------------


class InboxForm(forms.Form):
    severity = forms.ChoiceField(required=False, choices=[("", "All severities"), *Finding.Severity.choices])
    show = forms.ChoiceField(required=False, choices=[("open", "Open"), ("acknowledged", "Acknowledged"),
                                                      ("all", "All")])


class AcknowledgeForm(forms.Form):
    reason = reason_field(label="How it was handled", help_text="Kept with the finding and in the audit log.")


@page("compliance")
def findings(request, establishment, scope):
    """The inbox: the findings that stand now, by severity, with those new since the last look marked."""
    establishment = _room(scope, establishment)
    now = timezone.now()
    form = InboxForm(request.GET or None)
    status = 200 if not form.is_bound or form.is_valid() else 400
    severity = form.cleaned_data.get("severity") if status == 200 and form.is_bound else ""
    show = (form.cleaned_data.get("show") if status == 200 and form.is_bound else "") or "open"
    kept = inbox.standing(establishment, now)
    first_page = request.GET.get("page") in (None, "", "1")
    seen = _last_seen(request, establishment, before=not first_page)
    counts = inbox.standing_counts(kept, since=seen)
    chosen = kept.filter(severity=severity) if severity else kept
    if show != "all":
        chosen = chosen.filter(finding__acknowledged_at__isnull=show == "open")
    # A 200-table room stands on hundreds of findings: a page at a time, in the inbox's order.
    shown = Paginator(chosen.order_by("position"), FINDINGS_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = inbox.shown(shown.object_list)
    for finding in rows:
        finding.is_new = seen is not None and finding.acknowledged_at is None and finding.found_at > seen
        finding.may_acknowledge = finding.acknowledged_at is None and permissions.allowed(
            request.user, "compliance.acknowledge_finding", finding)
    if first_page:  # the later pages mark what was new when this look began
        request.session[PREVIOUS_KEY.format(establishment.pk)] = request.session.get(SEEN_KEY.format(establishment.pk))
        request.session[SEEN_KEY.format(establishment.pk)] = now.isoformat()
    totals = {s: sum(n for state, n in c.items() if state != "new" and show in ("all", state))
              for s, c in counts.items() if not severity or s == severity}
    groups = [(s, label, totals.get(s, 0), [f for f in rows if f.severity == s])
              for s, label in Finding.Severity.choices]
    return _render(request, "findings.html", establishment, {
        "form": form, "groups": [g for g in groups if g[3]], "rows": rows, "page": shown, "counts": counts,
        "seen": seen, "show": show, "severity": severity,
        "may_run": permissions.allowed(request.user, "compliance.run_validation", establishment),
        "last_run": ValidationRun.objects.filter(kind=ValidationRun.Kind.ESTABLISHMENT, establishment=establishment)
        .select_related("started_by").first(),
    }, status=status)


def _finding(establishment, pk):
    queryset = Finding.objects.filter(inbox.place_q(establishment)).select_related(
        "run", "table", "schedule", "schedule_version", "acknowledged_by", "posting")
    return get_object_or_404(queryset, pk=pk)


@page("compliance")
def finding(request, establishment, finding, scope):
    """One finding, with the form to acknowledge it (POST here acknowledges)."""
    establishment = _room(scope, establishment)
    finding = _finding(establishment, finding)
    form = AcknowledgeForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if not form.is_valid():
            status = 400
        else:
            try:
                acknowledge(finding, user=request.user, reason=form.cleaned_data["reason"])  # NotAllowed: 403
            except values.Invalid as error:
                form.add_error("reason", str(error))
                status = 400
            except AlreadyAcknowledged as error:
                messages.error(request, str(error))
                finding = _finding(establishment, finding.pk)
                status = 409
            else:
                messages.success(request, f"Finding {finding.pk} acknowledged.")
                inbox_url = reverse("console:compliance-findings", args=[establishment.slug])
                back = request.POST.get("next", "")
                return redirect(back if back.startswith(inbox_url + "?") else inbox_url)
    return _render(request, "finding.html", establishment, {
        "finding": finding, "form": form,
        "may_acknowledge": finding.acknowledged_at is None and permissions.allowed(
            request.user, "compliance.acknowledge_finding", finding)}, status=status)


@require_POST
@page("compliance")
def run_now(request, establishment, scope):
    """Validate the establishment now (its postings in force, approvals, rounds): the API's run."""
    establishment = _room(scope, establishment)
    permissions.require(request.user, "compliance.run_validation", establishment)
    run = checking.run_establishment(establishment, user=request.user)
    messages.success(request, f"Validation run {run.pk}: {run.postings_checked} posting(s) checked, {run.errors} "
                              f"error(s), {run.warnings} warning(s), {run.infos} note(s).")
    return redirect("console:compliance-findings", establishment.slug)


# -- approvals --------------------------------------------------------------------------------------------------------


def _approval_rows(establishment, today, forms_posted=None, may_record=False):
    """Each approval for the room or its jurisdiction, with each condition as it stands at this room (met: the day,
    the evidence, who recorded it; the forms to record or withdraw it where the user may). ``forms_posted``: the
    bound form of a POST that failed, by condition id (record) or ("withdraw", record id)."""
    forms_posted = forms_posted or {}
    approvals = (Approval.objects.filter(jurisdiction_id=establishment.jurisdiction_id)
                 .filter(Q(establishment__isnull=True) | Q(establishment=establishment))
                 .select_related("game", "jurisdiction", "establishment", "source")
                 .prefetch_related(*APPROVAL_PREFETCH, "conditions__fulfilments__recorded_by")
                 .order_by("game__name", "key"))
    rows = []
    for approval, at in conditions_at(establishment, approvals):
        state = approval_state(approval_facts(approval), today)
        for c in at:
            pk = c["condition"].pk
            c["form"] = forms_posted.get(pk) or (ConditionMetForm(prefix=f"c{pk}")
                                                 if may_record and c["recordable"] and not c["met"] else None)
            c["withdraw_form"] = (forms_posted.get(("withdraw", c["record"].pk))
                                  or WithdrawMetForm(prefix=f"w{c['record'].pk}")) if may_record and c["met"] else None
        outstanding = [c["condition"] for c in at if c["recordable"] and not c["met"]]
        expiring = bool(state.in_force and approval.expires_on and approval.expires_on - today <= EXPIRING_WITHIN)
        trial_ending = bool(state.in_force and approval.status == Approval.Status.TRIAL and approval.trial_ends_on
                            and approval.trial_ends_on - today <= EXPIRING_WITHIN)
        rows.append({"approval": approval, "state": state, "conditions": [c["condition"] for c in at], "at": at,
                     "outstanding": outstanding, "expiring": expiring, "trial_ending": trial_ending,
                     "attention": bool(outstanding) or expiring or trial_ending or not state.in_force})
    return rows


class ConditionMetForm(forms.Form):
    met_on = strict_forms.DayField(label="Met on", widget=forms.DateInput(attrs={"type": "date"}),
                                   help_text="The day it was met (not after today).")
    evidence = strict_forms.TextField(label="Evidence", max_length=record_conditions.EVIDENCE_MAX,
                                      widget=forms.TextInput(attrs={"size": 40}),
                                      help_text="Reference of the evidence, e.g. the Commission's letter.")
    note = strict_forms.TextField(label="Note", max_length=record_conditions.NOTE_MAX, single_line=False,
                                  required=False, widget=forms.Textarea(attrs={"rows": 1, "cols": 40}))


class WithdrawMetForm(forms.Form):
    reason = reason_field(label="Why it is not met after all",
                          help_text="Kept with the record, in the history and in the audit log.")


def _approvals_page(request, establishment, scope, forms_posted=None, status=200):
    today = timezone.localdate()
    may_record = permissions.allowed(request.user, "cardroom.record_condition", establishment)
    rows = sorted(_approval_rows(establishment, today, forms_posted, may_record),
                  key=lambda r: not r["attention"])  # stable: by game after
    return _render(request, "approvals.html", establishment, {"rows": rows, "today": today,
                                                              "may_record": may_record}, status=status)


@page("compliance")
def approvals(request, establishment, scope):
    establishment = _room(scope, establishment)
    return _approvals_page(request, establishment, scope)


def _condition(establishment, pk):
    queryset = ApprovalCondition.objects.select_related("approval__jurisdiction", "approval__establishment").filter(
        approval__jurisdiction_id=establishment.jurisdiction_id)
    return get_object_or_404(queryset, pk=pk)


@require_POST
@page("compliance")
def record_condition(request, establishment, condition, scope):
    """Record that this room met a condition of an approval (cardroom.conditions.record_met, as the API)."""
    establishment = _room(scope, establishment)
    condition = _condition(establishment, condition)
    permissions.require(request.user, "cardroom.record_condition", establishment)
    form = ConditionMetForm(request.POST, prefix=f"c{condition.pk}")
    status = 400
    if form.is_valid():
        try:
            record_conditions.record_met(condition, establishment, user=request.user, **form.cleaned_data)
        except record_conditions.ConditionInputError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
        except record_conditions.ConditionConflict as error:
            form.add_error(None, str(error))
            status = 409
        else:
            messages.success(request, f"{condition.approval.key} condition {condition.order} recorded as met at "
                                      f"{establishment.name} on {form.cleaned_data['met_on']:%Y-%m-%d}.")
            return redirect(reverse("console:compliance-approvals", args=[establishment.slug])
                            + f"#condition-{condition.pk}")
    return _approvals_page(request, establishment, scope, {condition.pk: form}, status=status)


@require_POST
@page("compliance")
def withdraw_condition(request, establishment, record, scope):
    """Withdraw, with a reason, the record that this room met a condition (cardroom.conditions.withdraw)."""
    establishment = _room(scope, establishment)
    record = get_object_or_404(ConditionFulfilment.objects.select_related("condition__approval"),
                               pk=record, establishment=establishment)
    permissions.require(request.user, "cardroom.record_condition", record)
    form = WithdrawMetForm(request.POST, prefix=f"w{record.pk}")
    status = 400
    if form.is_valid():
        try:
            record_conditions.withdraw(record, reason=form.cleaned_data["reason"], user=request.user)
        except record_conditions.ConditionInputError as error:
            form.add_error("reason", str(error))
        except record_conditions.ConditionConflict as error:
            messages.error(request, str(error))
            status = 409
        else:
            condition = record.condition
            messages.success(request, f"{condition.approval.key} condition {condition.order} is no longer recorded "
                                      f"as met at {establishment.name}.")
            return redirect(reverse("console:compliance-approvals", args=[establishment.slug])
                            + f"#condition-{condition.pk}")
    return _approvals_page(request, establishment, scope, {("withdraw", record.pk): form}, status=status)


# -- postings and overrides -----------------------------------------------------------------------------------------


def _posting_rows(establishment, now):
    """Each posting in force now or to come at the establishment, with its latest check, the error findings of
    that check, the print override approved for them and the one awaiting a second officer (five queries; plain
    rows, as the floor's)."""
    order = {pk: i for i, (pk, label) in enumerate(sorted(
        Table.objects.filter(establishment=establishment, active=True).values_list("pk", "label"),
        key=lambda t: natural(t[1])))}
    in_force = TablePosting.objects.in_force_at(now).filter(table__establishment=establishment).values("pk")
    postings = sorted(
        TablePosting.objects.filter(table__in=list(order)).filter(Q(pk__in=in_force) | Q(effective_from__gt=now))
        .display_rows(),
        key=lambda p: (order[p.table_id], p.effective_from))
    checks = ValidationRun.objects.latest_posting_checks([p.pk for p in postings])
    errors = {}
    for run, message in (Finding.objects.filter(run__in=[run for run, _, _ in checks.values()],
                                                severity=Finding.Severity.ERROR)
                         .order_by("id").values_list("run_id", "message")):
        errors.setdefault(run, []).append(message)
    overrides = {}
    for answer in (PrintOverride.objects.filter(posting__in=[p.pk for p in postings])
                   .exclude(status=PrintOverride.Status.REFUSED)
                   .values("posting_id", "status", "requested_at", "requested_by_id", "requested_by__username",
                           "reason", "decided_at", "decided_by__username", "decision_reason")):
        overrides.setdefault((answer["posting_id"], answer["status"]), answer)  # newest first (the model's ordering)
    rows = []
    for posting in postings:
        run, error_count, warnings = checks.get(posting.pk, (None, 0, 0))
        found = errors.get(run, [])
        granted = overrides.get((posting.pk, PrintOverride.Status.APPROVED)) if found else None
        rows.append({"posting": posting, "checked": run is not None, "errors": found, "error_count": error_count,
                     "warnings": warnings, "override": granted,
                     "pending": overrides.get((posting.pk, PrintOverride.Status.REQUESTED)) if found and not granted
                     else None,
                     "upcoming": posting.effective_from > now, "blocked": bool(found) and granted is None})
    return rows


@page("compliance")
def postings(request, establishment, scope):
    """Postings in force and to come, their findings and print overrides; the overrides awaiting a second officer;
    every override asked for, approved or refused, with the reasons."""
    establishment = _room(scope, establishment)
    now = timezone.now()
    rows = _posting_rows(establishment, now)
    history = (PrintOverride.objects.filter(posting__table__establishment=establishment)
               .select_related("posting__table", "posting__schedule", "posting__rules", "requested_by",
                               "decided_by")[:100])
    return _render(request, "postings.html", establishment, {
        "rows": rows, "pending": [r for r in rows if r["pending"]], "history": history, "now": now,
        "may_override": permissions.allowed(request.user, "signage.override_print", establishment)})


class OverrideForm(forms.Form):
    reason = reason_field(label="Why", min_length=10,
                          help_text="Kept with the override and in the audit log (10 characters or more).")


OVERRIDE_STEPS = {  # step: (service, what is said once it is done)
    "request": (signage_services.request_override, "an override is asked for; the sign may be printed once a "
                                                   "second compliance officer approves it."),
    "approve": (signage_services.approve_override, "the override is approved: the sign may now be printed; your "
                                                   "reason is recorded."),
    "refuse": (signage_services.refuse_override, "the override is refused: the sign stays blocked; your reason is "
                                                 "recorded."),
    "withdraw": (signage_services.withdraw_override, "the request is withdrawn: the sign stays blocked; your reason "
                                                     "is recorded."),
}


@page("compliance")
def override_posting(request, establishment, posting, scope):
    """Print a posting with error findings anyway: one officer asks, with a reason; a second one (not the asker)
    approves or refuses it, with theirs (signage's override services)."""
    establishment = _room(scope, establishment)
    posting = get_object_or_404(TablePosting.objects.filter(table__establishment=establishment)
                                .select_related("table__establishment__jurisdiction", "schedule", "rules", "game"),
                                pk=posting)
    permissions.require(request.user, signage_services.OVERRIDE_PRINT, establishment)
    form = OverrideForm(request.POST or None)
    status = 200
    if request.method == "POST":
        service, done = OVERRIDE_STEPS.get(request.POST.get("step") or "request", (None, ""))
        if service is None:
            form.add_error(None, "Choose to ask for an override, or to approve or refuse the one asked for.")
            status = 400
        elif form.is_valid():
            try:
                service(request.user, posting, reason=form.cleaned_data["reason"])
            except BadInput as error:
                form.add_error("reason" if getattr(error, "field", None) == "reason" else None, str(error))
                status = 400
            except StateConflict as error:
                form.add_error(None, str(error))
                status = 409
            else:
                messages.success(request, f"Table {posting.table.label}: {done}")
                return redirect("console:compliance-postings", establishment.slug)
        else:
            status = 400
    run = posting.validation_runs.filter(kind=ValidationRun.Kind.POSTING).order_by("-created_at", "-id").first()
    found = list(run.findings.order_by("id")) if run else []
    overrides = list(posting.print_overrides.select_related("requested_by", "decided_by"))
    waiting = next((o for o in overrides if o.status == PrintOverride.Status.REQUESTED), None)
    return _render(request, "override.html", establishment, {
        "posting": posting, "form": form, "run": run, "findings": found,
        "has_errors": any(f.severity == Finding.Severity.ERROR for f in found), "overrides": overrides,
        "approved": next((o for o in overrides if o.is_approved), None), "waiting": waiting,
        "asked_by_me": waiting is not None and waiting.requested_by_id == request.user.pk}, status=status)
