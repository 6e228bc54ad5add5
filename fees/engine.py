"""The fee engine: what a card room collects for one round, hand or time-collection period.

Pure Python (no Django): ``fees.quoting`` turns a published schedule version into the frozen dataclasses
below and calls the ``quote_*`` functions; anything wrong with the input, or an amount the schedule does not
cover, raises ``QuoteError`` with a message that says exactly what is wrong. All money is ``Decimal``,
quantized to the cent; floats are refused.

The rules
---------

**Tiers.** The tiers of one fee kind in an option are read in printed order (``Tier.order``). Tier *i*
covers the amounts greater than the previous tier's upper bound and up to its own upper bound (``upper``
``None``: open-ended); the first tier starts at its ``lower`` (``None``: open below, as in "5 or less").
So an amount printed in no row, such as $100.50 between "$1-$100" and "$101-$200", falls in the higher
tier. An amount below the first tier, or above the top of a table with no open-ended tier, is an error:
the engine never guesses a fee the schedule does not state. The upper bounds must climb in printed order;
a table printed from its top band down (the poker tables: "6 or more", "5", "2-4") is read from the bottom
up, and a table whose bounds are in neither order is reported as inconsistent data, never re-sorted.
Player counts use the same rule with whole numbers.

**California games** (a player-dealer position). Total table action (TTA) is the sum of every wager's
base and bonus amounts, backline bets included. What each fee is measured on comes from the tiers, not
from option numbers:

- player fee ``flat``: each player pays the one printed fee once (GEGA-002888 options 1-38 print $0);
- player fee ``total_table_action``: each player pays the fee of the TTA tier;
- player fee ``base_wager``: every base wager (every spot, backline included) pays its own tier; bonus
  wagers pay nothing;
- player fee ``player_wager``: a player's base wagers are added up and the total picks the tier;
- player-dealer fee ``total_table_action``: the fee of the TTA tier; ``flat``: the one printed fee;
- a fee whose measure is ``unstated`` or ``wager_unspecified`` cannot be quoted (the schedule does not
  say how it is measured), unless an approved interpretation reads it (``fees.interpretations``): the Tier then
  holds the reading and carries the ``Interpretation``, and ``explain`` names it with its citation.

**Poker drop.** The collection fee (by players in the hand) and the jackpot fee are taken only when the
hand reaches the flop ("no flop, no drop"); the designated table fee only when it reaches the river. A
hand has at least two players.

**Time collection** (lowball, and Washington time fees). With interval *I* (the option's
``interval_minutes``; 60 for a Washington fee unless set), the collection marks are
``game_started_at + k*I`` for k = 1, 2, ... while the mark is not after ``game_ended_at``. The fee is
collected at the end of each interval for the interval just played, so **a player pays at mark m if and
only if seated_from < m <= seated_to**: a player who sits down exactly at a mark does not pay at that mark,
and a player who leaves exactly at a mark does. A player's seats must lie within the game and must not
overlap; a player may have several seats (left and came back). Marks are counted in absolute time, so a
daylight-saving change inside a game does not move them.

**Washington.** A per-hand fee is the amount times the players in the hand; a rake is the percentage of the
pot rounded down to the cent, limited to the cap if there is one (WAC 230-15-080).

Speed
-----

quote_california is the hot path (benchmarks/engine_quotes.py). Each Option compiles its tier groups once
(upper bounds ready for ``bisect``, also in integer cents) on first use and keeps them, which is safe because
Schedule, Option and Tier are frozen: keep one Schedule per published version and reuse it. A Wager checks
its amounts when it is made, so quotes do not check them again. A CaliforniaQuote's ``lines`` are built the
first time they are read; the fees and totals never depend on them.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from functools import cached_property
from typing import Sequence

from cardroom import values

# Written into every receipt (docs/receipts.md). Bump it with any change that can give a different answer for
# some input: an amount, a fee line (the tier picked, what it was measured on), or whether an input is refused.
# Not for speed-ups, reworded messages or refactors that answer exactly as before.
ENGINE_VERSION = "1"

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
_BELOW_EVERYTHING = Decimal("-Infinity")
_NO_FLOOR_CENTS = float("-inf")


class QuoteError(ValueError):
    """Bad input or an amount the schedule does not cover. Message says exactly what is wrong (becomes a 400)."""


# -- schedules -----------------------------------------------------------------------------------------


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

    @cached_property
    def _groups(self) -> dict[str, _Group]:
        """The option's tiers grouped by fee kind and compiled for lookups; computed once per Option."""
        return _compile_option(self)

    @cached_property
    def _california(self) -> _CaliforniaPlan:
        return _CaliforniaPlan(self)


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
                raise QuoteError(f"An option number must be a whole number, not {number!r}.")
            number = int(number)
        option = self._by_number.get(number, _MISSING)
        if option is _MISSING:
            numbers = sorted(self._by_number)
            if not numbers:
                raise QuoteError(f"{self.code} has no option {number}; it has no options at all.")
            raise QuoteError(f"{self.code} has no option {number}; its options are {_ranges(numbers)}.")
        if option is None:
            raise QuoteError(
                f"{self.code} prints option {number} more than once; the schedule data needs correcting "
                "before it can be quoted."
            )
        return option


_MISSING = object()


def _ranges(numbers: list[int]) -> str:
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


# -- what is quoted ------------------------------------------------------------------------------------


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
            object.__setattr__(self, "percent", _percent(self.percent))
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


_new = object.__new__


def _build(cls, values: dict):
    """An instance of the frozen dataclass ``cls`` with ``values`` as its fields, equal to ``cls(**values)``.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (about 1 µs for an
    8-field FeeLine); the quote functions build several lines per round, so they fill the instance dict
    directly. Only for classes without ``__post_init__``, and with every field given (a CaliforniaQuote's
    ``lines`` may instead come from ``_lines_from``: see _LinesOnDemand).
    """
    instance = _new(cls)
    instance.__dict__.update(values)
    return instance


def _line(payer, player, fee_kind, measure, measured, tier, fee, note=""):
    return _build(FeeLine, {
        "payer": payer, "player": player, "fee_kind": fee_kind, "measure": measure, "measured": measured,
        "tier": tier, "fee": fee, "note": note,
    })


# -- amounts -------------------------------------------------------------------------------------------

def money(value, what: str) -> Decimal:
    """``value`` as an amount of money quantized to the cent, read by ``cardroom.values.money`` (the service's
    one reader of amounts): a decimal string ("12.50"), a whole number or a Decimal; never a float, a negative
    amount (not even "-0"), more than 2 decimal places, or anything but plain ASCII digits ("1e3", "1_000")."""
    if type(value) is Decimal:
        # Fast path for amounts already read (the engine's own tiers): finite, not negative, at most 2 places.
        try:
            cents = value.quantize(CENT)
        except InvalidOperation:
            cents = None
        if cents == value and not cents.is_signed():
            return cents
    try:
        return values.money(value)
    except values.Invalid as error:
        raise QuoteError(f"{what} {error}") from None


def _percent(value) -> Decimal:
    try:
        percent = values.decimal(value, example='"10"')
    except values.Invalid as error:
        raise QuoteError(f"A rake percent {error}") from None
    if percent <= 0 or percent > 100:
        raise QuoteError(f"A rake percent must be more than 0 and at most 100, not {value!r}.")
    return percent


def _and(items: list[str]) -> str:
    """['$1', '$2', '$3'] -> '$1, $2 and $3'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _dollars(amount, compact: bool = False) -> str:
    """$450.00; compact: $1, $0.50, $1,500 (the way schedules print bounds)."""
    amount = Decimal(amount)
    if compact and amount == amount.to_integral_value():
        return f"${amount:,.0f}"
    return f"${amount:,.2f}"


def _count(amount) -> str:
    """A player count as printed: 6 (also for a bound stored as Decimal('6.00'))."""
    amount = Decimal(amount)
    return f"{amount:f}" if amount != amount.to_integral_value() else f"{amount:.0f}"


# -- tier groups ---------------------------------------------------------------------------------------

_KIND_NAMES = {
    "player": "player fee",
    "player_dealer": "player-dealer fee",
    "collection": "collection fee",
    "jackpot": "jackpot fee",
    "designated_table": "designated table fee",
    "time": "time collection fee",
}
_UNSTATED = frozenset({"unstated", "wager_unspecified"})
_BANDED = frozenset({"player_wager", "base_wager", "total_table_action", "players"})


class _Group:
    """The tiers of one fee kind in an option, ready for ``bisect``.

    ``tiers`` are in reading order (ascending bounds); ``uppers`` holds the closed upper bounds; an amount
    picks ``tiers[bisect_left(uppers, amount)]``. ``stop`` is ``len(uppers)`` when the top tier is closed
    (landing there means "above the table") and -1 when it is open-ended. ``lowest`` is the first tier's
    lower bound (-Infinity when open below). ``fees`` are the tiers' fees quantized to the cent;
    ``cent_fees``, ``cent_uppers`` and ``cent_lowest`` are the same amounts in integer cents, for money
    measured in cents (quote_california). ``line_fields`` holds, per tier, the FeeLine fields that do not
    depend on the round (see _line_for). ``problem`` says why the tiers cannot be used, if they cannot.
    """

    __slots__ = ("kind", "measure", "tiers", "fees", "cent_fees", "uppers", "stop", "lowest", "cent_uppers",
                 "cent_lowest", "line_fields", "problem")

    def __init__(self, kind, measure, tiers, problem=None):
        self.kind = kind
        self.measure = measure
        self.tiers = tiers
        self.problem = problem
        self.fees = ()
        self.cent_fees = ()
        self.uppers = ()
        self.stop = -1
        self.lowest = _BELOW_EVERYTHING
        self.cent_uppers = ()
        self.cent_lowest = _NO_FLOOR_CENTS
        self.line_fields = ()

    @property
    def name(self) -> str:
        return _KIND_NAMES.get(self.kind, f"{self.kind} fee")

    def _set_fees(self, tiers, fees):
        self.tiers = tuple(tiers)
        self.fees = tuple(fees)
        self.cent_fees = tuple(int(fee.scaleb(2)) for fee in self.fees)
        self.line_fields = tuple(
            {"payer": tier.payer, "player": None, "fee_kind": self.kind, "measure": self.measure, "measured": None,
             "tier": tier, "fee": fee, "note": ""}
            for tier, fee in zip(self.tiers, self.fees)
        )


def _line_for(fields: dict, player, measured, note: str = "") -> FeeLine:
    """A FeeLine from a tier's prepared ``line_fields`` and what varies per round (see _build)."""
    line = _new(FeeLine)
    state = line.__dict__
    state.update(fields)
    state["player"] = player
    state["measured"] = measured
    if note:
        state["note"] = note
    return line


def _compile_group(kind: str, printed: Sequence[Tier]) -> _Group:
    """Check one kind's tiers (given in printed order) and precompute what lookups need."""
    measures = sorted({t.measure for t in printed})
    if len(measures) > 1:
        return _Group(kind, measures[0], tuple(printed), (
            f"prints {_KIND_NAMES.get(kind, kind)} tiers measured in more than one way "
            f"({', '.join(measures)}); the schedule data needs correcting before it can be quoted."
        ))
    measure = measures[0]
    group = _Group(kind, measure, tuple(printed))
    fees = []
    for tier in printed:
        try:
            fees.append(money(tier.fee, f"The {group.name} printed {tier.printed_fee or tier.fee!r}"))
        except QuoteError as error:
            group.problem = f"has an unusable {group.name}: {error}"
            return group
    if measure in _UNSTATED:
        printed_fees = _and([t.printed_fee or _dollars(t.fee, True) for t in printed])
        group.problem = (
            f"does not state how its {group.name} is measured (it prints {printed_fees} with no stated basis), "
            "so no fee can be quoted for it."
        )
        return group
    if measure not in _BANDED:  # flat, elapsed_time: one fee, whatever is measured
        if len(printed) != 1:
            group.problem = (
                f"prints {len(printed)} {group.name}s with no bounds to choose between them; the schedule data "
                "needs correcting before it can be quoted."
            )
        group._set_fees(printed, fees)
        return group
    order = _reading_order(printed)
    if order is None:
        bounds = ", ".join(t.printed_bounds or f"{t.lower}-{t.upper}" for t in printed)
        group.problem = (
            f"has inconsistent {group.name} tiers: their bounds ({bounds}) neither climb nor fall in printed "
            "order, so which tier an amount falls in cannot be told; the schedule data needs correcting."
        )
        return group
    group._set_fees([printed[i] for i in order], [fees[i] for i in order])
    top = group.tiers[-1].upper
    closed = group.tiers if top is not None else group.tiers[:-1]
    group.uppers = tuple(Decimal(t.upper) for t in closed)
    group.stop = len(group.uppers) if top is not None else -1
    first = group.tiers[0].lower
    group.lowest = Decimal(first) if first is not None else _BELOW_EVERYTHING
    if any(bound != bound.quantize(CENT) for bound in group.uppers + (group.lowest,) if bound.is_finite()):
        group.problem = f"has {group.name} bounds in fractions of a cent; the schedule data needs correcting."
        return group
    group.cent_uppers = tuple(int(upper.scaleb(2)) for upper in group.uppers)
    group.cent_lowest = int(group.lowest.scaleb(2)) if first is not None else _NO_FLOOR_CENTS
    return group


def _ascending(tiers: Sequence[Tier]) -> bool:
    """Whether ``tiers`` read in this order satisfy the tier rule: uppers climb, only the last is open,
    only the first is open below, and each tier starts above the one before it ends."""
    previous_upper = None
    for i, tier in enumerate(tiers):
        lower, upper = tier.lower, tier.upper
        if upper is None and i != len(tiers) - 1:
            return False
        if lower is None and i != 0:
            return False
        if lower is not None and upper is not None and lower > upper:
            return False
        if i:
            if upper is not None and upper <= previous_upper:
                return False
            if lower <= previous_upper:
                return False
        previous_upper = upper
    return True


def _reading_order(printed: Sequence[Tier]) -> list[int] | None:
    """Indexes of ``printed`` in ascending reading order: as printed, or bottom-up for a table printed from
    its top band down; None when neither reading is consistent."""
    forward = list(range(len(printed)))
    if _ascending(printed):
        return forward
    backward = forward[::-1]
    if _ascending([printed[i] for i in backward]):
        return backward
    return None


def _compile_option(option: Option) -> dict[str, _Group]:
    by_kind: dict[str, list[Tier]] = {}
    for tier in sorted(option.tiers, key=lambda t: t.order):
        by_kind.setdefault(tier.fee_kind, []).append(tier)
    return {kind: _compile_group(kind, tiers) for kind, tiers in by_kind.items()}


def _covers(group: _Group) -> str:
    """What a banded group covers, in the schedule's own style: '$1-$300', '$1 and up', '2 or more players'."""
    first, last = group.tiers[0].lower, group.tiers[-1].upper
    if group.measure == "players":
        show, unit = _count, " players"
    else:
        show, unit = (lambda n: _dollars(n, compact=True)), ""
    if first is None and last is None:
        return "any number of players" if unit else "any amount"
    if first is None:
        return f"up to {show(last)}{unit}"
    if last is None:
        return f"{show(first)} or more{unit}" if unit else f"{show(first)} and up"
    return f"{show(first)}-{show(last)}{unit}"


def _out_of_range(group: _Group, amount, what: str, code: str, option: int):
    if group.measure == "players":
        shown = f"{_count(amount)} player{'' if amount == 1 else 's'}"
    else:
        shown = _dollars(amount)
    side = "below" if amount < group.lowest else "above"
    return QuoteError(
        f"{what} {shown} is {side} what {code} option {option} covers for the {group.name} "
        f"({_covers(group)}); the schedule states no fee for it."
    )


def _pick(group: _Group, amount, what: str, code: str, option: int) -> int:
    """Index into ``group.tiers`` of the tier covering ``amount`` (the tier rule), or a QuoteError."""
    i = bisect_left(group.uppers, amount)
    if i == group.stop or (i == 0 and amount < group.lowest):
        raise _out_of_range(group, amount, what, code, option)
    return i


def find_tier(tiers: Sequence[Tier], amount, *, what: str, code: str, option: int) -> Tier:
    """The tier of ``tiers`` (one fee kind, in printed order) that covers ``amount`` by the tier rule.

    ``amount`` is a Decimal, an int (a player count) or a money string. For repeated quotes the ``quote_*``
    functions use the groups compiled once per Option instead of compiling ``tiers`` on every call.
    """
    tiers = tuple(tiers)
    if not tiers:
        raise QuoteError(f"{code} option {option} prints no tiers to price {what} with.")
    kinds = {t.fee_kind for t in tiers}
    if len(kinds) > 1:
        raise QuoteError(f"find_tier needs the tiers of one fee kind; got {', '.join(sorted(kinds))}.")
    if isinstance(amount, bool) or not isinstance(amount, (int, Decimal)):
        amount = money(amount, what)
    elif isinstance(amount, Decimal) and not amount.is_finite():
        raise QuoteError(f"{what} must be a finite amount, not {amount!r}.")
    group = _compile_group(tiers[0].fee_kind, tiers)
    if group.problem:
        raise QuoteError(f"{code} option {option} {group.problem}")
    if group.measure not in _BANDED:
        return group.tiers[0]
    return group.tiers[_pick(group, amount, what, code, option)]


# -- wrong-basis messages ------------------------------------------------------------------------------

_HOW_TO_QUOTE = {
    "poker_drop": "is a poker drop; quote it with players and reached_flop",
    "time_collection": "is a time collection; quote it with game_started_at, game_ended_at and the players' seats",
}
_CALIFORNIA_HINT = "is a California game fee; quote it with wagers"


def _wrong_basis(code: str, option: Option) -> QuoteError:
    how = _HOW_TO_QUOTE.get(option.basis, _CALIFORNIA_HINT)
    return QuoteError(f"option {option.number} of {code} {how}.")


# -- California games ----------------------------------------------------------------------------------

_PLAYER_MEASURES = frozenset({"flat", "total_table_action", "base_wager", "player_wager"})
_PLAYER_DEALER_MEASURES = frozenset({"flat", "total_table_action"})


class _CaliforniaPlan:
    """How quote_california prices one option, worked out once per Option (``Option._california``).

    ``refusal`` is None, or makes the QuoteError saying why the option cannot be quoted with wagers (given
    the schedule code). ``player``/``player_measure``: the player fee tiers and what they are measured on
    (None: the option prints no player fee). ``dealer``: the player-dealer tiers when measured on the total
    table action, else None, with ``dealer_fee``/``dealer_cents`` the flat fee (or $0.00 when none is
    printed).
    """

    __slots__ = ("refusal", "player", "player_measure", "dealer_group", "dealer", "dealer_fee", "dealer_cents")

    def __init__(self, option: Option):
        groups = option._groups
        self.player = groups.get("player")
        self.player_measure = self.player.measure if self.player is not None else None
        self.dealer_group = groups.get("player_dealer")
        by_action = self.dealer_group is not None and self.dealer_group.measure == "total_table_action"
        self.dealer = self.dealer_group if by_action else None
        self.dealer_fee, self.dealer_cents = ZERO, 0
        if self.dealer_group is not None and self.dealer_group.fees and not by_action:
            self.dealer_fee, self.dealer_cents = self.dealer_group.fees[0], self.dealer_group.cent_fees[0]
        self.refusal = self._refusal(option, groups)

    def _refusal(self, option: Option, groups: dict[str, _Group]):
        number = option.number
        if option.basis in _HOW_TO_QUOTE:
            return lambda code: _wrong_basis(code, option)
        problem = None
        others = sorted(set(groups) - {"player", "player_dealer"})
        if others:
            names = ", ".join(_KIND_NAMES.get(k, k) for k in others)
            problem = f"prints {names} tiers, which a California game quote has no use for."
        for group, allowed in ((self.player, _PLAYER_MEASURES), (self.dealer_group, _PLAYER_DEALER_MEASURES)):
            if problem is None and group is not None:
                if group.problem:
                    problem = group.problem
                elif group.measure not in allowed:
                    problem = (f"measures its {group.name} on {group.measure}, which a California game quote "
                               "cannot use.")
        if problem is None:
            return None
        return lambda code: QuoteError(f"{code} option {number} {problem}")


def quote_california(schedule: Schedule, option_number: int, wagers: Sequence[Wager]) -> CaliforniaQuote:
    """The fees for one round of a California game: each player's fee and the player-dealer's fee.

    This is the hot path (a busy table quotes every round), so it adds and looks up integer cents taken from
    the Wagers (validated when they were made) in the option's precompiled plan, and leaves the FeeLines to
    be built when ``lines`` is first read (_california_lines).
    """
    option = schedule._by_number.get(option_number) if type(option_number) is int else None
    if option is None:
        option = schedule.option(option_number)  # says what is wrong
    plan = option._california
    if plan.refusal is not None:
        raise plan.refusal(schedule.code)
    if type(wagers) is not tuple:
        wagers = tuple(wagers)
    if not wagers:
        raise QuoteError("A California round needs at least one wager.")

    measure = plan.player_measure
    fees: dict[str, Decimal] = {}  # per player, in order of first appearance
    action = 0  # total table action, in cents
    total = plan.dealer_cents  # everything collected, in cents
    # Only a Wager, checked when it was made, carries _cents: anything else in ``wagers`` stops the loops
    # below with an AttributeError, reported as a QuoteError.
    try:
        if measure == "base_wager":
            # Every spot's base wager picks its own tier; a player's fees are summed.
            group = plan.player
            uppers, stop, lowest = group.cent_uppers, group.stop, group.cent_lowest
            tier_fees, cent_fees = group.fees, group.cent_fees
            for wager in wagers:
                cents, spot_action = wager._cents
                action += spot_action
                i = bisect_left(uppers, cents)
                if i == stop or cents < lowest:
                    raise _out_of_range(group, wager.base, f"{wager.player}'s base wager", schedule.code,
                                        option.number)
                total += cent_fees[i]
                fee = tier_fees[i]
                player = wager.player
                so_far = fees.get(player)
                fees[player] = fee if so_far is None else so_far + fee
        else:
            totals: dict[str, int] = {}
            for wager in wagers:
                cents, spot_action = wager._cents
                action += spot_action
                player = wager.player
                totals[player] = totals.get(player, 0) + cents
    except AttributeError:
        stranger = next((w for w in wagers if not isinstance(w, Wager)), None)
        if stranger is None:
            raise
        raise _not_a_wager(stranger) from None
    if measure != "base_wager":
        # One fee per player: by the player's total base wager, flat, by the total table action, or none.
        group = plan.player
        if measure == "player_wager":
            for player, cents in totals.items():
                i = _pick_cents(group, cents, f"{player}'s total base wager", schedule, option)
                fees[player] = group.fees[i]
                total += group.cent_fees[i]
        else:
            i = 0
            if measure == "total_table_action":
                i = _pick_cents(group, action, "Total table action", schedule, option)
            fee, cents = (group.fees[i], group.cent_fees[i]) if group is not None else (ZERO, 0)
            fees = dict.fromkeys(totals, fee)
            total += cents * len(fees)

    dealer = plan.dealer
    if dealer is None:  # flat, or none printed
        dealer_fee = plan.dealer_fee
    else:  # by the total table action
        i = bisect_left(dealer.cent_uppers, action)
        if i == dealer.stop or action < dealer.cent_lowest:
            raise _out_of_range(dealer, _from_cents(action), "Total table action", schedule.code, option.number)
        dealer_fee = dealer.fees[i]
        total += dealer.cent_fees[i]

    quote = _new(CaliforniaQuote)  # what _build does, one field at a time: the quickest way to fill it
    state = quote.__dict__
    state["player_fees"] = tuple(fees.items())
    state["player_dealer_fee"] = dealer_fee
    state["total_table_action"] = CENT * action  # == _from_cents(action), without the call
    state["total"] = CENT * total
    state["_lines_from"] = (_california_lines, (plan, wagers, action))
    return quote


def _from_cents(cents: int) -> Decimal:
    return CENT * cents  # exact, and already quantized: 0.01 * 23500 == Decimal("235.00")


def _pick_cents(group: _Group, cents: int, what: str, schedule: Schedule, option: Option) -> int:
    i = bisect_left(group.cent_uppers, cents)
    if i == group.stop or cents < group.cent_lowest:
        raise _out_of_range(group, _from_cents(cents), what, schedule.code, option.number)
    return i


def _california_lines(plan: _CaliforniaPlan, wagers: tuple[Wager, ...], action: int) -> tuple[FeeLine, ...]:
    """The FeeLines of a California quote: who pays what, measured on what, by which printed tier.

    Made from the same plan and wagers as the quote (``action``: the total table action in cents), with the
    same lookups, which cannot fail here: the quote already succeeded.
    """
    tta = _from_cents(action)
    lines = []
    group = plan.player
    measure = group.measure if group is not None else None
    if measure == "base_wager":
        uppers, fields = group.cent_uppers, group.line_fields
        for wager in wagers:
            lines.append(_line_for(fields[bisect_left(uppers, wager._cents[0])], wager.player, wager.base,
                                   "backline" if wager.backline else ""))
    else:
        totals: dict[str, int] = {}
        for wager in wagers:
            totals[wager.player] = totals.get(wager.player, 0) + wager._cents[0]
        for player, cents in totals.items():
            if measure == "player_wager":
                lines.append(_line_for(group.line_fields[bisect_left(group.cent_uppers, cents)], player,
                                       _from_cents(cents)))
            elif measure == "total_table_action":
                lines.append(_line_for(group.line_fields[bisect_left(group.cent_uppers, action)], player, tta))
            elif measure == "flat":
                lines.append(_line_for(group.line_fields[0], player, None))
            else:
                lines.append(_line("player", player, "player", "flat", None, None, ZERO,
                                   "The option prints no player fee."))
    dealer = plan.dealer_group
    if dealer is None:
        lines.append(_line("player_dealer", None, "player_dealer", "flat", None, None, ZERO,
                           "The option prints no player-dealer fee."))
    elif dealer.measure == "flat":
        lines.append(_line_for(dealer.line_fields[0], None, None))
    else:
        lines.append(_line_for(dealer.line_fields[bisect_left(dealer.cent_uppers, action)], None, tta))
    return tuple(lines)


def _not_a_wager(value) -> QuoteError:
    return QuoteError(f"Each wager must be a Wager (player, base, bonus, backline), not {value!r}.")


# -- poker ---------------------------------------------------------------------------------------------

_POKER_KINDS = ("collection", "jackpot", "designated_table")
_POKER_TAKEN = {"collection": "after_flop", "jackpot": "after_flop", "designated_table": "after_river"}
_POKER_MEASURES = frozenset({"players", "flat"})


def quote_poker(schedule: Schedule, option_number: int, *, players: int, reached_flop: bool,
                reached_river: bool) -> PokerQuote:
    """The drop for one poker hand: collection and jackpot after the flop, designated table after the river."""
    option = schedule.option(option_number)
    code, number = schedule.code, option.number
    if option.basis != "poker_drop":
        raise _wrong_basis(schedule.code, option)
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

    groups = option._groups
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
            lines.append(_line(group.tiers[0].payer, None, kind, group.measure, None, None, ZERO,
                               f"Not taken: the hand did not reach the {street}."))
            continue
        if group.measure == "players":
            i = _pick(group, players, "A hand with", code, number)
            lines.append(_line_for(group.line_fields[i], None, players))
        else:
            lines.append(_line_for(group.line_fields[0], None, None))
        amounts[kind] += lines[-1].fee
    total = amounts["collection"] + amounts["designated_table"] + amounts["jackpot"]
    return PokerQuote(
        collection_fee=amounts["collection"], designated_table_fee=amounts["designated_table"],
        jackpot_fee=amounts["jackpot"], total=total, lines=tuple(lines),
    )


# -- time collection -----------------------------------------------------------------------------------


# Marks are listed one by one, so the period is bounded: a week of half-hours is 336 marks.
LONGEST_TIME_COLLECTION = timedelta(days=7)


def _collections(game_started_at, game_ended_at, interval_minutes: int, seats: Sequence[Seat]):
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


def _time_lines(marks, paid, fee: Decimal, tier: Tier | None, fee_kind: str):
    player_fees, lines, total = [], [], ZERO
    for player, ks in paid.items():
        amount = fee * len(ks)
        total += amount
        player_fees.append((player, amount, len(ks)))
        at = ", ".join(marks[k - 1].strftime("%H:%M") for k in ks)
        note = f"{len(ks)} collection{'s' if len(ks) != 1 else ''} of {_dollars(fee)}" + (f" (at {at})" if ks else "")
        lines.append(_line("player", player, fee_kind, "elapsed_time", len(ks), tier, amount, note))
    return tuple(player_fees), total, tuple(lines)


def quote_time(schedule: Schedule, option_number: int, *, game_started_at: datetime, game_ended_at: datetime,
               seats: Sequence[Seat]) -> TimeQuote:
    """Time collection: the option's fee from each seated player at the end of each interval."""
    option = schedule.option(option_number)
    code, number = schedule.code, option.number
    if option.basis != "time_collection":
        raise _wrong_basis(schedule.code, option)
    minutes = option.interval_minutes
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes <= 0:
        raise QuoteError(f"{code} option {number} does not state a collection interval, so no time fee can be quoted.")
    groups = option._groups
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
    marks, paid = _collections(game_started_at, game_ended_at, minutes, seats)
    player_fees, total, lines = _time_lines(marks, paid, group.fees[0], group.tiers[0], "time")
    return TimeQuote(player_fees=player_fees, total=total, marks=marks, lines=lines)


# -- Washington ----------------------------------------------------------------------------------------


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
        line = _line("player", None, "per_hand", "players", players, None, total,
                     f"{_dollars(fee.amount)} x {players} player{'s' if players != 1 else ''} ({fee.citation})")
        return WashingtonQuote(fee_type="per_hand", total=total, per_player=fee.amount, lines=(line,))
    if pot is None:
        raise QuoteError("A rake is a percentage of the pot; give the pot.")
    pot = money(pot, "The pot")
    share = (pot * fee.percent / 100).quantize(CENT, rounding=ROUND_DOWN)
    total = share if fee.cap is None or share <= fee.cap else fee.cap
    note = f"{fee.percent.normalize():f}% of {_dollars(pot)} = {_dollars(share)} (rounded down)"
    if fee.cap is not None:
        note += f", capped at {_dollars(fee.cap)}" if share > fee.cap else f", under the {_dollars(fee.cap)} cap"
    line = _line("pot", None, "rake", "pot", pot, None, total, f"{note} ({fee.citation})")
    return WashingtonQuote(fee_type="rake", total=total, per_player=None, lines=(line,))


def quote_washington_time(fee: WashingtonFee, *, game_started_at: datetime, game_ended_at: datetime,
                          seats: Sequence[Seat]) -> WashingtonQuote:
    """A time fee: ``fee.amount`` from each seated player at each interval mark (same rule as quote_time)."""
    if not isinstance(fee, WashingtonFee):
        raise QuoteError(f"fee must be a WashingtonFee, not {fee!r}.")
    if fee.kind != "time":
        raise QuoteError(f"A Washington {fee.kind} fee is charged per hand; quote it with quote_washington_hand.")
    marks, paid = _collections(game_started_at, game_ended_at, fee.interval_minutes, seats)
    _, total, lines = _time_lines(marks, paid, fee.amount, None, "time")
    return WashingtonQuote(fee_type="time", total=total, per_player=fee.amount, lines=lines)


# -- explanation ---------------------------------------------------------------------------------------


def _cents(value) -> str | None:
    return None if value is None else f"{Decimal(value).quantize(CENT):f}"


def _explain_interpretation(reading: Interpretation, **where) -> dict:
    return {**where, "field": reading.field, "printed": reading.printed, "read_as": reading.value,
            "statement": reading.statement, "citation": reading.citation, "decided_on": reading.decided_on.isoformat()}


def _explain_line(line: FeeLine) -> dict:
    measured = line.measured
    if isinstance(measured, Decimal):
        measured = _cents(measured)
    tier = line.tier
    shown = None
    if tier is not None:
        shown = {"order": tier.order, "lower": _cents(tier.lower), "upper": _cents(tier.upper),
                 "printed_bounds": tier.printed_bounds, "printed_fee": tier.printed_fee}
        if tier.interpretations:  # only then: a tier read as printed is explained as before
            shown["interpretations"] = [_explain_interpretation(i) for i in tier.interpretations]
    return {
        "payer": line.payer,
        "player": line.player,
        "fee_kind": line.fee_kind,
        "measure": line.measure,
        "measured": measured,
        "tier": shown,
        "fee": _cents(line.fee),
        "note": line.note,
    }


def explain(schedule: Schedule, option: Option, quote, *, as_of: date | None = None) -> dict:
    """A JSON-ready account of ``quote``: the document, version and option it came from and every fee line
    with the tier that priced it. Every amount is a string with 2 decimals.

    Where the option is read through approved interpretations (of its basis, or of any of its tiers), the account
    says so: ``interpretations`` lists each value read rather than printed, with what is printed, the reading, its
    statement, citation and date; and each fee line's tier lists its own."""
    body = {
        "document": schedule.code,
        "title": schedule.title,
        "version": schedule.version,
        "effective_from": schedule.effective_from.isoformat() if schedule.effective_from else None,
        "as_of": as_of.isoformat() if as_of else None,
        "option": option.number,
        "basis": option.basis,
        "citation": option.citation,
        "document_citation": schedule.citation,
        "currency": schedule.currency,
        "fees": [_explain_line(line) for line in quote.lines],
    }
    readings = [_explain_interpretation(i, tier=None) for i in option.interpretations]
    readings += [_explain_interpretation(i, tier=t.order) for t in option.tiers for i in t.interpretations]
    if readings:
        body["interpretations"] = readings
    return body
