"""The loaded collection-rate schedules, checked against rows typed independently from the source documents.

Every expected value below was typed from the originals (the Casino Marysville binder, seed file
004_6ca6f882453152b1.txt, line numbers given with each table), NOT from seed/*.yaml, so these tests catch
transcription mistakes in the seed files and encoding mistakes in the loader.

Row notation used by ``rows()``: "LOW-HIGH FEE" ("$1-$10 $1"), "LOW+ FEE" ("$201+": open-ended),
"<=N FEE" ("5 or less": open below), "N FEE" (exactly N, e.g. "6 players"), "* FEE" (no bounds: a flat fee).
"""

from decimal import Decimal

import pytest
from django.utils import timezone

from fees.models import FeeTier, ScheduleDocument

pytestmark = pytest.mark.django_db

ZERO = Decimal("0")


# --------------------------------------------------------------------------------------------- helpers

def D(value):
    return None if value is None else Decimal(str(value))


def parse_bounds(text):
    if text == "*":
        return (None, None)
    if text.endswith("+"):
        return (D(text[:-1]), None)
    if text.startswith("<="):
        return (None, D(text[2:]))
    if "-" in text:
        low, high = text.split("-")
        return (D(low), D(high))
    return (D(text), D(text))


def rows(spec):
    """'1-10 1, 11-50 2, 201+ 5' -> [(lower, upper, fee), ...] as Decimals."""
    out = []
    for item in spec.split(","):
        bounds, fee = item.split()
        out.append((*parse_bounds(bounds), D(fee)))
    return out


def version(code):
    doc = ScheduleDocument.objects.get(code=code)
    in_force = doc.version_as_of(timezone.localdate())
    assert in_force is not None, f"{code}: no published version in force today"
    assert in_force.is_published
    return in_force


def option(code, number):
    return version(code).options.get(number=number)


def tiers_of(opt, kind):
    return list(opt.tiers.filter(fee_kind=kind).order_by("order"))


def bounds_and_fees(tiers):
    return [(t.lower, t.upper, t.fee) for t in tiers]


def assert_kinds_in_print_order(opt, kinds):
    """Tiers of each kind are contiguous and the kinds come in the given (printed column) order."""
    seen = []
    for tier in opt.tiers.order_by("order"):
        if not seen or seen[-1] != tier.fee_kind:
            seen.append(tier.fee_kind)
    assert seen == [k for k in kinds if k in seen], f"{opt}: tier kinds out of order: {seen}"


# -------------------------------------------------------------------------- documents and their option numbers

EXPECTED_OPTION_NUMBERS = {
    "GEGA-002888": list(range(1, 50)),
    "CMV-CA-PLAYER-WAGER": list(range(1, 13)),
    "CMV-CA-TABLE-ACTION": list(range(1, 40)),
    "CMV-CA-FEES-PAI-GOW": [1],
    "CMV-CA-FEES-BLACKJACK": [1],
    "CMV-TCP-LIMITS": [1],
    "CMV-POKER-HOLDEM": [1, 2, 3, 4, 5],
    "CMV-POKER-OMAHA": [1, 2, 3, 4, 5],
    "CMV-POKER-NO-LIMIT": [1, 2],
    "CMV-OMAHA-JOKER": [1, 2, 3, 4, 5],
    "GEGA-000702": [1, 2],
    "GEGA-000700": [1, 2, 3, 4],
    "GEGA-000697": [1, 2, 3, 4],
}


@pytest.mark.parametrize("code,numbers", sorted(EXPECTED_OPTION_NUMBERS.items()))
def test_document_option_numbers_in_force_today(code, numbers):
    assert list(version(code).options.order_by("number").values_list("number", flat=True)) == numbers


@pytest.mark.parametrize("code", sorted(EXPECTED_OPTION_NUMBERS))
def test_document_is_californian_and_in_dollars(code):
    doc = ScheduleDocument.objects.get(code=code)
    assert doc.jurisdiction.code == "CA"
    assert doc.currency == "USD"


@pytest.mark.parametrize("code", sorted(c for c in EXPECTED_OPTION_NUMBERS if c.startswith("CMV-")))
def test_card_room_documents_belong_to_casino_marysville(code):
    doc = ScheduleDocument.objects.get(code=code)
    assert doc.establishment is not None and doc.establishment.slug == "casino-marysville"


@pytest.mark.parametrize("code", ["CMV-CA-FEES-PAI-GOW", "CMV-CA-FEES-BLACKJACK"])
def test_california_collection_fees_page_refers_to_gega_002888(code):
    # 004 l.1079-1080: "California Collection Fees / GEGA-002888"
    assert ScheduleDocument.objects.get(code=code).refers_to == "GEGA-002888"


# Game lists printed at the head of each schedule, by registration number.
EXPECTED_GAMES = {
    # 004 l.2034
    "CMV-CA-PLAYER-WAGER": {"GEGA-000701", "GEGA-002825", "GEGA-000696"},
    # 004 l.2116
    "CMV-CA-TABLE-ACTION": {
        "GEGA-002825", "GEGA-000698", "GEGA-000696", "GEGA-000699", "GEGA-003217", "GEGR-002247", "GEGR-002249",
    },
    "GEGA-000702": {"GEGA-000702"},                    # l.2347
    "GEGA-000700": {"GEGA-000700", "GEGA-002850"},     # l.2361
    "GEGA-000697": {"GEGA-000697"},                    # l.2397
}


@pytest.mark.parametrize("code,registrations", sorted(EXPECTED_GAMES.items()))
def test_schedule_games_as_listed(code, registrations):
    doc = ScheduleDocument.objects.get(code=code)
    assert set(doc.games.values_list("registration_number", flat=True)) == registrations


def test_gega_002888_applies_to_face_up_pai_gow_poker():
    # The schedule is printed in the Face Up Pai Gow Poker packet (l.1729-2030) and referred to by
    # Three Card Poker 6 Card Bonus (l.1474).
    slugs = set(ScheduleDocument.objects.get(code="GEGA-002888").games.values_list("slug", flat=True))
    assert "face-up-pai-gow-poker" in slugs


@pytest.mark.parametrize("code,phrase", [
    ("GEGA-002888", "Only one collection schedule option"),            # l.2026
    ("GEGA-002888", "no more than five collection rates"),             # l.2028
    ("CMV-CA-TABLE-ACTION", "no more than five collection rates"),     # l.2341
])
def test_provisions_printed_with_the_schedule(code, phrase):
    provisions = " ".join(version(code).provisions).lower()
    assert phrase.lower() in provisions


# ------------------------------------------------------------------------------------------ GEGA-002888

# Tier count per option: options 1-38 = 5 player-dealer + 1 player "$0"; 39-42 = 5 player + 1 flat
# player-dealer; 43-49 = 5 player + 2 player-dealer.
GEGA_002888_TIER_COUNTS = {
    1: 6, 2: 6, 3: 6, 4: 6, 5: 6, 6: 6, 7: 6, 8: 6, 9: 6, 10: 6,
    11: 6, 12: 6, 13: 6, 14: 6, 15: 6, 16: 6, 17: 6, 18: 6, 19: 6, 20: 6,
    21: 6, 22: 6, 23: 6, 24: 6, 25: 6, 26: 6, 27: 6, 28: 6, 29: 6, 30: 6,
    31: 6, 32: 6, 33: 6, 34: 6, 35: 6, 36: 6, 37: 6, 38: 6,
    39: 6, 40: 6, 41: 6, 42: 6,
    43: 7, 44: 7, 45: 7, 46: 7, 47: 7, 48: 7, 49: 7,
}

# Options 1-38 (004 l.1739-1941): Total Table Action -> Player-Dealer Fee; Player Fee "$0".
GEGA_002888_FAMILY1 = {
    1: "1-10 1, 11-50 2, 51-100 3, 101-200 4, 201+ 5",
    2: "1-10 2, 11-50 3, 51-100 4, 101-200 5, 201+ 6",
    3: "1-10 2, 11-50 4, 51-100 5, 101-200 6, 201+ 8",
    4: "1-25 1, 26-100 2, 101-200 3, 201-300 4, 301+ 5",
    5: "1-25 2, 26-100 3, 101-200 4, 201-300 5, 301+ 6",
    6: "1-25 2, 26-100 4, 101-200 5, 201-300 6, 301+ 8",
    7: "1-100 1, 101-200 2, 201-300 3, 301-400 4, 401+ 5",
    8: "1-100 2, 101-200 3, 201-300 4, 301-400 5, 401+ 6",
    9: "1-100 2, 101-200 4, 201-300 5, 301-400 6, 401+ 8",
    10: "1-100 1, 101-300 3, 301-500 5, 501-800 8, 801+ 10",
    11: "1-100 2, 101-300 3, 301-500 5, 501-800 8, 801+ 10",
    12: "1-100 2, 101-300 3, 301-500 6, 501-800 10, 801+ 15",
    13: "1-100 2, 101-300 10, 301-500 15, 501-800 20, 801+ 25",
    14: "1-100 2, 101-300 3, 301-600 5, 601-1200 10, 1201+ 15",
    15: "1-100 2, 101-300 5, 301-600 8, 601-1200 10, 1201+ 15",
    16: "1-100 3, 101-300 5, 301-600 8, 601-1200 15, 1201+ 20",
    17: "1-100 3, 101-300 6, 301-600 8, 601-1200 12, 1201+ 15",
    18: "1-100 3, 101-300 10, 301-600 15, 601-1200 20, 1201+ 25",
    19: "1-200 3, 201-500 6, 501-800 10, 801-1500 15, 1501+ 20",
    20: "1-200 3, 201-500 5, 501-800 10, 801-1500 15, 1501+ 25",
    21: "1-200 3, 201-500 6, 501-800 12, 801-1500 15, 1501+ 25",
    22: "1-200 5, 201-500 8, 501-800 15, 801-1500 20, 1501+ 25",
    23: "1-200 5, 201-500 10, 501-800 18, 801-1500 25, 1501+ 50",
    24: "1-200 3, 201-600 5, 601-1200 10, 1201-2000 15, 2001+ 20",
    25: "1-200 3, 201-600 6, 601-1200 12, 1201-2000 15, 2001+ 25",
    26: "1-200 5, 201-600 5, 601-1200 15, 1201-2000 20, 2001+ 25",  # "$5" printed twice (l.1874-1875)
    27: "1-200 5, 201-600 10, 601-1200 20, 1201-2000 30, 2001+ 40",
    28: "1-200 5, 201-600 10, 601-1200 18, 1201-2000 25, 2001+ 50",
    29: "1-300 5, 301-1000 10, 1001-2000 15, 2001-3000 25, 3001+ 30",
    30: "1-300 5, 301-1000 10, 1001-2000 20, 2001-3000 30, 3001+ 40",
    31: "1-300 5, 301-1000 12, 1001-2000 20, 2001-3000 30, 3001+ 40",
    32: "1-300 5, 301-1000 15, 1001-2000 25, 2001-3000 30, 3001+ 50",
    33: "1-300 5, 301-1000 15, 1001-2000 25, 2001-3000 50, 3001+ 75",
    34: "1-500 10, 501-1500 15, 1501-3000 25, 3001-5000 35, 5001+ 50",
    35: "1-500 10, 501-1500 20, 1501-3000 30, 3001-5000 40, 5001+ 50",
    36: "1-500 10, 501-1500 15, 1501-3000 25, 3001-5000 50, 5001+ 75",
    37: "1-500 10, 501-1500 20, 1501-3000 40, 3001-5000 50, 5001+ 75",
    38: "1-500 10, 501-1500 25, 1501-3000 50, 3001-5000 75, 5001+ 100",
}

STEP_100 = "1-100 1, 101-200 2, 201-300 3, 301-400 4, 401+ 5"
STEP_200 = "1-200 1, 201-400 2, 401-600 3, 601-800 4, 801+ 5"

# Options 39-42 (l.1949-1972): Player Wager -> Player Fee; one flat Player-Dealer Fee.
GEGA_002888_FAMILY2 = {
    39: (STEP_100, "1"),
    40: (STEP_100, "2"),
    41: (STEP_200, "2"),
    42: (STEP_200, "3"),
}

# Options 43-49 (l.1980-2018): Player Wager -> Player Fee; Total Table Action -> Player-Dealer Fee.
GEGA_002888_FAMILY3 = {
    43: (STEP_100, "1-100 1, 101-300 3"),
    44: (STEP_100, "1-100 2, 101-300 3"),
    45: (STEP_100, "1-100 2, 101-400 3"),
    46: (STEP_200, "1-100 1, 101+ 2"),
    47: (STEP_200, "1-100 1, 101+ 3"),
    48: (STEP_200, "1-100 1, 101-300 3"),
    49: (STEP_200, "1-100 1, 101-400 3"),
}


def test_gega_002888_has_exactly_49_options_today():
    opts = version("GEGA-002888").options.order_by("number")
    assert opts.count() == 49
    assert list(opts.values_list("number", flat=True)) == list(range(1, 50))


@pytest.mark.parametrize("number,count", sorted(GEGA_002888_TIER_COUNTS.items()))
def test_gega_002888_tier_count(number, count):
    assert option("GEGA-002888", number).tiers.count() == count


@pytest.mark.parametrize("number", range(1, 50))
def test_gega_002888_wagering_limits_and_basis(number):
    # Every family prints "Minimum wagering limits shall be between $1 and $1,000 / Maximum ... $100 and $10,000"
    opt = option("GEGA-002888", number)
    assert (opt.min_wager_from, opt.min_wager_to) == (D(1), D(1000))
    assert (opt.max_wager_from, opt.max_wager_to) == (D(100), D(10000))
    expected_basis = (
        "total_table_action" if number <= 38
        else "base_wager_flat_player_dealer" if number <= 42
        else "base_wager_and_table_action"
    )
    assert opt.basis == expected_basis


@pytest.mark.parametrize("number,spec", sorted(GEGA_002888_FAMILY1.items()))
def test_gega_002888_family1_rows(number, spec):
    opt = option("GEGA-002888", number)
    dealer = tiers_of(opt, "player_dealer")
    assert bounds_and_fees(dealer) == rows(spec)
    for tier in dealer:
        assert (tier.payer, tier.measure, tier.taken) == ("player_dealer", "total_table_action", "before_deal")
    player = tiers_of(opt, "player")
    assert bounds_and_fees(player) == [(None, None, ZERO)]  # "$0"
    assert (player[0].payer, player[0].measure, player[0].taken) == ("player", "flat", "before_deal")
    # Printed column order for options 1-38 (l.1739): Total Table Action, Player-Dealer Fee, Player Fee.
    assert_kinds_in_print_order(opt, ["player_dealer", "player"])


@pytest.mark.parametrize("number,spec", sorted(GEGA_002888_FAMILY2.items()))
def test_gega_002888_family2_rows(number, spec):
    player_spec, dealer_fee = spec
    opt = option("GEGA-002888", number)
    player = tiers_of(opt, "player")
    assert bounds_and_fees(player) == rows(player_spec)
    for tier in player:
        assert (tier.payer, tier.measure, tier.taken) == ("player", "base_wager", "before_deal")
    dealer = tiers_of(opt, "player_dealer")
    assert bounds_and_fees(dealer) == [(None, None, D(dealer_fee))]
    assert (dealer[0].payer, dealer[0].measure, dealer[0].taken) == ("player_dealer", "flat", "before_deal")
    assert_kinds_in_print_order(opt, ["player", "player_dealer"])


@pytest.mark.parametrize("number,spec", sorted(GEGA_002888_FAMILY3.items()))
def test_gega_002888_family3_rows(number, spec):
    player_spec, dealer_spec = spec
    opt = option("GEGA-002888", number)
    player = tiers_of(opt, "player")
    assert bounds_and_fees(player) == rows(player_spec)
    for tier in player:
        assert (tier.payer, tier.measure, tier.taken) == ("player", "base_wager", "before_deal")
    dealer = tiers_of(opt, "player_dealer")
    assert bounds_and_fees(dealer) == rows(dealer_spec)
    for tier in dealer:
        assert (tier.payer, tier.measure, tier.taken) == ("player_dealer", "total_table_action", "before_deal")
    assert_kinds_in_print_order(opt, ["player", "player_dealer"])


def test_gega_002888_has_no_other_fee_kinds():
    kinds = set(FeeTier.objects.filter(option__version=version("GEGA-002888")).values_list("fee_kind", flat=True))
    assert kinds == {"player", "player_dealer"}


# ------------------------------------------------------------------------------------ CMV-CA-TABLE-ACTION

# Card room list, options 1-39 (l.2124-2331): Total Table Action -> Player-Dealer Fee; no player fee column.
CMV_TABLE_ACTION = {
    1: "1-10 1, 11-50 2, 51-100 3, 101-200 4, 201+ 5",
    2: "1-10 2, 11-50 3, 51-100 4, 101-200 5, 201+ 6",
    3: "1-10 2, 11-50 4, 51-100 5, 101-200 6, 201+ 8",
    4: "1-25 1, 26-100 2, 101-200 3, 201-300 4, 301+ 5",
    5: "1-25 2, 26-100 3, 101-200 4, 201-300 5, 301+ 6",
    6: "1-25 2, 26-100 4, 101-200 5, 201-300 6, 301+ 8",
    7: "1-50 0.50, 51-200 2, 201-400 3, 401-600 4, 601+ 5",
    8: "1-100 1, 101-200 2, 201-300 3, 301-400 4, 401+ 5",
    9: "1-100 2, 101-200 3, 201-300 4, 301-400 5, 401+ 6",
    10: "1-100 2, 101-200 4, 201-300 6, 301-400 8, 401+ 10",
    11: "1-100 1, 101-300 3, 301-500 5, 501-800 8, 801+ 10",
    12: "1-100 2, 101-300 3, 301-500 5, 501-800 8, 801+ 10",
    13: "1-100 2, 101-300 3, 301-500 6, 501-800 10, 801+ 15",
    14: "1-100 2, 101-300 10, 301-500 15, 501-800 20, 801+ 25",
    15: "1-100 2, 101-300 3, 301-600 5, 601-1200 10, 1201+ 15",
    16: "1-100 2, 101-300 5, 301-600 8, 601-1200 10, 1201+ 15",
    17: "1-100 3, 101-300 5, 301-600 8, 601-1200 15, 1201+ 20",
    18: "1-100 3, 101-300 6, 301-600 8, 601-1200 12, 1201+ 15",
    19: "1-100 3, 101-300 10, 301-600 15, 601-1200 20, 1201+ 25",
    20: "1-200 3, 201-500 5, 501-800 10, 801-1500 15, 1501+ 25",
    21: "1-200 3, 201-500 6, 501-800 10, 801-1500 15, 1501+ 20",
    22: "1-200 3, 201-500 6, 501-800 12, 801-1500 15, 1501+ 25",
    23: "1-200 5, 201-500 8, 501-800 15, 801-1500 20, 1501+ 25",
    24: "1-200 5, 201-500 10, 501-800 18, 801-1500 25, 1501+ 50",
    25: "1-200 3, 201-600 5, 601-1200 10, 1201-2000 15, 2001+ 20",
    26: "1-200 3, 201-600 6, 601-1200 12, 1201-2000 15, 2001+ 25",
    27: "1-200 5, 201-600 8, 601-1200 15, 1201-2000 20, 2001+ 25",
    28: "1-200 5, 201-600 10, 601-1200 18, 1201-2000 25, 2001+ 50",
    29: "1-200 5, 201-600 10, 601-1200 20, 1201-2000 30, 2001+ 40",
    30: "1-300 5, 301-1000 10, 1001-2000 15, 2001-3000 25, 3001+ 30",
    31: "1-300 5, 301-1000 10, 1001-2000 20, 2001-3000 30, 3001+ 40",
    32: "1-300 5, 301-1000 15, 1001-2000 25, 2001-3000 30, 3001+ 50",
    33: "1-300 5, 301-1000 15, 1001-2000 25, 2001-3000 50, 3001+ 75",
    34: "1-300 6, 301-1000 12, 1001-2000 20, 2001-3000 30, 3001+ 40",
    35: "1-500 10, 501-1500 15, 1501-3000 25, 3001-5000 35, 5001+ 50",
    36: "1-500 10, 501-1500 15, 1501-3000 25, 3001-5000 50, 5001+ 75",
    37: "1-500 10, 501-1500 20, 1501-3000 30, 3001-5000 40, 5001+ 50",
    38: "1-500 10, 501-1500 20, 1501-3000 40, 3001-5000 50, 5001+ 75",
    39: "1-500 10, 501-1500 25, 1501-3000 50, 3001-5000 75, 5001+ 100",
}


def test_cmv_table_action_has_39_options():
    assert version("CMV-CA-TABLE-ACTION").options.count() == 39


@pytest.mark.parametrize("number,spec", sorted(CMV_TABLE_ACTION.items()))
def test_cmv_table_action_rows(number, spec):
    opt = option("CMV-CA-TABLE-ACTION", number)
    assert opt.basis == "total_table_action"
    assert (opt.min_wager_from, opt.min_wager_to, opt.max_wager_from, opt.max_wager_to) == (
        D(1), D(1000), D(100), D(10000))
    dealer = tiers_of(opt, "player_dealer")
    assert bounds_and_fees(dealer) == rows(spec)
    for tier in dealer:
        assert (tier.payer, tier.measure, tier.taken) == ("player_dealer", "total_table_action", "before_deal")
    # "There will be no fee taken from the player": any other tier can only be a zero player fee.
    for tier in opt.tiers.exclude(fee_kind="player_dealer"):
        assert tier.fee_kind == "player" and tier.fee == ZERO


# ------------------------------------------------------------------------------------ CMV-CA-PLAYER-WAGER

# Options 1-5 (l.2042-2067): Player Wager -> Player Fee; Player-Dealer Fee printed beside the first row
# (option 3 prints two player-dealer values, $1 and $2). Options 6-12 (l.2077-2112): Player Wager -> Player
# Fee; Total Table Action -> Player-Dealer Fee (options 9 and 10 print "101+" without "$").
CMV_PLAYER_WAGER = {
    1: (STEP_100, [D(1)], None),
    2: (STEP_100, [D(2)], None),
    3: (STEP_100, [D(1), D(2)], None),
    4: (STEP_200, [D(2)], None),
    5: (STEP_200, [D(3)], None),
    6: (STEP_100, None, "1-100 1, 101-300 3"),
    7: (STEP_100, None, "1-100 2, 101-300 3"),
    8: (STEP_100, None, "1-100 2, 101-400 3"),
    9: (STEP_200, None, "1-100 1, 101+ 2"),
    10: (STEP_200, None, "1-100 1, 101+ 3"),
    11: (STEP_200, None, "1-100 1, 101-300 3"),
    12: (STEP_200, None, "1-100 1, 101-400 3"),
}


def test_cmv_player_wager_has_12_options():
    assert version("CMV-CA-PLAYER-WAGER").options.count() == 12


@pytest.mark.parametrize("number,spec", sorted(CMV_PLAYER_WAGER.items()))
def test_cmv_player_wager_rows(number, spec):
    player_spec, flat_dealer_fees, dealer_spec = spec
    opt = option("CMV-CA-PLAYER-WAGER", number)
    assert (opt.min_wager_from, opt.min_wager_to, opt.max_wager_from, opt.max_wager_to) == (
        D(1), D(1000), D(100), D(10000))
    assert opt.basis == (
        "player_total_wager_flat_player_dealer" if number <= 5 else "player_total_wager_and_table_action"
    )
    player = tiers_of(opt, "player")
    assert bounds_and_fees(player) == rows(player_spec)
    for tier in player:
        assert (tier.payer, tier.measure, tier.taken) == ("player", "player_wager", "before_deal")
    dealer = tiers_of(opt, "player_dealer")
    for tier in dealer:
        assert (tier.payer, tier.taken) == ("player_dealer", "before_deal")
    if dealer_spec is not None:
        assert bounds_and_fees(dealer) == rows(dealer_spec)
        assert {t.measure for t in dealer} == {"total_table_action"}
    else:
        assert [t.fee for t in dealer] == flat_dealer_fees
        if len(flat_dealer_fees) == 1:
            assert (dealer[0].lower, dealer[0].upper, dealer[0].measure) == (None, None, "flat")
    assert_kinds_in_print_order(opt, ["player", "player_dealer"])


# ------------------------------------------------------- "California Collection Fees GEGA-002888" page + TCP

def test_cmv_fees_pai_gow_page():
    # l.1082-1089: option 1, table limit $10-$2,000; wagering limit $10-100 ... $401-500 -> $1..$5;
    # player-dealer fee $1 and $2 printed beside the first two rows.
    opt = option("CMV-CA-FEES-PAI-GOW", 1)
    assert (opt.table_limit_low, opt.table_limit_high) == (D(10), D(2000))
    player = tiers_of(opt, "player")
    assert bounds_and_fees(player) == rows("10-100 1, 101-200 2, 201-300 3, 301-400 4, 401-500 5")
    assert all(t.payer == "player" and t.taken == "before_deal" for t in player)
    dealer = tiers_of(opt, "player_dealer")
    assert [t.fee for t in dealer] == [D(1), D(2)]
    assert all(t.payer == "player_dealer" and t.taken == "before_deal" for t in dealer)
    assert opt.tiers.count() == 7
    assert_kinds_in_print_order(opt, ["player", "player_dealer"])


def test_cmv_fees_blackjack_page():
    # l.1091-1098: option 1, table limit $5-$1,000; Action on Table $5-50 ... $601-$1,000;
    # player fee $0.00 on every row; player-dealer fee $0.50, $2.00, $3.00, $4.00, $5.00.
    opt = option("CMV-CA-FEES-BLACKJACK", 1)
    assert (opt.table_limit_low, opt.table_limit_high) == (D(5), D(1000))
    dealer = tiers_of(opt, "player_dealer")
    assert bounds_and_fees(dealer) == rows("5-50 0.50, 51-200 2, 201-400 3, 401-600 4, 601-1000 5")
    for tier in dealer:
        assert (tier.payer, tier.measure, tier.taken) == ("player_dealer", "total_table_action", "before_deal")
    player = tiers_of(opt, "player")
    assert player, "the printed $0.00 player fee is missing"
    assert all(t.fee == ZERO and t.payer == "player" for t in player)
    assert_kinds_in_print_order(opt, ["player", "player_dealer"])


def test_cmv_tcp_limits():
    # l.1282-1287: Table Limit $5 - $500; Player Fee (per bet) $0; Total Table Action -> Player-Dealer Fee.
    opt = option("CMV-TCP-LIMITS", 1)
    assert (opt.table_limit_low, opt.table_limit_high) == (D(5), D(500))
    dealer = tiers_of(opt, "player_dealer")
    assert bounds_and_fees(dealer) == rows("5-50 0.50, 51-100 1, 101-200 2, 201-300 3, 301+ 5")
    for tier in dealer:
        assert (tier.payer, tier.measure, tier.taken) == ("player_dealer", "total_table_action", "before_deal")
    player = tiers_of(opt, "player")
    assert [t.fee for t in player] == [ZERO]
    assert player[0].payer == "player"
    assert opt.tiers.count() == 6


# ------------------------------------------------------------------------------------------------ poker

def assert_poker_option(opt, collection_spec, designated=None, jackpot=None):
    collection = tiers_of(opt, "collection")
    assert bounds_and_fees(collection) == rows(collection_spec)
    for tier in collection:
        assert (tier.payer, tier.measure, tier.taken) == ("pot", "players", "after_flop")
    dtf = tiers_of(opt, "designated_table")
    if designated is None:
        assert dtf == []
    else:
        assert [t.fee for t in dtf] == [D(designated)]
        assert (dtf[0].payer, dtf[0].measure, dtf[0].taken) == ("pot", "flat", "after_river")
        assert (dtf[0].lower, dtf[0].upper) == (None, None)
    jp = tiers_of(opt, "jackpot")
    if jackpot is None:
        assert jp == []
    else:
        assert [t.fee for t in jp] == [D(jackpot)]
        assert (jp[0].payer, jp[0].measure, jp[0].taken) == ("pot", "flat", "after_flop")
        assert (jp[0].lower, jp[0].upper) == (None, None)
    assert_kinds_in_print_order(opt, ["collection", "designated_table", "jackpot"])
    assert opt.basis == "poker_drop"


# GEGA-000700 (l.2361-2393) and GEGA-000697 (l.2397-2429): options 1-2 limit games ($2-$4 to $10-$20),
# options 3-4 no-limit games ("Minimum of a $2-$4 limit game", "Maximum of a $3-$5 limit game").
GEGA_POKER = {
    ("GEGA-000700", 1): ("limit", "8+ 4, 6-7 3, <=5 2", "1"),
    ("GEGA-000700", 2): ("limit", "8+ 5, 6-7 4, <=5 3", "0"),
    ("GEGA-000700", 3): ("no_limit", "7+ 3, 6 2, <=5 1", "1"),
    ("GEGA-000700", 4): ("no_limit", "8+ 5, 6-7 4, <=5 3", "0"),
    ("GEGA-000697", 1): ("limit", "6+ 3, 5 2, 2-4 1", "1"),
    ("GEGA-000697", 2): ("limit", "8+ 5, 6-7 4, <=5 3", "0"),
    ("GEGA-000697", 3): ("no_limit", "7+ 3, 6 2, <=5 1", "1"),
    ("GEGA-000697", 4): ("no_limit", "8+ 5, 6-7 4, <=5 3", "0"),
}


@pytest.mark.parametrize("key,spec", sorted(GEGA_POKER.items()), ids=lambda v: str(v))
def test_gega_poker_options(key, spec):
    code, number = key
    structure, collection_spec, designated = spec
    opt = option(code, number)
    assert_poker_option(opt, collection_spec, designated=designated)
    assert opt.betting_structure == structure
    assert (opt.smallest_game_low, opt.smallest_game_high) == (D(2), D(4))
    if structure == "limit":
        assert (opt.largest_game_low, opt.largest_game_high) == (D(10), D(20))
    else:
        assert (opt.largest_game_low, opt.largest_game_high) == (D(3), D(5))


@pytest.mark.parametrize("number,fee", [(1, "3"), (2, "6")])
def test_gega_000702_lowball_time_collection(number, fee):
    # l.2347-2359: a Collection Fee from each player every 30 minutes; $2-$6 to $5-$20 limit games.
    opt = option("GEGA-000702", number)
    assert opt.basis == "time_collection"
    assert opt.interval_minutes == 30
    assert opt.betting_structure == "limit"
    assert (opt.smallest_game_low, opt.smallest_game_high) == (D(2), D(6))
    assert (opt.largest_game_low, opt.largest_game_high) == (D(5), D(20))
    all_tiers = list(opt.tiers.all())
    assert len(all_tiers) == 1
    tier = all_tiers[0]
    assert (tier.fee_kind, tier.payer, tier.measure, tier.taken) == ("time", "player", "elapsed_time", "each_interval")
    assert tier.fee == D(fee)


# Card room "Poker Collection Rates" (l.1101-1131): only option 1 of each table has fees printed.
CMV_POKER_BLINDS = {
    "CMV-POKER-HOLDEM": {1: (2, 4), 2: (3, 6), 3: (4, 8), 4: (6, 12), 5: (10, 20)},
    "CMV-POKER-OMAHA": {1: (2, 4), 2: (3, 6), 3: (4, 8), 4: (6, 12), 5: (10, 20)},
    "CMV-POKER-NO-LIMIT": {1: (2, 4), 2: (3, 5)},
    # Omaha Hi-Low Split with Joker per-hand fees (l.1071-1076), rows numbered 1-5 in printed order.
    "CMV-OMAHA-JOKER": {1: (2, 4), 2: (3, 6), 3: (4, 8), 4: (6, 12), 5: (10, 20)},
}


@pytest.mark.parametrize(
    "code,number,blinds",
    [(code, n, b) for code, table in sorted(CMV_POKER_BLINDS.items()) for n, b in sorted(table.items())],
)
def test_card_room_poker_blinds(code, number, blinds):
    opt = option(code, number)
    assert (opt.blind_small, opt.blind_big) == (D(blinds[0]), D(blinds[1]))


CMV_POKER_FEES = {
    ("CMV-POKER-HOLDEM", 1): ("6+ 3, 5 2, 2-4 1", "1", "1"),
    ("CMV-POKER-OMAHA", 1): ("8+ 4, 6-7 3, <=5 2", "1", "1"),
    ("CMV-POKER-NO-LIMIT", 1): ("7+ 3, 6 2, <=5 1", "1", "1"),
    ("CMV-OMAHA-JOKER", 1): ("7+ 4, 6 3, <=5 2", None, None),
    ("CMV-OMAHA-JOKER", 2): ("7+ 4, 6 3, <=5 2", None, None),
    ("CMV-OMAHA-JOKER", 3): ("7+ 4, 6 3, <=5 2", None, None),
    ("CMV-OMAHA-JOKER", 4): ("7+ 4, 6 3, <=5 2", None, None),
    ("CMV-OMAHA-JOKER", 5): ("7+ 4, 6 3, <=5 2", None, None),
}


@pytest.mark.parametrize("key,spec", sorted(CMV_POKER_FEES.items()), ids=lambda v: str(v))
def test_card_room_poker_fees(key, spec):
    code, number = key
    collection_spec, designated, jackpot = spec
    assert_poker_option(option(code, number), collection_spec, designated=designated, jackpot=jackpot)


@pytest.mark.parametrize("code,number", [
    ("CMV-POKER-HOLDEM", 2), ("CMV-POKER-HOLDEM", 3), ("CMV-POKER-HOLDEM", 4), ("CMV-POKER-HOLDEM", 5),
    ("CMV-POKER-OMAHA", 2), ("CMV-POKER-OMAHA", 3), ("CMV-POKER-OMAHA", 4), ("CMV-POKER-OMAHA", 5),
    ("CMV-POKER-NO-LIMIT", 2),
])
def test_card_room_poker_blank_options_have_no_tiers(code, number):
    # Blank fee cells as printed: no fee is invented for them.
    assert option(code, number).tiers.count() == 0


@pytest.mark.parametrize("number", [1, 2])
def test_card_room_no_limit_structure(number):
    # "No Limit Texas Hold'em and Omaha Hi/Lo Split" (l.1121)
    assert option("CMV-POKER-NO-LIMIT", number).betting_structure == "no_limit"


@pytest.mark.parametrize("code", ["CMV-POKER-HOLDEM", "CMV-POKER-OMAHA"])
def test_card_room_limit_tables_are_not_no_limit(code):
    for opt in version(code).options.all():
        assert opt.betting_structure != "no_limit"
