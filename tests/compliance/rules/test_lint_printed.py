"""Schedule lint (issue 13): printed and typed values agree, conflicts only between versions in force at the same
time, and fee cliffs at each tier edge. The readers and rules are pure; the seeded cells are read from the seed
files themselves, every one of them either read or deliberately not read."""

import datetime
from decimal import Decimal as D
from pathlib import Path

import pytest
import yaml

from compliance.rules import ERROR, INFO
from compliance.rules.lint import (
    DocumentFacts,
    in_force_periods,
    lint_consistency,
    lint_documents,
    lint_fee_cliffs,
    lint_option,
    lint_printed,
)
from compliance.rules.printed import PrintedBounds, bounds_disagree, read_amount, read_bounds
from fees.engine import Option, Tier

SEEDS = sorted((Path(__file__).resolve().parents[3] / "seed" / "schedules").glob("*.yaml"))


def _decimal(value):
    return None if value is None else D(str(value))


def seeded_documents():
    """Every seeded version as the lint's DocumentFacts, tiers numbered as ``fees.seed`` numbers them."""
    out = []
    for path in SEEDS:
        data = yaml.safe_load(path.read_text())
        head = data["schedule"]
        for version in data["versions"]:
            options = tuple(
                Option(number=o["number"], basis=o["basis"], label=o.get("label", ""), citation=o["citation"],
                       interval_minutes=o.get("interval_minutes"), tiers=tuple(
                           Tier(order=order, fee_kind=t["fee_kind"], payer=t["payer"], measure=t["measure"],
                                lower=_decimal(t.get("lower")), upper=_decimal(t.get("upper")), fee=_decimal(t["fee"]),
                                taken=t["taken"], printed_bounds=t.get("printed_bounds", ""),
                                printed_fee=t["printed_fee"])
                           for order, t in enumerate(o.get("tiers") or (), start=1)))
                for o in version["options"])
            out.append(DocumentFacts(head["code"], version["number"], version.get("effective_from"),
                                     head["jurisdiction"], head.get("establishment"), head["citation"], options))
    return out


def seeded_tiers():
    for doc in seeded_documents():
        for option in doc.options:
            for tier in option.tiers:
                yield doc, option, tier


# -- reading printed cells ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, amount", [
    ("$1", D("1")), ("$2.50", D("2.50")), ("1.00", D("1.00")), ("$0", D("0")), ("$1,001", D("1001")),
    (" $ 5 ", D("5")), ("50¢", D("0.50")), ("£3", D("3")),
    ("", None), ("N/A", None), ("Free", None), ("$1 / $2", None), ("$1.005", None), ("1,00", None), ("-$1", None),
    ("$1 per player", None), (None, None),
])
def test_read_amount(text, amount):
    assert read_amount(text) == amount


@pytest.mark.parametrize("text, bounds", [
    ("$0 - $100", PrintedBounds(D("0"), D("100"))),
    ("$101-$200", PrintedBounds(D("101"), D("200"))),
    ("$10-100", PrintedBounds(D("10"), D("100"))),
    ("$1 to $5", PrintedBounds(D("1"), D("5"))),
    ("$1,501-$3,000", PrintedBounds(D("1501"), D("3000"))),
    ("$201+", PrintedBounds(D("201"), None, open_top=True)),
    ("101+", PrintedBounds(D("101"), None, open_top=True)),
    ("$1,001 & over", PrintedBounds(D("1001"), None, open_top=True)),
    ("$1,001 and over", PrintedBounds(D("1001"), None, open_top=True)),
    ("Over $500", PrintedBounds(D("500"), None, lower_exclusive=True, open_top=True)),
    ("Up to $100", PrintedBounds(None, D("100"))),
    ("Under $100", PrintedBounds(None, D("100"), upper_exclusive=True)),
    ("$25", PrintedBounds(D("25"), D("25"))),
    ("", None), ("N/A", None), ("2-4 players", None), ("6 or more players", None), ("Any", None),
    ("$1,00-$2", None), ("$1-$2-$3", None),
])
def test_read_bounds(text, bounds):
    assert read_bounds(text) == bounds


def test_bounds_disagree_compares_only_what_is_printed():
    assert bounds_disagree(read_bounds("$101-$200"), D("101"), D("200")) == []
    assert bounds_disagree(read_bounds("$101-$200"), D("101"), D("300")) == ["upper"]
    assert bounds_disagree(read_bounds("$101-$200"), D("100"), D("300")) == ["lower", "upper"]
    assert bounds_disagree(read_bounds("$201+"), D("201"), None) == []
    assert bounds_disagree(read_bounds("$201+"), D("201"), D("300")) == ["upper"]  # printed open, typed closed
    assert bounds_disagree(read_bounds("Over $500"), D("501"), None) == []
    assert bounds_disagree(read_bounds("Over $500"), D("500.01"), None) == []
    assert bounds_disagree(read_bounds("Over $500"), D("500"), None) == ["lower"]  # $500 itself is not over $500
    assert bounds_disagree(read_bounds("Up to $100"), None, D("100")) == []
    assert bounds_disagree(read_bounds("Up to $100"), D("1"), D("100")) == []  # no lower bound printed: none checked
    assert bounds_disagree(read_bounds("Under $100"), None, D("99")) == []
    assert bounds_disagree(read_bounds("Under $100"), None, D("100")) == ["upper"]


# -- every seeded cell: read, or deliberately not read -------------------------------------------------------

# Bounds that are counts of players (poker) and never read as amounts, whatever they look like.
PLAYER_COUNTS = {"2-4", "2-4 players", "5", "5 or less", "5 or less players", "5 players", "6", "6 or more",
                 "6 or more players", "6 players", "6-7", "6-7 players", "7 or more", "7 or more players",
                 "8 or more", "8 or more players"}


def test_every_seeded_printed_cell_is_read_or_deliberately_not_read():
    fees_not_read, bounds_not_read, counts = set(), set(), set()
    for _, _, tier in seeded_tiers():
        if read_amount(tier.printed_fee) is None:
            fees_not_read.add(tier.printed_fee)
        if tier.measure in ("players", "elapsed_time"):
            counts.add(tier.printed_bounds)  # not amounts: not compared (lint_printed skips these measures)
        elif tier.printed_bounds and read_bounds(tier.printed_bounds) is None:
            bounds_not_read.add(tier.printed_bounds)
        elif not tier.printed_bounds:
            assert tier.lower is None and tier.upper is None  # blank: a flat or unstated cell, nothing to compare
    assert fees_not_read == set()  # every seeded fee is printed as an amount
    assert bounds_not_read == set()  # every seeded money band reads
    assert counts - {""} == PLAYER_COUNTS


def test_the_seeds_print_what_they_type():
    """The seeds' printed and typed values agree: no printed-value mismatch in any seeded version."""
    found = [f for doc in seeded_documents() for option in doc.options
             for f in lint_printed(doc.code, doc.version, option)]
    assert found == []


def test_player_counts_are_never_compared_as_amounts():
    tier = Tier(1, "collection", "pot", "players", D("6"), None, D("3"), "after_flop", "5 or less players", "$3")
    assert lint_printed("POKER", 1, Option(1, "poker_drop", "", "p", None, (tier,))) == []


# -- printed and typed disagree: errors citing the row ---------------------------------------------------------

def _tier(order=1, lower="1", upper="100", fee="1", printed_bounds="$1-$100", printed_fee="$1",
          measure="total_table_action"):
    return Tier(order=order, fee_kind="player_dealer", payer="player_dealer", measure=measure,
                lower=_decimal(lower), upper=_decimal(upper), fee=D(fee), taken="before_deal",
                printed_bounds=printed_bounds, printed_fee=printed_fee)


def _option(*tiers, number=7):
    return Option(number, "total_table_action", "", "Rates page, option 7", None, tiers)


def test_a_fee_typed_2_and_printed_1_is_an_error_citing_its_row():
    option = _option(_tier(), _tier(2, "101", None, "2.00", "$101+", "$1"))
    (f,) = [f for f in lint_option("DOC-1", 3, option) if f.rule == "schedule.printed_fee_mismatch"]
    assert f.severity == ERROR
    assert f.message.startswith('DOC-1 v3 option 7: the player-dealer fee row 2 prints "$1" but its fee is typed as $2')
    assert f.citation == "DOC-1 option 7: Rates page, option 7, row 2"
    assert f.subject == {"type": "schedule_option", "schedule": "DOC-1", "version": 3, "option": 7,
                         "fee_kind": "player_dealer", "row": 2, "printed": "$1", "typed": "2.00"}


def test_bounds_typed_otherwise_than_printed_are_an_error():
    option = _option(_tier(), _tier(2, "101", "300", "2", "$101-$200", "$2"), _tier(3, "301", None, "3", "$201+", "$3"))
    found = [f for f in lint_printed("DOC-1", 1, option)]
    assert [(f.rule, f.severity, f.subject["row"], f.subject["bounds"]) for f in found] == [
        ("schedule.printed_bounds_mismatch", ERROR, 2, ["upper"]),
        ("schedule.printed_bounds_mismatch", ERROR, 3, ["lower"]),
    ]
    assert '"$101-$200" but is typed as $101 to $300 (the upper bound differs)' in found[0].message
    assert found[1].citation.endswith(", row 3")


@pytest.mark.parametrize("printed_fee, printed_bounds", [("N/A", "N/A"), ("Free", "Any amount"), ("", ""),
                                                         ("$1 or $2", "see note")])
def test_cells_that_are_not_amounts_are_not_guessed_at(printed_fee, printed_bounds):
    option = _option(_tier(fee="2", printed_fee=printed_fee, printed_bounds=printed_bounds))
    assert lint_printed("DOC-1", 1, option) == []


def test_equal_amounts_written_differently_agree():
    option = _option(_tier(fee="1.00", printed_fee="1.00"), _tier(2, "101", None, "2.5", "Over $100", "$2.50"),
                     _tier(3, None, None, "0.5", "", "50¢", measure="flat"))
    assert lint_printed("DOC-1", 1, option) == []


# -- fee cliffs ------------------------------------------------------------------------------------------------

def test_fee_cliff_marginal_rate_at_each_edge():
    option = _option(_tier(), _tier(2, "101", "200", "3", "$101-$200", "$3"), _tier(3, "201", "300", "3", "", "$3"),
                     _tier(4, "301", None, "3.50", "$301+", "$3.50"))
    found = lint_fee_cliffs("DOC-1", 1, option)
    assert [(f.rule, f.severity, f.subject["edge"], f.subject["jump"], f.subject["marginal_rate_percent"])
            for f in found] == [("schedule.fee_cliff", INFO, "100", "2", "200"),
                                ("schedule.fee_cliff", INFO, "300", "0.50", "50")]  # no rise at $200: no cliff
    assert ("rises from $1 to $3 between $100 and $101 of total table action (rows 1 and 2): one more dollar costs "
            "$2 more in fee, a 200% marginal rate") in found[0].message


def test_fee_cliffs_in_cents_and_never_for_player_counts_or_unclear_bases():
    cents = _option(_tier(upper="99.99"), _tier(2, "100", None, "2", "$100+", "$2"))
    (f,) = lint_fee_cliffs("DOC-1", 1, cents)
    assert f.subject["marginal_rate_percent"] == "10000" and "one more cent costs $1" in f.message
    poker = Option(1, "poker_drop", "", "p", None, (
        Tier(1, "collection", "pot", "players", None, D("5"), D("1"), "after_flop", "5 or less", "$1"),
        Tier(2, "collection", "pot", "players", D("6"), None, D("3"), "after_flop", "6 or more", "$3")))
    unclear = _option(_tier(measure="wager_unspecified"), _tier(2, "101", None, "3", "$101+", "$3",
                                                                measure="wager_unspecified"))
    assert lint_fee_cliffs("P", 1, poker) == [] and lint_fee_cliffs("U", 1, unclear) == []


def test_fee_cliffs_of_seeded_gega_002888_option_43(db):
    """docs/fees.md's option 43: player fee by each base wager, player-dealer fee by total table action."""
    from fees.quotes import quoting
    from fees.models import ScheduleDocument

    document = ScheduleDocument.objects.get(code="GEGA-002888")
    schedule = quoting.snapshot(document.version_as_of(datetime.date(2026, 11, 21)))
    (option,) = [o for o in schedule.options if o.number == 43]
    found = lint_fee_cliffs(schedule.code, schedule.version, option)
    edges = [(f.subject["fee_kind"], f.subject["edge"], f.subject["jump"], f.subject["marginal_rate_percent"])
             for f in found]
    assert edges == [
        ("player", "100.00", "1.00", "100"), ("player", "200.00", "1.00", "100"), ("player", "300.00", "1.00", "100"),
        ("player", "400.00", "1.00", "100"),
        ("player_dealer", "100.00", "2.00", "200"),  # $1 to $100, $3 from $101 (to $300, a closed top)
    ]
    assert all(f.severity == INFO and f.citation.startswith("GEGA-002888 option 43: Face Up Pai Gow Poker rules")
               for f in found)
    assert "one more dollar costs $2 more in fee, a 200% marginal rate" in found[4].message


def test_fee_cliffs_over_the_seeds():
    assert not [f for f in lint_documents(seeded_documents()) if f.rule == "schedule.fee_cliff"]  # not in runs
    found = [f for f in lint_documents(seeded_documents(), cliffs=True) if f.rule == "schedule.fee_cliff"]
    by_schedule = {}
    for f in found:
        by_schedule[f.subject["schedule"]] = by_schedule.get(f.subject["schedule"], 0) + 1
    assert by_schedule == {"GEGA-002888": 202, "CMV-CA-TABLE-ACTION": 156, "CMV-CA-PLAYER-WAGER": 55,
                           "CMV-CA-FEES-BLACKJACK": 4, "CMV-TCP-LIMITS": 4}
    assert len(found) == 421


# -- conflicts only between versions in force at the same time ------------------------------------------------

def _bands(*fees):
    bounds = [("1", "100"), ("101", "200"), ("201", "300"), ("301", "400"), ("401", None)]
    return tuple(_tier(i, lo, hi, fee, f"${lo}-${hi}" if hi else f"${lo}+", f"${fee}")
                 for i, ((lo, hi), fee) in enumerate(zip(bounds, fees), start=1))


def _doc(code, version, effective_from, *fees, effective_to=None):
    return DocumentFacts(code, version, effective_from, "CA", None, code,
                         (Option(26, "total_table_action", "", "option 26", None, _bands(*fees)),),
                         effective_to=effective_to)


def _conflicts(docs):
    return {((f.subject["schedule"], f.subject["version"]), (f.subject["other"]["schedule"],
                                                             f.subject["other"]["version"]))
            for f in lint_consistency(docs)}


def test_two_versions_of_one_document_never_conflict():
    v1 = _doc("DOC-A", 1, None, "1", "2", "3", "4", "5")
    v2 = _doc("DOC-A", 2, datetime.date(2027, 1, 1), "1", "8", "3", "4", "5")
    assert _conflicts([v1, v2]) == set()
    assert in_force_periods([v1, v2]) == {("DOC-A", 1): (datetime.date.min, datetime.date(2027, 1, 1)),
                                          ("DOC-A", 2): (datetime.date(2027, 1, 1), datetime.date.max)}


def test_two_documents_in_force_on_the_same_day_still_conflict():
    a = _doc("DOC-A", 1, None, "1", "2", "3", "4", "5")
    b = _doc("DOC-B", 1, datetime.date(2026, 1, 1), "1", "8", "3", "4", "5")
    assert _conflicts([a, b]) == {(("DOC-A", 1), ("DOC-B", 1))}
    # DOC-B v2 (same fees as DOC-A) replaces v1 from 2027: v1 was in force with DOC-A in 2026, so they conflict.
    b2 = _doc("DOC-B", 2, datetime.date(2027, 1, 1), "1", "2", "3", "4", "5")
    assert _conflicts([a, b, b2]) == {(("DOC-A", 1), ("DOC-B", 1))}


def test_documents_never_in_force_together_do_not_conflict():
    a = _doc("DOC-A", 1, datetime.date(2027, 1, 1), "1", "2", "3", "4", "5")
    b = _doc("DOC-B", 1, None, "1", "8", "3", "4", "5")
    b2 = _doc("DOC-B", 2, datetime.date(2026, 6, 1), "9", "9", "9", "9", "9")  # replaces DOC-B v1 before DOC-A
    assert _conflicts([a, b, b2]) == set()
    ended = _doc("DOC-B", 1, None, "1", "8", "3", "4", "5", effective_to=datetime.date(2027, 1, 1))
    assert _conflicts([a, ended]) == set()  # ends the day DOC-A starts
    # A version superseded on the day it takes effect is never in force.
    same_day = [_doc("DOC-C", 1, datetime.date(2027, 1, 1), "1", "8", "3", "4", "5"),
                _doc("DOC-C", 2, datetime.date(2027, 1, 1), "1", "2", "3", "4", "5")]
    assert _conflicts([a, *same_day]) == set()


def test_a_draft_is_not_reported_as_conflicting_with_the_version_it_replaces(people):
    """A draft v2 of GEGA-002888 changing one cell of option 26: before this, lint compared it with v1 as if both
    were in force; a printed fee left at the old amount is the mismatch error."""
    from compliance.checking import schedule_findings
    from fees.models import FeeTier, ScheduleDocument

    document = ScheduleDocument.objects.get(code="GEGA-002888")
    v1 = document.versions.get(number=1)
    draft = document.new_draft(based_on=v1, reason="Option 26 row 2 to $8", user=people.compliance,
                               effective_from=datetime.date(2027, 6, 1))
    tier = FeeTier.objects.get(option__version=draft, option__number=26, order=2)
    tier.fee = D("8")  # printed fee left as it was
    tier.save()
    _, found = schedule_findings(draft)
    others = {(f.subject["other"]["schedule"], f.subject["other"]["version"])
              for f in found if f.rule == "lint.consistency"}
    assert ("GEGA-002888", 1) not in others
    (mismatch,) = [f for f in found if f.rule == "schedule.printed_fee_mismatch"]
    assert mismatch.severity == ERROR and mismatch.subject["option"] == 26 and mismatch.subject["row"] == 2
    assert mismatch.citation.startswith("GEGA-002888 option 26: ") and mismatch.citation.endswith(", row 2")
