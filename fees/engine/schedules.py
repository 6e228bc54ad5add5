"""A published schedule version as the engine sees it: frozen Schedule, Option and Tier, and the approved
interpretations that read what a source leaves open."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cached_property

from .amounts import QuoteError


@dataclass(frozen=True)
class Interpretation:
    """A value the source leaves open (a basis, a measure, a bound), read as ``value`` by an approved interpretation:
    the Tier or Option holds ``value``, and this says so. ``printed`` and ``value`` are as stored: a choice's value,
    an amount as a decimal string, "" for an open bound."""

    field: str
    printed: str
    value: str
    statement: str
    citation: str
    decided_on: date


def footnote(reading) -> str:
    """How a reading is marked wherever it is used (a sign, a finding, a page): "Interpretation: <statement>
    (<citation>, <date>)." ``reading``: an Interpretation, or anything with statement, citation and decided_on."""
    return f"Interpretation: {reading.statement.rstrip('.')} ({reading.citation}, {reading.decided_on.isoformat()})."


@dataclass(frozen=True)
class Tier:
    order: int
    fee_kind: str
    payer: str
    measure: str
    lower: Decimal | None
    upper: Decimal | None
    fee: Decimal
    taken: str
    printed_bounds: str = ""
    printed_fee: str = ""
    interpretations: tuple[Interpretation, ...] = ()  # the values above that are read, not printed

    def interpreted(self, field: str) -> Interpretation | None:
        return next((i for i in self.interpretations if i.field == field), None)


@dataclass(frozen=True)
class Option:
    number: int
    basis: str
    label: str
    citation: str
    interval_minutes: int | None
    tiers: tuple[Tier, ...]
    interpretations: tuple[Interpretation, ...] = ()  # of the option itself (its basis); a tier's are its own

    def __post_init__(self):
        if not isinstance(self.tiers, tuple):
            object.__setattr__(self, "tiers", tuple(self.tiers))

    def interpreted(self, field: str) -> Interpretation | None:
        return next((i for i in self.interpretations if i.field == field), None)


def kept_on(option: Option, name: str, compute):
    """``compute(option)``, worked out once per Option and kept on it, as ``functools.cached_property`` keeps a
    value: in the instance's dict, outside its fields (==, hash, repr and asdict do not see it). The modules that
    compile an option for lookups (``scales.groups_of``, ``california``'s plan) build on this one, so they keep
    what they compile here rather than this module importing them."""
    kept = vars(option)
    if name not in kept:
        kept[name] = compute(option)
    return kept[name]


@dataclass(frozen=True)
class Schedule:
    code: str
    title: str
    version: int
    effective_from: date | None
    currency: str
    citation: str
    options: tuple[Option, ...]

    def __post_init__(self):
        if not isinstance(self.options, tuple):
            object.__setattr__(self, "options", tuple(self.options))

    @cached_property
    def _by_number(self) -> dict[int, Option | None]:
        by_number: dict[int, Option | None] = {}
        for option in self.options:
            # A number printed twice maps to None: which one applies cannot be told.
            by_number[option.number] = None if option.number in by_number else option
        return by_number

    def option(self, number: int) -> Option:
        """The option numbered ``number``, or a QuoteError listing the options there are."""
        if type(number) is not int:
            if isinstance(number, bool) or not isinstance(number, int):
                raise QuoteError(f"An option number must be a whole number, not {number!r}.", field="option")
            number = int(number)
        option = self._by_number.get(number, _MISSING)
        if option is _MISSING:
            numbers = sorted(self._by_number)
            if not numbers:
                raise QuoteError(f"{self.code} has no option {number}; it has no options at all.", field="option")
            raise QuoteError(f"{self.code} has no option {number}; its options are {number_ranges(numbers)}.",
                             field="option")
        if option is None:
            raise QuoteError(
                f"{self.code} prints option {number} more than once; the schedule data needs correcting "
                "before it can be quoted."
            )
        return option


_MISSING = object()


def number_ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 5, 7, 8] -> '1-3, 5, 7-8'."""
    parts = []
    start = previous = numbers[0]
    for n in numbers[1:] + [None]:
        if n is not None and n == previous + 1:
            previous = n
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if n is not None:
            start = previous = n
    return ", ".join(parts)
