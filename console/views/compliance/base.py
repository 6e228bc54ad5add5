"""What every compliance page shares: the section, rendering, the establishment and schedule lookups (scoped as
the API: the user's compliance establishments; its own and its jurisdiction's schedules, drafts only to those
who may see them), and reading a number from the address."""

import datetime

from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from cardroom import values
from fees.schedules import selectors as fees_drafts
from fees.models.in_force import among as in_force  # the version in force among versions in hand (for the pages)
from fees.models import ScheduleDocument

from ...access import compliance_establishments, establishment_or_404

SECTION = "compliance"
SEEN_KEY = "console.compliance.findings_seen.{}"
PREVIOUS_KEY = "console.compliance.findings_seen_before.{}"


def _render(request, template, establishment, context, status=200):
    return render(request, f"console/compliance/{template}",
                  {"section": SECTION, "establishment": establishment, **context}, status=status)


def _room(scope, slug):
    return establishment_or_404(compliance_establishments(scope), slug)


def _last_seen(request, establishment, before=False):
    """When the inbox was last looked at (``before``: the look before that, for its later pages)."""
    raw = request.session.get((PREVIOUS_KEY if before else SEEN_KEY).format(establishment.pk))
    return datetime.datetime.fromisoformat(raw) if raw else None


def _documents(scope, establishment):
    """The establishment's own schedules and its jurisdiction's shared ones, within the user's scope."""
    return (ScheduleDocument.objects.filter(scope.placed_q())
            .filter(jurisdiction_id=establishment.jurisdiction_id)
            .filter(Q(establishment__isnull=True) | Q(establishment=establishment))
            .select_related("jurisdiction", "establishment", "source"))


def _visible(scope, document, versions):
    """A document's versions as the API shows them: drafts only to those who may see them (fees.schedules.selectors)."""
    return fees_drafts.visible_versions(scope.user, document, versions)


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
    """A whole number from the address (``?option=7``); None when absent; a BadInput naming ``what`` (400)."""
    if raw in (None, ""):
        return None
    return values.named(what, values.whole_text, raw, minimum=1, maximum=1_000_000)
