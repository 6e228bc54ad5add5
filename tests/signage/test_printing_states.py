"""A sign goes stale when anything on it changes (issue 25): a reading of its option approved or withdrawn after the
last print, a posting change (a new posting: never printed), a schedule version coming into force; and the
versions still to come, with the tables they will touch."""

import datetime
from zoneinfo import ZoneInfo

import pytest

from fees.models import ScheduleDocument, ScheduleVersion
from fees.schedules import services
from signage import printing
from signage.models import SignPrint
from tests.factories import change_a_fee, make_table, post_as
from tests.publishing import publish

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
MARCH_1 = datetime.datetime(2027, 3, 1, 8, 0, tzinfo=LA)
DECIDED = datetime.date(2027, 2, 20)
CITATION = "Test: Bureau answer of 2027-02-20"
TAKEN = "Taken before the cards are dealt, as the provisions say."


def post(people, label, option=1, at=MARCH_1):
    table = make_table(people.marysville, label=label)
    data = {"table": table.pk, "schedule": "GEGA-002888", "option": option, "min_wager": "5", "max_wager": "500",
            "effective_from": at.isoformat()}
    return post_as(people.floor, data)[0]


def print_now(postings, people):
    printing.print_signs(postings, "letter", user=people.floor, channel=SignPrint.Channel.API)


def read(people, option=1, tier=1, field="taken", value="before_deal"):
    """A reading of GEGA-002888 v1 proposed by a compliance officer and (a shared schedule) approved by an
    administrator, at the clock's moment."""
    version = ScheduleVersion.objects.get(document__code="GEGA-002888", number=1)
    reading = services.propose_interpretation(people.compliance, version=version, option=option, tier=tier, field=field,
                                              value=value, statement=TAKEN, decided_on=DECIDED, citation=CITATION)
    return services.approve_interpretation(people.admin, reading=reading, reason="Agreed with the Bureau's answer.")


def states(postings, at):
    found = printing.sign_states(postings, at, LA)
    return [(found[p.pk]["reprint"], found[p.pk]["changed"], found[p.pk]["why"]) for p in postings]


def test_a_reading_approved_after_the_print_makes_the_sign_stale_until_it_is_reprinted(people, clock):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    on_1, on_2 = post(people, "7"), post(people, "8", option=2)
    clock(MARCH_1 + datetime.timedelta(hours=1))
    print_now([on_1, on_2], people)
    assert states([on_1, on_2], MARCH_1 + datetime.timedelta(hours=1)) == [(False, False, ""), (False, False, "")]

    clock(MARCH_1 + datetime.timedelta(days=1))  # 2 March, 08:00 in the room
    version = ScheduleVersion.objects.get(document__code="GEGA-002888", number=1)
    proposed = services.propose_interpretation(people.compliance, version=version, option=1, tier=1, field="taken",
                                               value="before_deal", statement=TAKEN, decided_on=DECIDED,
                                               citation=CITATION)
    now = MARCH_1 + datetime.timedelta(days=1)
    assert states([on_1], now) == [(False, False, "")]  # a proposal is on no sign
    services.approve_interpretation(people.admin, reading=proposed, reason="Agreed with the Bureau's answer.")
    # Only option 1's sign shows the reading; option 2's is untouched.
    assert states([on_1, on_2], now) == [
        (True, True, "a reading approved on 2027-03-02 adds a notice: reprint it"), (False, False, "")]
    # Asked about a moment before the approval, the sign was still current.
    assert states([on_1], now - datetime.timedelta(minutes=1)) == [(False, False, "")]

    clock(now + datetime.timedelta(hours=1))
    print_now([on_1], people)
    assert states([on_1], now + datetime.timedelta(hours=1)) == [(False, False, "")]


def test_a_reading_approved_before_the_print_is_on_the_sign_already(people, clock):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    posting = post(people, "7")
    clock(MARCH_1 + datetime.timedelta(hours=1))
    read(people)
    clock(MARCH_1 + datetime.timedelta(hours=2))
    print_now([posting], people)
    assert states([posting], MARCH_1 + datetime.timedelta(hours=3)) == [(False, False, "")]


def test_withdrawing_an_approved_reading_takes_its_notice_off_but_a_withdrawn_proposal_changes_nothing(people,
                                                                                                       clock):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    posting = post(people, "7")
    clock(MARCH_1)
    approved = read(people)
    version = approved.version
    proposal = services.propose_interpretation(people.compliance, version=version, option=1, tier=2, field="taken",
                                               value="before_deal", statement=TAKEN, decided_on=DECIDED,
                                               citation=CITATION)
    clock(MARCH_1 + datetime.timedelta(hours=1))
    print_now([posting], people)
    # 3 March 23:30 in the room is 4 March in UTC: the reason gives the room's day.
    late = datetime.datetime(2027, 3, 3, 23, 30, tzinfo=LA)
    clock(late)
    services.withdraw_interpretation(people.compliance, reading=proposal, reason="Not needed after all.")
    assert states([posting], late) == [(False, False, "")]
    services.withdraw_interpretation(people.compliance, reading=approved, reason="The Bureau changed its answer.")
    assert states([posting], late) == [
        (True, True, "a reading withdrawn on 2027-03-03 takes a notice off: reprint it")]
    clock(late + datetime.timedelta(minutes=5))
    read(people, tier=3)
    assert states([posting], late + datetime.timedelta(minutes=5)) == [
        (True, True, "2 readings approved or withdrawn since the last print (the latest on 2027-03-03) change its "
                     "notices: reprint it")]


def test_a_posting_change_is_a_new_posting_never_printed(people, clock):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    first = post(people, "7")
    clock(MARCH_1 + datetime.timedelta(hours=1))
    print_now([first], people)
    later = post_as(people.floor, {"table": first.table_id, "schedule": "GEGA-002888", "option": 1,
                                   "min_wager": "10", "max_wager": "500",
                                   "effective_from": (MARCH_1 + datetime.timedelta(hours=2)).isoformat()})[0]
    assert later.pk != first.pk
    (posting,) = printing.postings_in_force([first.table], MARCH_1 + datetime.timedelta(hours=3)).values()
    assert posting == later
    assert states([later], MARCH_1 + datetime.timedelta(hours=3)) == [(True, False, "never printed")]


def test_a_version_in_force_wins_over_a_reading_and_upcoming_versions_name_their_tables(people, clock):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    postings = [post(people, label) for label in ("10", "7")]
    clock(MARCH_1 + datetime.timedelta(hours=1))
    print_now(postings, people)
    document = ScheduleDocument.objects.get(code="GEGA-002888")
    draft = document.new_draft(based_on=document.versions.get(number=1), user=people.compliance,
                               reason="Bureau letter: new rates", effective_from=datetime.date(2027, 3, 10))
    change_a_fee(draft)
    publish(draft, requested_by=people.compliance, approved_by=people.admin)
    rows = [type("Row", (), {"schedule_id": p.schedule_id, "table__label": p.table.label}) for p in postings]
    assert [(v.number, v.effective_from, labels) for v, labels in
            printing.upcoming_versions(rows, MARCH_1 + datetime.timedelta(hours=2))] == [
        (2, datetime.date(2027, 3, 10), ["7", "10"])]
    clock(datetime.datetime(2027, 3, 10, 9, 0, tzinfo=LA))
    read(people)  # a reading of version 1, no longer in force: on no sign
    at = datetime.datetime(2027, 3, 10, 9, 0, tzinfo=LA)
    assert printing.upcoming_versions(rows, at) == []
    assert states(postings[:1], at) == [
        (True, False, "printed under version 1; version 2 in force since 2027-03-10: reprint it")]
