"""Poker drop: the collection, jackpot and designated table fees for one hand ("no flop, no drop")."""

from __future__ import annotations

from . import kinds
from .amounts import ZERO, QuoteError
from .quotes import PokerQuote, fee_line, wrong_basis
from .scales import groups_of, line_for, pick
from .schedules import Schedule

_POKER_KINDS = kinds.of_family(kinds.POKER)
_POKER_TAKEN = {"collection": "after_flop", "jackpot": "after_flop", "designated_table": "after_river"}
_POKER_MEASURES = frozenset({"players", "flat"})


def quote_poker(schedule: Schedule, option_number: int, *, players: int, reached_flop: bool,
                reached_river: bool) -> PokerQuote:
    """The drop for one poker hand: collection and jackpot after the flop, designated table after the river."""
    option = schedule.option(option_number)
    code, number = schedule.code, option.number
    if kinds.family_of(option.basis) is not kinds.POKER:
        raise wrong_basis(schedule.code, option)
    if isinstance(players, bool) or not isinstance(players, int):
        raise QuoteError(f"players must be the whole number of players in the hand, not {players!r}.")
    for name, value in (("reached_flop", reached_flop), ("reached_river", reached_river)):
        if type(value) is not bool:
            raise QuoteError(f"{name} must be true or false, not {value!r}.")
    if players < 2:
        raise QuoteError(f"A poker hand needs at least two players; got {players}.")
    if reached_river and not reached_flop:
        raise QuoteError("A hand cannot reach the river without reaching the flop.")
    if not option.tiers:
        raise QuoteError(f"option {number} of {code} has no fees printed, so no drop can be quoted for it.")

    groups = groups_of(option)
    amounts = dict.fromkeys(_POKER_KINDS, ZERO)
    lines = []
    for kind, group in groups.items():
        if kind not in _POKER_TAKEN:
            raise QuoteError(f"{code} option {number} prints {group.name} tiers, which a poker drop has no use for.")
        if group.problem:
            raise QuoteError(f"{code} option {number} {group.problem}")
        taken = _POKER_TAKEN[kind]
        if any(t.taken != taken for t in group.tiers):
            raise QuoteError(
                f"{code} option {number} says its {group.name} is taken "
                f"{' / '.join(sorted({t.taken for t in group.tiers}))}; a {group.name} is taken {taken}, so the "
                "schedule data needs correcting before it can be quoted."
            )
        if group.measure not in _POKER_MEASURES:
            raise QuoteError(f"{code} option {number} measures its {group.name} on {group.measure}, "
                             "which a poker drop cannot use.")
        reached = reached_river if taken == "after_river" else reached_flop
        if not reached:
            street = "river" if taken == "after_river" else "flop"
            lines.append(fee_line(group.tiers[0].payer, None, kind, group.measure, None, None, ZERO,
                                  f"Not taken: the hand did not reach the {street}."))
            continue
        if group.measure == "players":
            i = pick(group, players, "A hand with", code, number)
            lines.append(line_for(group.line_fields[i], None, players))
        else:
            lines.append(line_for(group.line_fields[0], None, None))
        amounts[kind] += lines[-1].fee
    total = amounts["collection"] + amounts["designated_table"] + amounts["jackpot"]
    return PokerQuote(
        collection_fee=amounts["collection"], designated_table_fee=amounts["designated_table"],
        jackpot_fee=amounts["jackpot"], total=total, lines=tuple(lines),
    )
