"""The variance page's statistics: how unusual a count of hands collected short is against the room's own
history. Pure Python (no Django): counts in, a judgement out.

Two standard control charts (Shewhart), each with limits at three standard deviations:

- ``p_chart``: the *share* of hands short, where the hands played are known (a table, a gaming day: the stored
  reconciliations count them). The centre line p̄ is the room's share of hands short over its baseline (the 90
  gaming days before the period); a group of n hands is unusual when its share is above
  p̄ + 3·√(p̄(1−p̄)/n).
- ``c_chart``: the *count* of hands short, where the hands played are not stored per group (a shift, a
  recorder). The centre line is the group's own short hands per day of play over the baseline, times the
  period's days of play; the count is unusual above c̄ + 3·√c̄ (a Poisson count).

``z`` is how many standard deviations the group stands above (or below) its centre line.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass

SIGMAS = 3
BASELINE_DAYS = 90  # the history a period is judged against: the gaming days just before it

# Shift bands in the room's local time: (label, first hour, hour it ends). The last wraps past midnight.
DEFAULT_SHIFTS = (("06:00–14:00", 6, 14), ("14:00–22:00", 14, 22), ("22:00–06:00", 22, 6))


def shift_of(hour: int, shifts=DEFAULT_SHIFTS) -> str:
    """The label of the band a local hour (0–23) falls in."""
    for label, start, end in shifts:
        if (start <= hour < end) if start < end else (hour >= start or hour < end):
            return label
    return shifts[-1][0]  # bands that leave an hour out: the last one takes it


@dataclass(frozen=True)
class Judgement:
    chart: str  # "p" or "c"
    centre: float | None  # p̄ (a share) or the expected count; None: no history to judge against
    limit: float | None  # the upper control limit, in the same unit
    value: float  # the group's share or count
    z: float | None
    unusual: bool

    @property
    def words(self) -> str:
        return self.describe()

    def describe(self, sigma="σ") -> str:
        """In words: "4.0 σ above usual: unusual" (``sigma="SD"`` where the font has no σ)."""
        if self.centre is None:
            return "no history to compare"
        if self.z is None:
            return "above a history with none short" if self.unusual else "as usual"
        side = "above" if self.z >= 0 else "below"
        return f"{abs(self.z):.1f} {sigma} {side} usual" + (": unusual" if self.unusual else "")


def p_chart(short: int, hands: int, base_short: int, base_hands: int) -> Judgement:
    """The share ``short / hands`` against the baseline share ``base_short / base_hands``."""
    value = short / hands if hands else 0.0
    if not base_hands:
        return Judgement("p", None, None, value, None, False)
    p_bar = base_short / base_hands
    if not hands:
        return Judgement("p", p_bar, None, value, None, False)
    sigma = math.sqrt(p_bar * (1 - p_bar) / hands)
    limit = p_bar + SIGMAS * sigma
    if sigma == 0:  # a history with no hand short (or every hand short): any difference stands out
        return Judgement("p", p_bar, limit, value, None, value > limit)
    return Judgement("p", p_bar, limit, value, (value - p_bar) / sigma, value > limit)


def c_chart(short: int, days: int, base_short: int, base_days: int) -> Judgement:
    """The count ``short`` over ``days`` days of play against the baseline's ``base_short`` over ``base_days``."""
    if not base_days:
        return Judgement("c", None, None, float(short), None, False)
    expected = base_short / base_days * days
    limit = expected + SIGMAS * math.sqrt(expected)
    if expected == 0:
        return Judgement("c", expected, limit, float(short), None, short > limit)
    return Judgement("c", expected, limit, float(short), (short - expected) / math.sqrt(expected), short > limit)


def runs_in_a_row(days_short, days_played) -> list[tuple[datetime.date, datetime.date, int]]:
    """Runs of days short in a row, counted over the days played (a day not played neither breaks nor lengthens
    a run): [(first day, last day, length)], in order."""
    short = set(days_short)
    runs, current = [], []
    for day in sorted(set(days_played) | short):
        if day in short:
            current.append(day)
        elif current:
            runs.append((current[0], current[-1], len(current)))
            current = []
    if current:
        runs.append((current[0], current[-1], len(current)))
    return runs
