"""Findings and dated rule parameters: the vocabulary every rule shares. Pure Python."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from cardroom.money import format_money

from .words import parameter_name

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

# Parameter statuses, as regulations.md marks them.
CONFIRMED = "confirmed"  # [text]: read in the regulation's own text (or the approved document itself)
SECONDARY = "secondary"  # [secondary]: from a rulemaking notice, bill analysis or press report
CHECK = "check"  # [check]: believed true, not yet confirmed in the official text
STATUSES = (CONFIRMED, SECONDARY, CHECK)


class MissingParameter(LookupError):
    """No value of a parameter is in force on the day asked about."""


@dataclass(frozen=True)
class Parameter:
    """One dated value of a rule parameter: in force from ``effective_from`` until the next value's date."""

    jurisdiction: str
    key: str
    value: Decimal
    unit: str
    effective_from: date
    status: str
    citation: str
    note: str = ""

    def as_dict(self) -> dict:
        return {
            "jurisdiction": self.jurisdiction, "key": self.key, "value": str(self.value), "unit": self.unit,
            "effective_from": self.effective_from.isoformat(), "status": self.status, "citation": self.citation,
            **({"note": self.note} if self.note else {}),
        }

    def shown(self) -> str:
        """'$400 (from 2023-07-20, to be checked)' for messages."""
        amount = dollars(self.value) if self.unit == "USD" else f"{self.value.normalize()}"
        if self.unit == "percent":
            amount = f"{self.value.normalize()}%"
        status = {CONFIRMED: "", SECONDARY: ", from a secondary source", CHECK: ", to be checked"}[self.status]
        return f"{amount} (in force from {self.effective_from.isoformat()}{status})"


class ParameterSet:
    """Every dated value, looked up by (jurisdiction, key) and day. Built once, read many times."""

    def __init__(self, parameters):
        by_key: dict[tuple[str, str], list[Parameter]] = {}
        for parameter in parameters:
            by_key.setdefault((parameter.jurisdiction, parameter.key), []).append(parameter)
        self._values = {}
        self._days = {}
        for key, values in by_key.items():
            values.sort(key=lambda p: p.effective_from)
            self._values[key] = values
            self._days[key] = [p.effective_from for p in values]

    def at(self, jurisdiction: str, key: str, day: date) -> Parameter:
        """The value in force on ``day``: the latest effective date on or before it."""
        days = self._days.get((jurisdiction, key))
        if not days:
            raise MissingParameter(f"No rule parameter {jurisdiction}/{key} is recorded.")
        i = bisect_right(days, day)
        if i == 0:
            raise MissingParameter(
                f"Rule parameter {jurisdiction}/{key} has no value in force on {day.isoformat()} "
                f"(its first value applies from {days[0].isoformat()})."
            )
        return self._values[(jurisdiction, key)][i - 1]

    def get(self, jurisdiction: str, key: str, day: date) -> Parameter | None:
        try:
            return self.at(jurisdiction, key, day)
        except MissingParameter:
            return None

    def days_between(self, jurisdiction: str, first: date, last: date) -> set[date]:
        """The days after ``first`` and up to ``last`` on which a value of ``jurisdiction`` comes into force."""
        return {day for (where, _), days in self._days.items() if where == jurisdiction
                for day in days if first < day <= last}

    def values(self, jurisdiction: str, key: str) -> list[Parameter]:
        return list(self._values.get((jurisdiction, key), ()))

    def __len__(self):
        return sum(len(v) for v in self._values.values())


@dataclass(frozen=True)
class Finding:
    """What a rule found: about what (``subject``), how serious, why, on whose authority, with which values.

    ``subject`` is a small dict naming what the finding is about, e.g. {"type": "posting", "table": "7"},
    {"type": "schedule_option", "schedule": "GEGA-002888", "version": 1, "option": 43} or
    {"type": "approval", "approval": "one-for-the-money-wa-2014"}.
    """

    rule: str
    severity: str
    subject: dict
    message: str
    citation: str
    parameters: tuple[Parameter, ...] = field(default=())

    @property
    def unconfirmed(self) -> bool:
        """True when a parameter it used is not confirmed in the regulation's text."""
        return any(p.status != CONFIRMED for p in self.parameters)

    def as_dict(self) -> dict:
        return {
            "rule": self.rule, "severity": self.severity, "subject": dict(self.subject), "message": self.message,
            "citation": self.citation, "parameters": [p.as_dict() for p in self.parameters],
            "parameter_statuses": sorted({p.status for p in self.parameters}),
        }


def dollars(amount: Decimal | int | None) -> str:
    """A US amount in a finding's text: the pages' "$1,234.50" (``cardroom.money``), whole dollars without cents
    ("$400"), as the regulations write their limits."""
    if amount is None:
        return "no amount"
    text = format_money(Decimal(amount), "USD")
    return text[:-3] if text.endswith(".00") else text


def with_status(message: str, parameters) -> str:
    """Say in the message itself when a value used is not confirmed, so no reader misses it."""
    doubtful = [p for p in parameters if p.status != CONFIRMED]
    if not doubtful:
        return message
    notes = "; ".join(
        f"{parameter_name(p.key)}, {dollars(p.value) if p.unit == 'USD' else p.value.normalize()}, is "
        f"{'to be checked' if p.status == CHECK else 'from a secondary source'}"
        for p in doubtful
    )
    return f"{message} (Note: {notes}.)"


def finding(rule, severity, subject, message, citation, parameters=()) -> Finding:
    parameters = tuple(parameters)
    return Finding(rule, severity, subject, with_status(message, parameters), citation, parameters)
