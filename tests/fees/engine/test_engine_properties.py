"""fees.engine: properties that hold for every amount, checked with hypothesis on the schedules typed in
test_engine (from the source documents; no YAML, no database)."""

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fees.engine import QuoteError, Seat, Wager, WashingtonFee, find_tier, money, quote_california, quote_poker, \
    quote_time, quote_washington_hand, quote_washington_time
from tests.fees.engine.test_engine import (
    CMV_FEES_BLACKJACK, CMV_PLAYER_WAGER, CMV_POKER_HOLDEM, CMV_TABLE_ACTION, GEGA_000697, GEGA_000700,
    GEGA_000702, GEGA_002888,
)

D = Decimal
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BANDED = ("base_wager", "player_wager", "total_table_action", "players")
TOP = 10_000_00  # the largest amount, in cents, tried above an open-ended tier

CALIFORNIA = [(GEGA_002888, n) for n in range(1, 50)] + [
    (CMV_PLAYER_WAGER, 1), (CMV_PLAYER_WAGER, 6), (CMV_PLAYER_WAGER, 9), (CMV_FEES_BLACKJACK, 1),
    (CMV_TABLE_ACTION, 7),
]
POKER = [(s, n) for s in (GEGA_000697, GEGA_000700) for n in (1, 2, 3, 4)] + [(CMV_POKER_HOLDEM, 1)]
STREETS = [(False, False), (True, False), (True, True)]


def cents(amount):
    return D(amount).scaleb(-2)


def group(option, kind):
    """The option's tiers of one kind in reading order (as printed, or bottom-up when printed top band first)."""
    tiers = sorted((t for t in option.tiers if t.fee_kind == kind), key=lambda t: t.order)
    uppers = [t.upper for t in tiers]
    if len(tiers) > 1 and (uppers[0] is None or (uppers[-1] is not None and uppers[0] > uppers[-1])):
        tiers.reverse()
    return tiers


def covers(option, kind):
    """(lowest, highest) amount in cents the kind's banded tiers cover; highest is TOP when open-ended."""
    tiers = group(option, kind)
    lowest = tiers[0].lower if tiers[0].lower is not None else D(0)
    highest = tiers[-1].upper if tiers[-1].upper is not None else cents(TOP)
    return int(lowest * 100), int(highest * 100)


def contains(tiers, tier, amount):
    """The tier rule, stated independently of the engine: tier k of the reading order covers amounts above
    tier k-1's upper bound (from its own lower bound for the first tier) up to its own upper bound."""
    k = tiers.index(tier)
    if tier.upper is not None and amount > tier.upper:
        return False
    if k == 0:
        return tier.lower is None or amount >= tier.lower
    return amount > tiers[k - 1].upper


def check_lines(option, quote):
    """Every line's tier belongs to the option and contains what the line measured."""
    for line in quote.lines:
        if line.tier is None:
            assert line.fee == 0
            continue
        assert line.tier in option.tiers and line.tier.fee_kind == line.fee_kind
        assert line.fee == line.tier.fee * (line.measured if line.fee_kind == "time" else 1)
        if line.tier.measure in BANDED:
            assert contains(group(option, line.fee_kind), line.tier, line.measured), line
        else:
            assert line.tier.lower is None and line.tier.upper is None


@st.composite
def rounds(draw, options=CALIFORNIA):
    """A California option and a round of wagers within what its tiers cover."""
    schedule, number = draw(st.sampled_from(options))
    option = schedule.option(number)
    lowest, highest = 100, TOP
    for kind in ("player", "player_dealer"):
        tiers = group(option, kind)
        if tiers and tiers[0].measure in BANDED:
            low, high = covers(option, kind)
            lowest = max(lowest, low)
            if tiers[0].measure == "total_table_action":
                highest = min(highest, high)
    spots = draw(st.integers(1, 7))
    share = highest // spots  # keeps the total table action within the player-dealer column
    assume(share >= lowest)
    wagers = []
    for _ in range(spots):
        base = draw(st.integers(lowest, share))
        bonus = draw(st.one_of(st.just(0), st.integers(0, share - base)))
        player = draw(st.sampled_from(["a", "b", "c", "d"]))
        wagers.append(Wager(player, cents(base), cents(bonus), draw(st.booleans())))
    return schedule, option, wagers


# -- California ------------------------------------------------------------------------------------------------

@PROPERTY
@given(rounds())
def test_a_quote_is_the_sum_of_its_parts(drawn):
    schedule, option, wagers = drawn
    quote = quote_california(schedule, option.number, wagers)
    assert quote.total == sum((fee for _, fee in quote.player_fees), quote.player_dealer_fee)
    assert quote.total == sum(line.fee for line in quote.lines)
    assert quote.total_table_action == sum(w.base + w.bonus for w in wagers)
    players = list(dict.fromkeys(w.player for w in wagers))
    assert [player for player, _ in quote.player_fees] == players
    for player, fee in quote.player_fees:
        assert fee == sum(line.fee for line in quote.lines if line.player == player)
    assert quote.player_dealer_fee == sum(line.fee for line in quote.lines if line.payer == "player_dealer")
    for amount in [quote.total, quote.total_table_action, quote.player_dealer_fee] + [f for _, f in quote.player_fees]:
        assert amount.as_tuple().exponent == -2


@PROPERTY
@given(rounds())
def test_every_fee_line_tier_contains_what_it_measured(drawn):
    schedule, option, wagers = drawn
    quote = quote_california(schedule, option.number, wagers)
    check_lines(option, quote)
    by_wager = [line for line in quote.lines if line.measure == "base_wager"]
    if by_wager:
        assert [line.measured for line in by_wager] == [w.base for w in wagers]


@PROPERTY
@given(rounds(), st.data())
def test_adding_a_bonus_never_lowers_the_player_dealer_fee(drawn, data):
    schedule, option, wagers = drawn
    before = quote_california(schedule, option.number, wagers)
    spot = data.draw(st.integers(0, len(wagers) - 1))
    extra = cents(data.draw(st.integers(1, 100_000)))
    wagers[spot] = Wager(wagers[spot].player, wagers[spot].base, wagers[spot].bonus + extra, wagers[spot].backline)
    try:
        after = quote_california(schedule, option.number, wagers)
    except QuoteError as error:
        assert "is above what" in str(error)  # a closed player-dealer column: no fee stated, none guessed
        return
    assert after.player_dealer_fee >= before.player_dealer_fee
    if all(t.measure != "total_table_action" for t in option.tiers if t.fee_kind == "player"):
        assert after.player_fees == before.player_fees  # bonus wagers pay no player fee


TTA_OPTIONS = [(s, n) for s, n in CALIFORNIA
               if any(t.fee_kind == "player_dealer" and t.measure == "total_table_action" for t in s.option(n).tiers)]


@PROPERTY
@given(st.sampled_from(TTA_OPTIONS), st.data())
def test_the_player_dealer_fee_never_decreases_as_the_table_action_grows(choice, data):
    schedule, number = choice
    option = schedule.option(number)
    low, high = covers(option, "player_dealer")
    player = group(option, "player")
    if player and player[0].measure in BANDED:  # one wager must also be within the player tiers
        low = max(low, covers(option, "player")[0])
    small = data.draw(st.integers(low, high))
    large = data.draw(st.integers(small, high))
    fee = {amount: quote_california(schedule, number, [Wager("p", cents(amount))]).player_dealer_fee
           for amount in (small, large)}
    assert fee[small] <= fee[large]
    tiers = group(option, "player_dealer")
    for amount in (small, large):
        tier = find_tier(tiers, cents(amount), what="Total table action", code=schedule.code, option=number)
        assert tier.fee == fee[amount] and contains(tiers, tier, cents(amount))


PLAYER_TIER_OPTIONS = [(s, n) for s, n in CALIFORNIA
                       if any(t.fee_kind == "player" and t.measure in ("base_wager", "player_wager")
                              for t in s.option(n).tiers)]


@PROPERTY
@given(st.sampled_from(PLAYER_TIER_OPTIONS), st.data())
def test_the_player_fee_never_decreases_as_the_wager_grows(choice, data):
    schedule, number = choice
    option = schedule.option(number)
    tiers = group(option, "player")
    low, high = covers(option, "player")
    small = data.draw(st.integers(low, high))
    large = data.draw(st.integers(small, high))
    found = [find_tier(tiers, cents(a), what="The wager", code=schedule.code, option=number) for a in (small, large)]
    assert found[0].fee <= found[1].fee
    assert all(contains(tiers, tier, cents(a)) for tier, a in zip(found, (small, large)))
    dealer = group(option, "player_dealer")
    if dealer[0].measure == "flat" or dealer[-1].upper is None:  # the round is quotable at any size
        quoted = [quote_california(schedule, number, [Wager("p", cents(a))]).player_fees[0][1] for a in (small, large)]
        assert quoted == [found[0].fee, found[1].fee] and quoted[0] <= quoted[1]


@PROPERTY
@given(st.sampled_from(CALIFORNIA), st.integers(1, 99))
def test_below_the_first_tier_is_refused_never_guessed(choice, short):
    schedule, number = choice
    option = schedule.option(number)
    kind = next(k for k in ("player", "player_dealer") if group(option, k) and group(option, k)[0].measure in BANDED)
    lowest = covers(option, kind)[0]
    assume(lowest - short > 0)
    with pytest.raises(QuoteError, match="is below what"):
        quote_california(schedule, number, [Wager("p", cents(lowest - short))])


# -- poker -------------------------------------------------------------------------------------------------------

@PROPERTY
@given(st.sampled_from(POKER), st.integers(2, 20), st.integers(2, 20), st.sampled_from(STREETS))
def test_poker_totals_and_more_players_never_pay_less(choice, n, m, streets):
    schedule, number = choice
    option = schedule.option(number)
    flop, river = streets
    few, many = sorted((n, m))
    quotes = [quote_poker(schedule, number, players=k, reached_flop=flop, reached_river=river) for k in (few, many)]
    for quote in quotes:
        assert quote.total == quote.collection_fee + quote.designated_table_fee + quote.jackpot_fee
        assert quote.total == sum(line.fee for line in quote.lines)
        check_lines(option, quote)
        if not flop:
            assert quote.total == 0
    assert quotes[0].collection_fee <= quotes[1].collection_fee
    assert quotes[0].designated_table_fee == quotes[1].designated_table_fee


# -- time collection ----------------------------------------------------------------------------------------------

@st.composite
def sessions(draw):
    length = draw(st.integers(1, 300))
    seats = []
    for player in draw(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=6, unique=True)):
        sat = draw(st.integers(0, length - 1))
        left = draw(st.integers(sat + 1, length))
        seats.append((player, sat, left))
    return length, seats


@PROPERTY
@given(sessions(), st.sampled_from([1, 2]))
def test_time_collection_charges_each_mark_in_the_seat(session, number):
    length, seats = session
    start = datetime(2026, 11, 21, 20)
    minute = timedelta(minutes=1)
    quote = quote_time(GEGA_000702, number, game_started_at=start, game_ended_at=start + length * minute,
                       seats=[Seat(p, start + sat * minute, start + left * minute) for p, sat, left in seats])
    fee = D("3.00") if number == 1 else D("6.00")
    assert quote.marks == tuple(start + k * 30 * minute for k in range(1, length // 30 + 1))
    for (player, sat, left), (name, amount, collections) in zip(seats, quote.player_fees):
        expected = sum(1 for mark in quote.marks if start + sat * minute < mark <= start + left * minute)
        assert (name, collections, amount) == (player, expected, fee * expected)
    assert quote.total == sum(amount for _, amount, _ in quote.player_fees)
    check_lines(GEGA_000702.option(number), quote)
    hourly = quote_washington_time(
        WashingtonFee("time", amount=fee), game_started_at=start, game_ended_at=start + length * minute,
        seats=[Seat(p, start + sat * minute, start + left * minute) for p, sat, left in seats])
    assert hourly.total == sum(
        fee for _, sat, left in seats for k in range(1, length // 60 + 1) if sat < k * 60 <= left)


# -- amounts -------------------------------------------------------------------------------------------------------

@PROPERTY
@given(st.integers(0, 999_999_999_999))  # up to what a money column holds
def test_money_reads_every_amount_in_cents(amount):
    value = cents(amount)
    assert money(str(value), "x") == value == money(value, "x")
    assert money(f"{value:f}", "x").as_tuple().exponent == -2


@PROPERTY
@given(st.integers(0, 10**9), st.integers(1, 9))
def test_money_refuses_fractions_of_a_cent(amount, mill):
    with pytest.raises(QuoteError, match="more than 2 decimal places"):
        money(f"{cents(amount)}{mill}", "x")


@PROPERTY
@given(st.integers(0, 10**7), st.decimals(min_value=D("0.01"), max_value=D(100), places=2),
       st.one_of(st.none(), st.integers(0, 10_000)))
def test_a_rake_is_rounded_down_and_capped(pot, percent, cap):
    fee = WashingtonFee("rake", percent=percent, cap=None if cap is None else cents(cap))
    quote = quote_washington_hand(fee, players=4, pot=cents(pot))
    exact = cents(pot) * percent / 100
    assert quote.total <= exact
    if cap is None or exact - D("0.01") < cents(cap):
        assert quote.total > exact - D("0.01") or quote.total == cents(cap)
    if cap is not None:
        assert quote.total <= cents(cap)
