"""Collections short day after day: a table, or a recorder, with a hand collected short (or not collected) on
many gaming days in a row; and collections above the schedule: a table's gaming day with hands collected above
what the approved schedule sets (players charged more than it says). Pure Python.

One short hand is a mistake; the same table or the same person short night after night is a pattern for the
compliance officer to look into (docs/compliance.md, "Collections short day after day"). The facts come from the
stored reconciliations (``fees.variance.selectors.short_days``): the days a table was played, the days it (or a
recorder) had a hand short. Days in a row are counted over the days played: a table closed for a day neither
breaks nor lengthens its run; a recorder's days are the room's days of play.

The thresholds are dated rule parameters of the jurisdiction: ``variance_short_days_warning`` and
``variance_short_days_error`` (seed/rules/regulations.yaml). A room may tighten them with a parameter row of
its own, keyed ``<key>--<establishment slug>`` (``room_key``): the lower of the two values applies, so a room can
never loosen its jurisdiction's. A run is reported while its last day is within ``LOOKBACK_DAYS`` of the day
checked, once, at the severity its length reaches.

Collected above the schedule (``rule_collected_above_schedule``): every gaming day within ``LOOKBACK_DAYS`` of the
day checked where a table's hands were collected above the schedule by more than the jurisdiction's
``over_collection_tolerance`` (nothing: $0) is an error naming the table, the day, the hands and the amount over,
citing the schedule versions the day's rounds were priced under and the parameter's own citation (Penal Code 337j,
WAC 230-15-080). The facts come from ``fees.variance.selectors.over_days``.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

from cardroom.money import format_money

from fees.variance.stats import runs_in_a_row

from .base import ERROR, WARNING, Finding, ParameterSet, finding, rule

WARNING_KEY, ERROR_KEY = "variance_short_days_warning", "variance_short_days_error"
LOOKBACK_DAYS = 30
OVER_KEY = "over_collection_tolerance"


def room_key(key: str, establishment: str) -> str:
    """The key of a room's own, tighter value of a jurisdiction's parameter."""
    return f"{key}--{establishment}"


@dataclass(frozen=True)
class ShortDays:
    """One table's (or recorder's) days. ``kind`` is "table" or "recorder"; ``name`` its label or username."""

    establishment: str
    jurisdiction: str
    as_of: datetime.date
    kind: str
    name: str
    days_played: tuple
    days_short: tuple


def threshold(params: ParameterSet, jurisdiction: str, establishment: str, key: str, day: datetime.date):
    """The value in force: the jurisdiction's, or the room's own when it is lower (None: neither is set)."""
    found = [p for p in (params.get(jurisdiction, key, day), params.get(jurisdiction, room_key(key, establishment),
                                                                        day)) if p is not None]
    return min(found, key=lambda p: p.value) if found else None


@rule(code="ledger.short_days_in_a_row", title="Collections short day after day",
      citation="Internal controls on accounting for collected fees (room policy)",
      parameters={WARNING_KEY: "the gaming days in a row with a hand short that make a warning",
                  ERROR_KEY: "the gaming days in a row with a hand short that make an error"})
def rule_short_days_in_a_row(facts: ShortDays, params: ParameterSet) -> list[Finding]:
    day = facts.as_of
    levels = [(ERROR, threshold(params, facts.jurisdiction, facts.establishment, ERROR_KEY, day)),
              (WARNING, threshold(params, facts.jurisdiction, facts.establishment, WARNING_KEY, day))]
    levels = [(severity, p) for severity, p in levels if p is not None]
    if not levels:
        return []
    what = f"table {facts.name}" if facts.kind == "table" else f"recorder {facts.name}"
    since = day - datetime.timedelta(days=LOOKBACK_DAYS - 1)
    out = []
    for first, last, length in runs_in_a_row(facts.days_short, facts.days_played):
        if last < since or last > day:
            continue
        for severity, parameter in levels:
            if length >= int(parameter.value):
                subject = {"type": facts.kind, facts.kind: facts.name, "establishment": facts.establishment,
                           "from": first.isoformat()}
                played = "days it was played" if facts.kind == "table" else "days the room was open"
                out.append(finding(
                    rule_short_days_in_a_row, severity, subject,
                    f"A hand was collected short or not collected at {what} on {length} {played} in a row, "
                    f"{first.isoformat()} to {last.isoformat()}; {int(parameter.value)} in a row call for a "
                    f"{severity}. See the variance page for the hands.",
                    parameter.citation, [parameter]))
                break
    return out


@dataclass(frozen=True)
class OverCollected:
    """One table's gaming day with hands collected above the schedule (``fees.variance.selectors.OverDay``)."""

    establishment: str
    jurisdiction: str
    as_of: datetime.date
    table: str
    day: datetime.date
    hands: int
    amount: Decimal  # collected minus expected, over those hands
    schedules: tuple = ()  # (code, version) the day's rounds were priced under
    currency: str = "USD"


@rule(code="ledger.collected_above_schedule", title="Collected above the schedule",
      citation="Penal Code 337j; WAC 230-15-080 (the fees of the approved schedule, no more)",
      parameters={OVER_KEY: "the amount a table's gaming day may be collected above the schedule"})
def rule_collected_above_schedule(facts: OverCollected, params: ParameterSet) -> list[Finding]:
    since = facts.as_of - datetime.timedelta(days=LOOKBACK_DAYS - 1)
    if not facts.hands or not since <= facts.day <= facts.as_of:
        return []
    parameter = params.get(facts.jurisdiction, OVER_KEY, facts.day)
    if facts.amount <= (parameter.value if parameter is not None else Decimal(0)):
        return []
    schedules = ", ".join(f"{code} version {version}" for code, version in facts.schedules)
    approved = f"the approved schedule ({schedules})" if schedules else "the approved schedule"
    hands = f"{facts.hands} hand{'' if facts.hands == 1 else 's'}"
    were = "was" if facts.hands == 1 else "were"
    message = (f"{hands} at table {facts.table} on gaming day {facts.day.isoformat()} {were} "
               f"collected above what {approved} sets: {format_money(facts.amount, facts.currency)} over in all. "
               "Players are charged only the fees of the schedule in force; see the variance page for the day.")
    citation = "; ".join(part for part in (f"Approved collection-rate schedule {schedules}" if schedules else
                                           "The approved collection-rate schedule",
                                           parameter.citation if parameter is not None else "") if part)
    subject = {"type": "table", "table": facts.table, "establishment": facts.establishment,
               "gaming_day": facts.day.isoformat()}
    used = [parameter] if parameter is not None else []
    return [finding(rule_collected_above_schedule, ERROR, subject, message, citation, used)]
