"""Tier groups: the tiers of one fee kind in an option, checked once and compiled for lookups by the tier rule
(see the package's docstring), and the messages for an amount the schedule does not cover."""

from __future__ import annotations

from bisect import bisect_left
from decimal import Decimal
from typing import TYPE_CHECKING, Sequence

from cardroom.money import CENT

from . import kinds
from .amounts import QuoteError, and_list, dollars, money, printed_count
from .bands import BANDED, UNCLEAR
from .quotes import FeeLine, new_instance
from .schedules import kept_on

if TYPE_CHECKING:
    from .schedules import Option, Tier

_BELOW_EVERYTHING = Decimal("-Infinity")
_NO_FLOOR_CENTS = float("-inf")


class Group:
    """The tiers of one fee kind in an option, ready for ``bisect``.

    ``tiers`` are in reading order (ascending bounds); ``uppers`` holds the closed upper bounds; an amount
    picks ``tiers[bisect_left(uppers, amount)]``. ``stop`` is ``len(uppers)`` when the top tier is closed
    (landing there means "above the table") and -1 when it is open-ended. ``lowest`` is the first tier's
    lower bound (-Infinity when open below). ``fees`` are the tiers' fees quantized to the cent;
    ``cent_fees``, ``cent_uppers`` and ``cent_lowest`` are the same amounts in integer cents, for money
    measured in cents (quote_california). ``line_fields`` holds, per tier, the FeeLine fields that do not
    depend on the round (see line_for). ``problem`` says why the tiers cannot be used, if they cannot.
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
        return kinds.WORDS.get(self.kind, f"{self.kind} fee")

    def _set_fees(self, tiers, fees):
        self.tiers = tuple(tiers)
        self.fees = tuple(fees)
        self.cent_fees = tuple(int(fee.scaleb(2)) for fee in self.fees)
        self.line_fields = tuple(
            {"payer": tier.payer, "player": None, "fee_kind": self.kind, "measure": self.measure, "measured": None,
             "tier": tier, "fee": fee, "note": ""}
            for tier, fee in zip(self.tiers, self.fees)
        )


def line_for(fields: dict, player, measured, note: str = "") -> FeeLine:
    """A FeeLine from a tier's prepared ``line_fields`` and what varies per round (see _build)."""
    line = new_instance(FeeLine)
    state = line.__dict__
    state.update(fields)
    state["player"] = player
    state["measured"] = measured
    if note:
        state["note"] = note
    return line


def _compile_group(kind: str, printed: Sequence[Tier]) -> Group:
    """Check one kind's tiers (given in printed order) and precompute what lookups need."""
    measures = sorted({t.measure for t in printed})
    if len(measures) > 1:
        return Group(kind, measures[0], tuple(printed), (
            f"prints {kinds.WORDS.get(kind, kind)} tiers measured in more than one way "
            f"({', '.join(measures)}); the schedule data needs correcting before it can be quoted."
        ))
    measure = measures[0]
    group = Group(kind, measure, tuple(printed))
    fees = []
    for tier in printed:
        try:
            fees.append(money(tier.fee, f"The {group.name} printed {tier.printed_fee or tier.fee!r}"))
        except QuoteError as error:
            group.problem = f"has an unusable {group.name}: {error}"
            return group
    if measure in UNCLEAR:
        printed_fees = and_list([t.printed_fee or dollars(t.fee, True) for t in printed])
        group.problem = (
            f"does not state how its {group.name} is measured (it prints {printed_fees} with no stated basis), "
            "so no fee can be quoted for it."
        )
        return group
    if measure not in BANDED:  # flat, elapsed_time: one fee, whatever is measured
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


def groups_of(option: Option) -> dict[str, Group]:
    """The option's tiers grouped by fee kind and compiled for lookups; worked out once per Option."""
    return kept_on(option, "_groups", compile_option)


def compile_option(option: Option) -> dict[str, Group]:
    by_kind: dict[str, list[Tier]] = {}
    for tier in sorted(option.tiers, key=lambda t: t.order):
        by_kind.setdefault(tier.fee_kind, []).append(tier)
    return {kind: _compile_group(kind, tiers) for kind, tiers in by_kind.items()}


def _covers(group: Group) -> str:
    """What a banded group covers, in the schedule's own style: '$1-$300', '$1 and up', '2 or more players'."""
    first, last = group.tiers[0].lower, group.tiers[-1].upper
    if group.measure == "players":
        show, unit = printed_count, " players"
    else:
        show, unit = (lambda n: dollars(n, compact=True)), ""
    if first is None and last is None:
        return "any number of players" if unit else "any amount"
    if first is None:
        return f"up to {show(last)}{unit}"
    if last is None:
        return f"{show(first)} or more{unit}" if unit else f"{show(first)} and up"
    return f"{show(first)}-{show(last)}{unit}"


def out_of_range(group: Group, amount, what: str, code: str, option: int):
    if group.measure == "players":
        shown = f"{printed_count(amount)} player{'' if amount == 1 else 's'}"
    else:
        shown = dollars(amount)
    side = "below" if amount < group.lowest else "above"
    return QuoteError(
        f"{what} {shown} is {side} what {code} option {option} covers for the {group.name} "
        f"({_covers(group)}); the schedule states no fee for it."
    )


def pick(group: Group, amount, what: str, code: str, option: int) -> int:
    """Index into ``group.tiers`` of the tier covering ``amount`` (the tier rule), or a QuoteError."""
    i = bisect_left(group.uppers, amount)
    if i == group.stop or (i == 0 and amount < group.lowest):
        raise out_of_range(group, amount, what, code, option)
    return i


def find_tier(tiers: Sequence[Tier], amount, *, what: str, code: str, option: int) -> Tier:
    """The tier of ``tiers`` (one fee kind, in printed order) that covers ``amount`` by the tier rule.

    ``amount`` is a Decimal, an int (a player count) or a money string. For repeated quotes the ``quote_*``
    functions use the groups compiled once per Option instead of compiling ``tiers`` on every call.
    """
    tiers = tuple(tiers)
    if not tiers:
        raise QuoteError(f"{code} option {option} prints no tiers to price {what} with.")
    given = {t.fee_kind for t in tiers}
    if len(given) > 1:
        raise QuoteError(f"find_tier needs the tiers of one fee kind; got {', '.join(sorted(given))}.")
    if isinstance(amount, bool) or not isinstance(amount, (int, Decimal)):
        amount = money(amount, what)
    elif isinstance(amount, Decimal) and not amount.is_finite():
        raise QuoteError(f"{what} must be a finite amount, not {amount!r}.")
    group = _compile_group(tiers[0].fee_kind, tiers)
    if group.problem:
        raise QuoteError(f"{code} option {option} {group.problem}")
    if group.measure not in BANDED:
        return group.tiers[0]
    return group.tiers[pick(group, amount, what, code, option)]
