"""Findings and dated rule parameters: the vocabulary every rule shares. Pure Python."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from cardroom.money import format_money

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

    @classmethod
    def from_dict(cls, data: dict) -> "Parameter":
        """``as_dict``'s way back (a kept judgement, compliance.kept)."""
        return cls(jurisdiction=data["jurisdiction"], key=data["key"], value=Decimal(data["value"]), unit=data["unit"],
                   effective_from=date.fromisoformat(data["effective_from"]), status=data["status"],
                   citation=data["citation"], note=data.get("note", ""))

    def shown(self) -> str:
        """'$400 (from 2023-07-20, to be checked)' for messages."""
        amount = dollars(self.value) if self.unit == "USD" else f"{self.value.normalize()}"
        if self.unit == "percent":
            amount = f"{self.value.normalize()}%"
        status = {CONFIRMED: "", SECONDARY: ", from a secondary source", CHECK: ", to be checked"}[self.status]
        return f"{amount} (in force from {self.effective_from.isoformat()}{status})"


class UndeclaredParameter(KeyError):
    """A rule read a parameter it does not name: a mistake in the rule, not in the data."""


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


# Every rule by its code. Each rule adds itself as its module is imported; importing anything from
# ``compliance.rules`` imports every rule module (the package's ``__init__``), so the table is whole.
RULES: dict[str, Rule] = {}


@dataclass(frozen=True, eq=False)
class Rule:
    """One rule: the code its findings, acknowledgements and exports store (never changed once used), its title
    for people, the source it rests on, and the seeded parameters it reads ({key: its name in words}, as messages
    and pages say it).

    A rule with a ``check`` is run over facts, ``rule(facts, params)``, and reads only the parameters it names; one
    without is a kind of finding another check makes (the lint's, the approval helpers'). Make one with ``rule``
    (a decorator for a check) or ``Rule(code, title, citation)``."""

    code: str
    title: str
    citation: str
    parameters: Mapping[str, str] = field(default_factory=dict)
    check: Callable | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.code in RULES:
            raise ValueError(f"Two rules have the code {self.code!r}.")
        RULES[self.code] = self

    def __call__(self, facts, params: ParameterSet) -> list[Finding]:
        return self.check(facts, RuleParameters(params, self))

    def parameter_name(self, key: str) -> str:
        return self.parameters.get(key) or key_in_words(key)


def rule(*, code: str, title: str, citation: str, parameters: Mapping[str, str] | None = None):
    """``@rule(code=..., title=..., citation=..., parameters={key: name})`` over a check ``(facts, params)``."""
    return lambda check: Rule(code, title, citation, parameters or {}, check)


class RuleParameters:
    """The parameters as one rule reads them: only those it names (a room's own value, ``<key>--<room>``, is the
    same parameter; ``compliance.rules.variance.room_key``). A plain class: one is made for every rule run."""

    __slots__ = ("params", "rule")

    def __init__(self, params: ParameterSet, rule: Rule):
        self.params, self.rule = params, rule

    def _named(self, key: str) -> str:
        if key.partition("--")[0] not in self.rule.parameters:
            raise UndeclaredParameter(f"Rule {self.rule.code} reads {key}, which it does not name.")
        return key

    def at(self, jurisdiction: str, key: str, day: date) -> Parameter:
        return self.params.at(jurisdiction, self._named(key), day)

    def get(self, jurisdiction: str, key: str, day: date) -> Parameter | None:
        return self.params.get(jurisdiction, self._named(key), day)


def key_in_words(key: str) -> str:
    """A parameter no rule names, in words: 'the rack removal hours'."""
    return "the " + key.replace("_", " ")


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

    @classmethod
    def from_dict(cls, data: dict) -> "Finding":
        """``as_dict``'s way back (a kept judgement, compliance.kept)."""
        return cls(rule=data["rule"], severity=data["severity"], subject=dict(data["subject"]),
                   message=data["message"], citation=data["citation"],
                   parameters=tuple(Parameter.from_dict(p) for p in data["parameters"]))


def dollars(amount: Decimal | int | None) -> str:
    """A US amount in a finding's text: the pages' "$1,234.50" (``cardroom.money``), whole dollars without cents
    ("$400"), as the regulations write their limits."""
    if amount is None:
        return "no amount"
    return format_money(Decimal(amount), "USD", whole=True)


def with_status(message: str, parameters, rule: Rule) -> str:
    """Say in the message itself when a value used is not confirmed, so no reader misses it."""
    doubtful = [p for p in parameters if p.status != CONFIRMED]
    if not doubtful:
        return message
    notes = "; ".join(
        f"{rule.parameter_name(p.key)}, {dollars(p.value) if p.unit == 'USD' else p.value.normalize()}, is "
        f"{'to be checked' if p.status == CHECK else 'from a secondary source'}"
        for p in doubtful
    )
    return f"{message} (Note: {notes}.)"


def finding(rule: Rule, severity, subject, message, citation, parameters=()) -> Finding:
    parameters = tuple(parameters)
    return Finding(rule.code, severity, subject, with_status(message, parameters, rule), citation, parameters)
