"""A version's history for a compliance officer: who changed what, when and why, old → new per field.

Scoped as the schedule pages (``compliance.base._document``: a draft only for those who may edit it); the entries come
from ``fees.schedules.history``, grouped by change (one save of a tier grid is one change) and paginated.
"""

from decimal import Decimal

from django.core.paginator import Paginator
from django.shortcuts import render

from fees.schedules import history

from ..access import page
from ..templatetags.console import money, room_time
from .compliance.base import SECTION, document_or_404, room_or_404, version_or_404

CHANGES_PER_PAGE = 25


@page("compliance")
def version_history(request, establishment, code, number, scope):
    establishment = room_or_404(scope, establishment)
    document, versions = document_or_404(scope, establishment, code)
    version = version_or_404(versions, number)
    changes = history.grouped(history.version_history(version))
    shown = Paginator(changes, CHANGES_PER_PAGE).get_page(request.GET.get("page"))
    for change in shown.object_list:
        for entry in change["entries"]:
            for field in entry["fields"]:
                field["before"] = _shown(field, "old", establishment)
                field["after"] = _shown(field, "new", establishment)
    reviews = [entry["review"] for change in changes for entry in change["entries"] if entry["review"]]
    return render(request, "console/compliance/history.html", {
        "section": SECTION, "establishment": establishment, "document": document, "version": version,
        "page": shown, "reviews": reviews,
    })


def _shown(field, side, establishment):
    """One side of a field's change as the officer reads it: $2.00, the choice's label, the room's time."""
    value = field[side]
    if value is None or value == "":
        return "—"
    kind = field["kind"]
    if kind == "money":
        return money(Decimal(value), field["currency"])
    if kind == "choice":
        return field[f"{side}_label"]
    if kind == "moment":
        return room_time(value, establishment)
    if kind == "day":
        return value.isoformat()
    if kind == "flag":
        return "yes" if value else "no"
    return value  # text, a number, a person's name, a version (v1), a list of provisions
