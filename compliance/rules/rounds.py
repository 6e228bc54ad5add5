"""Rules over recorded rounds of play: player-dealer rotation. Pure Python.

California player-dealer games may not let one player hold the player-dealer position indefinitely
(Penal Code 330.11); the approved game rules say the position "shall be offered systematically and
continuously in a clockwise manner around the table after every two hands" (Oliver v. County of Los Angeles
(1998) 66 Cal.App.4th 1397). A recorded round may say who held the position (its facts'
``player_dealer``); ``rule_player_dealer_rotation`` reads a table's rounds in play order and reports every
run where the same player held it for more hands than ``CA player_dealer_max_consecutive_hands`` allows.

A round with no ``player_dealer`` recorded is never an error, and it ends the run it interrupts: who held the
position for that hand is unknown, so hands on either side of it are not called consecutive. Such rounds are
counted in one ``info`` finding per table ("rotation could not be checked for N rounds").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

from .base import CONFIRMED, ERROR, INFO, WARNING, Finding, MissingParameter, ParameterSet, finding, rule

JURISDICTION, KEY = "CA", "player_dealer_max_consecutive_hands"
SHOWN_HANDS = 10  # a longer run names its first and last hands only


class Hand(NamedTuple):
    """One recorded round: its reference, when it was played, who held the player-dealer position (or None),
    and its id (ties in ``played_at`` are broken by it)."""

    reference: str
    played_at: datetime
    player_dealer: str | None
    id: int = 0


@dataclass(frozen=True)
class TableRounds:
    """A table's rounds of one gaming day. ``subject`` names the table, e.g.
    {"type": "table", "table": "7", "establishment": "casino-marysville"}."""

    subject: dict
    jurisdiction: str
    table: str  # the table's label, for messages
    gaming_day: date
    hands: tuple  # of Hand, or (reference, played_at, player_dealer[, id]) tuples, in any order


def in_play_order(hands) -> list[Hand]:
    return sorted((h if isinstance(h, Hand) else Hand(*h) for h in hands), key=lambda h: (h.played_at, h.id))


def runs(hands):
    """Maximal runs of consecutive hands held by the same recorded player: [(player, [Hand, ...])]."""
    out = []
    for hand in hands:
        if not hand.player_dealer:
            out.append((None, [hand]))
        elif out and out[-1][0] == hand.player_dealer:
            out[-1][1].append(hand)
        else:
            out.append((hand.player_dealer, [hand]))
    return [(player, held) for player, held in out if player is not None]


def _references(held) -> str:
    refs = [h.reference for h in held]
    if len(refs) <= SHOWN_HANDS:
        return ", ".join(refs)
    return f"{', '.join(refs[:3])}, ... {', '.join(refs[-2:])}"


@rule(code="ca.player_dealer_rotation", title="Player-dealer rotation (California)",
      citation="Penal Code 330.11; approved game rules",
      parameters={KEY: "the most hands in a row one player may deal"})
def rule_player_dealer_rotation(facts: TableRounds, params: ParameterSet) -> list[Finding]:
    """Errors for every run longer than the limit; info for rounds whose player-dealer is not recorded."""
    hands = in_play_order(facts.hands)
    if facts.jurisdiction != JURISDICTION or not hands:
        return []
    day = facts.gaming_day.isoformat()
    try:
        parameter = params.at(JURISDICTION, KEY, facts.gaming_day)
    except MissingParameter as exc:
        return [finding(rule_player_dealer_rotation, WARNING, facts.subject,
                        f"Player-dealer rotation at table {facts.table} on {day} could not be checked: {exc}",
                        rule_player_dealer_rotation.citation)]
    limit = int(parameter.value)
    citation = parameter.citation
    out = []
    for player, held in runs(hands):
        if len(held) > limit:
            subject = {**facts.subject, "gaming_day": day, "player_dealer": player,
                       "hands": [h.reference for h in held]}
            out.append(finding(
                rule_player_dealer_rotation, ERROR, subject,
                f"{player} held the player-dealer position for {len(held)} consecutive hands "
                f"({_references(held)}) at table {facts.table} on {day}; at most {limit} are allowed.",
                citation, [parameter]))
    unrecorded = [h for h in hands if not h.player_dealer]
    if unrecorded:
        out.append(finding(
            rule_player_dealer_rotation, INFO,
            {**facts.subject, "gaming_day": day, "hands": [h.reference for h in unrecorded]},
            f"Player-dealer rotation could not be checked for {len(unrecorded)} round(s) at table {facts.table} "
            f"on {day}: they do not record who held the player-dealer position ({_references(unrecorded)}).",
            citation, [parameter]))
    if not out and parameter.status != CONFIRMED:
        out.append(finding(
            rule_player_dealer_rotation, INFO, {**facts.subject, "gaming_day": day},
            f"No one held the player-dealer position for more than {limit} consecutive hands at table "
            f"{facts.table} on {day} ({len(hands)} round(s)).", citation, [parameter]))
    return out
