"""What every compliance page shares: the section, rendering, the establishment and schedule lookups (scoped as
the API: the user's compliance establishments; its own and its jurisdiction's schedules, drafts only to those
who may see them), the draft a user may change (and the page refusing a change to one no longer a draft), and
reading a number from the address."""

import datetime

from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from cardroom import permissions, values
from fees.schedules import selectors as fees_drafts
from fees.schedules import services
from fees.models.in_force import among as in_force  # the version in force among versions in hand (for the pages)
from fees.models import ScheduleDocument

from ...access import compliance_establishments, establishment_or_404

SECTION = "compliance"
SEEN_KEY = "console.compliance.findings_seen.{}"
PREVIOUS_KEY = "console.compliance.findings_seen_before.{}"


def render_page(request, template, establishment, context, status=200):
    return render(request, f"console/compliance/{template}",
                  {"section": SECTION, "establishment": establishment, **context}, status=status)


def room_or_404(scope, slug):
    return establishment_or_404(compliance_establishments(scope), slug)


def last_seen(request, establishment, before=False):
    """When the inbox was last looked at (``before``: the look before that, for its later pages)."""
    raw = request.session.get((PREVIOUS_KEY if before else SEEN_KEY).format(establishment.pk))
    return datetime.datetime.fromisoformat(raw) if raw else None


def schedule_documents(scope, establishment):
    """The establishment's own schedules and its jurisdiction's shared ones, within the user's scope."""
    return (ScheduleDocument.objects.filter(scope.placed_q())
            .filter(jurisdiction_id=establishment.jurisdiction_id)
            .filter(Q(establishment__isnull=True) | Q(establishment=establishment))
            .select_related("jurisdiction", "establishment", "source"))


def visible_versions(scope, document, versions):
    """A document's versions as the API shows them: drafts only to those who may see them (fees.schedules.selectors)."""
    return fees_drafts.visible_versions(scope.user, document, versions)


def document_or_404(scope, establishment, code):
    document = get_object_or_404(schedule_documents(scope, establishment), code=code)
    versions = visible_versions(scope, document, list(
        document.versions.select_related("created_by", "published_by", "based_on", "review_requested_by")
        .order_by("number")))
    return document, versions


def version_or_404(versions, number):
    found = next((v for v in versions if v.number == number), None)
    if found is None:
        raise Http404(f"No version {number}.")
    return found


def number_from(raw, what):
    """A whole number from the address (``?option=7``); None when absent; a BadInput naming ``what`` (400)."""
    if raw in (None, ""):
        return None
    return values.named(what, values.whole_text, raw, minimum=1, maximum=1_000_000)


def editable_version(scope, establishment, code, number):
    """A draft the user may change; 403 if they may not, 409 (a page saying so) if it is published."""
    document, versions = document_or_404(scope, establishment, code)
    permissions.require(scope.user, services.EDIT, document)
    return document, versions, version_or_404(versions, number)


def published_refusal(request, establishment, document, version):
    message = (f"{document.code} version {version.number} is published and can no longer be changed: start a new "
               "draft from it instead." if version.is_published else
               f"{document.code} version {version.number} is awaiting a second officer and cannot be changed: "
               "withdraw the request for publication (on its publish page) to edit it again.")
    return render_page(request, "refused.html", establishment, {"document": document, "version": version,
                                                                "message": message}, status=409)
