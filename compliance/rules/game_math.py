"""Approval lint over the game math: is a house edge stated in an approval's documents what the game gives?
Pure Python.

Facts: ``cardroom.gamemath.compare.StatedEdge`` (built by ``cardroom.game_checks.stated_edges`` from the
seeded ``StatedHouseEdge`` rows): the figure as stated (percent, the decimals it is printed with, the deck count
or none, the strategy), its citation, the approvals it concerns, and the exact house edge of the same bet
computed by ``cardroom.gamemath`` for each comparable deck count (and paytable, for a figure stated for a bet
without naming one). Nothing here reads the database or computes odds.

Rule ``approval.house_edge`` (subject ``approval``), one finding per stated figure and approval concerned when
no computation agrees with it at the stated precision (the computed edge rounded half up to as many decimals
as the figure is printed with; docs/game-math.md):

* **warning**: the figure is wrong by more than its last printed digit's rounding. The approval's documents
  misstate the game's math (a house edge printed lower than the game's tells a regulator and the players the
  game is better for them than it is). It does not stop the game being offered: the approval approves the
  rules and paytables, which are what the tables pay by, and the figure is a statement about them; the
  licensee should correct the sheet or the regulator confirm it, hence a warning, not an error;
* **info**: the figure is the computed edge **truncated** to its printed decimals (5.41% for 5.4151%): a
  rounding convention, not a misstatement, recorded so that nobody takes the last digit for a second figure.

A figure that cannot be compared (its bet is not computed) raises nothing: ``check_game_math`` lists it with
the reason.
"""

from __future__ import annotations

from decimal import Decimal

from cardroom.gamemath.compare import StatedEdge

from .base import INFO, WARNING, Finding, Rule, finding

HOUSE_EDGE = Rule("approval.house_edge", "Stated house edge",
                  "The approval's documents; the exact computation of the game (the Game math page)")


def _where(edge: StatedEdge) -> str:
    paytable = f" paytable {edge.paytable}" if edge.paytable else ""
    strategy = f" ({edge.strategy})" if edge.strategy else ""
    decks = f"for {edge.decks} decks" if edge.decks else "with no deck count"
    return f"the {edge.game_name} {edge.bet}{paytable}{strategy} house edge stated {decks}"


def _computed(edge: StatedEdge) -> str:
    shown = []
    for c in edge.computed:
        paytable = f", paytable {c.paytable}" if c.paytable else ""
        shown.append(f"{c.percent}% for {c.decks} deck{'s' if c.decks != 1 else ''}{paytable} "
                     f"({edge.at_stated_precision(c)}% at the stated precision)")
    return "; ".join(shown)


def _truncated(edge: StatedEdge) -> bool:
    """The stated figure is a computed edge cut (not rounded) to the stated decimals."""
    unit = Decimal(1).scaleb(-edge.places)
    stated = Decimal(edge.stated).quantize(unit)
    for c in edge.computed:
        scaled = abs(c.edge * 100) * 10**edge.places
        down = Decimal((1 if c.edge >= 0 else -1) * (scaled.numerator // scaled.denominator)).scaleb(-edge.places)
        if down.quantize(unit) == stated:
            return True
    return False


def house_edge_findings(edges) -> list[Finding]:
    """``approval.house_edge`` for each stated edge (``StatedEdge``) that the computation does not reproduce,
    once per approval it concerns."""
    out: list[Finding] = []
    for edge in edges:
        if edge.reproduced is not False:
            continue
        truncated = _truncated(edge)
        severity = INFO if truncated else WARNING
        where = _where(edge)
        if truncated:
            message = (f"{where[0].upper()}{where[1:]}, {edge.shown()}, is the exact figure truncated rather than "
                       f"rounded: computed {_computed(edge)}.")
        else:
            message = (f"{where[0].upper()}{where[1:]}, {edge.shown()}, is not what the game gives: computed "
                       f"exactly {_computed(edge)}. Assumptions: {'; '.join(edge.assumptions) or 'none'}.")
        citation = f"{edge.citation} ({edge.source})"
        if edge.rules:
            citation += f"; computed from {edge.rules} (the Game math page)"
        for approval in edge.approvals:
            subject = {"type": "approval", "approval": approval.key, "game": edge.game,
                       "establishment": approval.establishment, "jurisdiction": approval.jurisdiction,
                       "bet": edge.bet, "paytable": edge.paytable, "decks": edge.decks,
                       "stated_percent": edge.shown().rstrip("%")}
            text = f"{message} (Approval: {approval.reference}.)" if approval.reference else message
            out.append(finding(HOUSE_EDGE, severity, subject, text, citation))
    return out


__all__ = ["HOUSE_EDGE", "house_edge_findings"]
