"""The compliance rules as pure functions: every rule passing and failing on typed examples."""

import datetime
from decimal import Decimal as D

import pytest

from compliance.rules import ERROR, INFO, WARNING, Parameter, ParameterSet, check_posting, lint_option
from compliance.rules.lint import DocumentFacts, TableFacts, lint_approvals, lint_documents
from compliance.rules.postings import (
    ApprovalFacts,
    BetLimitFacts,
    Condition,
    GameFacts,
    HouseFee,
    OptionFacts,
    PostingFacts,
    ScheduleFacts,
)
from fees.engine import Option, Tier

DAY = datetime.date(2026, 11, 21)


def p(jur, key, value, day, status="confirmed", unit="USD", citation=None):
    return Parameter(jur, key, D(value), unit, datetime.date.fromisoformat(day), status, citation or f"cite {key}")


PARAMS = ParameterSet([
    p("WA", "house_banked_max_wager", "100", "2004-07-01", citation="WAC 230-15-140"),
    p("WA", "house_banked_max_wager", "300", "2009-01-01", "secondary", citation="WAC 230-15-140"),
    p("WA", "house_banked_max_wager", "400", "2023-07-20", "check", citation="WAC 230-15-140"),
    p("WA", "max_wagers_per_hand", "6", "2009-09-14", "secondary", "count", "WAC 230-15-040"),
    p("WA", "max_side_wagers", "3", "2009-09-14", "secondary", "count", "WAC 230-15-040"),
    p("WA", "side_wager_max", "5", "2009-09-14", "secondary", citation="WAC 230-15-040"),
    p("WA", "poker_max_wager", "40", "2018-07-01", citation="WAC 230-15-135"),
    p("WA", "poker_max_wager_class_f", "300", "2018-07-01", citation="WAC 230-15-135"),
    p("WA", "fee_types_per_table", "1", "2004-07-01", "secondary", "count", "WAC 230-15-080"),
    p("WA", "time_fee_max", "10", "2004-07-01", "secondary", citation="WAC 230-15-080"),
    p("WA", "per_hand_fee_max", "1", "2004-07-01", "secondary", citation="WAC 230-15-080"),
    p("WA", "rake_max_percent", "10", "2004-07-01", "secondary", "percent", "WAC 230-15-080"),
    p("WA", "rake_cap", "5", "2004-07-01", "check", citation="WAC 230-15-080"),
    p("CA", "max_collection_rates", "5", "1998-01-01", "secondary", "count", "Penal Code 337j"),
    p("CA", "min_wager_floor", "1", "1998-01-01", citation="GEGA-002888 provisions"),
    p("CA", "min_wager_ceiling", "1000", "1998-01-01", citation="GEGA-002888 provisions"),
    p("CA", "max_wager_floor", "100", "1998-01-01", citation="GEGA-002888 provisions"),
    p("CA", "max_wager_ceiling", "10000", "1998-01-01", citation="GEGA-002888 provisions"),
])


def tiers(kind, measure, rows):
    return tuple(Tier(order=i, fee_kind=kind, payer=kind if kind != "collection" else "pot", measure=measure,
                      lower=None if lo is None else D(lo), upper=None if hi is None else D(hi), fee=D(fee),
                      taken="before_deal", printed_bounds=f"${lo}-${hi}" if hi else f"${lo}+")
                 for i, (lo, hi, fee) in enumerate(rows, start=1))


OPEN_TTA = tiers("player_dealer", "total_table_action",
                 [("1", "100", "1"), ("101", "200", "2"), ("201", "300", "3"), ("301", "400", "4"), ("401", None, "5")])
CLOSED_TTA = tiers("player_dealer", "total_table_action", [("1", "100", "1"), ("101", "300", "3")])
SIX_RATES = tiers("player_dealer", "total_table_action",
                  [("1", "10", "1"), ("11", "50", "2"), ("51", "100", "3"), ("101", "200", "4"), ("201", "300", "5"),
                   ("301", None, "6")])


def schedule(*options, games=("face-up-pai-gow-poker",), jurisdiction="CA", establishment=None):
    return ScheduleFacts(code="TEST-1", version=1, jurisdiction=jurisdiction, establishment=establishment,
                         games=frozenset(games), citation="test schedule",
                         options={o.number: o for o in options})


def option(number, rows, **limits):
    return OptionFacts(option=Option(number=number, basis="total_table_action", label="", citation=f"option {number}",
                                     interval_minutes=None, tiers=rows), **limits)


def approval(game="face-up-pai-gow-poker", jur="CA", establishment="casino-marysville", status="approved",
             **dates):
    values = {"decided_on": None, "effective_from": None, "expires_on": None, "trial_ends_on": None}
    values.update({k: datetime.date.fromisoformat(v) for k, v in dates.items()})
    return ApprovalFacts(key=f"{game}-{jur}", game=game, game_name=game.replace("-", " ").title(), jurisdiction=jur,
                         establishment=establishment, scope="all", status=status, reference="REF", citation="letter",
                         **values)


PAI_GOW = GameFacts("face-up-pai-gow-poker", "Face Up Pai Gow Poker", None, "player_dealer")
NO_BUST = GameFacts("no-bust", "No Bust 21st Century Blackjack", "GEGA-000698", "player_dealer", 3, "No Bust rules")
OFM = GameFacts("one-for-the-money", "One for the Money", None, "house_banked")
HOLDEM = GameFacts("holdem", "Texas Hold'em", None, "poker_drop")


def ca(**kw):
    values = dict(subject={"type": "posting"}, jurisdiction="CA", as_of=DAY, game=PAI_GOW,
                  establishment="casino-marysville", establishment_kind="card_room",
                  schedule=schedule(option(1, OPEN_TTA)), option_number=1, min_wager=D("5"), max_wager=D("100"),
                  seats=4, approvals=(approval(effective_from="2020-01-01"),))
    values.update(kw)
    return PostingFacts(**values)


def wa(**kw):
    values = dict(subject={"type": "posting"}, jurisdiction="WA", as_of=DAY, game=OFM, establishment="wa-room",
                  establishment_kind="card_room", max_wager=D("100"), seats=6,
                  approvals=(approval("one-for-the-money", "WA", None, decided_on="2014-02-18"),))
    values.update(kw)
    return PostingFacts(**values)


def by_rule(findings, rule):
    return [f for f in findings if f.rule == rule]


# (name, facts, rule, expected severity or None for "no finding", text in the message, citation fragment)
CASES = [
    ("approved, dated", ca(), "approval.game_approved", None, "", ""),
    ("approved, no date stated", ca(approvals=(approval(),)), "approval.game_approved", INFO, "states no date",
     "letter"),
    ("no approval", ca(approvals=()), "approval.game_approved", ERROR, "no approval", "11 CCR 2071"),
    ("approval not yet in force", ca(approvals=(approval(effective_from="2027-01-01"),)), "approval.game_approved",
     ERROR, "only from 2027-01-01", "letter"),
    ("approval expired", ca(approvals=(approval(effective_from="2020-01-01", expires_on="2026-01-01"),)),
     "approval.game_approved", ERROR, "expired on 2026-01-01", "letter"),
    ("approval revoked", ca(approvals=(approval(status="revoked"),)), "approval.game_approved", ERROR, "revoked",
     "letter"),
    ("other establishment's approval", ca(approvals=(approval(establishment="elsewhere"),)),
     "approval.game_approved", ERROR, "no approval", "11 CCR 2071"),
    ("trial within its period", ca(approvals=(approval(status="trial", effective_from="2026-01-01",
                                                       trial_ends_on="2026-12-31"),)),
     "approval.trial_period", INFO, "until 2026-12-31", "letter"),
    ("trial ended", ca(approvals=(approval(status="trial", effective_from="2025-01-01", trial_ends_on="2026-01-01"),)),
     "approval.game_approved", ERROR, "trial (REF) ended on 2026-01-01", "letter"),
    ("option in an approved schedule", ca(), "schedule.option_approved_for_game", None, "", ""),
    ("schedule not approved for the game", ca(schedule=schedule(option(1, OPEN_TTA), games=("other",))),
     "schedule.option_approved_for_game", ERROR, "not a collection schedule approved for", "test schedule"),
    ("no such option", ca(option_number=9), "schedule.option_approved_for_game", ERROR, "has no option 9",
     "test schedule"),
    ("CA table with no schedule", ca(schedule=None, option_number=None), "schedule.option_approved_for_game", ERROR,
     "must post one collection schedule option", "11 CCR 2071"),
    ("CA limits within", ca(), "ca.wager_limits", None, "", ""),
    ("CA minimum below $1", ca(min_wager=D("0.50")), "ca.wager_limits", ERROR, "$0.50 is outside the allowed $1 to "
     "$1,000", "GEGA-002888 provisions"),
    ("CA maximum below $100", ca(max_wager=D("50")), "ca.wager_limits", ERROR, "$50 is outside the allowed $100 to "
     "$10,000", "GEGA-002888 provisions"),
    ("CA maximum above $10,000", ca(max_wager=D("20000")), "ca.wager_limits", ERROR, "outside the allowed $100 to "
     "$10,000", "GEGA-002888 provisions"),
    ("CA poker game: GEGA-002888's wagering limits do not apply", ca(game=HOLDEM, max_wager=D("20")),
     "ca.wager_limits", None, "", ""),
    ("CA option's own range", ca(schedule=schedule(option(1, OPEN_TTA, max_wager_from=D("200"), max_wager_to=D("500")))),
     "ca.wager_limits", ERROR, "outside the allowed $200 to $500", "option 1"),
    ("within the table limit", ca(schedule=schedule(option(1, OPEN_TTA, table_limit_low=D("5"),
                                                           table_limit_high=D("1000")))), "option.table_limit",
     None, "", ""),
    ("above the table limit", ca(max_wager=D("2000"), schedule=schedule(option(1, OPEN_TTA, table_limit_low=D("5"),
                                                                              table_limit_high=D("1000")))),
     "option.table_limit", ERROR, "above the option's table limit of $5-$1,000", "TEST-1 option 1"),
    ("fees are flat", ca(), "ca.flat_fees", INFO, "never a percentage", "Penal Code 337j"),
    ("five rates or fewer", ca(), "ca.collection_rates", INFO, "within the 5 allowed", "Penal Code 337j"),
    ("six rates", ca(schedule=schedule(option(1, SIX_RATES))), "ca.collection_rates", ERROR,
     "6 collection rates ($1, $2, $3, $4, $5, $6); at most 5", "Penal Code 337j"),
    ("game allows three", ca(game=NO_BUST, approvals=(approval("no-bust", effective_from="2020-01-01"),),
                             schedule=schedule(option(1, OPEN_TTA), games=("no-bust",))),
     "ca.collection_rates", ERROR, "at most 3 are allowed", "No Bust rules"),
    ("coverage open-ended", ca(), "coverage.tiers", None, "", ""),
    ("coverage past a closed top", ca(schedule=schedule(option(1, CLOSED_TTA)), max_wager=D("100"), seats=6,
                                      bonus_limits=(("pair_plus", D("25")),)),
     "coverage.tiers", ERROR, "6 seats x ($100 maximum wager + $25 pair_plus) = $750", "TEST-1 option 1"),
    ("bonus within its cap", ca(bonus_limits=(("Fortune Bonus", D("20")),),
                                bet_limits=(BetLimitFacts("x", "Fortune Bonus", D("1"), D("20"), False, "FB rules"),)),
     "bonus.caps", None, "", ""),
    ("bonus above its cap", ca(bonus_limits=(("fortune_bonus", D("25")),),
                               bet_limits=(BetLimitFacts("x", "Fortune Bonus", D("1"), D("20"), False, "FB rules"),)),
     "bonus.caps", ERROR, "Fortune Bonus maximum of $25 is above its cap of $20", "FB rules"),
    ("bonus capped by the base wager", ca(max_wager=D("100"), bonus_limits=(("Buster", D("100")),),
                                          bet_limits=(BetLimitFacts("x", "Buster", D("1"), D("100"), True, "B"),)),
     "bonus.caps", None, "", ""),
    # Washington: the same $250 posting under the value of each date.
    ("WA $250 in 2006 ($100)", wa(as_of=datetime.date(2006, 1, 1), max_wager=D("250")), "wa.max_single_wager", ERROR,
     "$250 is above the Washington limit of $100", "WAC 230-15-140"),
    ("WA $250 in 2015 ($300)", wa(as_of=datetime.date(2015, 6, 1), max_wager=D("250")), "wa.max_single_wager", INFO,
     "within the Washington limit of $300", "WAC 230-15-140"),
    ("WA $400 in 2015 ($300)", wa(as_of=datetime.date(2015, 6, 1), max_wager=D("400")), "wa.max_single_wager", ERROR,
     "$400 is above the Washington limit of $300", "WAC 230-15-140"),
    ("WA $400 in 2025 ($400, to be checked)", wa(as_of=datetime.date(2025, 6, 1), max_wager=D("400")),
     "wa.max_single_wager", INFO, "to be checked", "WAC 230-15-140"),
    ("WA seven wagers", wa(wagers_per_hand=7), "wa.wagers_per_hand", ERROR, "7 separate wagers", "WAC 230-15-040"),
    ("WA four side wagers", wa(bonus_limits=tuple((f"s{i}", D("5")) for i in range(4))), "wa.wagers_per_hand", ERROR,
     "4 side wagers", "WAC 230-15-040"),
    ("WA side wager over $5", wa(bonus_limits=(("3 Card Bonus", D("25")),)), "wa.wagers_per_hand", ERROR,
     "limited to $5 or less", "WAC 230-15-040"),
    ("WA side wagers within", wa(bonus_limits=(("3 Card Bonus", D("5")),)), "wa.wagers_per_hand", INFO,
     "within the limits", "WAC 230-15-040"),
    ("WA one time fee within", wa(fees=(HouseFee("time", amount=D("10")),)), "wa.fees", INFO,
     "within the Washington limit of $10", "WAC 230-15-080"),
    ("WA time fee too high", wa(fees=(HouseFee("time", amount=D("12")),)), "wa.fees", ERROR,
     "$12 is above the Washington limit of $10", "WAC 230-15-080"),
    ("WA two fee types", wa(fees=(HouseFee("time", amount=D("5")), HouseFee("per_hand", amount=D("1")))), "wa.fees",
     ERROR, "2 types of fee", "WAC 230-15-080"),
    ("WA rake over 10%", wa(fees=(HouseFee("rake", percent=D("12"), cap=D("5")),)), "wa.fees", ERROR,
     "rake of 12%", "WAC 230-15-080"),
    ("WA rake cap over $5 (to be checked)", wa(fees=(HouseFee("rake", percent=D("10"), cap=D("6")),)), "wa.fees",
     ERROR, "to be checked", "WAC 230-15-080"),
    ("WA poker $40", wa(game=HOLDEM, max_wager=D("40"), approvals=(approval("holdem", "WA", None,
                                                                           effective_from="2010-01-01"),)),
     "wa.poker_limits", None, "", ""),
    ("WA poker $50", wa(game=HOLDEM, max_wager=D("50"), approvals=(approval("holdem", "WA", None,
                                                                           effective_from="2010-01-01"),)),
     "wa.poker_limits", ERROR, "$50 is above the Washington limit of $40", "WAC 230-15-135"),
    ("WA poker Class F $300", wa(game=HOLDEM, max_wager=D("300"), class_f=True,
                                 approvals=(approval("holdem", "WA", None, effective_from="2010-01-01"),)),
     "wa.poker_limits", None, "", ""),
    ("WA tribal: compact fees, not WAC 230-15-080", wa(establishment_kind="tribal_casino",
                                                        fees=(HouseFee("time", amount=D("20")),)),
     "tribal.fees", INFO, "tribal-state compact", "25 CFR 543.10(f)"),
]


@pytest.mark.parametrize("name,facts,rule,severity,text,citation", CASES, ids=[c[0] for c in CASES])
def test_rule(name, facts, rule, severity, text, citation):
    found = by_rule(check_posting(facts, PARAMS), rule)
    if severity is None:
        assert [f for f in found if f.severity != INFO] == [], found
        return
    matching = [f for f in found if f.severity == severity and text in f.message]
    assert matching, found
    assert citation in matching[0].citation


def test_washington_limit_uses_each_dates_value():
    values = {}
    for day in ("2015-06-01", "2025-06-01"):
        facts = wa(as_of=datetime.date.fromisoformat(day), max_wager=D("400"))
        (f,) = by_rule(check_posting(facts, PARAMS), "wa.max_single_wager")
        (used,) = f.parameters
        values[day] = (f.severity, used.value, used.status, used.effective_from.isoformat())
    assert values == {
        "2015-06-01": (ERROR, D("300"), "secondary", "2009-01-01"),
        "2025-06-01": (INFO, D("400"), "check", "2023-07-20"),
    }


def test_tribal_pack_does_not_apply_commercial_fee_caps():
    facts = wa(establishment_kind="tribal_casino", fees=(HouseFee("time", amount=D("20")),))
    assert by_rule(check_posting(facts, PARAMS), "wa.fees") == []


def test_check_parameter_status_shows_in_finding():
    f = by_rule(check_posting(wa(fees=(HouseFee("rake", percent=D("10"), cap=D("6")),)), PARAMS), "wa.fees")[0]
    assert f.as_dict()["parameter_statuses"] == ["check"]
    assert f.unconfirmed


def test_parameter_before_first_value_is_reported_not_guessed():
    facts = wa(as_of=datetime.date(2000, 1, 1), max_wager=D("50"))
    found = [f for f in check_posting(facts, PARAMS) if "could not be checked" in f.message]
    assert found and found[0].severity == WARNING


# -- lint ----------------------------------------------------------------------------------------------

LINT_CASES = [
    ("clean open-ended", OPEN_TTA, None, ""),
    ("closed top", CLOSED_TTA, "lint.closed_top", "stops at $300"),
    ("gap", tiers("player_dealer", "total_table_action", [("1", "100", "1"), ("151", None, "2")]), "lint.contiguous",
     "nothing covers $101 to $150"),
    ("overlap", tiers("player_dealer", "total_table_action", [("1", "100", "1"), ("90", None, "2")]),
     "lint.contiguous", "overlap"),
    ("not ascending", tiers("player_dealer", "total_table_action",
                            [("1", "100", "1"), ("201", "300", "2"), ("101", "200", "3")]), "lint.ascending",
     "neither ascending nor descending"),
    ("negative fee", tiers("player_dealer", "total_table_action", [("1", None, "-1")]), "lint.negative", "negative fee"),
    ("not in cents", tiers("player_dealer", "total_table_action", [("1", None, "1.005")]), "lint.cents",
     "not a whole number of cents"),
    ("two values in a cell", tiers("player_dealer", "unstated", [(None, None, "1"), (None, None, "2")]),
     "lint.ambiguous", "holds 2 values"),
    ("basis unstated", tiers("player", "wager_unspecified", [("10", "100", "1"), ("101", None, "2")]),
     "lint.ambiguous", "does not state what it is measured on"),
    ("poker printed top down", tiers("collection", "players", [("6", None, "4"), ("5", "5", "3"), ("2", "4", "2")]),
     None, ""),
]


@pytest.mark.parametrize("name,rows,rule,text", LINT_CASES, ids=[c[0] for c in LINT_CASES])
def test_lint(name, rows, rule, text):
    found = lint_option("TEST-1", 1, Option(1, "total_table_action", "", "row", None, rows))
    if rule is None:
        assert found == []
        # Fee cliffs (info) are no fault, and only reported when asked: a rising fee has one at each edge.
        asked = lint_option("TEST-1", 1, Option(1, "total_table_action", "", "row", None, rows), cliffs=True)
        assert {f.rule for f in asked} <= {"schedule.fee_cliff"}
        assert len(asked) == (4 if name == "clean open-ended" else 0)
    else:
        assert any(f.rule == rule and text in f.message for f in found), found


def test_consistency_names_both_places_and_the_cell():
    a = Option(26, "total_table_action", "", "packet", None, OPEN_TTA)
    changed = OPEN_TTA[:1] + (OPEN_TTA[1].__class__(**{**OPEN_TTA[1].__dict__, "fee": D("8")}),) + OPEN_TTA[2:]
    b = Option(27, "total_table_action", "", "list", None, changed)
    docs = [DocumentFacts("DOC-A", 1, None, "CA", None, "a", (a,)), DocumentFacts("DOC-B", 1, None, "CA", None, "b", (b,))]
    (f,) = [f for f in lint_documents(docs) if f.rule == "lint.consistency"]
    assert "DOC-A v1 option 26" in f.message and "DOC-B v1 option 27" in f.message
    assert "$2 in DOC-A option 26, $8 in DOC-B option 27" in f.message
    assert f.subject["cells"] == [2]


def test_approval_lint():
    day = DAY
    approvals = [
        ApprovalFacts("a1", "g1", "G1", "CA", "room", "all", "approved", "R1", None, datetime.date(2020, 1, 1),
                      datetime.date(2026, 12, 1), None, "c1", (Condition("Do X.", "all", "outstanding", "c1 1"),)),
        ApprovalFacts("a2", "g2", "G2", "CA", "room", "all", "approved", "R2", None, datetime.date(2020, 1, 1),
                      datetime.date(2026, 1, 1), None, "c2"),
    ]
    tables = [TableFacts("room", "card_room", "CA", "7", "g3", "G3"), TableFacts("room", "card_room", "CA", "8", "g1", "G1")]
    found = {(f.rule, f.severity, f.subject.get("approval") or f.subject.get("table")) for f in lint_approvals(approvals, tables, day)}
    # Conditions are met per establishment: no finding on the approval itself, an error on the table offering
    # the game where its prerequisite is not recorded as met (tests/cardroom/test_conditions_approvals.py).
    assert not any(r == "approval.conditions_outstanding" and t == "a1" for r, _, t in found)
    assert ("approval.conditions_outstanding", ERROR, "8") in found
    assert ("approval.expiring", WARNING, "a1") in found
    assert ("approval.expired", ERROR, "a2") in found
    assert ("approval.table_game", ERROR, "7") in found
    assert not any(t == "8" and r != "approval.conditions_outstanding" for r, _, t in found)
