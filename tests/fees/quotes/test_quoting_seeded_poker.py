"""Every poker and lowball option in the seeded data, priced through the stored schedules (DB -> snapshot ->
engine), against rows typed from the source documents (seed 004: Poker Collection Rates page, Omaha with Joker
'Collection Fees', Poker Games Collection Rates for GEGA-000697/000700/000702)."""

import datetime
from decimal import Decimal

import pytest

from fees.engine import QuoteError
from fees.models import FeeOption
from fees.quotes import quoting

pytestmark = pytest.mark.django_db
AS_OF = datetime.date(2026, 11, 21)


def bands(*rows):
    """[(lowest players, highest players or None, fee)] -> fee for a player count."""
    def fee(players):
        for low, high, amount in rows:
            if players >= low and (high is None or players <= high):
                return Decimal(amount)
        raise AssertionError(players)
    return fee


# (code, option): (collection by players, designated table fee, jackpot fee) as printed.
POKER = {
    ("GEGA-000697", 1): (bands((6, None, "3"), (5, 5, "2"), (2, 4, "1")), "1", "0"),
    ("GEGA-000697", 2): (bands((8, None, "5"), (6, 7, "4"), (2, 5, "3")), "0", "0"),
    ("GEGA-000697", 3): (bands((7, None, "3"), (6, 6, "2"), (2, 5, "1")), "1", "0"),
    ("GEGA-000697", 4): (bands((8, None, "5"), (6, 7, "4"), (2, 5, "3")), "0", "0"),
    ("GEGA-000700", 1): (bands((8, None, "4"), (6, 7, "3"), (2, 5, "2")), "1", "0"),
    ("GEGA-000700", 2): (bands((8, None, "5"), (6, 7, "4"), (2, 5, "3")), "0", "0"),
    ("GEGA-000700", 3): (bands((7, None, "3"), (6, 6, "2"), (2, 5, "1")), "1", "0"),
    ("GEGA-000700", 4): (bands((8, None, "5"), (6, 7, "4"), (2, 5, "3")), "0", "0"),
    ("CMV-POKER-HOLDEM", 1): (bands((6, None, "3.00"), (5, 5, "2.00"), (2, 4, "1.00")), "1.00", "1.00"),
    ("CMV-POKER-OMAHA", 1): (bands((8, None, "4.00"), (6, 7, "3.00"), (2, 5, "2.00")), "1.00", "1.00"),
    ("CMV-POKER-NO-LIMIT", 1): (bands((7, None, "3.00"), (6, 6, "2.00"), (2, 5, "1.00")), "1.00", "1.00"),
    **{("CMV-OMAHA-JOKER", n): (bands((7, None, "4.00"), (6, 6, "3.00"), (2, 5, "2.00")), "0", "0")
       for n in range(1, 6)},
}
# Options printed with blank fee cells.
BLANK = [("CMV-POKER-HOLDEM", n) for n in range(2, 6)] + [("CMV-POKER-OMAHA", n) for n in range(2, 6)] + [
    ("CMV-POKER-NO-LIMIT", 2)]


def quote(code, option, **facts):
    schedule = quoting.schedule_snapshot(code, AS_OF)
    return quoting.quote_facts(schedule, option, facts)


def test_every_seeded_poker_option_is_covered_here():
    seeded = set(FeeOption.objects.filter(basis="poker_drop").values_list("version__document__code", "number"))
    assert seeded == set(POKER) | set(BLANK)


@pytest.mark.parametrize("code, option", sorted(POKER))
@pytest.mark.parametrize("players", range(2, 11))
def test_poker_option_at_every_player_count(code, option, players):
    collection, designated, jackpot = POKER[(code, option)]
    river = quote(code, option, players=players, reached_flop=True, reached_river=True)
    assert river.collection_fee == collection(players)
    assert river.designated_table_fee == Decimal(designated)
    assert river.jackpot_fee == Decimal(jackpot)
    assert river.total == collection(players) + Decimal(designated) + Decimal(jackpot)
    flop_only = quote(code, option, players=players, reached_flop=True, reached_river=False)
    assert flop_only.total == collection(players) + Decimal(jackpot)
    assert quote(code, option, players=players, reached_flop=False, reached_river=False).total == 0


@pytest.mark.parametrize("code, option", BLANK)
def test_options_printed_blank_cannot_be_quoted(code, option):
    with pytest.raises(QuoteError, match="no fees printed"):
        quote(code, option, players=6, reached_flop=True, reached_river=True)


@pytest.mark.parametrize("option, fee", [(1, Decimal("3")), (2, Decimal("6"))])
@pytest.mark.parametrize("seated_minutes, collections", [(29, 0), (30, 1), (59, 1), (60, 2), (120, 4)])
def test_lowball_options_every_half_hour(option, fee, seated_minutes, collections):
    start = "2026-11-21T20:00:00-08:00"
    left = (datetime.datetime.fromisoformat(start) + datetime.timedelta(minutes=seated_minutes)).isoformat()
    result = quote("GEGA-000702", option, game_started_at=start, game_ended_at="2026-11-21T22:00:00-08:00",
                   players=[{"player": "a", "seated_from": start, "seated_to": left}])
    assert result.player_fees == (("a", fee * collections, collections),)
