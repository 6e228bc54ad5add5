"""Publishing a draft, two-person: what it would change and raise, the request, and a second officer's approval
or refusal (or the request withdrawn), through fees.schedules.services."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils import timezone

from cardroom import permissions
from cardroom.exceptions import BadInput, StateConflict
from cardroom.forms import show_error
from cardroom.models import Table
from compliance import checking
from fees.engine import diff
from fees.forms import PublishForm
from fees.models import ScheduleVersion, publication
from fees.schedules import services
from fees.schedules.reviews import PUBLICATION

from ...access import page
from .base import editable_version, in_force, published_refusal, render_page, room_or_404
from .forms import ReviewForm


@page("compliance")
def publish(request, establishment, code, number, scope):
    """A draft: what publishing would change and raise, then the effective date, the reason and (if needed) the
    retroactive confirmation, sent to a second officer. A version awaiting one: the same facts, and approve or
    refuse (not for whoever asked for it, started or changed it), or withdraw the request."""
    establishment = room_or_404(scope, establishment)
    document, versions, version = editable_version(scope, establishment, code, number)
    if version.is_published:
        return published_refusal(request, establishment, document, version)
    today = timezone.localdate()
    awaiting = version.status == ScheduleVersion.Status.IN_REVIEW
    step = request.POST.get("step", "request") if request.method == "POST" else None
    # The form a POST fills: the review form to approve, refuse or withdraw (or to ask again while it awaits), the
    # publish form to ask. A page out of date may send either in either state: the service says it is out of step.
    answering = step is not None and (awaiting or step in PUBLICATION_STEPS)
    current = in_force([v for v in versions if v.pk != version.pk], today)
    changes = diff.diff_versions(current.diff_records(labels=True) if current else [],
                                 version.diff_records(labels=True))
    # Publishing would change nothing from the version it takes over from (issue 42): said on the page; the form
    # refuses it as every door does (fees.models.publication).
    replaced = publication.taken_over(version, version.effective_from, today)
    unchanged = replaced if publication.changes_nothing(
        version, replaced, changes if replaced == current else None) else None
    form = None if awaiting else PublishForm(
        request.POST if step and not answering else None, version=version, today=today,
        initial={"effective_from": version.effective_from, "reason": version.publication_reason or version.reason,
                 "retroactive": version.retroactive, "retroactive_reason": version.retroactive_reason})
    review = ReviewForm(request.POST if answering else None) if awaiting or answering else None
    may = _may(request.user, version, document) if awaiting else {}
    status = 200
    if step is not None:
        target = review if answering else form
        if target.is_valid():
            try:
                done = _review_step(request, version, step, target.cleaned_data)
            except (BadInput, StateConflict) as error:
                status = show_error(target, error)
            else:
                messages.success(request, done)
                return redirect("console:compliance-version", establishment.slug, document.code, version.number)
        else:
            status = 400
        if target is review and not awaiting:  # the draft's page shows the publish form: say it there
            for error in review.non_field_errors() or [str(e) for e in review.errors.get("reason", [])]:
                messages.error(request, error)
    version.refresh_from_db()
    tables = Table.objects.filter(establishment=establishment, active=True).select_related(
        "establishment__jurisdiction", "game")
    preview = checking.preview_version(version, tables=list(tables))
    preview["lint_new"], preview["lint_known"] = _split_known(preview["lint"], document, version, current)
    preview["postings"] = [{"posting": posting, "findings": [f for f in found if f.severity != "info"],
                            "notes": sum(1 for f in found if f.severity == "info")}
                           for posting, found in preview["postings"]]
    return render_page(request, "publish.html", establishment, {
        "document": document, "version": version, "current": current, "diff": changes, "preview": preview,
        "form": form, "review": review, "awaiting": awaiting, "may": may, "unchanged": unchanged,
        "reviews": version.reviews.all(), "today": today}, status=status)


def _may(user, version, document):
    """The steps ``user`` may take on a version awaiting a second officer (the page shows only their buttons): the
    named permission, then the review's table (``cardroom.review``: who asked, who made it, an administrator)."""
    permitted = {"approve": services.APPROVE, "refuse": services.APPROVE, "withdraw": services.EDIT}
    may = {step: permissions.allowed(user, name, document) and PUBLICATION.may(version, step, user)
           for step, name in permitted.items()}
    may["for_asker"] = may["withdraw"] and version.review_requested_by_id != user.pk
    return may


PUBLICATION_STEPS = {  # step on a version awaiting a second officer: (service, what is said once it is done)
    "withdraw": (services.withdraw_publication, ": the request is withdrawn; the draft can be edited again."),
    "refuse": (services.refuse_publication, " is refused and back to draft; your reason is recorded."),
    "approve": (services.approve_publication, " is published. It can no longer be changed."),
}


def _review_step(request, version, step, data):
    """Take one step of the two-person publication (``fees.schedules.services``); returns the message to show."""
    user, label = request.user, f"{version.document.code} version {version.number}"
    if step not in PUBLICATION_STEPS:  # asking (again, from a page out of date: the service says it awaits)
        services.request_publication(
            user, version=version, reason=data["reason"],
            effective_from=data.get("effective_from", version.effective_from),
            retroactive=data.get("retroactive", version.retroactive),
            retroactive_reason=data.get("retroactive_reason", version.retroactive_reason))
        return f"{label}: publication asked for. A second compliance officer now approves or refuses it."
    service, done = PUBLICATION_STEPS[step]
    service(user, version=version, reason=data["reason"])
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
