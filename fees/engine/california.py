"""California games (a player-dealer position): the fees for one round, priced from the wagers."""

from __future__ import annotations

from bisect import bisect_left
from decimal import Decimal
from typing import TYPE_CHECKING, Sequence

from cardroom.money import CENT

from . import kinds
from .amounts import ZERO, QuoteError
from .quotes import CaliforniaQuote, FeeLine, Wager, fee_line, new_instance, wrong_basis
from .scales import Group, groups_of, line_for, out_of_range
from .schedules import kept_on

if TYPE_CHECKING:  # for the annotations only
    from .schedules import Option, Schedule

_PLAYER_MEASURES = frozenset({"flat", "total_table_action", "base_wager", "player_wager"})
_PLAYER_DEALER_MEASURES = frozenset({"flat", "total_table_action"})


class _CaliforniaPlan:
    """How quote_california prices one option, worked out once per Option (kept on the Option: ``schedules.kept_on``).

    ``refusal`` is None, or makes the QuoteError saying why the option cannot be quoted with wagers (given
    the schedule code). ``player``/``player_measure``: the player fee tiers and what they are measured on
    (None: the option prints no player fee). ``dealer``: the player-dealer tiers when measured on the total
    table action, else None, with ``dealer_fee``/``dealer_cents`` the flat fee (or $0.00 when none is
    printed).
    """

    __slots__ = ("refusal", "player", "player_measure", "dealer_group", "dealer", "dealer_fee", "dealer_cents")

    def __init__(self, option: Option):
        groups = groups_of(option)
        self.player = groups.get("player")
        self.player_measure = self.player.measure if self.player is not None else None
        self.dealer_group = groups.get("player_dealer")
        by_action = self.dealer_group is not None and self.dealer_group.measure == "total_table_action"
        self.dealer = self.dealer_group if by_action else None
        self.dealer_fee, self.dealer_cents = ZERO, 0
        if self.dealer_group is not None and self.dealer_group.fees and not by_action:
            self.dealer_fee, self.dealer_cents = self.dealer_group.fees[0], self.dealer_group.cent_fees[0]
        self.refusal = self._refusal(option, groups)

    def _refusal(self, option: Option, groups: dict[str, Group]):
        number = option.number
        if kinds.family_of(option.basis) is not kinds.CALIFORNIA:
            return lambda code: wrong_basis(code, option)
        problem = None
        others = sorted(set(groups) - set(kinds.of_family(kinds.CALIFORNIA)))
        if others:
            names = ", ".join(kinds.WORDS.get(k, k) for k in others)
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
    plan = kept_on(option, "_california", _CaliforniaPlan)
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
                    raise out_of_range(group, wager.base, f"{wager.player}'s base wager", schedule.code,
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
            raise out_of_range(dealer, _from_cents(action), "Total table action", schedule.code, option.number)
        dealer_fee = dealer.fees[i]
        total += dealer.cent_fees[i]

    quote = new_instance(CaliforniaQuote)  # what _build does, one field at a time: the quickest way to fill it
    state = quote.__dict__
    state["player_fees"] = tuple(fees.items())
    state["player_dealer_fee"] = dealer_fee
    state["total_table_action"] = CENT * action  # == _from_cents(action), without the call
    state["total"] = CENT * total
    state["_lines_from"] = (_california_lines, (plan, wagers, action))
    return quote


def _from_cents(cents: int) -> Decimal:
    return CENT * cents  # exact, and already quantized: 0.01 * 23500 == Decimal("235.00")


def _pick_cents(group: Group, cents: int, what: str, schedule: Schedule, option: Option) -> int:
    i = bisect_left(group.cent_uppers, cents)
    if i == group.stop or cents < group.cent_lowest:
        raise out_of_range(group, _from_cents(cents), what, schedule.code, option.number)
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
            lines.append(line_for(fields[bisect_left(uppers, wager._cents[0])], wager.player, wager.base,
                                  "backline" if wager.backline else ""))
    else:
        totals: dict[str, int] = {}
        for wager in wagers:
            totals[wager.player] = totals.get(wager.player, 0) + wager._cents[0]
        for player, cents in totals.items():
            if measure == "player_wager":
                lines.append(line_for(group.line_fields[bisect_left(group.cent_uppers, cents)], player,
                                      _from_cents(cents)))
            elif measure == "total_table_action":
                lines.append(line_for(group.line_fields[bisect_left(group.cent_uppers, action)], player, tta))
            elif measure == "flat":
                lines.append(line_for(group.line_fields[0], player, None))
            else:
                lines.append(fee_line("player", player, "player", "flat", None, None, ZERO,
                                      "The option prints no player fee."))
    dealer = plan.dealer_group
    if dealer is None:
        lines.append(fee_line("player_dealer", None, "player_dealer", "flat", None, None, ZERO,
                              "The option prints no player-dealer fee."))
    elif dealer.measure == "flat":
        lines.append(line_for(dealer.line_fields[0], None, None))
    else:
        lines.append(line_for(dealer.line_fields[bisect_left(dealer.cent_uppers, action)], None, tta))
    return tuple(lines)


def _not_a_wager(value) -> QuoteError:
    return QuoteError(f"Each wager must be a Wager (player, base, bonus, backline), not {value!r}.")
