"""A room's game math, for its compliance officers and its regulators: each paytable of its games (once,
whichever documents print it) with the house edge computed exactly beside every figure a document states, and a
disagreement in a sentence (console.house_edges). Read-only; the same page under each role's section."""

from django.shortcuts import render
from django.utils import timezone

from .. import house_edges
from ..access import compliance_establishments, establishment_or_404, page, regulated_establishments


def _page(request, establishment, section):
    now = timezone.now()
    return render(request, "console/game_math.html", {
        "section": section, "establishment": establishment, "now": now,
        "games": house_edges.for_room(establishment, now)})


@page("compliance")
def compliance_game_math(request, establishment, scope):
    return _page(request, establishment_or_404(compliance_establishments(scope), establishment), "compliance")


@page("regulator")
def regulator_game_math(request, establishment, scope):
    return _page(request, establishment_or_404(regulated_establishments(scope), establishment), "regulator")
