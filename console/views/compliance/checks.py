"""Validation and its findings: the inbox (a page at a time, new since the last look marked), one finding and
its acknowledgement, and running validation now over the establishment or a published version."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from cardroom import permissions
from cardroom.exceptions import BadInput
from cardroom.forms import show_error
from compliance import inbox, services
from compliance.findings import AlreadyAcknowledged, acknowledge
from compliance.models import Finding, ValidationRun

from ...access import page
from .base import PREVIOUS_KEY, SEEN_KEY, document_or_404, last_seen, render_page, room_or_404, version_or_404
from .forms import AcknowledgeForm, InboxForm

FINDINGS_PAGE_SIZE = 50


@require_POST
@page("compliance")
def validate_version(request, establishment, code, number, scope):
    """Lint a published version now and compare it with the others (the API's run over a schedule)."""
    establishment = room_or_404(scope, establishment)
    document, versions = document_or_404(scope, establishment, code)
    version = version_or_404(versions, number)
    if not version.is_published:
        raise Http404("Only a published version is validated; a draft's findings are on its publish page.")
    run = services.run_schedule(request.user, version=version)  # NotAllowed: the 403 page
    messages.success(request, f"{document.code} version {version.number} validated: {run.errors} error(s), "
                              f"{run.warnings} warning(s), {run.infos} note(s).")
    return redirect(reverse("console:compliance-findings", args=[establishment.slug]))


@page("compliance")
def findings(request, establishment, scope):
    """The inbox: the findings that stand now, by severity, with those new since the last look marked."""
    establishment = room_or_404(scope, establishment)
    now = timezone.now()
    form = InboxForm(request.GET or None)
    status = 200 if not form.is_bound or form.is_valid() else 400
    severity = form.cleaned_data.get("severity") if status == 200 and form.is_bound else ""
    show = (form.cleaned_data.get("show") if status == 200 and form.is_bound else "") or "open"
    kept = inbox.standing(establishment, now)
    first_page = request.GET.get("page") in (None, "", "1")
    seen = last_seen(request, establishment, before=not first_page)
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
    return render_page(request, "findings.html", establishment, {
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
    establishment = room_or_404(scope, establishment)
    finding = _finding(establishment, finding)
    form = AcknowledgeForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if not form.is_valid():
            status = 400
        else:
            try:
                acknowledge(request.user, finding=finding, reason=form.cleaned_data["reason"])  # NotAllowed: 403
            except BadInput as error:
                status = show_error(form, error)
            except AlreadyAcknowledged as error:
                messages.error(request, str(error))
                finding = _finding(establishment, finding.pk)
                status = 409
            else:
                messages.success(request, f"Finding {finding.pk} acknowledged.")
                inbox_url = reverse("console:compliance-findings", args=[establishment.slug])
                back = request.POST.get("next", "")
                return redirect(back if back.startswith(inbox_url + "?") else inbox_url)
    return render_page(request, "finding.html", establishment, {
        "finding": finding, "form": form,
        "may_acknowledge": finding.acknowledged_at is None and permissions.allowed(
                request.user, "compliance.acknowledge_finding", finding)}, status=status)


@require_POST
@page("compliance")
def run_now(request, establishment, scope):
    """Validate the establishment now (its postings in force, approvals, rounds): the API's run."""
    establishment = room_or_404(scope, establishment)
    run = services.run_establishment(request.user, establishment=establishment)  # NotAllowed: the 403 page
    messages.success(request, f"Validation run {run.pk}: {run.postings_checked} posting(s) checked, {run.errors} "
                              f"error(s), {run.warnings} warning(s), {run.infos} note(s).")
    return redirect("console:compliance-findings", establishment.slug)
