"""One judgement of a table now (issue 33): the print gate, the postings page, the floor and a validation run judge
the table as it stands (compliance.judgement), not the check stored when it was posted; and what comes into force
within 30 days is said, dated, before the day it blocks a sign.

Through the doors the people used: a compliance officer withdraws an approval condition on the approvals page and the
floor's print POST is refused naming it; a version published to take effect in ten days that breaks a table's limits
is said by validation and the floor, whose "coming into force" note says the sign will be blocked that day."""

import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from cardroom.conditions import record_condition_met
from cardroom.models import ApprovalCondition, ConditionFulfilment, Game
from compliance.judgement import judge
from compliance.models import ValidationRun
from fees.models import FeeOption
from signage.models import SignPrint
from tests.factories import make_draft, make_table, post_as, post_fields
from tests.publishing import publish

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
MARCH_1 = datetime.datetime(2027, 3, 1, 8, 0, tzinfo=LA)
INTERNAL_CONTROLS = 2  # the WSGC letter's prerequisite for commercial card rooms


def floor_cell(html, table):
    """The Findings cell of ``table``'s row on the floor page."""
    row = html.split(f'aria-label="Include table {table.label}"', 1)[1].split("</tr>", 1)[0]
    return row.split('data-label="Findings">', 1)[1].split("</td>", 1)[0]


# -- a condition withdrawn ---------------------------------------------------------------------------------------------


@pytest.fixture
def wa_table(people, clock):
    """A One for the Money table at the WA room, its internal-controls condition met and its posting clean."""
    condition = ApprovalCondition.objects.get(approval__key="one-for-the-money-wa-2014", order=INTERNAL_CONTROLS)
    record_condition_met(people.compliance_wa, condition=condition, establishment=people.wa_room, met_on="2014-03-01",
                         evidence="TEST-IC-1")
    table = make_table(people.wa_room, label="OFM-1", seats=6, game=Game.objects.get(slug="one-for-the-money"))
    clock(MARCH_1 - datetime.timedelta(minutes=2))
    posting, run = post_as(people.compliance_wa, {
        "table": table.pk, "rules": "3 Card Bonus (WSGC enclosure 2014)", "decks": 6, "min_wager": "10",
        "max_wager": "300", "effective_from": MARCH_1.isoformat(),
        "bonus_limits": [{"bet": "3 Card Bonus", "minimum": "1", "maximum": "5", "paytable": "WSGC 1"}]})
    assert run.errors == 0, list(run.findings.values_list("message", flat=True))
    clock(MARCH_1 + datetime.timedelta(days=2))
    return table, posting, condition


def test_a_condition_withdrawn_blocks_the_sign_on_every_door_at_once(client, people, wa_table,
                                                                      django_capture_on_commit_callbacks):
    table, posting, condition = wa_table
    room = people.wa_room
    client.force_login(people.compliance_wa)
    sign = reverse("console:floor-sign", args=[room.slug, table.pk])
    assert client.post(sign, {"layout": "letter"})["Content-Type"] == "application/pdf"  # clean: it prints
    record = ConditionFulfilment.objects.get(condition=condition, establishment=room)
    home = reverse("console:compliance", args=[room.slug])
    assert client.get(home).context["counts"]["error"]["open"] == 0
    with django_capture_on_commit_callbacks(execute=True):
        withdrawn = client.post(reverse("console:compliance-condition-withdraw", args=[room.slug, record.pk]),
                                {f"w{record.pk}-reason": "Not met after all: the controls were never approved."})
    assert withdrawn.status_code == 302
    # The inbox says it at once: the room was checked again when the record was withdrawn, by the one who did it.
    # One problem (found at the table's posting and at the table by the room's run), counted once (issue 42).
    assert client.get(home).context["counts"]["error"]["open"] == 1
    rechecked = ValidationRun.objects.filter(kind=ValidationRun.Kind.ESTABLISHMENT, establishment=room).latest("id")
    assert rechecked.started_by == people.compliance_wa
    assert rechecked.findings.filter(posting=posting, rule="approval.conditions_outstanding").exists()
    prints = SignPrint.objects.filter(posting=posting).count()

    # The floor's print POST: refused, saying which condition, and nothing printed.
    refused = client.post(sign, {"layout": "letter"}, follow=True)
    assert refused.redirect_chain and refused["Content-Type"].startswith("text/html")
    said = " ".join(str(m) for m in refused.context["messages"])
    assert "may not be printed" in said and "condition 2" in said and "internal controls" in said
    assert SignPrint.objects.filter(posting=posting).count() == prints
    page = refused.content.decode()
    assert 'id="findings-now"' in page and "its sign may not be printed" in page

    # The postings page: blocked, not "may print", and why.
    postings = client.get(reverse("console:compliance-postings", args=[room.slug]))
    (row,) = [r for r in postings.context["rows"] if r["posting"].pk == posting.pk]
    assert row["blocked"] and "may print" not in row["cells"]["printing"]
    assert "condition 2" in row["cells"]["check"] and "1 error" in row["cells"]["check"]
    assert "may not be offered at Test WA Room on" in row["cells"]["check"]  # the room's name, not its slug

    # The floor: the error shown at the table.
    floor = client.get(reverse("console:floor", args=[room.slug])).content.decode()
    assert '<span class="badge error">1 error</span>' in floor_cell(floor, table)

    # And the same from the judgement and from a fresh validation run.
    judgement = judge(table)
    assert judgement.blocked and judgement.errors[0].rule == "approval.conditions_outstanding"
    client.post(reverse("console:compliance-run", args=[room.slug]))
    run = ValidationRun.objects.filter(kind=ValidationRun.Kind.ESTABLISHMENT).latest("id")
    assert run.findings.filter(posting=posting, severity="error", rule="approval.conditions_outstanding").exists()


# -- a version coming into force ---------------------------------------------------------------------------------------


@pytest.fixture
def coming(people, clock):
    """Table 7 at Casino Marysville posts GEGA-002888 option 1 at $5 to $500 on 1 March 2027; on 3 March a version
    is published that narrows option 1's highest table maximum to $400 from 13 March: ten days ahead."""
    table = make_table(people.marysville)
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    posting, run = post_fields(table, effective_from=MARCH_1)
    assert run.errors == 0
    clock(MARCH_1 + datetime.timedelta(days=2))
    draft = make_draft(user=people.compliance, effective_from=datetime.date(2027, 3, 13))
    option = FeeOption.objects.get(version=draft, number=1)
    option.max_wager_to = Decimal(400)
    option.save()
    publish(draft, requested_by=people.compliance, approved_by=people.admin)
    return table, posting


def test_a_version_breaking_the_limits_in_ten_days_is_said_dated_before_it_blocks(client, people, coming):
    table, posting = coming
    room = people.marysville
    judgement = judge(table)
    assert not judgement.blocked and judgement.blocked_from == datetime.date(2027, 3, 13)
    (dated,) = [d for d in judgement.upcoming if d.blocks]
    assert dated.rule == "ca.wager_limits" and "$500" in dated.finding.message and "$400" in dated.finding.message

    client.force_login(people.floor)
    floor = client.get(reverse("console:floor", args=[room.slug])).content.decode()
    cell = floor_cell(floor, table)
    assert "from 13 March 2027" in cell and "$400" in cell
    note = floor.split('id="upcoming"', 1)[1].split("</section>", 1)[0]
    assert "takes effect on 2027-03-13" in note
    assert "reprint the sign" not in note
    assert "table 7's sign will be blocked that day, not reprinted" in note
    # Today the sign is fine: it prints.
    answer = client.post(reverse("console:floor-sign", args=[room.slug, table.pk]), {"layout": "letter"})
    assert answer["Content-Type"] == "application/pdf"

    client.force_login(people.compliance)
    client.post(reverse("console:compliance-run", args=[room.slug]))
    run = ValidationRun.objects.filter(kind=ValidationRun.Kind.ESTABLISHMENT).latest("id")
    (recorded,) = run.findings.filter(posting=posting, rule="ca.wager_limits")
    assert recorded.severity == "warning" and recorded.subject["from"] == "2027-03-13"
    assert recorded.message.startswith("From 13 March 2027, an error that will block the table's sign: ")
    inbox = client.get(reverse("console:compliance-findings", args=[room.slug])).content.decode()
    assert "From 13 March 2027, an error that will block the table&#x27;s sign" in inbox
    postings = client.get(reverse("console:compliance-postings", args=[room.slug]))
    (row,) = [r for r in postings.context["rows"] if r["posting"].pk == posting.pk]
    assert not row["blocked"] and "blocked from 13 March 2027" in row["cells"]["printing"]


def test_a_version_beyond_30_days_or_after_the_tables_next_posting_is_not_said(people, coming, clock):
    table, posting = coming
    far = make_draft(user=people.compliance, effective_from=datetime.date(2027, 4, 20))  # 48 days ahead
    option = FeeOption.objects.get(version=far, number=1)
    option.max_wager_to = Decimal(300)
    option.save()
    publish(far, requested_by=people.compliance, approved_by=people.admin)
    assert [d.day for d in judge(table).upcoming if d.blocks] == [datetime.date(2027, 3, 13)]
    # The table posts limits that fit from the day the version takes effect: nothing is coming for this sign.
    post_fields(table, effective_from=datetime.datetime(2027, 3, 13, 0, 0, tzinfo=LA), high=400)
    assert judge(table).upcoming == ()


# -- page speed ----------------------------------------------------------------------------------------------------


def test_the_floor_and_the_postings_page_judge_any_number_of_tables_in_the_same_queries(client, people, coming, clock):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def counted(address):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(address).status_code == 200
        return len(captured)

    client.force_login(people.admin)
    pages = [reverse("console:floor", args=["casino-marysville"]),
             reverse("console:compliance-postings", args=["casino-marysville"])]
    for address in pages:
        client.get(address)  # the session and the like, once
    few = [counted(address) for address in pages]
    for n in range(6):
        table = make_table(people.marysville, label=f"J-{n}")
        post_fields(table, effective_from=MARCH_1 + datetime.timedelta(days=2, minutes=1 + n), high=500 + n)
    clock(MARCH_1 + datetime.timedelta(days=2, minutes=10))  # all of them in force, each judged with its dated problem
    floor = client.get(pages[0])
    assert sum(1 for row in floor.context["rows"] if row["judgement"] and row["judgement"].upcoming) == 7
    assert [counted(address) for address in pages] == few
