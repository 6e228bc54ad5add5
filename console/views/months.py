"""A room's months, for its compliance officers (administrators too) and its regulators: each month of its ledger,
newest first, with its state (open, held and why, closing, closed, archive removed), its totals (a closed month's as
its closing sealed them), its audit bundle and who closed it and when (``fees.months.overview``). The bundle is
downloaded by those who may export the room (``exports.request_export``). The same page under each role's section;
its JSON twin is the API's ``GET /api/v1/establishments/<room>/months``."""

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.utils import timezone

from cardroom import permissions, values
from cardroom.money import format_difference, format_money
from fees.models import ClosedMonth
from fees.months import overview

from ..access import compliance_establishments, establishment_or_404, page, regulated_establishments

DOWNLOAD = "exports.request_export"  # a closed month's bundle is the room's audit export of the month


def _shown(month):
    return [{"currency": t.currency, "expected": format_money(t.expected, t.currency),
             "collected": format_money(t.collected, t.currency),
             "difference": format_difference(t.difference, t.currency), "short": t.difference < 0,
             "rounds": f"{t.rounds:,}", "entries": f"{t.entries:,}"} for t in month.totals]


def _page(request, establishment, section):
    months = overview.room_months(establishment, timezone.localdate(timezone.now(), establishment.zone))
    return render(request, "console/months.html", {
        "section": section, "establishment": establishment,
        "months": [(m, _shown(m)) for m in months], "states": overview.STATES,
        "may_download": permissions.allowed(request.user, DOWNLOAD, establishment),
        "close_after_days": settings.LEDGER_CLOSE_AFTER_DAYS,
        "retention_days": settings.LEDGER_ARCHIVE_RETENTION_DAYS})


def _bundle(request, establishment, month):
    """This room's bundle of a closed month, as its closing wrote it (404 when there is none or its file is gone)."""
    permissions.require(request.user, DOWNLOAD, establishment)
    try:
        first = values.month(month)
    except values.Invalid:
        raise Http404("Give the month as YYYY-MM.") from None
    closing = ClosedMonth.objects.filter(month=first, reopened_at__isnull=True, establishments=establishment).first()
    bundle = next((b for b in (closing.bundles if closing else ()) if b.get("establishment") == establishment.slug),
                  None)
    path = Path(closing.archive_dir) / bundle["file"] if bundle else None
    if path is None or not path.is_file():
        raise Http404(f"No audit bundle of {month} for {establishment.name} is kept here.")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=bundle["file"],
                        content_type="application/zip")


@page("compliance")
def compliance_months(request, establishment, scope):
    return _page(request, establishment_or_404(compliance_establishments(scope), establishment), "compliance")


@page("regulator")
def regulator_months(request, establishment, scope):
    return _page(request, establishment_or_404(regulated_establishments(scope), establishment), "regulator")


@page("compliance")
def compliance_bundle(request, establishment, month, scope):
    return _bundle(request, establishment_or_404(compliance_establishments(scope), establishment), month)


@page("regulator")
def regulator_bundle(request, establishment, month, scope):
    return _bundle(request, establishment_or_404(regulated_establishments(scope), establishment), month)
