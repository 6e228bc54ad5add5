"""Postings in force and to come with their latest check, and print overrides: asked for by one officer,
approved or refused by a second, or withdrawn (signage.services)."""

from django.contrib import messages
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone

from cardroom import permissions
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import Table
from cardroom.ordering import natural
from compliance.models import Finding, ValidationRun
from fees.models import TablePosting
from signage import services as signage_services
from signage.models import PrintOverride

from ...access import page
from .base import _render, _room
from .forms import OverrideForm


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
