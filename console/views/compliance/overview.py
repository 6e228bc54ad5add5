"""The compliance section's front pages: choosing an establishment, and one establishment at a glance."""

from django.shortcuts import redirect, render
from django.utils import timezone

from cardroom import permissions
from cardroom.inbox import awaiting
from compliance import inbox
from compliance.models import ValidationRun
from fees.models import ScheduleVersion
from fees.schedules import selectors as fees_drafts

from ...access import compliance_establishments, page
from .base import SECTION, last_seen, render_page, room_or_404, schedule_documents
from .conditions import approval_rows
from .overrides import posting_rows


@page("compliance")
def home(request, scope):
    establishments = list(compliance_establishments(scope))
    if len(establishments) == 1:
        return redirect("console:compliance", establishments[0].slug)
    return render(request, "console/choose.html", {"establishments": establishments, "section": SECTION,
                                                   "target": "console:compliance"})


@page("compliance")
def establishment(request, establishment, scope):
    """The inbox at a glance (new since the last look at it), drafts under way, prints blocked, approvals."""
    establishment = room_or_404(scope, establishment)
    now = timezone.now()
    seen = last_seen(request, establishment)
    counts = inbox.standing_counts(inbox.standing(establishment, now), since=seen)
    documents = schedule_documents(scope, establishment)
    drafts = []
    if fees_drafts.sees_drafts(request.user):
        drafts = [v for v in ScheduleVersion.objects.filter(document__in=documents, status=ScheduleVersion.Status.DRAFT)
                  .select_related("document", "created_by").prefetch_related("reviews")
                  .order_by("document__code", "number")
                  if fees_drafts.sees_drafts(request.user, v.document)]
    postings = posting_rows(establishment, now)
    approvals = approval_rows(establishment, timezone.localdate())
    return render_page(request, "home.html", establishment, {
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
