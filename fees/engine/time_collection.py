"""Time collection: a fee from each seated player at the end of each interval (lowball, Washington time fees)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Sequence

from . import kinds
from .amounts import ZERO, QuoteError, dollars
from .quotes import Seat, TimeQuote, fee_line, wrong_basis
from .scales import groups_of
from .schedules import Schedule, Tier

# Marks are listed one by one, so the period is bounded: a week of half-hours is 336 marks.
LONGEST_TIME_COLLECTION = timedelta(days=7)


def collection_marks(game_started_at, game_ended_at, interval_minutes: int, seats: Sequence[Seat]):
    """The collection marks and, per player in order of first appearance, the marks they pay at.

    Rule: marks are start + k*interval (k >= 1) up to and including the end; a player pays at mark m iff
    seated_from < m <= seated_to.
    """
    for name, value in (("game_started_at", game_started_at), ("game_ended_at", game_ended_at)):
        if not isinstance(value, datetime):
            raise QuoteError(f"{name} must be a date and time, not {value!r}.")
    aware = game_started_at.tzinfo is not None and game_started_at.utcoffset() is not None

    def absolute(moment, what):
        moment_aware = moment.tzinfo is not None and moment.utcoffset() is not None
        if moment_aware != aware:
            raise QuoteError(
                f"{what} is {'time-zone aware' if moment_aware else 'naive (no time zone)'} but game_started_at "
                f"is {'time-zone aware' if aware else 'naive'}; give every time with its time zone, or none."
            )
        return moment.astimezone(timezone.utc) if aware else moment

    start = absolute(game_started_at, "game_started_at")
    end = absolute(game_ended_at, "game_ended_at")
    if end <= start:
        raise QuoteError(
            f"The game must end after it starts; it starts {game_started_at.isoformat()} and ends "
            f"{game_ended_at.isoformat()}."
        )
    if end - start > LONGEST_TIME_COLLECTION:
        raise QuoteError(
            f"A time-collection period can be at most {LONGEST_TIME_COLLECTION.days} days long; this one runs from "
            f"{game_started_at.isoformat()} to {game_ended_at.isoformat()}. Quote each gaming day on its own."
        )
    if not seats:
        raise QuoteError("A time collection needs at least one player's seat.")
    step = timedelta(minutes=interval_minutes)
    count = (end - start) // step
    shown_zone = game_started_at.tzinfo
    marks = tuple(
        (start + k * step).astimezone(shown_zone) if aware else start + k * step for k in range(1, count + 1)
    )

    paid: dict[str, list[int]] = {}
    stays: dict[str, list[tuple[datetime, datetime]]] = {}
    for seat in seats:
        if type(seat) is not Seat:
            raise QuoteError(f"Each seat must be a Seat (player, seated_from, seated_to), not {seat!r}.")
        player = seat.player
        sat = absolute(seat.seated_from, f"{player}'s seated_from")
        left = absolute(seat.seated_to, f"{player}'s seated_to")
        if left <= sat:
            raise QuoteError(
                f"{player}'s seat ends ({seat.seated_to.isoformat()}) before or when it starts "
                f"({seat.seated_from.isoformat()})."
            )
        if sat < start or left > end:
            raise QuoteError(
                f"{player}'s seat ({seat.seated_from.isoformat()} to {seat.seated_to.isoformat()}) is outside the "
                f"game ({game_started_at.isoformat()} to {game_ended_at.isoformat()})."
            )
        for other_sat, other_left in stays.get(player, ()):
            if sat < other_left and other_sat < left:
                raise QuoteError(f"{player} has overlapping seats; a player sits in one seat at a time.")
        stays.setdefault(player, []).append((sat, left))
        first = (sat - start) // step + 1  # the first mark strictly after sitting down
        last = (left - start) // step  # the last mark at or before leaving
        paid.setdefault(player, []).extend(range(first, last + 1))
    return marks, {player: sorted(ks) for player, ks in paid.items()}


def time_lines(marks, paid, fee: Decimal, tier: Tier | None, fee_kind: str):
    player_fees, lines, total = [], [], ZERO
    for player, ks in paid.items():
        amount = fee * len(ks)
        total += amount
        player_fees.append((player, amount, len(ks)))
        at = ", ".join(marks[k - 1].strftime("%H:%M") for k in ks)
        note = f"{len(ks)} collection{'s' if len(ks) != 1 else ''} of {dollars(fee)}" + (f" (at {at})" if ks else "")
        lines.append(fee_line("player", player, fee_kind, "elapsed_time", len(ks), tier, amount, note))
    return tuple(player_fees), total, tuple(lines)


def quote_time(schedule: Schedule, option_number: int, *, game_started_at: datetime, game_ended_at: datetime,
               seats: Sequence[Seat]) -> TimeQuote:
    """Time collection: the option's fee from each seated player at the end of each interval."""
    option = schedule.option(option_number)
    code, number = schedule.code, option.number
    if kinds.family_of(option.basis) is not kinds.TIME:
        raise wrong_basis(schedule.code, option)
    minutes = option.interval_minutes
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes <= 0:
        raise QuoteError(f"{code} option {number} does not state a collection interval, so no time fee can be quoted.")
    groups = groups_of(option)
    group = groups.get("time")
    if group is None or len(groups) > 1:
        raise QuoteError(
            f"{code} option {number} does not print exactly one time collection fee, so it cannot be quoted."
        )
    if group.problem:
        raise QuoteError(f"{code} option {number} {group.problem}")
    if group.measure not in ("elapsed_time", "flat"):
        raise QuoteError(f"{code} option {number} measures its time collection fee on {group.measure}, "
                         "which a time collection cannot use.")
    marks, paid = collection_marks(game_started_at, game_ended_at, minutes, seats)
    player_fees, total, lines = time_lines(marks, paid, group.fees[0], group.tiers[0], "time")
    return TimeQuote(player_fees=player_fees, total=total, marks=marks, lines=lines)
