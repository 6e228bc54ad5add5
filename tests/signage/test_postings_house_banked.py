"""Postings and signs for house-banked games without a collection schedule (issue 12): One for the Money in
Washington posts its approved rules version, decks, a paytable per bonus bet and its aggregate payout limit; the
rules of WAC 230-15-140, -040, -490 and the approval check them; the sign and the verification page show them.

Sources: the WSGC letter of 2014-02-18 and its enclosure (seed 003: rule 1 'six or eight decks', rule 11
paytables lines 92-96 and 130-134), regulations.md (WAC 230-15-140 $300 from 2009 / $400 from 2023-07-20;
WAC 230-15-040 side wagers <= $5; WAC 230-15-490 50 to 1)."""

import datetime
import io
import re
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from cardroom.exceptions import BadInput
from cardroom.models import (
    ApprovalCondition,
    AuditLogEntry,
    Game,
    GameRules,
    Paytable,
    PaytableLine,
    Source,
    Table,
)
from compliance.rules import ERROR, WARNING, Parameter, ParameterSet, check_posting
from compliance.rules.postings import (
    GameFacts,
    HouseBankedFacts,
    PayoutLine,
    PaytableFacts,
    PostingFacts,
    RulesFacts,
    rule_payouts_to_one,
    rule_wa_aggregate_payout_limit,
)
from fees import ledger
from fees.models import (
    PostingBonusLimit,
    PostingImmutableError,
    ScheduleDocument,
    TablePosting,
)
from signage import content, printing
from signage.postings import PrintBlocked
from tests.factories import make_table, post_as

from tests import signs

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
MARCH_1 = datetime.datetime(2026, 3, 1, 8, 0, tzinfo=LA)
CARD_BONUS_RULES = "3 Card Bonus (WSGC enclosure 2014)"
PERFECT_MATCH_RULES = "Perfect Match (WSGC enclosure 2014)"
ENCLOSURE_3CB_1 = [("Straight Flush", "40 to 1"), ("3 of a Kind", "30 to 1"), ("Straight", "10 to 1"),
                   ("Flush", "5 to 1")]                                      # seed 003 lines 92-96, column 1
ENCLOSURE_PM_1 = [("Suited 3-of-a-Kind", "100 to 1"), ("3 of a Kind", "30 to 1"),
                  ("Player's Card Matches a Dealer's Card", "10 to 1"),
                  ("Player's Card Ties a Dealer's Card", "3 to 1")]          # seed 003 lines 130-134


@pytest.fixture
def ofm():
    return Game.objects.get(slug="one-for-the-money")


@pytest.fixture
def table(people, ofm):
    """A One for the Money table at the test WA card room, which has met the WSGC letter's internal-controls
    condition (otherwise every posting of the game there is an error: cardroom.conditions)."""
    from cardroom.conditions import record_condition_met

    condition = ApprovalCondition.objects.get(approval__key="one-for-the-money-wa-2014", order=2)
    record_condition_met(people.compliance_wa, condition=condition, establishment=people.wa_room, met_on="2014-03-01",
                         evidence="TEST-IC-1")
    return make_table(people.wa_room, label="OFM-1", seats=6, game=ofm)


def body(tbl, **changes):
    data = {"table": tbl.pk, "rules": CARD_BONUS_RULES, "decks": 6, "min_wager": "10", "max_wager": "300",
            "effective_from": MARCH_1.isoformat(),
            "bonus_limits": [{"bet": "3 Card Bonus", "minimum": "1", "maximum": "5", "paytable": "WSGC 1"}]}
    data.update(changes)
    return data


def post(table, user, **changes):
    """Post through the service, a minute before the posting takes effect: the posting and its run."""
    return post_as(user, body(table, **changes))


def paytable(game, bet, number):
    return Paytable.objects.get(game=game, bet=bet, number=number)


def findings(run, rule=None):
    rows = run.findings.order_by("id")
    return [f for f in rows if rule is None or f.rule == rule]


# -- model -----------------------------------------------------------------------------------------------------------


def test_a_posting_is_a_schedule_option_or_house_banked_never_both_nor_neither(table, ofm):
    rules = GameRules.objects.get(game=ofm, version=CARD_BONUS_RULES)
    schedule = ScheduleDocument.objects.get(code="GEGA-002888")
    common = {"table": table, "game": ofm, "min_wager": D(10), "max_wager": D(300), "seats": 6}
    cases = [
        {},                                                                    # neither
        {"schedule": schedule, "option_number": 1, "rules": rules, "decks": 6},  # both
        {"rules": rules},                                                      # house-banked without its decks
        {"schedule": schedule},                                                # a schedule without its option
        {"schedule": schedule, "option_number": 1, "aggregate_payout_limit": D(500)},
    ]
    for i, case in enumerate(cases):
        with pytest.raises(IntegrityError), transaction.atomic():
            TablePosting.objects.create(**common, **case, effective_from=MARCH_1 + datetime.timedelta(hours=i))
    posting = TablePosting.objects.create(**common, rules=rules, decks=6, effective_from=MARCH_1)
    assert posting.house_banked and posting.currency == "USD"


def test_a_house_banked_posting_and_its_bonus_limits_are_never_edited(table, people):
    posting, _ = post(table, people.compliance_wa)
    posting.decks = 8
    with pytest.raises(PostingImmutableError):
        posting.save()
    limit = posting.bonus_limits.get()
    limit.maximum = D(100)
    with pytest.raises(PostingImmutableError):
        limit.save()
    with pytest.raises(PostingImmutableError):
        PostingBonusLimit.objects.filter(pk=limit.pk).update(maximum=D(100))
    assert posting.bonus_limits.get().maximum == D(5)


# -- service and API -------------------------------------------------------------------------------------------------


def test_posting_a_washington_table_through_the_api(api, people, table, ofm, clock):
    clock(MARCH_1 - datetime.timedelta(hours=1))
    api.force_login(people.compliance_wa)
    answer = api.post("/api/v1/postings/", body(table, rules=PERFECT_MATCH_RULES, aggregate_payout_limit="1000",
                                                bonus_limits=[{"bet": "Perfect Match", "minimum": "1",
                                                               "maximum": "5", "paytable": "WSGC 1"}]),
                      format="json")
    assert answer.status_code == 201, answer.json()
    data = answer.json()
    assert (data["schedule"], data["option_number"], data["rules"], data["decks"]) == (
        None, None, PERFECT_MATCH_RULES, 6)
    assert (data["min_wager"], data["max_wager"], data["aggregate_payout_limit"], data["currency"]) == (
        "10.00", "300.00", "1000.00", "USD")
    pm = paytable(ofm, "Perfect Match", "WSGC 1")
    assert data["bonus_limits"] == [{"bet": "Perfect Match", "minimum": "1.00", "maximum": "5.00",
                                     "paytable": {"id": pm.pk, "bet": "Perfect Match", "number": "WSGC 1"}}]
    posting = TablePosting.objects.get(pk=data["id"])
    assert posting.rules.source.key == "wsgc-letter-2014" and posting.bonus_limits.get().paytable == pm
    # Validated as it was saved: no error.
    assert data["validation"]["errors"] == 0, data["validation"]
    assert data["printing"]["blocked"] is False
    entry = AuditLogEntry.objects.get(action="posting.create", object_id=str(posting.pk))
    assert entry.data["rules"] == PERFECT_MATCH_RULES and entry.data["paytables"] == {"Perfect Match": "WSGC 1"}
    assert entry.data["aggregate_payout_limit"] == "1000.00" and "schedule" not in entry.data
    # What the table showed, by table and moment, is the same posting.
    shown = api.get(f"/api/v1/tables/{table.pk}/posting", {"at": MARCH_1.isoformat()}).json()
    assert shown["id"] == posting.pk and shown["rules"] == PERFECT_MATCH_RULES


def bet(bet_name="3 Card Bonus", **changes):
    return [{"bet": bet_name, "minimum": "1", "maximum": "5", "paytable": "WSGC 1", **changes}]


@pytest.mark.parametrize("changes, message", [
    ({"bonus_limits": bet(paytable="WSGC 9")}, "bonus_limits[0].paytable: One for the Money has no 3 Card Bonus "
                                               "paytable 'WSGC 9'; its 3 Card Bonus paytables:"),
    ({"bonus_limits": bet(paytable="PAYTABLE:pm")}, "pays the Perfect Match bet, not 3 Card Bonus"),
    ({"bonus_limits": bet(paytable="PAYTABLE:fortune")}, "not One for the Money's"),
    ({"bonus_limits": bet(paytable=10**30)}, "bonus_limits[0].paytable must be an id from 1 to"),
    ({"bonus_limits": bet("Pair Plus")}, "One for the Money has no paytable for a bet called 'Pair Plus'"),
    ({"bonus_limits": bet(paytable=None)}, "bonus_limits[0].paytable is required"),
    ({"decks": 7}, "decks: One for the Money is dealt from 6 or 8 decks, as its rules say; not 7."),
    ({"decks": "6"}, "decks (the number of decks dealt) must be a whole number"),
    ({"decks": None}, "decks (the number of decks dealt) must be a whole number, not None"),
    ({"rules": "3 Card Bonus"}, "rules: One for the Money has no rules version '3 Card Bonus'; its versions:"),
    ({"rules": ["x"]}, "rules (a rules version of One for the Money, or its id) must be a string"),
    ({"rules": "RULES:other-game"}, "not One for the Money's"),
    ({"rules": None}, "One for the Money is house-banked: post its collection schedule (schedule and option) or"),
    ({"schedule": "GEGA-002888", "option": 1}, "rules, decks: only a house-banked posting without a collection "
                                               "schedule names these"),
    ({"option": 3}, "option was given without a schedule"),
    ({"aggregate_payout_limit": "-1"}, "aggregate_payout_limit"),
    ({"min_wager": "400"}, "min_wager 400.00 is above max_wager 300.00"),
])
def test_bad_house_banked_postings_are_400_and_save_nothing(api, people, table, ofm, clock, changes, message):
    clock(MARCH_1 - datetime.timedelta(hours=1))
    api.force_login(people.compliance_wa)
    pm = paytable(ofm, "Perfect Match", "WSGC 1")
    fortune = Paytable.objects.filter(game__slug="fortune-pai-gow-poker").first()
    other_rules = GameRules.objects.exclude(game=ofm).first()
    swap = {"PAYTABLE:pm": pm.pk, "PAYTABLE:fortune": fortune.pk, "RULES:other-game": other_rules.pk}

    def resolve(value):  # ids are only known once the seed is loaded
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [resolve(v) for v in value]
        return swap.get(value, value) if isinstance(value, str) else value

    changes = resolve(changes)
    before = (TablePosting.objects.count(), PostingBonusLimit.objects.count(), AuditLogEntry.objects.count())
    answer = api.post("/api/v1/postings/", body(table, **changes), format="json")
    assert answer.status_code == 400, answer.content
    assert message in str(answer.json()), answer.json()
    assert (TablePosting.objects.count(), PostingBonusLimit.objects.count(), AuditLogEntry.objects.count()) == before


def test_a_schedule_posting_names_no_paytable_and_a_game_with_fees_needs_its_schedule(api, people, clock):
    clock(MARCH_1 - datetime.timedelta(hours=1))
    api.force_login(people.floor)
    table = Table.objects.create(establishment=people.marysville, label="7", seats=7,
                                 game=Game.objects.get(slug="face-up-pai-gow-poker"))
    data = {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5", "max_wager": "500",
            "effective_from": MARCH_1.isoformat(),
            "bonus_limits": [{"bet": "Fortune Bonus Bet", "maximum": "25", "paytable": "FPG-04"}]}
    answer = api.post("/api/v1/postings/", data, format="json")
    assert answer.status_code == 400 and "only a house-banked posting" in str(answer.json())
    answer = api.post("/api/v1/postings/", {**data, "schedule": None, "option": None, "rules": "x", "decks": 1},
                      format="json")
    assert answer.status_code == 400 and "schedule is required" in str(answer.json())
    assert not TablePosting.objects.filter(table=table).exists()


# -- validation: the rules over a stored posting ---------------------------------------------------------------------


def test_above_the_washington_limit_in_force_on_the_posting_day_is_an_error(table, people, clock):
    # WAC 230-15-140: $300 from 2009 (secondary), $400 from 2023-07-20 (to be checked).
    early = datetime.datetime(2015, 6, 1, 10, 0, tzinfo=LA)
    clock(early - datetime.timedelta(minutes=1))
    posting, run = post(table, people.compliance_wa, max_wager="350", effective_from=early.isoformat())
    (error,) = [f for f in findings(run, "wa.max_single_wager") if f.severity == ERROR]
    assert "$350" in error.message and "$300 (in force from 2009-01-01" in error.message
    assert error.citation == "WAC 230-15-140" and error.parameters[0]["effective_from"] == "2009-01-01"
    clock(early + datetime.timedelta(hours=1))
    with pytest.raises(PrintBlocked):
        printing.print_signs([posting], "letter", user=people.compliance_wa, channel="api")
    # The print gate judges the table as it stands on the day of the print (compliance.judgement): once $400 is in
    # force, the same sign prints.
    clock(MARCH_1 - datetime.timedelta(days=1))
    printing.print_signs([posting], "letter", user=people.compliance_wa, channel="api")
    # The same table later, once $400 is (to be checked) in force: within it, an info finding only.
    _, run = post(table, people.compliance_wa, max_wager="350", effective_from=MARCH_1.isoformat())
    assert run.errors == 0
    (info,) = findings(run, "wa.max_single_wager")
    assert info.severity == "info" and "$400 (in force from 2023-07-20, to be checked)" in info.message


def test_a_bonus_bet_above_the_side_wager_limit_is_an_error(table, people):
    _, run = post(table, people.compliance_wa, bonus_limits=bet(maximum="25"))
    (error,) = [f for f in findings(run, "wa.wagers_per_hand") if f.severity == ERROR]
    assert "3 Card Bonus side wager goes up to $25" in error.message and "WAC 230-15-040" in error.citation


def test_the_approved_rules_and_paytables_pass(table, people):
    _, run = post(table, people.compliance_wa)
    assert run.errors == 0, [(f.rule, f.message) for f in findings(run)]
    assert not findings(run, "approval.rules_and_paytables") and not findings(run, "paytable.payouts_to_one")


def test_an_unapproved_paytable_is_an_error(table, people, ofm):
    # A 3 Card Bonus paytable the WSGC letter's enclosure does not print: 50 to 1 for a straight flush.
    source = Source.objects.get(key="ofm-paytables")
    odd = Paytable.objects.create(game=ofm, bet="3 Card Bonus", number="X-50", currency="USD", source=source,
                                  citation="test paytable")
    for order, (hand, odds) in enumerate([("Straight Flush", 50), ("3 of a Kind", 30), ("Straight", 10),
                                          ("Flush", 5)], start=1):
        PaytableLine.objects.create(paytable=odd, order=order, hand=hand, printed=f"{odds} to 1", odds_to=odds,
                                    odds_for=1)
    _, run = post(table, people.compliance_wa, bonus_limits=bet(paytable="X-50"))
    (error,) = findings(run, "approval.rules_and_paytables")
    assert error.severity == ERROR
    assert "3 Card Bonus paytable X-50, which the approval (WSGC letter of 2014-02-18" in error.message
    assert ("approved 3 Card Bonus paytables: 3 Card Bonus paytable WSGC 1, 3 Card Bonus paytable WSGC 2"
            in error.message)
    assert "Washington State Gambling Commission letter of 18 February 2014" in error.citation
    assert "WAC 230-15-035" in error.citation


def test_the_same_payouts_printed_elsewhere_pass_with_an_info(table, people):
    # ofm-paytables '1' (SHFL's clean sheet) pays exactly as the enclosure's paytable 1.
    _, run = post(table, people.compliance_wa, bonus_limits=bet(paytable="1"))
    assert run.errors == 0
    (info,) = findings(run, "approval.rules_and_paytables")
    assert info.severity == "info" and "pays exactly as its approved 3 Card Bonus paytable WSGC 1" in info.message


def test_an_ocr_paytable_is_unapproved_and_unreadable(table, people):
    # ofm-rules 'Paytable 1' prints the Flush payout 'S5tol' (OCR): it cannot go on a sign.
    _, run = post(table, people.compliance_wa, bonus_limits=bet(paytable="Paytable 1"))
    assert findings(run, "approval.rules_and_paytables")[0].severity == ERROR
    (unreadable,) = findings(run, "paytable.payouts_to_one")
    assert unreadable.severity == ERROR and "'S5tol', which cannot be read as odds" in unreadable.message


def test_unapproved_rules_version_is_an_error(table, people):
    _, run = post(table, people.compliance_wa, rules="3 Card Bonus (ofm-rules)")
    (error,) = findings(run, "approval.rules_and_paytables")
    assert error.severity == ERROR
    assert "'3 Card Bonus (ofm-rules)'" in error.message and f"'{CARD_BONUS_RULES}'" in error.message


def test_an_aggregate_limit_below_the_least_allowed_is_an_error(table, people):
    perfect_match = bet("Perfect Match")
    _, run = post(table, people.compliance_wa, rules=PERFECT_MATCH_RULES, bonus_limits=perfect_match,
                  aggregate_payout_limit="249.99")
    (error,) = findings(run, "wa.aggregate_payout_limit")
    assert error.severity == ERROR and error.citation == "WAC 230-15-490 (WSR 21-11-057)"
    assert "$249.99 is below the least allowed, $250: the Perfect Match maximum of $5 x 50 to 1" in error.message


# -- validation: the pure rules --------------------------------------------------------------------------------------

PARAMS = ParameterSet([Parameter("WA", "aggregate_payout_odds", D(50), "to 1", datetime.date(2021, 6, 14),
                                 "confirmed", "WAC 230-15-490 (WSR 21-11-057)")])
RULES = RulesFacts("one-for-the-money", "v", "title", "wsgc-letter-2014", "cite")


def table_of(*rows):
    return PaytableFacts("one-for-the-money", "Perfect Match", "T", "src", "paytable cite",
                         tuple(PayoutLine(hand, printed, D(to) if to else None, D(1) if to else None)
                               for hand, printed, to in rows))


PM = table_of(("Suited", "100 to 1", 100), ("Kind", "30 to 1", 30), ("Match", "10 to 1", 10), ("Tie", "3 to 1", 3))
CB = table_of(("Straight Flush", "40 to 1", 40), ("Flush", "5 to 1", 5))


def facts(paytable, limit, maximum="5", day=datetime.date(2026, 3, 1)):
    return PostingFacts(
        subject={"type": "posting"}, jurisdiction="WA", as_of=day,
        game=GameFacts("one-for-the-money", "One for the Money", None, "house_banked"),
        min_wager=D(10), max_wager=D(300), bonus_limits=(("Perfect Match", D(maximum)),),
        house_banked=HouseBankedFacts(RULES, 6, (("Perfect Match", paytable),), limit),
    )


@pytest.mark.parametrize("paytable, limit, maximum, expected", [
    (PM, None, "5", []),                                  # a limit is allowed, not required
    (PM, D("250"), "5", []),                              # $5 x 50 (100 to 1 counted up to 50 to 1)
    (PM, D("249.99"), "5", [ERROR]),
    (PM, D("2000"), "50", [ERROR]),                       # $50 x 50 = $2,500
    (CB, D("1000"), "5", [ERROR]),                        # top odds 40 to 1: no aggregate limit may be set
    (CB, None, "5", []),
])
def test_aggregate_payout_limit_rule(paytable, limit, maximum, expected):
    found = rule_wa_aggregate_payout_limit(facts(paytable, limit, maximum), PARAMS)
    assert [f.severity for f in found] == expected
    for f in found:
        assert f.citation == "WAC 230-15-490 (WSR 21-11-057)" and f.parameters[0].key == "aggregate_payout_odds"
    if paytable is CB and limit is not None:
        assert "highest odds paid here are 40 to 1" in found[0].message


def test_aggregate_payout_limit_before_the_parameter_is_in_force_cannot_be_checked():
    found = [f for f in check_posting(facts(PM, D(250), day=datetime.date(2020, 1, 1)), PARAMS)
             if f.rule == "wa.aggregate_payout_limit"]
    assert [f.severity for f in found] == [WARNING] and "could not be checked" in found[0].message


@pytest.mark.parametrize("printed, to, expected", [
    ("5 to 1", 5, []),
    ("5 for 1", 5, [ERROR]),
    ("5 For 1", 5, [ERROR]),
    ("5to 1", 5, []),
    ("S5tol", None, [ERROR]),                             # unreadable (OCR)
])
def test_payouts_are_to_1_never_for_1(printed, to, expected):
    found = rule_payouts_to_one(facts(table_of(("Flush", printed, to)), None), PARAMS)
    assert [f.severity for f in found] == expected
    if expected:
        assert "WAC 230-15-060" in found[0].citation and "paytable cite" in found[0].citation


def test_a_for_1_payout_in_a_stored_posting_is_an_error(table, people, ofm):
    source = Source.objects.get(key="ofm-paytables")
    for_one = Paytable.objects.create(game=ofm, bet="3 Card Bonus", number="F-1", currency="USD", source=source,
                                      citation="test paytable printed 'for 1'")
    PaytableLine.objects.create(paytable=for_one, order=1, hand="Flush", printed="6 for 1", odds_to=5, odds_for=1)
    _, run = post(table, people.compliance_wa, bonus_limits=bet(paytable="F-1"))
    (error,) = findings(run, "paytable.payouts_to_one")
    assert error.severity == ERROR and "'6 for 1'" in error.message and "never 'for 1'" in error.message


# -- the compliance check API ----------------------------------------------------------------------------------------

CHECK = {"jurisdiction": "WA", "game": "one-for-the-money", "rules": CARD_BONUS_RULES, "decks": 6,
         "min_wager": "10", "max_wager": "300", "bonus_limits": {"3 Card Bonus": "5"},
         "paytables": {"3 Card Bonus": "WSGC 1"}, "as_of": "2026-03-01"}


def check(api, people, user=None, **changes):
    api.force_login(user or people.compliance_wa)
    return api.post("/api/v1/compliance/check", {**CHECK, **changes}, format="json")


def test_check_api_reads_a_house_banked_posting(api, people):
    answer = check(api, people)
    assert answer.status_code == 200, answer.json()
    data = answer.json()
    assert data["ok"] is True and data["rule_pack"] == "WA", data
    assert data["findings"][0]["subject"]["rules"] == CARD_BONUS_RULES
    # Above the limit in force in 2015, and a paytable of the approval's own printing swapped for OCR.
    data = check(api, people, as_of="2015-06-01", max_wager="350",
                 paytables={"3 Card Bonus": "Paytable 1"}).json()
    errors = {f["rule"] for f in data["findings"] if f["severity"] == ERROR}
    assert data["ok"] is False
    assert {"wa.max_single_wager", "approval.rules_and_paytables", "paytable.payouts_to_one"} <= errors
    data = check(api, people, rules=PERFECT_MATCH_RULES, bonus_limits={"Perfect Match": "5"},
                 paytables={"Perfect Match": "WSGC 1"}, aggregate_payout_limit="100").json()
    assert [f["severity"] for f in data["findings"] if f["rule"] == "wa.aggregate_payout_limit"] == [ERROR]


@pytest.mark.parametrize("changes, message", [
    ({"decks": 7}, "dealt from 6 or 8 decks"),
    ({"paytables": {"3 Card Bonus": "WSGC 7"}}, "has no 3 Card Bonus paytable 'WSGC 7'"),
    ({"paytables": {"Perfect Match": "WSGC 1"}}, "paytables.Perfect Match: no bonus_limits entry"),
    ({"paytables": {}}, "missing: 3 Card Bonus"),
    ({"paytables": ["WSGC 1"]}, "paytables must be an object"),
    ({"schedule": "GEGA-002888", "option": 1}, "give them or schedule and option, not both"),
    ({"rules": None}, "give rules too"),
    ({"game": "three-card-poker"}, "Three Card Poker is not house-banked"),
    ({"aggregate_payout_limit": "lots"}, "aggregate_payout_limit"),
])
def test_check_api_bad_house_banked_input_is_400(api, people, changes, message):
    # A California schedule is visible to an administrator, not to the WA room's compliance officer.
    answer = check(api, people, user=people.admin if "schedule" in changes else None, **changes)
    assert answer.status_code == 400 and message in str(answer.json()), answer.json()


# -- the sign and the verification page ------------------------------------------------------------------------------


def test_the_sign_shows_approval_limits_paytable_aggregate_limit_and_notices(api, people, table, tmp_path):
    posting, run = post(table, people.compliance_wa, rules=PERFECT_MATCH_RULES, bonus_limits=bet("Perfect Match"),
                        aggregate_payout_limit="1000")
    assert run.errors == 0
    api.force_login(people.compliance_wa)
    for layout, faces in (("letter", 1), ("tent", 2)):
        answer = api.get(f"/api/v1/postings/{posting.pk}/signage.pdf/?layout={layout}")
        assert answer.status_code == 200
        pdf = answer.content
        assert signs.pages(pdf) == 1 and all(embedded for _, embedded in signs.fonts(pdf))
        flat = " ".join(signs.text(pdf, layout=False).split())
        text = signs.text(pdf)
        assert flat.count("One for the Money") == faces
        assert "Game registration" not in flat and "not stated" not in flat  # none on record: nothing said
        assert "Approved: WSGC letter of 2014-02-18 (Licensing Operations Division, Tina Griffin) re: One For The " \
               "Money." in flat
        assert "Perfect Match version" in flat and "Dealt from 6 decks." in flat
        assert "MINIMUM ANTE" in flat and "MAXIMUM ANTE" in flat
        assert signs.row("Ante", "$10.00").search(text) and "$300.00" in text
        assert re.search(r"Perfect Match[ \t]+\$1\.00[ \t]+\$5\.00", text) and "paytable WSGC 1" in flat
        for hand, paid in ENCLOSURE_PM_1:
            assert hand in flat and paid in flat, hand
        assert signs.row("Hand", "Pays (odds)").search(text)  # the payouts' one unit, named
        assert "for 1" not in flat
        assert "Aggregate payout limit" in flat and "$1,000.00: the most paid in total on odds-based prizes" in flat
        assert "including all fees to play; this posting names no fee to play (WAC 230-15-060)" in flat
        assert 'Payouts are stated "to 1": at 100 to 1 a winning $1.00 Perfect Match bet wins $100.00' in flat
        assert f"The rules of play are available on request: version {PERFECT_MATCH_RULES} (WAC 230-15-060)." in flat
        assert "Collection schedule" not in flat and "Collection fees" not in flat
        assert f"House-banked game, no collection fee schedule: rules version {PERFECT_MATCH_RULES}, 6 decks." in flat
        (png,) = signs.png_pages(pdf, tmp_path / layout)
        assert signs.qr_codes(png) == [content.verify_url(posting)] * faces


def test_the_sign_of_3_card_bonus_prints_only_its_own_paytable(people, table):
    posting, _ = post(table, people.compliance_wa)
    sign = content.sign_for(posting)
    assert [(p.bet, p.paytable, list(p.lines)) for p in sign.payouts] == [("3 Card Bonus", "WSGC 1", ENCLOSURE_3CB_1)]
    assert sign.house_banked.aggregate_payout_limit is None
    rendered, (record,) = printing.print_signs([posting], "letter", user=people.compliance_wa, channel="api")
    flat = " ".join(signs.text(rendered.pdf, layout=False).split())
    assert "Aggregate payout limit" not in flat and "9 to 1" not in flat  # paytable WSGC 2 is not in use
    assert record.number == 1


def test_the_verification_page_shows_the_same_facts(client, people, table):
    posting, _ = post(table, people.compliance_wa, rules=PERFECT_MATCH_RULES, bonus_limits=bet("Perfect Match"),
                      aggregate_payout_limit="1000")
    page = client.get(f"/verify/{posting.public_token}/")
    assert page.status_code == 200
    html = " ".join(page.content.decode().split())
    assert "Approved: WSGC letter of 2014-02-18" in html and "Dealt from 6 decks" in html
    assert "Ante: minimum $10.00 &middot; maximum $300.00" in html
    assert "<td>Perfect Match</td><td>WSGC 1</td><td class=\"amount\">$1.00</td><td class=\"amount\">$5.00</td>" in html
    assert "$1,000.00: the most paid in total on odds-based prizes" in html
    for hand, paid in ENCLOSURE_PM_1:
        assert hand.replace("'", "&#x27;") in html and paid in html
    assert "Collection fees" not in html and "including all fees to play" in html
    # Superseded by a schedule-less posting: the page names its rules, not a schedule.
    later, _ = post(table, people.compliance_wa, effective_from=(MARCH_1 + datetime.timedelta(days=1)).isoformat())
    html = " ".join(client.get(f"/verify/{posting.public_token}/").content.decode().split())
    assert f"rules version {CARD_BONUS_RULES}, 6 decks, limits $10.00 to $300.00" in html


def test_the_ledger_refuses_rounds_at_a_house_banked_table(people, table):
    post(table, people.compliance_wa)
    with pytest.raises(BadInput, match="house-banked game without a collection schedule"):
        ledger.record_round(table=table, reference="H-1", played_at=MARCH_1 + datetime.timedelta(hours=1),
                            facts={"wagers": []})


# -- the demo --------------------------------------------------------------------------------------------------------


@pytest.mark.long
def test_the_demo_posts_the_washington_tables_and_every_demo_table_prints_a_sign():
    call_command("load_demo", force=True, days=0, stdout=io.StringIO(), stderr=io.StringIO())
    tables = list(Table.objects.filter(establishment__slug__in=["casino-marysville", "demo-evergreen-card-room"]))
    wa = [t for t in tables if t.establishment.slug == "demo-evergreen-card-room"]
    assert sorted(t.label for t in wa) == ["OFM-1", "OFM-2"]
    from demo.management.commands.load_demo import DEMO_POSTED_FROM

    in_force = printing.postings_in_force(tables, DEMO_POSTED_FROM)
    assert set(in_force) == {t.pk for t in tables}
    # Every demo table prints: without errors, or (Casino Marysville's tables whose options all break a rule)
    # under the demo compliance officer's override.
    rendered, records = printing.print_signs(list(in_force.values()), "letter", label="test", channel="api")
    assert rendered.pages == len(tables) == len(records)
    for table in wa:
        posting = in_force[table.pk]
        assert posting.house_banked and posting.decks == 6 and posting.rules.source.key == "wsgc-letter-2014"
        assert (posting.min_wager, posting.max_wager) == (D(10), D(300))
        (limit,) = posting.bonus_limits.all()
        assert limit.paytable.source.key == "wsgc-letter-2014" and limit.maximum == D(5)
        run = posting.validation_runs.get()
        assert run.errors == 0, [(f.rule, f.message) for f in run.findings.all()]
        assert not posting.print_overrides.exists()
    ofm_2 = in_force[next(t.pk for t in wa if t.label == "OFM-2")]
    assert ofm_2.aggregate_payout_limit == D(1000) and ofm_2.rules.version == PERFECT_MATCH_RULES
    flat = " ".join(signs.text(printing.render.render([content.sign_for(ofm_2)]).pdf, layout=False).split())
    assert "paytable WSGC 1" in flat and "$1,000.00" in flat


def test_the_role_pages_show_a_house_banked_posting_by_its_rules_decks_and_paytables(client, table, people):
    """The floor, the table's page, the compliance officer's postings and the regulator's room show what a
    house-banked posting is (rules, decks, paytable, aggregate limit), never "None option"."""
    posting, _ = post(table, people.compliance_wa, aggregate_payout_limit="1000", bonus_limits=[
        {"bet": "Perfect Match", "minimum": "1", "maximum": "5", "paytable": "WSGC 1"}],
        rules="Perfect Match (WSGC enclosure 2014)")
    rules = f"Rules {posting.rules.version}, 6 decks"
    client.force_login(people.compliance_wa)
    pages = {
        "floor": client.get(f"/floor/{people.wa_room.slug}/"),
        "table": client.get(f"/floor/{people.wa_room.slug}/tables/{table.pk}/"),
        "postings": client.get(f"/compliance/{people.wa_room.slug}/postings/"),
    }
    client.force_login(people.regulator_wa)
    pages["regulator"] = client.get(f"/regulator/{people.wa_room.slug}/")
    for name, answer in pages.items():
        html = answer.content.decode()
        assert answer.status_code == 200, name
        assert "None option" not in html and "None decks" not in html, name
        assert rules in html and "$300.00" in html, name
    table_page = pages["table"].content.decode()
    assert "Aggregate payout limit" in table_page and "$1,000.00" in table_page
    assert "WSGC letter of 2014-02-18" in table_page
    assert "<td>WSGC 1</td>" in table_page and "100 to 1" in table_page  # the paytable in use, with its odds
    assert "Collection fees" not in table_page
