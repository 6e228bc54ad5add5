"""Washington house fees (WAC 230-15-080): per hand, a rake of the pot, or time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_DOWN, Decimal
from typing import Sequence

from cardroom.money import CENT

from .amounts import QuoteError, dollars, money, rake_percent
from .quotes import FeeLine, Seat, fee_line
from .time_collection import collection_marks, time_lines

_WASHINGTON_KINDS = ("time", "per_hand", "rake")


@dataclass(frozen=True)
class WashingtonFee:
    """A Washington house fee (WAC 230-15-080): ``time`` (amount per player per interval), ``per_hand``
    (amount per player in the hand) or ``rake`` (percent of the pot, rounded down, up to ``cap``)."""

    kind: str
    amount: Decimal | None = None
    percent: Decimal | None = None
    cap: Decimal | None = None
    interval_minutes: int = 60
    citation: str = "WAC 230-15-080"

    def __post_init__(self):
        if self.kind not in _WASHINGTON_KINDS:
            raise QuoteError(f"A Washington fee is one of time, per_hand or rake, not {self.kind!r}.")
        if self.kind == "rake":
            if self.percent is None:
                raise QuoteError("A rake needs its percent of the pot.")
            object.__setattr__(self, "percent", rake_percent(self.percent))
            if self.cap is not None:
                object.__setattr__(self, "cap", money(self.cap, "The rake's cap"))
        else:
            if self.amount is None:
                raise QuoteError(f"A Washington {self.kind} fee needs its amount.")
            object.__setattr__(self, "amount", money(self.amount, f"The {self.kind} fee amount"))
        minutes = self.interval_minutes
        if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes <= 0:
            raise QuoteError(f"interval_minutes must be a whole number of minutes above 0, not {minutes!r}.")


@dataclass(frozen=True)
class WashingtonQuote:
    fee_type: str
    total: Decimal
    per_player: Decimal | None
    lines: tuple[FeeLine, ...]


def quote_washington_hand(fee: WashingtonFee, *, players: int, pot: Decimal | None = None) -> WashingtonQuote:
    """A per-hand fee (amount x players) or a rake (percent of the pot rounded down, up to the cap)."""
    if not isinstance(fee, WashingtonFee):
        raise QuoteError(f"fee must be a WashingtonFee, not {fee!r}.")
    if fee.kind == "time":
        raise QuoteError("A Washington time fee is charged per interval; quote it with game and seat times.")
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise QuoteError(f"players must be the whole number of players in the hand (1 or more), not {players!r}.")
    if fee.kind == "per_hand":
        total = fee.amount * players
        line = fee_line("player", None, "per_hand", "players", players, None, total,
                        f"{dollars(fee.amount)} x {players} player{'s' if players != 1 else ''} ({fee.citation})")
        return WashingtonQuote(fee_type="per_hand", total=total, per_player=fee.amount, lines=(line,))
    if pot is None:
        raise QuoteError("A rake is a percentage of the pot; give the pot.")
    pot = money(pot, "The pot")
    share = (pot * fee.percent / 100).quantize(CENT, rounding=ROUND_DOWN)
    total = share if fee.cap is None or share <= fee.cap else fee.cap
    note = f"{fee.percent.normalize():f}% of {dollars(pot)} = {dollars(share)} (rounded down)"
    if fee.cap is not None:
        note += f", capped at {dollars(fee.cap)}" if share > fee.cap else f", under the {dollars(fee.cap)} cap"
    line = fee_line("pot", None, "rake", "pot", pot, None, total, f"{note} ({fee.citation})")
    return WashingtonQuote(fee_type="rake", total=total, per_player=None, lines=(line,))


def quote_washington_time(fee: WashingtonFee, *, game_started_at: datetime, game_ended_at: datetime,
                          seats: Sequence[Seat]) -> WashingtonQuote:
    """A time fee: ``fee.amount`` from each seated player at each interval mark (same rule as quote_time)."""
    if not isinstance(fee, WashingtonFee):
        raise QuoteError(f"fee must be a WashingtonFee, not {fee!r}.")
    if fee.kind != "time":
        raise QuoteError(f"A Washington {fee.kind} fee is charged per hand; quote it with quote_washington_hand.")
    marks, paid = collection_marks(game_started_at, game_ended_at, fee.interval_minutes, seats)
    _, total, lines = time_lines(marks, paid, fee.amount, None, "time")
    return WashingtonQuote(fee_type="time", total=total, per_player=fee.amount, lines=lines)
