"""Player-dealer rotation (Penal Code 330.11; the approved game rules): no one holds the player-dealer position
for more than two consecutive hands. The pure rule over a table's rounds, and the stored validation run."""

import datetime
from decimal import Decimal as D

import pytest
from django.core.management import call_command

from compliance import checking
from compliance.models import Finding as StoredFinding
from compliance.rules import ERROR, INFO, WARNING, Parameter, ParameterSet, TableRounds
from compliance.rules.rounds import rule_player_dealer_rotation
from fees import ledger
from tests.factories import make_posted_table

RULE = rule_player_dealer_rotation.code
PACIFIC = datetime.timezone(datetime.timedelta(hours=-8))
DAY = datetime.date(2026, 3, 3)
CITATION = ("Approved California game rules (Oliver v. County of Los Angeles (1998) 66 Cal.App.4th 1397); "
            "Penal Code 330.11")


def params(status="confirmed", value="2"):
    return ParameterSet([Parameter("CA", "player_dealer_max_consecutive_hands", D(value), "count",
                                   datetime.date(1998, 1, 1), status, CITATION)])


def table_rounds(dealers, jurisdiction="CA"):
    """Hands H-1, H-2, ... a minute apart, held by ``dealers`` in turn (None: not recorded)."""
    start = datetime.datetime(2026, 3, 3, 2, 0, tzinfo=PACIFIC)
    hands = tuple((f"H-{i}", start + datetime.timedelta(minutes=i), who, i) for i, who in enumerate(dealers, 1))
    return TableRounds(subject={"type": "table", "table": "7", "establishment": "casino-marysville"},
                       jurisdiction=jurisdiction, table="7", gaming_day=DAY, hands=hands)


CASES = [
    # (what, player-dealer of each hand, expected (severity, hands) findings)
    ("no rounds", [], []),
    ("one hand", ["p1"], []),
    ("two consecutive hands are allowed", ["p1", "p1", "p2", "p2", "p3", "p3"], []),
    ("three consecutive hands are an error naming them", ["p3", "p3", "p3"], [(ERROR, ["H-1", "H-2", "H-3"])]),
    ("a run in the middle", ["p1", "p2", "p2", "p2", "p2", "p1"], [(ERROR, ["H-2", "H-3", "H-4", "H-5"])]),
    ("a change then back to the same player resets the count", ["p1", "p1", "p2", "p1", "p1"], []),
    ("every run is reported", ["p1", "p1", "p1", "p2", "p3", "p3", "p3"],
     [(ERROR, ["H-1", "H-2", "H-3"]), (ERROR, ["H-5", "H-6", "H-7"])]),
    ("a missing player-dealer is info, not an error", ["p1", None, "p2"], [(INFO, ["H-2"])]),
    ("a missing player-dealer breaks a run (who held it is unknown)", ["p1", "p1", None, "p1", "p1"],
     [(INFO, ["H-3"])]),
    ("none recorded: one info for all rounds", [None, None, None], [(INFO, ["H-1", "H-2", "H-3"])]),
    ("errors and the info together", ["p1", "p1", "p1", None], [(ERROR, ["H-1", "H-2", "H-3"]), (INFO, ["H-4"])]),
]


@pytest.mark.parametrize("dealers, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rotation(dealers, expected):
    findings = rule_player_dealer_rotation(table_rounds(dealers), params())
    assert [(f.severity, f.subject["hands"]) for f in findings] == expected
    for f in findings:
        assert f.rule == RULE and f.citation == CITATION
        assert [p.as_dict()["value"] for p in f.parameters] == ["2"]
        assert f.subject["table"] == "7" and f.subject["gaming_day"] == "2026-03-03"


def test_the_error_message_says_who_which_hands_where_and_the_limit():
    (f,) = rule_player_dealer_rotation(table_rounds(["p3", "p3", "p3"]), params())
    assert f.message == ("p3 held the player-dealer position for 3 consecutive hands (H-1, H-2, H-3) at table 7 "
                         "on 2026-03-03; at most 2 are allowed.")
    assert f.subject["player_dealer"] == "p3"
    assert f.as_dict()["parameter_statuses"] == ["confirmed"]


def test_the_info_says_how_many_rounds_could_not_be_checked():
    (f,) = rule_player_dealer_rotation(table_rounds(["p1", None, None]), params())
    assert "could not be checked for 2 round(s) at table 7 on 2026-03-03" in f.message


def test_play_order_is_played_at_then_id_whatever_order_the_rounds_come_in():
    rounds = table_rounds(["p1", "p1", "p2", "p1"])
    same_time = rounds.hands[0][1]
    # H-3 (p2) was played at the same moment as H-1 but recorded later: p1, p2, p1, p1 in play order.
    hands = (rounds.hands[3], ("H-3", same_time, "p2", 3), rounds.hands[1], rounds.hands[0])
    shuffled = TableRounds(rounds.subject, "CA", "7", DAY, hands)
    assert rule_player_dealer_rotation(shuffled, params()) == []
    hands = (rounds.hands[3], ("H-3", same_time, "p2", 0), rounds.hands[1], rounds.hands[0])
    (f,) = rule_player_dealer_rotation(TableRounds(rounds.subject, "CA", "7", DAY, hands), params())
    assert f.subject["hands"] == ["H-1", "H-2", "H-4"]


def test_the_limit_is_the_parameter_in_force():
    assert rule_player_dealer_rotation(table_rounds(["p1"] * 3), params(value="3")) == []
    (f,) = rule_player_dealer_rotation(table_rounds(["p1"] * 4), params(value="3"))
    assert "at most 3 are allowed" in f.message


def test_an_unconfirmed_limit_is_said_and_reported_even_when_rotation_is_kept():
    (f,) = rule_player_dealer_rotation(table_rounds(["p1", "p1", "p2"]), params(status="check"))
    assert f.severity == INFO and "to be checked" in f.message
    (f,) = rule_player_dealer_rotation(table_rounds(["p1", "p1", "p1"]), params(status="check"))
    assert f.severity == ERROR and "to be checked" in f.message


def test_no_parameter_in_force_is_a_warning_and_other_jurisdictions_are_not_checked():
    (f,) = rule_player_dealer_rotation(table_rounds(["p1"] * 3), ParameterSet([]))
    assert f.severity == WARNING and "could not be checked" in f.message
    assert rule_player_dealer_rotation(table_rounds(["p1"] * 3, jurisdiction="WA"), params()) == []


# -- stored validation runs ----------------------------------------------------------------------------------

WAGERS = [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p1", "base": "20"},
          {"player": "p2", "base": "40", "backline": True}]  # $7.00 under GEGA-002888 option 43 (test_ledger)


@pytest.fixture
def table(db):
    return make_posted_table(label="R-7", effective_from=datetime.datetime(2026, 3, 1, 6, 0, tzinfo=PACIFIC))


def record(table, dealers):
    for i, who in enumerate(dealers, 1):
        facts = {"wagers": WAGERS, **({"player_dealer": who} if who else {})}
        round_, created = ledger.record_round(
            table=table, reference=f"H-{i}", played_at=datetime.datetime(2026, 3, 3, 2, i, tzinfo=PACIFIC),
            facts=facts)
        assert created and round_.facts == facts  # stored as given; player_dealer does not change the fee
        assert round_.expected_total == D("7.00")


def test_an_establishment_run_stores_a_rotation_error_for_the_table(table):
    record(table, ["p3", "p3", "p3"])
    run = checking.run_establishment(table.establishment, as_of=DAY)
    (stored,) = StoredFinding.objects.filter(run=run, rule=RULE)
    assert (stored.severity, stored.subject_type, stored.table, stored.establishment) == (
        ERROR, "table", table, table.establishment)
    assert stored.message == ("p3 held the player-dealer position for 3 consecutive hands (H-1, H-2, H-3) at "
                              "table R-7 on 2026-03-03; at most 2 are allowed.")
    assert "Penal Code 330.11" in stored.citation and "game rules" in stored.citation
    (parameter,) = stored.parameters
    assert (parameter["jurisdiction"], parameter["key"], D(parameter["value"]), parameter["status"]) == (
        "CA", "player_dealer_max_consecutive_hands", 2, "confirmed")
    assert stored.jurisdiction.code == "CA" and run.errors >= 1


def test_the_run_checks_only_the_as_of_gaming_day_and_reports_unrecorded_rounds(table):
    record(table, ["p1", None, "p2"])
    run = checking.run_establishment(table.establishment, as_of=DAY)
    (stored,) = StoredFinding.objects.filter(run=run, rule=RULE)
    assert stored.severity == INFO and stored.subject["hands"] == ["H-2"]
    later = checking.run_establishment(table.establishment, as_of=DAY + datetime.timedelta(days=1))
    assert not StoredFinding.objects.filter(run=later, rule=RULE).exists()


def test_check_compliance_stores_it_too(table):
    record(table, ["p3", "p3", "p3"])
    call_command("check_compliance", "--as-of", DAY.isoformat(), stdout=__import__("io").StringIO())
    assert StoredFinding.objects.filter(rule=RULE, severity=ERROR, table=table, run__kind="everything").count() == 1


def test_player_dealer_is_ignored_when_pricing(table):
    from fees.quotes import quoting

    schedule = quoting.schedule_snapshot("GEGA-002888", DAY)
    without = quoting.quote_facts(schedule, 43, {"wagers": WAGERS})
    with_dealer = quoting.quote_facts(schedule, 43, {"wagers": WAGERS, "player_dealer": "p3"})
    assert with_dealer.total == without.total == D("7.00")
