"""fees.engine: the pure fee engine, on schedules typed here from the source documents.

No YAML and no database. The schedules below are transcribed from the Casino Marysville binder
(seed source ``cmv-binder``): GEGA-002888 from the Face Up Pai Gow Poker rules, 'Collection Rates
Schedules' (options 1-38, 39-42 and 43-49 tables); the per-game list from 'California Games Collection
Rates' (Double Hand Poker / Fortune Pai Gow Poker / Pai Gow Tiles, options 1-12); the 'California
Collection Fees GEGA-002888' page; the 'Poker Collection Rates' page; and 'Poker Games Collection Rates'
(Lowball GEGA-000702, Omaha Hi-Lo GEGA-000700, Texas Hold'em with Kill Pots GEGA-000697). The expected fees
in the tables are typed by hand from the same pages, not computed from the tiers.
"""

import dataclasses
import json
import pickle
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from fees.engine import (
    CaliforniaQuote, FeeLine, Option, PokerQuote, QuoteError, Schedule, Seat, Tier, TimeQuote, Wager,
    WashingtonFee, WashingtonQuote, explain, find_tier, money, quote_california, quote_poker, quote_time,
    quote_washington_hand, quote_washington_time,
)

D = Decimal
PAYER = {"player": "player", "player_dealer": "player_dealer", "collection": "pot", "jackpot": "pot",
         "designated_table": "pot", "time": "player"}
TAKEN = {"collection": "after_flop", "jackpot": "after_flop", "designated_table": "after_river",
         "time": "each_interval"}


# -- building schedules as printed -----------------------------------------------------------------------

def bounds(printed):
    """'$1,201-$2,000' -> (1201, 2000); '$201+' and '101+' -> (201, None)."""
    text = printed.replace("$", "").replace(",", "")
    if text.endswith("+"):
        return D(text[:-1]), None
    lower, upper = text.split("-")
    return D(lower), D(upper)


def banded(kind, measure, rows, start=1):
    """rows: 'bounds=fee' cells in printed order, e.g. '$1-$10=$1 $11-$50=$2 $201+=$5'."""
    tiers = []
    for order, cell in enumerate(rows.split(), start):
        printed_bounds, printed_fee = cell.split("=")
        lower, upper = bounds(printed_bounds)
        tiers.append(Tier(order, kind, PAYER[kind], measure, lower, upper, D(printed_fee.lstrip("$")),
                          TAKEN.get(kind, "before_deal"), printed_bounds, printed_fee))
    return tuple(tiers)


def flat(kind, printed_fee, order, measure="flat"):
    return (Tier(order, kind, PAYER[kind], measure, None, None, D(printed_fee.lstrip("$")),
                 TAKEN.get(kind, "before_deal"), "", printed_fee),)


def players(kind, cells, start=1):
    """Player-count bands as printed: '6 or more=$3 | 5=$2 | 2-4=$1'."""
    tiers = []
    for order, cell in enumerate(cells.split(" | "), start):
        printed_bounds, printed_fee = cell.split("=")
        text = printed_bounds.replace(" players", "")
        if text.endswith(" or more"):
            lower, upper = D(text.split()[0]), None
        elif text.endswith(" or less"):
            lower, upper = None, D(text.split()[0])
        elif "-" in text:
            lower, upper = (D(n) for n in text.split("-"))
        else:
            lower = upper = D(text)
        tiers.append(Tier(order, kind, "pot", "players", lower, upper, D(printed_fee.lstrip("$")), TAKEN[kind],
                          printed_bounds, printed_fee))
    return tuple(tiers)


def schedule(code, options, title="", effective_from=None):
    return Schedule(code=code, title=title or code, version=1, effective_from=effective_from, currency="USD",
                    citation=f"Casino Marysville binder, {code}", options=tuple(options))


# GEGA-002888, Face Up Pai Gow Poker rules, 'Collection Rates Schedules'.
# Options 1-38: Total Table Action / Player-Dealer Fee; Player Fee '$0' printed on each option's first row.
TTA_OPTIONS = {
    1: "$1-$10=$1 $11-$50=$2 $51-$100=$3 $101-$200=$4 $201+=$5",
    2: "$1-$10=$2 $11-$50=$3 $51-$100=$4 $101-$200=$5 $201+=$6",
    3: "$1-$10=$2 $11-$50=$4 $51-$100=$5 $101-$200=$6 $201+=$8",
    4: "$1-$25=$1 $26-$100=$2 $101-$200=$3 $201-$300=$4 $301+=$5",
    5: "$1-$25=$2 $26-$100=$3 $101-$200=$4 $201-$300=$5 $301+=$6",
    6: "$1-$25=$2 $26-$100=$4 $101-$200=$5 $201-$300=$6 $301+=$8",
    7: "$1-$100=$1 $101-$200=$2 $201-$300=$3 $301-$400=$4 $401+=$5",
    8: "$1-$100=$2 $101-$200=$3 $201-$300=$4 $301-$400=$5 $401+=$6",
    9: "$1-$100=$2 $101-$200=$4 $201-$300=$5 $301-$400=$6 $401+=$8",
    10: "$1-$100=$1 $101-$300=$3 $301-$500=$5 $501-$800=$8 $801+=$10",
    11: "$1-$100=$2 $101-$300=$3 $301-$500=$5 $501-$800=$8 $801+=$10",
    12: "$1-$100=$2 $101-$300=$3 $301-$500=$6 $501-$800=$10 $801+=$15",
    13: "$1-$100=$2 $101-$300=$10 $301-$500=$15 $501-$800=$20 $801+=$25",
    14: "$1-$100=$2 $101-$300=$3 $301-$600=$5 $601-$1,200=$10 $1,201+=$15",
    15: "$1-$100=$2 $101-$300=$5 $301-$600=$8 $601-$1,200=$10 $1,201+=$15",
    16: "$1-$100=$3 $101-$300=$5 $301-$600=$8 $601-$1,200=$15 $1,201+=$20",
    17: "$1-$100=$3 $101-$300=$6 $301-$600=$8 $601-$1,200=$12 $1,201+=$15",
    18: "$1-$100=$3 $101-$300=$10 $301-$600=$15 $601-$1,200=$20 $1,201+=$25",
    19: "$1-$200=$3 $201-$500=$6 $501-$800=$10 $801-$1,500=$15 $1,501+=$20",
    20: "$1-$200=$3 $201-$500=$5 $501-$800=$10 $801-$1,500=$15 $1,501+=$25",
    21: "$1-$200=$3 $201-$500=$6 $501-$800=$12 $801-$1,500=$15 $1,501+=$25",
    22: "$1-$200=$5 $201-$500=$8 $501-$800=$15 $801-$1,500=$20 $1,501+=$25",
    23: "$1-$200=$5 $201-$500=$10 $501-$800=$18 $801-$1,500=$25 $1,501+=$50",
    24: "$1-$200=$3 $201-$600=$5 $601-$1,200=$10 $1,201-$2,000=$15 $2,001+=$20",
    25: "$1-$200=$3 $201-$600=$6 $601-$1,200=$12 $1,201-$2,000=$15 $2,001+=$25",
    26: "$1-$200=$5 $201-$600=$5 $601-$1,200=$15 $1,201-$2,000=$20 $2,001+=$25",
    27: "$1-$200=$5 $201-$600=$10 $601-$1,200=$20 $1,201-$2,000=$30 $2,001+=$40",
    28: "$1-$200=$5 $201-$600=$10 $601-$1,200=$18 $1,201-$2,000=$25 $2,001+=$50",
    29: "$1-$300=$5 $301-$1,000=$10 $1,001-$2,000=$15 $2,001-$3,000=$25 $3,001+=$30",
    30: "$1-$300=$5 $301-$1,000=$10 $1,001-$2,000=$20 $2,001-$3,000=$30 $3,001+=$40",
    31: "$1-$300=$5 $301-$1,000=$12 $1,001-$2,000=$20 $2,001-$3,000=$30 $3,001+=$40",
    32: "$1-$300=$5 $301-$1,000=$15 $1,001-$2,000=$25 $2,001-$3,000=$30 $3,001+=$50",
    33: "$1-$300=$5 $301-$1,000=$15 $1,001-$2,000=$25 $2,001-$3,000=$50 $3,001+=$75",
    34: "$1-$500=$10 $501-$1,500=$15 $1,501-$3,000=$25 $3,001-$5,000=$35 $5,001+=$50",
    35: "$1-$500=$10 $501-$1,500=$20 $1,501-$3,000=$30 $3,001-$5,000=$40 $5,001+=$50",
    36: "$1-$500=$10 $501-$1,500=$15 $1,501-$3,000=$25 $3,001-$5,000=$50 $5,001+=$75",
    37: "$1-$500=$10 $501-$1,500=$20 $1,501-$3,000=$40 $3,001-$5,000=$50 $5,001+=$75",
    38: "$1-$500=$10 $501-$1,500=$25 $1,501-$3,000=$50 $3,001-$5,000=$75 $5,001+=$100",
}
# Options 39-42: Player Wager / Player Fee (each base wager) / Player-Dealer Fee (one value, first row).
BASE_WAGER_FLAT_OPTIONS = {
    39: ("$1-$100=$1 $101-$200=$2 $201-$300=$3 $301-$400=$4 $401+=$5", "$1"),
    40: ("$1-$100=$1 $101-$200=$2 $201-$300=$3 $301-$400=$4 $401+=$5", "$2"),
    41: ("$1-$200=$1 $201-$400=$2 $401-$600=$3 $601-$800=$4 $801+=$5", "$2"),
    42: ("$1-$200=$1 $201-$400=$2 $401-$600=$3 $601-$800=$4 $801+=$5", "$3"),
}
# Options 43-49: Player Wager / Player Fee (each base wager) / Total Table Action / Player-Dealer Fee.
BASE_WAGER_TTA_OPTIONS = {
    43: ("$1-$100=$1 $101-$200=$2 $201-$300=$3 $301-$400=$4 $401+=$5", "$1-$100=$1 $101-$300=$3"),
    44: ("$1-$100=$1 $101-$200=$2 $201-$300=$3 $301-$400=$4 $401+=$5", "$1-$100=$2 $101-$300=$3"),
    45: ("$1-$100=$1 $101-$200=$2 $201-$300=$3 $301-$400=$4 $401+=$5", "$1-$100=$2 $101-$400=$3"),
    46: ("$1-$200=$1 $201-$400=$2 $401-$600=$3 $601-$800=$4 $801+=$5", "$1-$100=$1 $101+=$2"),
    47: ("$1-$200=$1 $201-$400=$2 $401-$600=$3 $601-$800=$4 $801+=$5", "$1-$100=$1 $101+=$3"),
    48: ("$1-$200=$1 $201-$400=$2 $401-$600=$3 $601-$800=$4 $801+=$5", "$1-$100=$1 $101-$300=$3"),
    49: ("$1-$200=$1 $201-$400=$2 $401-$600=$3 $601-$800=$4 $801+=$5", "$1-$100=$1 $101-$400=$3"),
}


def gega_002888():
    options = []
    for n, rows in TTA_OPTIONS.items():
        tiers = banded("player_dealer", "total_table_action", rows) + flat("player", "$0", 6)
        options.append(Option(n, "total_table_action", "", f"options 1-38 table, option {n}", None, tiers))
    for n, (rows, dealer) in BASE_WAGER_FLAT_OPTIONS.items():
        tiers = banded("player", "base_wager", rows) + flat("player_dealer", dealer, 6)
        options.append(Option(n, "base_wager_flat_player_dealer", "", f"options 39-42 table, option {n}", None, tiers))
    for n, (rows, dealer) in BASE_WAGER_TTA_OPTIONS.items():
        tiers = banded("player", "base_wager", rows) + banded("player_dealer", "total_table_action", dealer, 6)
        options.append(Option(n, "base_wager_and_table_action", "", f"options 43-49 table, option {n}", None, tiers))
    return schedule("GEGA-002888", options, title="California Games Collection Rates (Face Up Pai Gow Poker packet)")


GEGA_002888 = gega_002888()

# 'California Games Collection Rates' (Double Hand Poker, Fortune Pai Gow Poker, Pai Gow Tiles): the Player
# Wager is "the total amount a player wagered on the base game". Options 1, 3, 6 and 9 as printed.
PLAYER_WAGER_100 = "$1-$100=$1 $101-$200=$2 $201-$300=$3 $301-$400=$4 $401+=$5"
PLAYER_WAGER_200 = "$1-$200=$1 $201-$400=$2 $401-$600=$3 $601-$800=$4 $801+=$5"
CMV_PLAYER_WAGER = schedule("CMV-CA-PLAYER-WAGER", [
    Option(1, "player_total_wager_flat_player_dealer", "", "options 1-5 table, option 1", None,
           banded("player", "player_wager", PLAYER_WAGER_100) + flat("player_dealer", "$1", 6)),
    # Option 3 prints two player-dealer values ($1, $2) and no basis for choosing between them.
    Option(3, "player_total_wager_flat_player_dealer", "", "options 1-5 table, option 3", None,
           banded("player", "player_wager", PLAYER_WAGER_100) + flat("player_dealer", "$1", 6, "unstated")
           + flat("player_dealer", "$2", 7, "unstated")),
    Option(6, "player_total_wager_and_table_action", "", "options 6-12 table, option 6", None,
           banded("player", "player_wager", PLAYER_WAGER_100)
           + banded("player_dealer", "total_table_action", "$1-$100=$1 $101-$300=$3", 6)),
    Option(9, "player_total_wager_and_table_action", "", "options 6-12 table, option 9", None,
           banded("player", "player_wager", PLAYER_WAGER_200)
           + banded("player_dealer", "total_table_action", "$1-$100=$1 101+=$2", 6)),
])

# 'California Collection Fees GEGA-002888' page.
CMV_FEES_BLACKJACK = schedule("CMV-CA-FEES-BLACKJACK", [
    Option(1, "total_table_action", "No Bust 21st Century Blackjack and Pure 21.5 Blackjack", "page, option 1", None,
           banded("player", "total_table_action", "$5-50=$0.00 $51-200=$0.00 $201-400=$0.00 $401-600=$0.00 "
                  "$601-$1,000=$0.00")
           + banded("player_dealer", "total_table_action", "$5-50=$0.50 $51-200=$2.00 $201-400=$3.00 "
                    "$401-600=$4.00 $601-$1,000=$5.00", 6)),
])
CMV_FEES_PAI_GOW = schedule("CMV-CA-FEES-PAI-GOW", [
    Option(1, "unstated", "Pai Gow Tiles and Pai Gow Poker", "page, option 1", None,
           banded("player", "wager_unspecified", "$10-100=$1 $101-200=$2 $201-300=$3 $301-400=$4 $401-500=$5")
           + banded("player_dealer", "wager_unspecified", "$10-100=$1 $101-200=$2", 6)),
])
# The card room's options 1-39 list prints no Player Fee column (no fee from the player); option 7 as printed.
CMV_TABLE_ACTION = schedule("CMV-CA-TABLE-ACTION", [
    Option(7, "total_table_action", "", "options 1-39 table, option 7", None,
           banded("player_dealer", "total_table_action",
                  "$1-$50=$0.50 $51-$200=$2 $201-$400=$3 $401-$600=$4 $601+=$5")),
])

# 'Poker Games Collection Rates': the player-count bands are printed from the top band down.
GEGA_000697 = schedule("GEGA-000697", [
    Option(1, "poker_drop", "Limit Games", "Limit Games, option 1", None,
           players("collection", "6 or more=$3 | 5=$2 | 2-4=$1") + flat("designated_table", "$1", 4)),
    Option(2, "poker_drop", "Limit Games", "Limit Games, option 2", None,
           players("collection", "8 or more=$5 | 6-7=$4 | 5 or less=$3") + flat("designated_table", "$0", 4)),
    Option(3, "poker_drop", "No Limit Games", "No Limit Games, option 3", None,
           players("collection", "7 or more=$3 | 6=$2 | 5 or less=$1") + flat("designated_table", "$1", 4)),
    Option(4, "poker_drop", "No Limit Games", "No Limit Games, option 4", None,
           players("collection", "8 or more=$5 | 6-7=$4 | 5 or less=$3") + flat("designated_table", "$0", 4)),
])
GEGA_000700 = schedule("GEGA-000700", [
    Option(1, "poker_drop", "Limit Games", "Limit Games, option 1", None,
           players("collection", "8 or more=$4 | 6-7=$3 | 5 or less=$2") + flat("designated_table", "$1", 4)),
    Option(2, "poker_drop", "Limit Games", "Limit Games, option 2", None,
           players("collection", "8 or more=$5 | 6-7=$4 | 5 or less=$3") + flat("designated_table", "$0", 4)),
    Option(3, "poker_drop", "No Limit Games", "No Limit Games, option 3", None,
           players("collection", "7 or more=$3 | 6=$2 | 5 or less=$1") + flat("designated_table", "$1", 4)),
    Option(4, "poker_drop", "No Limit Games", "No Limit Games, option 4", None,
           players("collection", "8 or more=$5 | 6-7=$4 | 5 or less=$3") + flat("designated_table", "$0", 4)),
])
# 'Poker Collection Rates' page, Texas Hold'em: option 1 ($2 / $4) with a jackpot fee; option 2 printed blank.
CMV_POKER_HOLDEM = schedule("CMV-POKER-HOLDEM", [
    Option(1, "poker_drop", "$2 / $4", "Texas Hold'em, option 1", None,
           players("collection", "6 or more players=$3.00 | 5 players=$2.00 | 2-4 players=$1.00")
           + flat("designated_table", "$1.00", 4) + flat("jackpot", "$1.00", 5)),
    Option(2, "poker_drop", "$3 / $6", "Texas Hold'em, option 2", None, ()),
])
# Lowball (GEGA-000702): "a Collection Fee will be taken from each player at the end of each half hour".
GEGA_000702 = schedule("GEGA-000702", [
    Option(1, "time_collection", "Limit Games", "Lowball, option 1", 30, flat("time", "$3", 1, "elapsed_time")),
    Option(2, "time_collection", "Limit Games", "Lowball, option 2", 30, flat("time", "$6", 1, "elapsed_time")),
], effective_from=date(2026, 1, 1))


def round_of(*spots):
    """spots: (player, base) or (player, base, bonus) or (player, base, bonus, backline)."""
    return [Wager(*spot) for spot in spots]


def fees_of(quote):
    return {player: str(fee) for player, fee in quote.player_fees}


# -- the issue's examples ----------------------------------------------------------------------------------

def test_issue_example_option_43():
    quote = quote_california(GEGA_002888, 43, round_of(("p1", "150", "25"), ("p1", "20"), ("p2", "40", "0", True)))
    assert quote.player_fees == (("p1", D("3.00")), ("p2", D("1.00")))
    assert quote.player_dealer_fee == D("3.00")
    assert quote.total_table_action == D("235.00")
    assert quote.total == D("7.00")
    assert [(line.payer, line.player, line.measured, line.tier.printed_bounds, line.fee) for line in quote.lines] == [
        ("player", "p1", D("150.00"), "$101-$200", D("2.00")),
        ("player", "p1", D("20.00"), "$1-$100", D("1.00")),
        ("player", "p2", D("40.00"), "$1-$100", D("1.00")),
        ("player_dealer", None, D("235.00"), "$101-$300", D("3.00")),
    ]
    assert quote.lines[2].note == "backline"


def test_issue_example_poker():
    quote = quote_poker(GEGA_000697, 1, players=6, reached_flop=True, reached_river=False)
    assert (quote.collection_fee, quote.designated_table_fee, quote.jackpot_fee, quote.total) == (
        D("3.00"), D("0.00"), D("0.00"), D("3.00"))


def test_issue_example_lowball():
    quote = quote_time(GEGA_000702, 1, game_started_at=datetime(2026, 11, 21, 20),
                       game_ended_at=datetime(2026, 11, 21, 21, 30),
                       seats=[Seat("a", datetime(2026, 11, 21, 20), datetime(2026, 11, 21, 21, 30))])
    assert quote.player_fees == (("a", D("9.00"), 3),)
    assert quote.total == D("9.00")


# -- GEGA-002888 options 1-38: the player-dealer fee by total table action ------------------------------------

# (option, total table action, player-dealer fee), typed from the options 1-38 table.
TTA_ROWS = [
    (1, "1", "1.00"), (1, "10", "1.00"), (1, "10.50", "2.00"), (1, "11", "2.00"), (1, "50", "2.00"),
    (1, "50.01", "3.00"), (1, "51", "3.00"), (1, "100", "3.00"), (1, "100.50", "4.00"), (1, "101", "4.00"),
    (1, "200", "4.00"), (1, "200.99", "5.00"), (1, "201", "5.00"), (1, "5000", "5.00"),
    (7, "1", "1.00"), (7, "100", "1.00"), (7, "100.50", "2.00"), (7, "101", "2.00"), (7, "200", "2.00"),
    (7, "200.50", "3.00"), (7, "201", "3.00"), (7, "300", "3.00"), (7, "300.50", "4.00"), (7, "301", "4.00"),
    (7, "400", "4.00"), (7, "400.50", "5.00"), (7, "401", "5.00"), (7, "10000", "5.00"),
    (26, "1", "5.00"), (26, "200", "5.00"), (26, "200.50", "5.00"), (26, "201", "5.00"), (26, "600", "5.00"),
    (26, "600.50", "15.00"), (26, "601", "15.00"), (26, "1200", "15.00"), (26, "1200.50", "20.00"),
    (26, "1201", "20.00"), (26, "2000", "20.00"), (26, "2000.50", "25.00"), (26, "2001", "25.00"),
    (26, "10000", "25.00"),
    (38, "1", "10.00"), (38, "500", "10.00"), (38, "500.50", "25.00"), (38, "501", "25.00"), (38, "1500", "25.00"),
    (38, "1500.50", "50.00"), (38, "1501", "50.00"), (38, "3000", "50.00"), (38, "3000.50", "75.00"),
    (38, "3001", "75.00"), (38, "5000", "75.00"), (38, "5000.50", "100.00"), (38, "5001", "100.00"),
    (38, "20000", "100.00"),
]


@pytest.mark.parametrize("option, tta, dealer_fee", TTA_ROWS)
def test_options_1_to_38_player_dealer_fee_by_total_table_action(option, tta, dealer_fee):
    quote = quote_california(GEGA_002888, option, round_of(("p1", tta)))
    assert quote.player_dealer_fee == D(dealer_fee)
    assert quote.player_fees == (("p1", D("0.00")),)
    assert quote.total_table_action == D(tta)
    assert quote.total == D(dealer_fee)


@pytest.mark.parametrize("option, covers", [(1, "$1 and up"), (7, "$1 and up"), (26, "$1 and up"), (38, "$1 and up")])
def test_options_1_to_38_below_the_first_tier(option, covers):
    with pytest.raises(QuoteError) as error:
        quote_california(GEGA_002888, option, round_of(("p1", "0.99")))
    assert str(error.value) == (
        f"Total table action $0.99 is below what GEGA-002888 option {option} covers for the player-dealer fee "
        f"({covers}); the schedule states no fee for it.")


def test_total_table_action_counts_bonus_and_backline_wagers():
    # Option 7: $101-$200 -> $2. Bases 40 + 30 (backline) and bonuses 20 + 15 = 105.
    quote = quote_california(GEGA_002888, 7, round_of(("a", "40", "20"), ("b", "30", "15", True)))
    assert quote.total_table_action == D("105.00")
    assert quote.player_dealer_fee == D("2.00")
    assert fees_of(quote) == {"a": "0.00", "b": "0.00"}


def test_flat_player_fee_is_charged_once_per_player():
    quote = quote_california(GEGA_002888, 1, round_of(("a", "5"), ("a", "5"), ("b", "5")))
    assert [line.player for line in quote.lines if line.payer == "player"] == ["a", "b"]
    player_lines = [line for line in quote.lines if line.payer == "player"]
    assert all(line.measure == "flat" and line.tier.printed_fee == "$0" for line in player_lines)


# -- options 39-49: a fee for every base wager -------------------------------------------------------------------

# (option, base wager, player fee, player-dealer fee), one spot so the total table action is the base wager.
BASE_WAGER_ROWS = [
    (39, "1", "1.00", "1.00"), (39, "100", "1.00", "1.00"), (39, "100.50", "2.00", "1.00"),
    (39, "101", "2.00", "1.00"), (39, "200", "2.00", "1.00"), (39, "201", "3.00", "1.00"),
    (39, "300", "3.00", "1.00"), (39, "300.01", "4.00", "1.00"), (39, "301", "4.00", "1.00"),
    (39, "400", "4.00", "1.00"), (39, "400.50", "5.00", "1.00"), (39, "401", "5.00", "1.00"),
    (39, "9999.99", "5.00", "1.00"),
    (42, "1", "1.00", "3.00"), (42, "200", "1.00", "3.00"), (42, "200.50", "2.00", "3.00"),
    (42, "201", "2.00", "3.00"), (42, "400", "2.00", "3.00"), (42, "400.50", "3.00", "3.00"),
    (42, "401", "3.00", "3.00"), (42, "600", "3.00", "3.00"), (42, "601", "4.00", "3.00"),
    (42, "800", "4.00", "3.00"), (42, "800.50", "5.00", "3.00"), (42, "801", "5.00", "3.00"),
    (42, "10000", "5.00", "3.00"),
    (43, "1", "1.00", "1.00"), (43, "100", "1.00", "1.00"), (43, "100.50", "2.00", "3.00"),
    (43, "101", "2.00", "3.00"), (43, "200", "2.00", "3.00"), (43, "200.50", "3.00", "3.00"),
    (43, "201", "3.00", "3.00"), (43, "300", "3.00", "3.00"),
    (46, "1", "1.00", "1.00"), (46, "100", "1.00", "1.00"), (46, "100.50", "1.00", "2.00"),
    (46, "200", "1.00", "2.00"), (46, "200.50", "2.00", "2.00"), (46, "201", "2.00", "2.00"),
    (46, "400", "2.00", "2.00"), (46, "401", "3.00", "2.00"), (46, "600", "3.00", "2.00"),
    (46, "600.50", "4.00", "2.00"), (46, "601", "4.00", "2.00"), (46, "800", "4.00", "2.00"),
    (46, "801", "5.00", "2.00"), (46, "10000", "5.00", "2.00"),
    (49, "1", "1.00", "1.00"), (49, "100", "1.00", "1.00"), (49, "100.50", "1.00", "3.00"),
    (49, "200", "1.00", "3.00"), (49, "200.50", "2.00", "3.00"), (49, "201", "2.00", "3.00"),
    (49, "400", "2.00", "3.00"),
]


@pytest.mark.parametrize("option, base, player_fee, dealer_fee", BASE_WAGER_ROWS)
def test_options_39_to_49_fee_per_base_wager(option, base, player_fee, dealer_fee):
    quote = quote_california(GEGA_002888, option, round_of(("p1", base)))
    assert quote.player_fees == (("p1", D(player_fee)),)
    assert quote.player_dealer_fee == D(dealer_fee)
    assert quote.total == D(player_fee) + D(dealer_fee)


# Player tiers above what options 43 and 49's closed player-dealer column lets a round reach, by find_tier.
@pytest.mark.parametrize("option, base, player_fee", [
    (43, "300.50", "4"), (43, "301", "4"), (43, "400", "4"), (43, "400.50", "5"), (43, "401", "5"), (43, "5000", "5"),
    (49, "400.50", "3"), (49, "401", "3"), (49, "600", "3"), (49, "601", "4"), (49, "800", "4"), (49, "800.50", "5"),
    (49, "801", "5"), (49, "5000", "5"),
])
def test_player_tiers_above_a_closed_player_dealer_column(option, base, player_fee):
    player_tiers = [t for t in GEGA_002888.option(option).tiers if t.fee_kind == "player"]
    tier = find_tier(player_tiers, D(base), what="p1's base wager", code="GEGA-002888", option=option)
    assert tier.fee == D(player_fee)
    with pytest.raises(QuoteError, match=f"is above what GEGA-002888 option {option} covers for the player-dealer fee"):
        quote_california(GEGA_002888, option, round_of(("p1", base)))


@pytest.mark.parametrize("tta, shown", [("301", "$301.00"), ("450", "$450.00"), ("300.01", "$300.01")])
def test_option_43_player_dealer_fee_stops_at_300(tta, shown):
    with pytest.raises(QuoteError) as error:
        quote_california(GEGA_002888, 43, round_of(("p1", "100"), ("p2", D(tta) - 100)))
    assert str(error.value) == (
        f"Total table action {shown} is above what GEGA-002888 option 43 covers for the player-dealer fee ($1-$300); "
        "the schedule states no fee for it.")


def test_a_bonus_can_push_option_43_past_its_player_dealer_column():
    with pytest.raises(QuoteError, match=r"Total table action \$500.00 is above"):
        quote_california(GEGA_002888, 43, round_of(("p1", "100", "400")))


@pytest.mark.parametrize("option, covers", [(39, "$1 and up"), (42, "$1 and up"), (43, "$1 and up"), (46, "$1 and up"),
                                            (49, "$1 and up")])
def test_base_wager_below_the_first_player_tier(option, covers):
    with pytest.raises(QuoteError) as error:
        quote_california(GEGA_002888, option, round_of(("p1", "20"), ("p2", "0.50")))
    assert str(error.value) == (
        f"p2's base wager $0.50 is below what GEGA-002888 option {option} covers for the player fee ({covers}); "
        "the schedule states no fee for it.")


def test_each_spot_pays_its_own_tier_and_bonuses_pay_nothing():
    # Option 42: 150 -> $1, 250 -> $2 (p1 has two spots: $3); p2's bonus pays nothing; player-dealer $3 flat.
    quote = quote_california(GEGA_002888, 42, round_of(("p1", "150", "500"), ("p2", "100", "900"), ("p1", "250")))
    assert quote.player_fees == (("p1", D("3.00")), ("p2", D("1.00")))
    assert quote.player_dealer_fee == D("3.00")
    assert quote.total_table_action == D("1900.00")
    assert quote.total == D("7.00")


def test_backline_bettors_pay_per_base_wager_in_options_43_to_49():
    quote = quote_california(GEGA_002888, 46, round_of(("seat", "250"), ("rail", "250", "0", True)))
    assert fees_of(quote) == {"seat": "2.00", "rail": "2.00"}
    assert quote.player_dealer_fee == D("2.00")


# Every tier edge of every GEGA-002888 option, from the printed tables above.
def edge_cases():
    for n in range(1, 50):
        option = GEGA_002888.option(n)
        for kind in ("player", "player_dealer"):
            printed = [t for t in option.tiers if t.fee_kind == kind and t.measure != "flat"]
            for i, tier in enumerate(printed):
                yield n, kind, tier.lower, tier.fee
                if tier.upper is not None:
                    yield n, kind, tier.upper, tier.fee
                    after = tier.upper + D("0.01")
                    yield n, kind, after, printed[i + 1].fee if i + 1 < len(printed) else None
                else:
                    yield n, kind, tier.lower * 100, tier.fee
            if printed:
                yield n, kind, printed[0].lower - D("0.01"), None


@pytest.mark.parametrize("option, kind, amount, fee", list(edge_cases()))
def test_every_tier_edge_of_gega_002888(option, kind, amount, fee):
    tiers = [t for t in GEGA_002888.option(option).tiers if t.fee_kind == kind]
    if fee is None:
        with pytest.raises(QuoteError, match="the schedule states no fee for it"):
            find_tier(tiers, amount, what="The amount", code="GEGA-002888", option=option)
    else:
        assert find_tier(tiers, amount, what="The amount", code="GEGA-002888", option=option).fee == fee


# -- other California families ------------------------------------------------------------------------------------

def test_player_wager_is_the_players_total_base_wager():
    # Option 1: p1 bets 60 + 60 = 120 on the base game -> $101-$200 -> $2 (not $1 per spot); bonus excluded.
    quote = quote_california(CMV_PLAYER_WAGER, 1, round_of(("p1", "60", "300"), ("p2", "100"), ("p1", "60")))
    assert quote.player_fees == (("p1", D("2.00")), ("p2", D("1.00")))
    assert quote.player_dealer_fee == D("1.00")
    assert quote.total == D("4.00")
    assert [(line.player, line.measure, line.measured) for line in quote.lines if line.payer == "player"] == [
        ("p1", "player_wager", D("120.00")), ("p2", "player_wager", D("100.00"))]


@pytest.mark.parametrize("spots, player_fee, dealer_fee", [
    ([("p1", "100")], "1.00", "1.00"),
    ([("p1", "100"), ("p1", "0.50")], "2.00", "3.00"),  # 100.50: between $1-$100 and $101-$200
    ([("p1", "150", "150")], "2.00", "3.00"),
])
def test_player_wager_with_player_dealer_fee_by_table_action(spots, player_fee, dealer_fee):
    quote = quote_california(CMV_PLAYER_WAGER, 6, round_of(*spots))
    assert quote.player_fees == (("p1", D(player_fee)),)
    assert quote.player_dealer_fee == D(dealer_fee)


def test_player_wager_option_9_open_player_dealer_column():
    quote = quote_california(CMV_PLAYER_WAGER, 9, round_of(("p1", "500"), ("p2", "900")))
    assert fees_of(quote) == {"p1": "3.00", "p2": "5.00"} and quote.player_dealer_fee == D("2.00")


def test_a_player_dealer_fee_with_no_stated_basis_is_not_guessed():
    with pytest.raises(QuoteError) as error:
        quote_california(CMV_PLAYER_WAGER, 3, round_of(("p1", "50")))
    assert str(error.value) == (
        "CMV-CA-PLAYER-WAGER option 3 does not state how its player-dealer fee is measured (it prints $1 and $2 "
        "with no stated basis), so no fee can be quoted for it.")


def test_a_wager_column_with_no_stated_basis_is_not_guessed():
    with pytest.raises(QuoteError, match="CMV-CA-FEES-PAI-GOW option 1 does not state how its player fee is measured"):
        quote_california(CMV_FEES_PAI_GOW, 1, round_of(("p1", "50")))


@pytest.mark.parametrize("tta, dealer_fee", [("5", "0.50"), ("50", "0.50"), ("50.50", "2.00"), ("1000", "5.00")])
def test_player_fee_by_table_action_prints_zero(tta, dealer_fee):
    quote = quote_california(CMV_FEES_BLACKJACK, 1, round_of(("a", D(tta) - D("1")), ("b", "1")))
    assert fees_of(quote) == {"a": "0.00", "b": "0.00"}
    assert quote.player_dealer_fee == D(dealer_fee)
    assert all(line.tier is not None for line in quote.lines)


@pytest.mark.parametrize("tta, message", [
    ("4.99", "Total table action $4.99 is below what CMV-CA-FEES-BLACKJACK option 1 covers for the player fee "
             "($5-$1,000)"),
    ("1000.01", "Total table action $1,000.01 is above what CMV-CA-FEES-BLACKJACK option 1 covers for the player fee "
                "($5-$1,000)"),
])
def test_player_fee_by_table_action_outside_the_table(tta, message):
    with pytest.raises(QuoteError, match=message.replace("$", r"\$").replace("(", r"\(").replace(")", r"\)")):
        quote_california(CMV_FEES_BLACKJACK, 1, round_of(("a", tta)))


def test_an_option_without_a_player_fee_column_charges_players_nothing():
    quote = quote_california(CMV_TABLE_ACTION, 7, round_of(("a", "30"), ("b", "30")))
    assert fees_of(quote) == {"a": "0.00", "b": "0.00"}
    assert quote.player_dealer_fee == D("2.00") and quote.total == D("2.00")
    assert [line.note for line in quote.lines if line.payer == "player"] == ["The option prints no player fee."] * 2


# -- California input errors ----------------------------------------------------------------------------------

def test_no_wagers():
    with pytest.raises(QuoteError, match="at least one wager"):
        quote_california(GEGA_002888, 43, [])


def test_wagers_must_be_wagers():
    with pytest.raises(QuoteError, match="Each wager must be a Wager"):
        quote_california(GEGA_002888, 43, [Wager("a", "5"), {"player": "b", "base": "5"}])
    with pytest.raises(QuoteError, match="Each wager must be a Wager"):
        quote_california(GEGA_002888, 1, [("b", D("5"))])


@pytest.mark.parametrize("kwargs, message", [
    ({"player": "p1", "base": "0"}, "p1's base wager must be more than $0.00"),
    ({"player": "p1", "base": "-5"}, "p1's base wager cannot be negative"),
    ({"player": "p1", "base": 5.0}, "not the float 5.0"),
    ({"player": "p1", "base": "5", "bonus": "-1"}, "p1's bonus wager cannot be negative"),
    ({"player": "p1", "base": "5", "bonus": "0.001"}, "p1's bonus wager has more than 2 decimal places"),
    ({"player": "p1", "base": "5", "backline": "yes"}, "backline for p1's wager must be true or false"),
    ({"player": "", "base": "5"}, "non-empty name"),
    ({"player": None, "base": "5"}, "non-empty name"),
])
def test_bad_wagers(kwargs, message):
    with pytest.raises(QuoteError, match=message.replace("$", r"\$")):
        Wager(**kwargs)


def test_wager_amounts_are_quantized():
    wager = Wager("p1", 150, "2.5")
    assert (wager.base, wager.bonus) == (D("150.00"), D("2.50"))
    assert wager == Wager("p1", D("150.00"), D("2.50"))


def test_missing_option_lists_the_options_compactly():
    with pytest.raises(QuoteError) as error:
        quote_california(GEGA_002888, 50, round_of(("p1", "5")))
    assert str(error.value) == "GEGA-002888 has no option 50; its options are 1-49."
    gappy = schedule("X-1", [Option(n, "total_table_action", "", "", None, ()) for n in (1, 2, 3, 5, 7, 8)])
    with pytest.raises(QuoteError, match=r"X-1 has no option 4; its options are 1-3, 5, 7-8\.$"):
        gappy.option(4)


@pytest.mark.parametrize("number", ["43", True, 43.0, None])
def test_option_numbers_are_whole_numbers(number):
    with pytest.raises(QuoteError, match="option number must be a whole number"):
        quote_california(GEGA_002888, number, round_of(("p1", "5")))


def test_an_option_printed_twice_is_not_guessed():
    twice = schedule("X-2", [GEGA_002888.option(1), GEGA_002888.option(1)])
    with pytest.raises(QuoteError, match="prints option 1 more than once"):
        twice.option(1)


@pytest.mark.parametrize("quote, message", [
    (lambda: quote_california(GEGA_000697, 1, round_of(("p1", "5"))),
     "option 1 of GEGA-000697 is a poker drop; quote it with players and reached_flop."),
    (lambda: quote_california(GEGA_000702, 2, round_of(("p1", "5"))),
     "option 2 of GEGA-000702 is a time collection; quote it with game_started_at, game_ended_at and the "
     "players' seats."),
    (lambda: quote_poker(GEGA_002888, 43, players=6, reached_flop=True, reached_river=False),
     "option 43 of GEGA-002888 is a California game fee; quote it with wagers."),
    (lambda: quote_poker(GEGA_000702, 1, players=6, reached_flop=True, reached_river=False),
     "option 1 of GEGA-000702 is a time collection; quote it with game_started_at, game_ended_at and the "
     "players' seats."),
    (lambda: quote_time(GEGA_000697, 1, game_started_at=datetime(2026, 1, 1, 20),
                        game_ended_at=datetime(2026, 1, 1, 21), seats=[]),
     "option 1 of GEGA-000697 is a poker drop; quote it with players and reached_flop."),
])
def test_quoting_an_option_of_the_wrong_basis(quote, message):
    with pytest.raises(QuoteError) as error:
        quote()
    assert str(error.value) == message


# -- tier data the engine refuses --------------------------------------------------------------------------------

def option_with(*tiers, basis="total_table_action"):
    return schedule("X-9", [Option(1, basis, "", "", None, tuple(tiers))])


def test_uppers_out_of_order_are_inconsistent_not_reordered():
    tiers = banded("player_dealer", "total_table_action", "$1-$100=$1 $201-$300=$3 $101-$200=$2")
    with pytest.raises(QuoteError, match="X-9 option 1 has inconsistent player-dealer fee tiers"):
        quote_california(option_with(*tiers), 1, round_of(("p1", "150")))
    with pytest.raises(QuoteError, match="inconsistent"):
        find_tier(tiers, D("150"), what="Total table action", code="X-9", option=1)


def test_a_table_printed_from_its_top_band_down_is_read_bottom_up():
    tiers = banded("player_dealer", "total_table_action", "$201+=$5 $101-$200=$4 $1-$100=$1")
    assert [quote_california(option_with(*tiers), 1, round_of(("p", amount))).player_dealer_fee
            for amount in ("1", "100", "100.50", "200", "201", "999")] == [D(f) for f in ("1", "1", "4", "4", "5", "5")]


@pytest.mark.parametrize("rows", [
    "$1-$100=$1 $100-$200=$2",  # overlapping bounds
    "$1-$100=$1 $101+=$2 $201-$300=$3",  # open-ended tier in the middle
    "$50-$10=$1 $11-$60=$2",  # a tier whose lower bound is above its upper
])
def test_other_inconsistent_tier_data(rows):
    tiers = banded("player_dealer", "total_table_action", rows)
    with pytest.raises(QuoteError, match="inconsistent"):
        quote_california(option_with(*tiers), 1, round_of(("p1", "50")))


def test_two_flat_fees_of_one_kind_are_not_guessed():
    tiers = flat("player_dealer", "$1", 1) + flat("player_dealer", "$2", 2)
    with pytest.raises(QuoteError, match="prints 2 player-dealer fees with no bounds to choose between them"):
        quote_california(option_with(*tiers), 1, round_of(("p1", "50")))


def test_one_fee_kind_measured_two_ways_is_not_guessed():
    tiers = banded("player_dealer", "total_table_action", "$1-$100=$1") + flat("player_dealer", "$2", 2)
    with pytest.raises(QuoteError, match="measured in more than one way"):
        quote_california(option_with(*tiers), 1, round_of(("p1", "50")))


def test_find_tier_takes_one_kind_of_tier():
    with pytest.raises(QuoteError, match="one fee kind"):
        find_tier(GEGA_002888.option(43).tiers, D("5"), what="x", code="GEGA-002888", option=43)


def test_find_tier_accepts_money_strings_and_refuses_floats():
    tiers = [t for t in GEGA_002888.option(7).tiers if t.fee_kind == "player_dealer"]
    tier = find_tier(tiers, "100.50", what="Total table action", code="GEGA-002888", option=7)
    assert tier.printed_bounds == "$101-$200"
    with pytest.raises(QuoteError, match="float"):
        find_tier(tiers, 100.5, what="Total table action", code="GEGA-002888", option=7)


# -- poker ----------------------------------------------------------------------------------------------------

# (schedule, option, players, collection fee, designated table fee), typed from the poker tables.
POKER_ROWS = [
    (GEGA_000697, 1, 2, "1", "1"), (GEGA_000697, 1, 4, "1", "1"), (GEGA_000697, 1, 5, "2", "1"),
    (GEGA_000697, 1, 6, "3", "1"), (GEGA_000697, 1, 10, "3", "1"),
    (GEGA_000697, 2, 2, "3", "0"), (GEGA_000697, 2, 5, "3", "0"), (GEGA_000697, 2, 6, "4", "0"),
    (GEGA_000697, 2, 7, "4", "0"), (GEGA_000697, 2, 8, "5", "0"), (GEGA_000697, 2, 12, "5", "0"),
    (GEGA_000697, 3, 2, "1", "1"), (GEGA_000697, 3, 5, "1", "1"), (GEGA_000697, 3, 6, "2", "1"),
    (GEGA_000697, 3, 7, "3", "1"), (GEGA_000697, 3, 11, "3", "1"),
    (GEGA_000697, 4, 2, "3", "0"), (GEGA_000697, 4, 5, "3", "0"), (GEGA_000697, 4, 6, "4", "0"),
    (GEGA_000697, 4, 7, "4", "0"), (GEGA_000697, 4, 8, "5", "0"), (GEGA_000697, 4, 10, "5", "0"),
    (GEGA_000700, 1, 2, "2", "1"), (GEGA_000700, 1, 5, "2", "1"), (GEGA_000700, 1, 6, "3", "1"),
    (GEGA_000700, 1, 7, "3", "1"), (GEGA_000700, 1, 8, "4", "1"), (GEGA_000700, 1, 10, "4", "1"),
    (GEGA_000700, 2, 2, "3", "0"), (GEGA_000700, 2, 5, "3", "0"), (GEGA_000700, 2, 6, "4", "0"),
    (GEGA_000700, 2, 7, "4", "0"), (GEGA_000700, 2, 8, "5", "0"), (GEGA_000700, 2, 10, "5", "0"),
    (GEGA_000700, 3, 2, "1", "1"), (GEGA_000700, 3, 5, "1", "1"), (GEGA_000700, 3, 6, "2", "1"),
    (GEGA_000700, 3, 7, "3", "1"), (GEGA_000700, 3, 10, "3", "1"),
    (GEGA_000700, 4, 2, "3", "0"), (GEGA_000700, 4, 5, "3", "0"), (GEGA_000700, 4, 6, "4", "0"),
    (GEGA_000700, 4, 7, "4", "0"), (GEGA_000700, 4, 8, "5", "0"), (GEGA_000700, 4, 10, "5", "0"),
]


@pytest.mark.parametrize("sched, option, n, collection, designated", POKER_ROWS,
                         ids=[f"{s.code}-{o}-{n}" for s, o, n, _, _ in POKER_ROWS])
@pytest.mark.parametrize("flop, river", [(False, False), (True, False), (True, True)])
def test_poker_drop_at_every_band_edge(sched, option, n, collection, designated, flop, river):
    quote = quote_poker(sched, option, players=n, reached_flop=flop, reached_river=river)
    expect_collection = D(collection) if flop else D(0)
    expect_designated = D(designated) if river else D(0)
    assert quote.collection_fee == expect_collection
    assert quote.designated_table_fee == expect_designated
    assert quote.jackpot_fee == D("0.00")
    assert quote.total == expect_collection + expect_designated
    assert all(fee.as_tuple().exponent == -2 for fee in (quote.collection_fee, quote.designated_table_fee, quote.total))


def test_poker_lines_say_what_was_not_taken():
    quote = quote_poker(GEGA_000697, 1, players=5, reached_flop=False, reached_river=False)
    assert [(line.fee_kind, line.fee, line.note) for line in quote.lines] == [
        ("collection", D("0.00"), "Not taken: the hand did not reach the flop."),
        ("designated_table", D("0.00"), "Not taken: the hand did not reach the river."),
    ]
    taken = quote_poker(GEGA_000697, 1, players=5, reached_flop=True, reached_river=True)
    assert [(line.fee_kind, line.measured, line.tier.printed_bounds, line.fee) for line in taken.lines] == [
        ("collection", 5, "5", D("2.00")), ("designated_table", None, "", D("1.00"))]


@pytest.mark.parametrize("flop, river, collection, designated, jackpot", [
    (False, False, "0", "0", "0"), (True, False, "3", "0", "1"), (True, True, "3", "1", "1")])
def test_jackpot_fee_is_taken_after_the_flop(flop, river, collection, designated, jackpot):
    quote = quote_poker(CMV_POKER_HOLDEM, 1, players=7, reached_flop=flop, reached_river=river)
    assert (quote.collection_fee, quote.designated_table_fee, quote.jackpot_fee) == (
        D(collection), D(designated), D(jackpot))
    assert quote.total == D(collection) + D(designated) + D(jackpot)


@pytest.mark.parametrize("n", [1, 0, -3])
def test_a_poker_hand_needs_two_players(n):
    with pytest.raises(QuoteError, match="at least two players"):
        quote_poker(GEGA_000697, 1, players=n, reached_flop=True, reached_river=False)


@pytest.mark.parametrize("kwargs, message", [
    ({"players": "6", "reached_flop": True, "reached_river": False}, "players must be the whole number"),
    ({"players": True, "reached_flop": True, "reached_river": False}, "players must be the whole number"),
    ({"players": 6, "reached_flop": "yes", "reached_river": False}, "reached_flop must be true or false"),
    ({"players": 6, "reached_flop": True, "reached_river": 1}, "reached_river must be true or false"),
    ({"players": 6, "reached_flop": False, "reached_river": True}, "cannot reach the river without reaching the flop"),
])
def test_bad_poker_hands(kwargs, message):
    with pytest.raises(QuoteError, match=message):
        quote_poker(GEGA_000697, 1, **kwargs)


def test_a_poker_option_printed_blank():
    with pytest.raises(QuoteError) as error:
        quote_poker(CMV_POKER_HOLDEM, 2, players=6, reached_flop=True, reached_river=True)
    assert str(error.value) == "option 2 of CMV-POKER-HOLDEM has no fees printed, so no drop can be quoted for it."


def test_players_outside_the_bands():
    bands = players("collection", "3-4=$1 | 5 or more=$2")
    with pytest.raises(QuoteError) as error:
        quote_poker(option_with(*bands, basis="poker_drop"), 1, players=2, reached_flop=True, reached_river=False)
    assert str(error.value) == ("A hand with 2 players is below what X-9 option 1 covers for the collection fee "
                                "(3 or more players); the schedule states no fee for it.")
    closed = players("collection", "2-4=$1 | 5-8=$2")
    with pytest.raises(QuoteError, match=r"A hand with 9 players is above .* \(2-8 players\)"):
        quote_poker(option_with(*closed, basis="poker_drop"), 1, players=9, reached_flop=True, reached_river=False)


def test_a_fee_taken_at_the_wrong_time_is_inconsistent():
    wrong = (dataclasses.replace(flat("designated_table", "$1", 4)[0], taken="after_flop"),)
    with pytest.raises(QuoteError, match="designated table fee is taken after_river"):
        quote_poker(option_with(*players("collection", "2 or more=$1"), *wrong, basis="poker_drop"), 1, players=4,
                    reached_flop=True, reached_river=True)


# -- time collection (lowball) ----------------------------------------------------------------------------------

def at(hhmm, day=21):
    hours, minutes = map(int, hhmm.split(":"))
    return datetime(2026, 11, day, hours, minutes)


def lowball(option, start, end, *seats):
    return quote_time(GEGA_000702, option, game_started_at=at(start), game_ended_at=at(end),
                      seats=[Seat(player, at(sat), at(left)) for player, sat, left in seats])


def test_marks_every_half_hour_from_the_start_up_to_the_end():
    quote = lowball(1, "20:00", "21:45", ("a", "20:00", "21:45"))
    assert quote.marks == (at("20:30"), at("21:00"), at("21:30"))  # 21:45 is not a mark: no partial collection
    assert quote.player_fees == (("a", D("9.00"), 3),)
    assert quote.lines[0].note == "3 collections of $3.00 (at 20:30, 21:00, 21:30)"


@pytest.mark.parametrize("sat, left, collections", [
    ("20:30", "21:30", 2),  # arrives exactly at a mark: does not pay at it
    ("20:00", "21:00", 2),  # leaves exactly at a mark: pays at it
    ("20:30", "21:00", 1),  # both
    ("20:10", "20:50", 1),  # partial stay across one mark
    ("20:35", "20:55", 0),  # partial stay between marks
    ("20:00", "20:29", 0),
    ("21:29", "21:30", 1),
    ("20:00", "21:30", 3),
])
def test_who_pays_at_a_mark(sat, left, collections):
    quote = lowball(2, "20:00", "21:30", ("p", sat, left))
    assert quote.player_fees == (("p", D("6.00") * collections, collections),)
    assert quote.total == D("6.00") * collections


def test_several_players_and_a_player_who_came_back():
    quote = lowball(1, "20:00", "22:00", ("a", "20:00", "20:40"), ("b", "20:15", "21:00"), ("a", "21:10", "22:00"))
    assert quote.player_fees == (("a", D("9.00"), 3), ("b", D("6.00"), 2))  # a: 20:30, 21:30, 22:00
    assert quote.total == D("15.00")
    assert len(quote.marks) == 4


def test_seats_that_touch_at_a_mark_pay_once():
    quote = lowball(1, "20:00", "21:00", ("a", "20:00", "20:30"), ("a", "20:30", "21:00"))
    assert quote.player_fees == (("a", D("6.00"), 2),)


@pytest.mark.parametrize("start, end, seats, message", [
    ("20:00", "21:00", [("a", "19:59", "20:30")], r"a's seat \(.*\) is outside the game"),
    ("20:00", "21:00", [("a", "20:30", "21:01")], r"a's seat \(.*\) is outside the game"),
    ("20:00", "21:00", [("a", "20:30", "20:30")], "a's seat ends .* before or when it starts"),
    ("20:00", "21:00", [("a", "20:40", "20:30")], "a's seat ends .* before or when it starts"),
    ("20:00", "20:00", [("a", "20:00", "20:00")], "The game must end after it starts"),
    ("21:00", "20:00", [("a", "20:00", "20:30")], "The game must end after it starts"),
    ("20:00", "21:00", [("a", "20:00", "20:40"), ("a", "20:30", "21:00")], "a has overlapping seats"),
    ("20:00", "21:00", [], "at least one player's seat"),
])
def test_bad_time_collections(start, end, seats, message):
    with pytest.raises(QuoteError, match=message):
        lowball(1, start, end, *seats)


def test_naive_and_aware_times_do_not_mix():
    aware = datetime(2026, 11, 21, 20, tzinfo=timezone(timedelta(hours=-8)))
    with pytest.raises(QuoteError, match="b's seated_from is time-zone aware but game_started_at is naive"):
        quote_time(GEGA_000702, 1, game_started_at=at("20:00"), game_ended_at=at("21:00"),
                   seats=[Seat("b", aware, aware + timedelta(minutes=30))])
    with pytest.raises(QuoteError, match="game_ended_at is naive"):
        quote_time(GEGA_000702, 1, game_started_at=aware, game_ended_at=at("21:00"), seats=[])


def test_aware_times_in_another_offset_are_the_same_moments():
    pacific = timezone(timedelta(hours=-8))
    start = datetime(2026, 11, 21, 20, tzinfo=pacific)
    quote = quote_time(GEGA_000702, 1, game_started_at=start, game_ended_at=start + timedelta(hours=1),
                       seats=[Seat("a", datetime(2026, 11, 22, 4, 30, tzinfo=timezone.utc),
                                   datetime(2026, 11, 22, 5, tzinfo=timezone.utc))])
    assert quote.player_fees == (("a", D("3.00"), 1),)  # sat down at the 20:30 mark (04:30 UTC): pays at 21:00 only
    assert quote.marks == (start + timedelta(minutes=30), start + timedelta(hours=1))
    assert quote.marks[0].utcoffset() == timedelta(hours=-8)


def test_marks_count_real_time_across_a_daylight_saving_change():
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        los_angeles = zoneinfo.ZoneInfo("America/Los_Angeles")
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("no time zone database")
    # 1 November 2026: clocks go back from 02:00 PDT to 01:00 PST. 00:30 PDT to 02:30 PST is three hours.
    start = datetime(2026, 11, 1, 0, 30, tzinfo=los_angeles)
    end = datetime(2026, 11, 1, 2, 30, tzinfo=los_angeles)
    quote = quote_time(GEGA_000702, 1, game_started_at=start, game_ended_at=end, seats=[Seat("a", start, end)])
    assert quote.player_fees == (("a", D("18.00"), 6),)


def test_time_seats_must_be_seats():
    with pytest.raises(QuoteError, match="seated_from for a must be a date and time"):
        Seat("a", "20:00", at("21:00"))
    with pytest.raises(QuoteError, match="Each seat must be a Seat"):
        quote_time(GEGA_000702, 1, game_started_at=at("20:00"), game_ended_at=at("21:00"),
                   seats=[("a", at("20:00"), at("21:00"))])


def test_a_time_option_without_an_interval_is_not_guessed():
    no_interval = schedule("X-7", [Option(1, "time_collection", "", "", None, flat("time", "$3", 1, "elapsed_time"))])
    with pytest.raises(QuoteError, match="X-7 option 1 does not state a collection interval"):
        quote_time(no_interval, 1, game_started_at=at("20:00"), game_ended_at=at("21:00"),
                   seats=[Seat("a", at("20:00"), at("21:00"))])


# -- Washington ------------------------------------------------------------------------------------------------

def test_washington_per_hand_fee():
    quote = quote_washington_hand(WashingtonFee("per_hand", amount="1.00"), players=6)
    assert quote == WashingtonQuote(fee_type="per_hand", total=D("6.00"), per_player=D("1.00"), lines=quote.lines)
    assert quote.lines[0].note == "$1.00 x 6 players (WAC 230-15-080)"


@pytest.mark.parametrize("percent, cap, pot, total", [
    ("10", None, "57.35", "5.73"),  # 5.735 rounded down
    ("10", "5", "57.35", "5.00"),  # capped
    ("10", "5", "49.99", "4.99"),  # 4.999 rounded down, under the cap
    ("10", None, "0.09", "0.00"),
    ("5.5", None, "100.10", "5.50"),  # 5.5055
    ("10", "4.00", "40.00", "4.00"),
])
def test_washington_rake(percent, cap, pot, total):
    quote = quote_washington_hand(WashingtonFee("rake", percent=percent, cap=cap), players=5, pot=D(pot))
    assert quote.fee_type == "rake" and quote.per_player is None
    assert quote.total == D(total) and quote.total.as_tuple().exponent == -2
    assert quote.lines[0].measured == D(pot) and quote.lines[0].payer == "pot"


def test_washington_hourly_time_fee():
    fee = WashingtonFee("time", amount="2")
    quote = quote_washington_time(fee, game_started_at=at("19:00"), game_ended_at=at("22:00"),
                                  seats=[Seat("a", at("19:00"), at("22:00")), Seat("b", at("20:00"), at("21:30"))])
    assert quote.fee_type == "time" and quote.per_player == D("2.00")
    assert quote.total == D("8.00")  # a: 20:00, 21:00, 22:00; b: 21:00 only (arrived at the 20:00 mark)
    assert [(line.player, line.measured, line.fee) for line in quote.lines] == [
        ("a", 3, D("6.00")), ("b", 1, D("2.00"))]
    half_hourly = quote_washington_time(WashingtonFee("time", amount="1", interval_minutes=30),
                                        game_started_at=at("19:00"), game_ended_at=at("20:00"),
                                        seats=[Seat("a", at("19:00"), at("20:00"))])
    assert half_hourly.total == D("2.00")


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "hourly", "amount": "1"}, "one of time, per_hand or rake"),
    ({"kind": "rake"}, "needs its percent"),
    ({"kind": "rake", "percent": "0"}, "more than 0 and at most 100"),
    ({"kind": "rake", "percent": "150"}, "more than 0 and at most 100"),
    ({"kind": "rake", "percent": 10.0}, "not the float 10.0"),
    ({"kind": "rake", "percent": "10", "cap": "-1"}, "cap cannot be negative"),
    ({"kind": "per_hand"}, "needs its amount"),
    ({"kind": "time", "amount": 1.5}, "float"),
    ({"kind": "time", "amount": "1", "interval_minutes": 0}, "interval_minutes must be"),
])
def test_bad_washington_fees(kwargs, message):
    with pytest.raises(QuoteError, match=message):
        WashingtonFee(**kwargs)


def test_washington_fee_used_the_wrong_way():
    with pytest.raises(QuoteError, match="a percentage of the pot; give the pot"):
        quote_washington_hand(WashingtonFee("rake", percent="10"), players=4)
    with pytest.raises(QuoteError, match="quote it with game and seat times"):
        quote_washington_hand(WashingtonFee("time", amount="1"), players=4)
    with pytest.raises(QuoteError, match="quote it with quote_washington_hand"):
        quote_washington_time(WashingtonFee("per_hand", amount="1"), game_started_at=at("19:00"),
                              game_ended_at=at("20:00"), seats=[Seat("a", at("19:00"), at("20:00"))])
    with pytest.raises(QuoteError, match="players must be the whole number"):
        quote_washington_hand(WashingtonFee("per_hand", amount="1"), players=0)


# -- money() ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ("12.5", "12.50"), ("12.50", "12.50"), (" 3 ", "3.00"), ("1.500", "1.50"), ("0", "0.00"),
    (7, "7.00"), (D("2"), "2.00"), (D("0.10"), "0.10"), (".5", "0.50"), ("9999999999.99", "9999999999.99"),
])
def test_money_accepts(value, expected):
    result = money(value, "The amount")
    assert result == D(expected) and str(result) == expected


@pytest.mark.parametrize("value, fragment", [
    (1.5, "not the float 1.5"),
    (0.1, "not the float 0.1"),
    ("1.005", "has more than 2 decimal places"),
    (D("1.005"), "has more than 2 decimal places"),
    ("-1", "cannot be negative"),
    (-1, "cannot be negative"),
    ("abc", "must be an amount of money"),
    ("", "must be an amount of money"),
    ("NaN", "must be an amount of money"),
    ("inf", "must be an amount of money"),
    ("1e3", "must be an amount of money"),
    ("1_000", "must be an amount of money"),
    ("$5", "must be an amount of money"),
    (D("NaN"), "must be a finite number"),
    (D("sNaN"), "must be a finite number"),
    (D("Infinity"), "must be a finite number"),
    # Strict as everywhere else in the service (cardroom.values): no sign, no exotic digits, within a column.
    ("-0", "cannot be negative"),
    (D("-0.00"), "cannot be negative"),
    ("+5", "must be an amount of money"),
    ("\u0663", "must be an amount of money"),
    ("\uff13", "must be an amount of money"),
    ("10000000000", "must be at most 9999999999.99"),
    (float("nan"), "float"),
    (True, "must be an amount of money"),
    (None, "must be an amount of money"),
    ([1], "must be an amount of money"),
    ("1" * 40, "is too large"),
])
def test_money_refuses(value, fragment):
    with pytest.raises(QuoteError) as error:
        money(value, "wagers[0].base")
    message = str(error.value)
    assert fragment in message
    assert message.startswith("wagers[0].base") and repr(value) in message


# -- explain() ---------------------------------------------------------------------------------------------------

def test_explain_the_issue_example():
    option = GEGA_002888.option(43)
    quote = quote_california(GEGA_002888, 43, round_of(("p1", "150", "25"), ("p1", "20"), ("p2", "40", "0", True)))
    body = explain(GEGA_002888, option, quote, as_of=date(2026, 11, 21))
    assert json.loads(json.dumps(body)) == body
    assert {key: body[key] for key in body if key != "fees"} == {
        "document": "GEGA-002888", "title": "California Games Collection Rates (Face Up Pai Gow Poker packet)",
        "version": 1, "effective_from": None, "as_of": "2026-11-21", "option": 43,
        "basis": "base_wager_and_table_action", "citation": "options 43-49 table, option 43",
        "document_citation": "Casino Marysville binder, GEGA-002888", "currency": "USD",
    }
    assert body["fees"][0] == {
        "payer": "player", "player": "p1", "fee_kind": "player", "measure": "base_wager", "measured": "150.00",
        "tier": {"order": 2, "lower": "101.00", "upper": "200.00", "printed_bounds": "$101-$200", "printed_fee": "$2"},
        "fee": "2.00", "note": "",
    }
    assert body["fees"][-1] == {
        "payer": "player_dealer", "player": None, "fee_kind": "player_dealer", "measure": "total_table_action",
        "measured": "235.00",
        "tier": {"order": 7, "lower": "101.00", "upper": "300.00", "printed_bounds": "$101-$300", "printed_fee": "$3"},
        "fee": "3.00", "note": "",
    }


def test_explain_poker_and_time():
    poker = quote_poker(GEGA_000697, 2, players=8, reached_flop=True, reached_river=False)
    body = explain(GEGA_000697, GEGA_000697.option(2), poker)
    assert body["as_of"] is None
    assert body["fees"][0]["measured"] == 8
    assert body["fees"][0]["tier"] == {"order": 1, "lower": "8.00", "upper": None, "printed_bounds": "8 or more",
                                       "printed_fee": "$5"}
    assert body["fees"][1] == {"payer": "pot", "player": None, "fee_kind": "designated_table", "measure": "flat",
                               "measured": None, "tier": None, "fee": "0.00",
                               "note": "Not taken: the hand did not reach the river."}
    time = lowball(1, "20:00", "21:30", ("a", "20:00", "21:30"))
    body = explain(GEGA_000702, GEGA_000702.option(1), time, as_of=date(2026, 11, 21))
    assert body["effective_from"] == "2026-01-01"
    assert body["fees"] == [{"payer": "player", "player": "a", "fee_kind": "time", "measure": "elapsed_time",
                             "measured": 3, "tier": {"order": 1, "lower": None, "upper": None, "printed_bounds": "",
                                                     "printed_fee": "$3"},
                             "fee": "9.00", "note": "3 collections of $3.00 (at 20:30, 21:00, 21:30)"}]


# -- the quote objects ---------------------------------------------------------------------------------------------

def test_california_quote_is_an_ordinary_frozen_dataclass():
    spots = round_of(("p1", "150", "25"), ("p2", "40"))
    quote = quote_california(GEGA_002888, 43, spots)
    same = quote_california(GEGA_002888, 43, spots)
    built = CaliforniaQuote(player_fees=quote.player_fees, player_dealer_fee=quote.player_dealer_fee,
                            total_table_action=quote.total_table_action, total=quote.total, lines=list(quote.lines))
    assert quote == same == built and hash(quote) == hash(built)
    assert isinstance(quote.lines, tuple) and all(isinstance(line, FeeLine) for line in quote.lines)
    assert repr(quote).startswith("CaliforniaQuote(player_fees=(('p1', Decimal('2.00')), ('p2', Decimal('1.00')))")
    assert dataclasses.asdict(quote)["lines"][0]["tier"]["printed_bounds"] == "$101-$200"
    assert dataclasses.replace(quote, total=D("0.00")).lines == quote.lines
    assert pickle.loads(pickle.dumps(quote)) == quote
    with pytest.raises(dataclasses.FrozenInstanceError):
        quote.lines = ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        quote.lines[0].fee = D("9")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'lines'"):
        CaliforniaQuote(player_fees=(), player_dealer_fee=D(0), total_table_action=D(0), total=D(0))


def test_all_quote_amounts_are_cents():
    quotes = [
        quote_california(GEGA_002888, 7, round_of(("a", "12"), ("b", "0.5", "7"))),
        quote_california(CMV_PLAYER_WAGER, 6, round_of(("a", "12"))),
        quote_poker(GEGA_000697, 1, players=3, reached_flop=True, reached_river=True),
        lowball(1, "20:00", "21:00", ("a", "20:00", "21:00")),
    ]
    for quote in quotes:
        assert isinstance(quote, (CaliforniaQuote, PokerQuote, TimeQuote))
        amounts = [quote.total] + [line.fee for line in quote.lines]
        amounts += [fee for _, fee, *rest in getattr(quote, "player_fees", ())]
        assert all(isinstance(a, Decimal) and a.as_tuple().exponent == -2 for a in amounts), quote


def test_engine_has_no_django_imports():
    import ast
    import pathlib

    import fees.engine

    modules = sorted(pathlib.Path(fees.engine.__file__).parent.glob("*.py"))
    trees = [ast.parse(path.read_text()) for path in modules]
    imported = set()
    for node in (node for tree in trees for node in ast.walk(tree)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".")[0])
    assert "django" not in imported and "fees" not in imported
    # From the project, only the one reader of outside values, the cent and BadInput, all plain Python:
    assert {node.module for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("cardroom")} <= {"cardroom", "cardroom.money", "cardroom.exceptions"}
    import subprocess
    import sys

    loaded = subprocess.run([sys.executable, "-c", "import sys, fees.engine; print(sorted(sys.modules))"],
                            capture_output=True, text=True, check=True).stdout
    assert "'django" not in loaded and "'celery" not in loaded and "'cardroom.values'" in loaded
