"""The loaded game catalogue (games, bet limits, paytables, house edges, approvals), checked against values
typed independently from the source documents, not from seed/*.yaml.

Sources (seed set /work/shared/seeds): 000 One for the Money rules and paytables (WA submission),
001 the same as text, 002 the GB trial sheet (top) and the WSGC letter of 18 February 2014, 003 the OFM
paytables/house edges, 004 the Casino Marysville binder. Line numbers refer to those files.
"""

import datetime
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.management import call_command

from cardroom.models import (
    Approval, BetLimit, Establishment, Game, Jurisdiction, Paytable, Source, StatedHouseEdge,
)

pytestmark = pytest.mark.django_db


def D(value):
    return None if value is None else Decimal(str(value))


# ----------------------------------------------------------------------------- places and sources

@pytest.mark.parametrize("code", ["CA", "WA", "GB", "NIGC"])
def test_jurisdiction_exists(code):
    assert Jurisdiction.objects.filter(code=code).exists()


@pytest.mark.parametrize("code,currency", [("CA", "USD"), ("WA", "USD"), ("GB", "GBP")])
def test_jurisdiction_currency(code, currency):
    assert Jurisdiction.objects.get(code=code).currency == currency


@pytest.mark.parametrize("slug,jurisdiction", [("casino-marysville", "CA"), ("aspers-stratford-london", "GB")])
def test_establishment(slug, jurisdiction):
    assert Establishment.objects.get(slug=slug).jurisdiction.code == jurisdiction


def test_every_source_file_is_recorded():
    files = set(Source.objects.values_list("seed_file", flat=True))
    for name in [
        "000_f5281d17bd80cbb1.txt", "001_a7c49c019ad78c97.txt", "002_27681c1a71ec6ac5.txt",
        "003_bb4c88c4c9ccb6ca.txt", "004_6ca6f882453152b1.txt",
    ]:
        assert name in files


# ------------------------------------------------------------------------------------------- games

# Registration numbers as printed in 004 (l.2034, 2116, 2347, 2361, 2397). The others state none.
REGISTRATIONS = {
    "lowball": "GEGA-000702",
    "double-hand-poker": "GEGA-000701",
    "no-bust-21st-century-blackjack": "GEGA-000698",
    "pure-21-5-blackjack": "GEGA-000699",
    "pai-gow-tiles": "GEGA-000696",
    "omaha-hi-lo": "GEGA-000700",
    "omaha-hi-low-split-with-joker": "GEGA-002850",
    "texas-holdem-with-kill-pots": "GEGA-000697",
    "fortune-pai-gow-poker": "GEGA-002825",
    "three-card-poker": "GEGA-003217",
    "three-card-poker-6-card-bonus": "GEGR-002247",
    "ultimate-texas-holdem-bad-beat-bonus": "GEGR-002249",
    "face-up-pai-gow-poker": None,   # GEGA-002888 in its packet is the collection-rate schedule, not the game
    "pai-gow-poker": None,
    "one-for-the-money": None,
    "blackjack-bonus-bet": None,     # "The Casino will utilize the assigned GEGA number" - none printed
    "buster-blackjack-bonus-bet": None,
}

# A word each game's name must contain, matched by registration number.
NAME_BY_REGISTRATION = {
    "GEGA-000702": "low",
    "GEGA-000701": "double",
    "GEGA-000698": "no bust",
    "GEGA-000699": "21.5",
    "GEGA-000696": "tiles",
    "GEGA-000700": "omaha",
    "GEGA-002850": "joker",
    "GEGA-000697": "kill",
    "GEGA-002825": "fortune",
    "GEGA-003217": "three card poker",
    "GEGR-002247": "6 card bonus",
    "GEGR-002249": "bad beat",
}


@pytest.mark.parametrize("slug,registration", sorted(REGISTRATIONS.items()))
def test_game_registration_number(slug, registration):
    assert Game.objects.get(slug=slug).registration_number == registration


@pytest.mark.parametrize("registration,word", sorted(NAME_BY_REGISTRATION.items()))
def test_game_name_by_registration(registration, word):
    assert word in Game.objects.get(registration_number=registration).name.lower()


def test_registration_numbers_are_exactly_those_printed():
    loaded = set(Game.objects.exclude(registration_number__isnull=True).exclude(registration_number="")
                 .values_list("registration_number", flat=True))
    assert loaded == {r for r in REGISTRATIONS.values() if r}


@pytest.mark.parametrize("slug,category", [
    ("lowball", "time_collection"),                 # collected per player every 30 minutes
    ("texas-holdem-with-kill-pots", "poker_drop"),
    ("omaha-hi-lo", "poker_drop"),
    ("omaha-hi-low-split-with-joker", "poker_drop"),
    ("pai-gow-tiles", "player_dealer"),
    ("double-hand-poker", "player_dealer"),
    ("three-card-poker", "player_dealer"),
    ("face-up-pai-gow-poker", "player_dealer"),
    ("no-bust-21st-century-blackjack", "player_dealer"),
    ("blackjack-bonus-bet", "gaming_activity"),
    ("buster-blackjack-bonus-bet", "gaming_activity"),
    ("one-for-the-money", "house_banked"),          # head-to-head against the dealer (WA/GB casinos)
])
def test_game_category(slug, category):
    assert Game.objects.get(slug=slug).category == category


@pytest.mark.parametrize("slug,decks", [
    ("one-for-the-money", (6, 8)),                  # "dealt with six or eight decks"
    ("no-bust-21st-century-blackjack", (2, 8)),     # 004 l.169
    ("pure-21-5-blackjack", (1, 8)),                # 004 l.478
])
def test_game_decks(slug, decks):
    game = Game.objects.get(slug=slug)
    assert (game.decks_min, game.decks_max) == decks


@pytest.mark.parametrize("slug", ["no-bust-21st-century-blackjack", "pure-21-5-blackjack"])
def test_game_own_rules_allow_three_collection_rates(slug):
    # "A maximum of three collection rates are allowed" (004 l.199, l.507)
    assert Game.objects.get(slug=slug).max_collection_rates == 3


# -------------------------------------------------------------------------------------- bet limits

def test_blackjack_bonus_bet_cap():
    # 004 l.691: "The Blackjack Bonus Bet wager may not exceed $25."
    limits = BetLimit.objects.filter(game__slug="blackjack-bonus-bet", maximum=D(25))
    assert limits.exists()
    limit = limits.get()
    assert limit.minimum is None
    assert limit.currency == "USD"
    assert not limit.maximum_is_lesser_of_base_wager


def test_buster_bet_limits():
    # 004 l.759: "The minimum ... is $1. The maximum bet is the lesser of the base game wager or $100."
    limit = BetLimit.objects.get(game__slug="buster-blackjack-bonus-bet")
    assert (limit.minimum, limit.maximum) == (D(1), D(100))
    assert limit.maximum_is_lesser_of_base_wager is True
    assert limit.currency == "USD"


def test_fortune_bonus_bet_limits():
    # 004 l.833: "a minimum of $1 to a maximum of $20, in increments of $1"
    limits = BetLimit.objects.filter(game__slug="fortune-pai-gow-poker", bet__icontains="fortune")
    assert [(l.minimum, l.maximum, l.increment) for l in limits] == [(D(1), D(20), D(1))]


def test_envy_eligibility_five_dollars():
    # 004 l.786 and l.833: "at least $5 on the Fortune Bonus Bet qualifies for an Envy Bonus"
    assert BetLimit.objects.filter(game__slug="fortune-pai-gow-poker", bet__icontains="envy", minimum=D(5)).exists()


def test_envy_glossary_twenty_five_dollars_also_encoded():
    # 004 l.890 (glossary) says "at least $25" - inconsistent with l.786/l.833, encoded as written too.
    assert BetLimit.objects.filter(game__slug="fortune-pai-gow-poker", bet__icontains="envy", minimum=D(25)).exists()


def test_face_up_envy_eligibility_five_dollars():
    # 004 l.1488, l.1531, l.1695: $5 Fortune Bonus Bet qualifies for the Envy Bonus in Face Up Pai Gow Poker.
    assert BetLimit.objects.filter(game__slug="face-up-pai-gow-poker", bet__icontains="envy", minimum=D(5)).exists()


# --------------------------------------------------------------------------------------- paytables

def odds_lines(paytable):
    """[(odds_to, odds_for) or 'push'] for the odds/push lines, in order."""
    out = []
    for line in paytable.lines.order_by("order"):
        if line.is_push:
            out.append("push")
        elif line.odds_to is not None:
            out.append((line.odds_to, line.odds_for))
    return out


def fixed_amounts(paytable):
    return [line.fixed_amount for line in paytable.lines.order_by("order") if line.fixed_amount is not None]


def norm(text):
    """Lower case, hyphens as spaces, number words as digits: '3-of-a-Kind' == 'Three of a kind'."""
    text = text.lower().replace("-", " ").replace("’", "'")
    for word, digit in (("three", "3"), ("four", "4"), ("five", "5"), ("seven", "7")):
        text = text.replace(word, digit)
    return " ".join(text.split())


def to1(*values):
    return [(D(v), D(1)) for v in values]


def paytables(slug, bet_contains, number=None):
    qs = Paytable.objects.filter(game__slug=slug, bet__icontains=bet_contains)
    if number is not None:
        qs = qs.filter(number=number)
    found = list(qs)
    assert found, f"no {bet_contains!r} paytable {number or ''} for {slug}"
    return found


PAYTABLES = [
    # (game, bet contains, number, expected odds, hand keywords in order)
    ("one-for-the-money", "3 card bonus", "1", to1(40, 30, 10, 5),
     ["straight flush", "kind", "straight", "flush"]),                              # 000 l.62-66, 003 l.162-166
    ("one-for-the-money", "3 card bonus", "2", to1(9, 9, 9, 9),
     ["straight flush", "kind", "straight", "flush"]),
    ("one-for-the-money", "perfect match", "1", to1(100, 30, 10, 3),
     ["suited", "kind", "", ""]),                                                   # 000 l.135-139
    ("three-card-poker", "pair plus", None, to1(200, 40, 30, 6, 3, 1),
     ["mini royal", "straight flush", "three of a kind", "straight", "flush", "pair"]),   # 004 l.1246-1252
    ("three-card-poker-6-card-bonus", "pair plus", None, to1(200, 40, 30, 6, 3, 1),
     ["mini royal", "straight flush", "three of a kind", "straight", "flush", "pair"]),   # 004 l.1426-1434
    ("three-card-poker-6-card-bonus", "6 card", None, to1(1000, 200, 100, 20, 15, 10, 7),
     ["royal flush", "straight flush", "four of a kind", "full house", "flush", "straight", "three of a kind"]),
    ("fortune-pai-gow-poker", "fortune", "FPG-04", to1(5000, 1000, 750, 250, 100, 50, 20, 5, 4, 3, 2) + ["push"],
     ["7 card straight flush", "royal match", "joker", "aces", "royal flush", "straight flush", "4 of a kind",
      "full house", "flush", "3 of a kind", "straight", "three pair"]),               # 004 l.867-882
    ("face-up-pai-gow-poker", "fortune", None, to1(5000, 1000, 750, 250, 100, 50, 20, 5, 4, 3, 2) + ["push"],
     ["7 card straight flush", "royal match", "joker", "aces", "royal flush", "straight flush", "four of a kind",
      "full house", "flush", "three of a kind", "straight", "three pair"]),           # 004 l.1671-1688
    ("face-up-pai-gow-poker", "ace", None, to1(40, 15, 5),
     ["player and player-dealer", "with joker", "no joker"]),                         # 004 l.1722-1727
    ("buster-blackjack-bonus-bet", "buster", None, to1(1, 2, 4, 10, 40, 100),
     ["3", "4", "5", "6", "7", "8"]),                                                 # 004 l.766-776
    ("blackjack-bonus-bet", "blackjack bonus", None, to1(1, 4, 6, 8, 50, 500),
     ["picture", "20", "suited 20", "rank", "kings of spades", "blackjack"]),          # 004 l.709-715
]


@pytest.mark.parametrize("slug,bet,number,expected,hands", PAYTABLES, ids=lambda v: str(v)[:30])
def test_paytable_lines(slug, bet, number, expected, hands):
    candidates = [p for p in paytables(slug, bet, number) if odds_lines(p)]
    assert candidates, f"{slug} {bet}: no paytable with odds lines"
    for paytable in candidates:
        assert odds_lines(paytable) == expected, str(paytable)
        odds_and_push = [l for l in paytable.lines.order_by("order") if l.is_push or l.odds_to is not None]
        for line, word in zip(odds_and_push, hands):
            assert norm(word) in norm(line.hand), (str(paytable), line.hand, word)


ENVY = [D(1000), D(250), D(100), D(50), D(25), D(10), D(5)]


@pytest.mark.parametrize("slug", ["fortune-pai-gow-poker", "face-up-pai-gow-poker"])
def test_envy_amounts(slug):
    # 004 l.871-877 (FPG-04 Envy column) and l.1674-1683 (Envy Pays): $1,000 ... $5, in dollars.
    candidates = [p for p in Paytable.objects.filter(game__slug=slug) if fixed_amounts(p)]
    assert [fixed_amounts(p) for p in candidates] == [ENVY], [str(p) for p in candidates]
    assert candidates[0].currency == "USD"


def test_fortune_pai_gow_envy_paytable_is_fpg_04():
    candidates = [p for p in Paytable.objects.filter(game__slug="fortune-pai-gow-poker") if fixed_amounts(p)]
    assert [p.number for p in candidates] == ["FPG-04"]


# ------------------------------------------------------------------------------------- house edges

@pytest.mark.parametrize("bet,number,decks,edge", [
    ("3 card bonus", "1", 6, "6.07"),     # 000 l.149-150, 003 l.216-217
    ("3 card bonus", "1", 8, "5.41"),
    ("3 card bonus", "2", 6, "2.93"),
    ("3 card bonus", "2", 8, "2.36"),
    ("perfect match", "1", 6, "6.40"),    # 000 l.158-159, 003 l.225-226
    ("perfect match", "1", 8, "4.18"),
])
def test_one_for_the_money_paytable_house_edges(bet, number, decks, edge):
    found = paytables("one-for-the-money", bet, number)
    stated = set(StatedHouseEdge.objects.filter(paytable__in=found, decks=decks).values_list("edge_percent", flat=True))
    assert D(edge) in stated, stated


@pytest.mark.parametrize("bet,strategy,edge", [
    ("main", "perfect", "3.6"),     # 002 l.69: "Main game: 3.6% (Perfect Strategy), 3.82% (Basic Strategy)"
    ("main", "basic", "3.82"),
])
def test_gb_trial_main_game_edges(bet, strategy, edge):
    edges = StatedHouseEdge.objects.filter(
        game__slug="one-for-the-money", bet__icontains=bet, strategy__icontains=strategy, edge_percent=D(edge),
    )
    assert edges.count() == 1
    assert edges.get().approval is not None and edges.get().approval.jurisdiction.code == "GB"


def test_gb_trial_perfect_match_edge():
    # 002 l.71: "Perfect Match side bet: 6.4%." - no deck count stated, unlike the 6-deck 6.40% of 000/003.
    edges = StatedHouseEdge.objects.filter(
        game__slug="one-for-the-money", bet__icontains="perfect match", edge_percent=D("6.4"),
    )
    assert set(edges.values_list("decks", flat=True)) >= {6, None}


# --------------------------------------------------------------------------------------- approvals

COMMERCIAL_CONDITIONS = [                       # 002 l.95-97
    "rules of play",
    "internal controls",
    "licensed by the state prior to the sale",
]
TRIBAL_CONDITIONS = [                           # 002 l.101-108
    "rules of play",
    "tribal gaming agencies",
    "concurrence",
    "appendix a, section 18",
    "certified by the state and licensed by the tribe",
]


def wa_conditions_by_scope():
    by_scope = {"commercial": [], "tribal": [], "all": []}
    for approval in Approval.objects.filter(game__slug="one-for-the-money", jurisdiction__code="WA"):
        for condition in approval.conditions.order_by("order"):
            scope = condition.applies_to if condition.applies_to != "all" else approval.scope
            by_scope[scope].append(condition.text.lower())
    return by_scope


def test_one_for_the_money_wa_approval():
    approvals = Approval.objects.filter(game__slug="one-for-the-money", jurisdiction__code="WA")
    assert approvals.exists()
    for approval in approvals:
        assert approval.decided_on == datetime.date(2014, 2, 18)
        assert approval.status == "approved"
        assert approval.establishment is None


@pytest.mark.parametrize("scope,phrases", [("commercial", COMMERCIAL_CONDITIONS), ("tribal", TRIBAL_CONDITIONS)])
def test_one_for_the_money_wa_conditions(scope, phrases):
    texts = wa_conditions_by_scope()[scope]
    assert len(texts) == len(phrases), texts
    for text, phrase in zip(texts, phrases):
        assert phrase in text, (text, phrase)


def test_one_for_the_money_gb_trial():
    # 002 l.1-13: trial at Aspers Stratford London, placed on trial 1st April 2014, licensee Shufflemaster inc.
    approval = Approval.objects.get(game__slug="one-for-the-money", jurisdiction__code="GB")
    assert approval.status == "trial"
    assert approval.establishment.slug == "aspers-stratford-london"
    assert approval.effective_from == datetime.date(2014, 4, 1)
    assert "shufflemaster" in approval.licensee.lower().replace(" ", "")


@pytest.mark.parametrize("slug", sorted(s for s, r in REGISTRATIONS.items() if r))
def test_california_games_approved_at_casino_marysville(slug):
    assert Approval.objects.filter(
        game__slug=slug, jurisdiction__code="CA", establishment__slug="casino-marysville",
    ).exists()


# ------------------------------------------------------------------------------------- idempotency

def model_counts():
    counts = {}
    for label in ("cardroom", "fees", "compliance"):
        for model in apps.get_app_config(label).get_models(include_auto_created=True):
            counts[model._meta.label] = model._default_manager.count()
    return counts


def test_loading_twice_changes_nothing():
    before = model_counts()
    assert any(name.split(".")[1].startswith("Historical") for name in before), "history tables not counted"
    call_command("load_seed_data", verbosity=0)
    after = model_counts()
    assert after == before, {k: (before[k], after.get(k)) for k in before if before[k] != after.get(k)}
