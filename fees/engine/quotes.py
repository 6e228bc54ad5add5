"""What is quoted (a wager, a seat), what a quote answers (its fees and fee lines), and what an option quoted
by the wrong function is told."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from typing import TYPE_CHECKING

from . import kinds
from .amounts import QuoteError, money

if TYPE_CHECKING:
    from .schedules import Option, Tier


@dataclass(frozen=True)
class Wager:
    """One betting spot. Amounts are checked (and quantized) when the wager is made, once, so the quote
    functions can trust them: a base wager is more than $0.00, a bonus $0.00 or more. The wager also keeps
    its base and its whole action (base + bonus) in integer cents (``_cents``), which is what
    quote_california adds up and looks up in the tiers."""

    player: str
    base: Decimal
    bonus: Decimal = Decimal(0)
    backline: bool = False

    def __post_init__(self):
        player = self.player
        if type(player) is not str or not player.strip():
            raise QuoteError(f"A wager's player must be a non-empty name, not {player!r}.")
        base = money(self.base, f"{player}'s base wager")
        if not base:
            raise QuoteError(f"{player}'s base wager must be more than $0.00.")
        bonus = money(self.bonus, f"{player}'s bonus wager")
        if type(self.backline) is not bool:
            raise QuoteError(f"backline for {player}'s wager must be true or false, not {self.backline!r}.")
        base_cents = int(base * 100)
        # Frozen: the checked amounts go straight into the instance dict, as __init__ put the fields there.
        self.__dict__.update({
            "base": base, "bonus": bonus,
            "_cents": (base_cents, base_cents + int(bonus * 100)),  # (base, base + bonus) for quote_california
        })


@dataclass(frozen=True)
class Seat:
    player: str
    seated_from: datetime
    seated_to: datetime

    def __post_init__(self):
        if not isinstance(self.player, str) or not self.player.strip():
            raise QuoteError(f"A seat's player must be a non-empty name, not {self.player!r}.")
        for name in ("seated_from", "seated_to"):
            if not isinstance(getattr(self, name), datetime):
                raise QuoteError(f"{name} for {self.player} must be a date and time, not {getattr(self, name)!r}.")


@dataclass(frozen=True)
class FeeLine:
    payer: str
    player: str | None
    fee_kind: str
    measure: str
    measured: Decimal | int | None
    tier: Tier | None
    fee: Decimal
    note: str = ""


class _LinesOnDemand:
    """The ``lines`` field of a CaliforniaQuote, built the first time it is read.

    Most of the cost of a quote would be its FeeLines (one per base wager, one per player or for the
    player-dealer), and callers that only need the fees never read them. quote_california therefore stores
    what the lines are made from (the plan, the wagers and the total table action) and the lines are built
    from it on first access, by the same tier lookups. To dataclasses this is an ordinary field whose
    default is a descriptor ("descriptor-typed fields" in the dataclasses docs): ``CaliforniaQuote(...,
    lines=...)`` stores the given tuple, and ==, repr, replace and asdict all see the built lines.
    """

    def __get__(self, quote, owner=None):
        if quote is None:
            raise AttributeError("lines")  # no class-level default: the field is required in __init__
        state = quote.__dict__
        lines = state.get("_lines")
        if lines is None:
            build, args = state["_lines_from"]
            lines = state["_lines"] = build(*args)
        return lines

    def __set__(self, quote, lines):
        quote.__dict__["_lines"] = tuple(lines)


@dataclass(frozen=True)
class CaliforniaQuote:
    player_fees: tuple[tuple[str, Decimal], ...]
    player_dealer_fee: Decimal
    total_table_action: Decimal
    total: Decimal
    lines: tuple[FeeLine, ...] = _LinesOnDemand()


@dataclass(frozen=True)
class PokerQuote:
    collection_fee: Decimal
    designated_table_fee: Decimal
    jackpot_fee: Decimal
    total: Decimal
    lines: tuple[FeeLine, ...]


@dataclass(frozen=True)
class TimeQuote:
    player_fees: tuple[tuple[str, Decimal, int], ...]
    total: Decimal
    marks: tuple[datetime, ...]
    lines: tuple[FeeLine, ...]


new_instance = object.__new__


def _build(cls, values: dict):
    """An instance of the frozen dataclass ``cls`` with ``values`` as its fields, equal to ``cls(**values)``.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (about 1 µs for an
    8-field FeeLine); the quote functions build several lines per round, so they fill the instance dict
    directly. Only for classes without ``__post_init__``, and with every field given (a CaliforniaQuote's
    ``lines`` may instead come from ``_lines_from``: see _LinesOnDemand).
    """
    instance = new_instance(cls)
    instance.__dict__.update(values)
    return instance


def fee_line(payer, player, fee_kind, measure, measured, tier, fee, note=""):
    return _build(FeeLine, {
        "payer": payer, "player": player, "fee_kind": fee_kind, "measure": measure, "measured": measured,
        "tier": tier, "fee": fee, "note": note,
    })


def wrong_basis(code: str, option: Option) -> QuoteError:
    """What an option quoted by another family's function is told: how its own family is quoted."""
    return QuoteError(f"option {option.number} of {code} {kinds.family_of(option.basis).hint}.")
