"""Issue 33: recorded days reach the variance page without the nightly reconciliation. An import and the bulk
API reconcile the table-days they touched when they finish; a compliance officer reconciles a period from the
variance page (a job: at once in the embedded default); a day of a closed month is skipped and said. Hands
collected above the schedule are a finding (``ledger.collected_above_schedule``) and shown on the page apart from
the short ones. An interpretation's audit words say the field's and the choice's names."""

import datetime
import io
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from cardroom.access import Scope
from cardroom.models import AuditLogEntry, Establishment, Job
from cardroom.permissions import SYSTEM
from compliance import services as compliance_services
from compliance.rules.base import Parameter, ParameterSet
from compliance.rules.variance import OverCollected, rule_collected_above_schedule
from console.audit_words import describe
from demo import files as demo_files
from fees import imports, ledger
from fees.ledger import services
from fees.models import ClosedMonth, CollectionEntry, Reconciliation, RoundOfPlay
from fees.variance import selectors as variance
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db
from tests.fees.variance.test_variance import FULL, LA, PAYERS, ROUND  # noqa: E402 (the variance tests' round and fees)
DAY_1, DAY_2 = datetime.date(2026, 6, 1), datetime.date(2026, 6, 2)
PAGE = "/compliance/casino-marysville/variance/"
REGULATOR_PAGE = "/regulator/casino-marysville/variance/"


def text(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def play(table, day, reference, user, hour=15):
    played = datetime.datetime.combine(day, datetime.time(hour), tzinfo=LA)
    ledger.record_round(table=table, reference=reference, played_at=played, facts=ROUND, gaming_day=day, user=user)
    return played


def entries(table, day, reference, paid, played):
    return [{"idempotency_key": f"{table.label}-{day}-{reference}-{i}", "table": table.pk,
             "gaming_day": day.isoformat(), "reference": reference, "collected_at": played.isoformat(),
             "payer": payer, "player": player, "fee_kind": payer, "amount": amount}
            for i, ((payer, player), amount) in enumerate(zip(PAYERS, paid))]


# -- an import ----------------------------------------------------------------------------------------------------


@pytest.mark.long
def test_importing_the_demo_day_shows_it_on_the_variance_page_without_the_nightly_run(
        client, django_capture_on_commit_callbacks):
    call_command("load_demo", force=True, days=0, stdout=io.StringIO(), stderr=io.StringIO())
    room = Establishment.objects.get(slug=demo_files.ROOM)
    officer = get_user_model().objects.get(username="compliance")
    content = (Path(demo_files.__file__).parent / f"{demo_files.NAME}.csv").read_bytes()
    received = imports.receive_upload(officer, establishment=room,
                                      upload=SimpleUploadedFile("day.csv", content, content_type="text/csv"))
    imports.save_mapping(officer, establishment=room, mapping=imports.guess_mapping(received.header),
                         header=received.header)
    with django_capture_on_commit_callbacks(execute=True):
        job = imports.start_import(officer, record_import=received)
    job.refresh_from_db()
    assert job.status == "done", job.error
    day = demo_files.DAY
    played = set(RoundOfPlay.objects.filter(gaming_day=day).values_list("table_id", flat=True))
    assert played
    reconciled = Reconciliation.objects.filter(gaming_day=day)
    assert set(reconciled.values_list("table_id", flat=True)) >= played
    assert set(reconciled.values_list("trigger", "run_by")) == {("on_demand", officer.pk)}  # no nightly run
    assert job.result["reconciliation"] == {"days": 1, "reconciled": reconciled.count(),
                                            "with_variance": reconciled.filter(status="variance").count(),
                                            "skipped": []}
    hands = len(set(RoundOfPlay.objects.filter(gaming_day=day).values_list("table_id", "reference"))
                | set(CollectionEntry.objects.filter(gaming_day=day).values_list("table_id", "reference")))
    client.force_login(officer)
    shown = text(client.get(f"{PAGE}?day_from={day}&day_to={day}"))
    assert f"of {hands} hands over 1 gaming day with play" in shown
    # The import's page says so and leads to the variance page.
    page = client.get(f"/compliance/casino-marysville/imports/{received.uuid}/").content.decode()
    assert 'id="reconciled-count"' in page and 'id="import-variance"' in page


# -- the bulk API -------------------------------------------------------------------------------------------------


def test_a_bulk_post_reconciles_the_days_it_touched_once_committed(api, people,
                                                                   django_capture_on_commit_callbacks):
    table = make_posted_table(people.marysville, label="B-1")
    rows = []
    for day in (DAY_1, DAY_2):
        rows += entries(table, day, "A", FULL, play(table, day, "A", people.floor))
    api.force_authenticate(people.floor)
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = api.post("/api/v1/ledger/entries/bulk/", {"entries": rows}, format="json")
    assert response.status_code == 201, response.content
    assert len(queued) == 1  # the reconciliation waits for the commit
    found = Reconciliation.objects.filter(table=table)
    assert sorted(found.values_list("gaming_day", "status", "run_by")) == [
        (DAY_1, "balanced", people.floor.pk), (DAY_2, "balanced", people.floor.pk)]
    assert variance.report(people.marysville, DAY_1, DAY_2).total.hands == 2
    with django_capture_on_commit_callbacks(execute=True):  # the same batch again: nothing new, nothing to redo
        again = api.post("/api/v1/ledger/entries/bulk/", {"entries": rows}, format="json")
    assert again.status_code == 200 and found.count() == 2


def test_a_day_of_a_closed_month_is_skipped_and_said_the_others_reconciled(people, tmp_path):
    table = make_posted_table(people.marysville, label="B-2")
    play(table, DAY_1, "A", people.floor)
    play(table, datetime.date(2026, 7, 1), "A", people.floor)
    closed = ClosedMonth.objects.create(month=datetime.date(2026, 6, 1), archive_dir=str(tmp_path), closed_by="test",
                                        closed_at=datetime.datetime(2026, 7, 2, tzinfo=datetime.UTC))
    closed.establishments.set([people.marysville])
    done = services.reconcile_table_days(people.floor,
                                         table_days={(table.pk, DAY_1), (table.pk, datetime.date(2026, 7, 1))})
    assert [r.gaming_day for r in done.stored] == [datetime.date(2026, 7, 1)]
    assert done.skipped == ["Not reconciled: 2026-06-01 falls in June 2026, a closed month: its rounds and entries "
                            "are archived and read-only. An operator attaches it again with `manage.py "
                            "reopen_month --month 2026-06`."]


# -- the variance page's form ------------------------------------------------------------------------------------


@pytest.fixture
def unreconciled(people):
    """Two days of play at table R-1, recorded and never reconciled; the second day's hand $1 short."""
    table = make_posted_table(people.marysville, label="R-1")
    for day, paid in ((DAY_1, FULL), (DAY_2, ("2.00", "1.00", "3.00"))):
        ledger.record_entries(entries(table, day, "A", paid, play(table, day, "A", people.floor)),
                              scope=Scope(people.floor), user=people.floor)
    assert not Reconciliation.objects.exists()
    return table


def test_a_compliance_officer_reconciles_a_period_and_sees_its_days(client, people, unreconciled,
                                                                     django_capture_on_commit_callbacks):
    """Inside the test's transaction the job is queued when the page answers (as with a worker): the answer is
    its progress page, which leads to the days once it is done."""
    client.force_login(people.compliance)
    shown = client.get(f"{PAGE}?day_from={DAY_1}&day_to={DAY_2}")
    assert 'id="reconcile-form"' in shown.content.decode()
    assert "of 0 hands over 0 gaming days" in text(shown)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(PAGE, {"reconcile_from": DAY_1.isoformat(), "reconcile_to": DAY_2.isoformat()})
    job = Job.objects.get(kind="reconciliation")
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.uuid}/"
    progress = client.get(response["Location"])
    assert progress.status_code == 200
    assert "2 table-days reconciled over 2 gaming days with play, 1 with a variance." in text(progress)
    link = f"{PAGE}?day_from={DAY_1}&amp;day_to={DAY_2}"
    assert f'href="{link}" id="job-variance"' in progress.content.decode()
    page = client.get(link.replace("&amp;", "&"))
    assert page.status_code == 200
    assert "1 hand short, $1.00 short , of 2 hands over 2 gaming days with play" in text(page)
    assert sorted(Reconciliation.objects.values_list("gaming_day", "run_by")) == [
        (DAY_1, people.compliance.pk), (DAY_2, people.compliance.pk)]
    job = Job.objects.get(kind="reconciliation")
    assert job.status == "done" and job.result["reconciled"] == 2
    logged = AuditLogEntry.objects.get(action="ledger.reconcile_requested")
    assert logged.actor == people.compliance and logged.establishment == people.marysville
    assert describe(logged.action, logged.data) == (
        "Asked for every table with play from 2026-06-01 to 2026-06-02 to be reconciled again.")


@pytest.mark.django_db(transaction=True)
def test_in_the_embedded_default_the_answer_is_the_page_with_the_days(client, reseed, people):
    """No transaction around the request (as served): the job runs as it is committed, before the page answers."""
    table = make_posted_table(people.marysville, label="R-2")
    ledger.record_entries(entries(table, DAY_1, "A", FULL, play(table, DAY_1, "A", people.floor)),
                          scope=Scope(people.floor), user=people.floor)
    client.force_login(people.compliance)
    response = client.post(PAGE, {"reconcile_from": DAY_1.isoformat(), "reconcile_to": DAY_1.isoformat()},
                           follow=True)
    assert response.redirect_chain == [(f"{PAGE}?day_from={DAY_1}&day_to={DAY_1}", 302)]
    shown = text(response)
    assert "Reconciled 2026-06-01 to 2026-06-01: 1 table-day over 1 gaming day with play." in shown
    assert "0 hands short, $0.00 short , of 1 hand over 1 gaming day with play" in shown


@pytest.mark.parametrize("period, message", [
    (("2026-06-02", "2026-06-01"), "The period ends (2026-06-01) before it begins (2026-06-02): give the earlier "
                                   "day first."),
    (("2026-01-01", "2026-06-02"), "Reconcile at most 92 gaming days at a time; 2026-01-01 to 2026-06-02 is 153."),
    (("2026-06-01", ""), "To: This field is required."),
])
def test_a_bad_period_is_a_400_with_a_sentence_and_changes_nothing(client, people, unreconciled, period, message):
    client.force_login(people.compliance)
    response = client.post(PAGE, {"reconcile_from": period[0], "reconcile_to": period[1]})
    assert response.status_code == 400
    assert message in text(response).replace("&#x27;", "'")
    assert not Reconciliation.objects.exists() and not Job.objects.exists()
    assert not AuditLogEntry.objects.filter(action="ledger.reconcile_requested").exists()


def test_only_who_records_the_ledger_on_a_compliance_page_sees_the_form(client, people, unreconciled):
    client.force_login(people.floor)  # holds fees.record_ledger, but the compliance pages are not theirs
    assert client.get(PAGE).status_code == 403
    assert client.post(PAGE, {"reconcile_from": "2026-06-01", "reconcile_to": "2026-06-02"}).status_code == 403
    client.force_login(people.regulator_ca)  # reads the page, reconciles nothing
    page = client.get(f"{REGULATOR_PAGE}?day_from={DAY_1}&day_to={DAY_2}")
    assert page.status_code == 200 and 'id="reconcile-form"' not in page.content.decode()
    assert not Reconciliation.objects.exists() and not Job.objects.exists()


# -- collected above the schedule ---------------------------------------------------------------------------------


def test_hands_collected_above_the_schedule_are_an_error_finding_and_shown_apart(client, people):
    table = make_posted_table(people.marysville, label="O-1")
    over = ("4.00", "1.50", "3.00")  # $8.50 against $7.00
    for reference, paid in (("A", over), ("B", over), ("C", ("2.00", "1.00", "3.00"))):
        ledger.record_entries(entries(table, DAY_1, reference, paid, play(table, DAY_1, reference, people.floor)),
                              scope=Scope(people.floor), user=people.floor)
    services.reconcile(SYSTEM, day_from=DAY_1)
    schedule = RoundOfPlay.objects.filter(table=table).values_list("schedule_code", "schedule_version").first()
    run = compliance_services.run_establishment(SYSTEM, establishment=people.marysville, as_of=DAY_2)
    found = run.findings.get(rule="ledger.collected_above_schedule")
    assert found.severity == "error" and found.table == table
    assert found.subject == {"type": "table", "table": "O-1", "establishment": "casino-marysville",
                             "gaming_day": "2026-06-01"}
    assert found.message.startswith(
        f"2 hands at table O-1 on gaming day 2026-06-01 were collected above what the approved schedule "
        f"({schedule[0]} version {schedule[1]}) sets: $3.00 over in all.")
    assert f"{schedule[0]} version {schedule[1]}" in found.citation and "Penal Code 337j" in found.citation
    assert found.parameters[0]["key"] == "over_collection_tolerance"
    assert not run.findings.filter(rule="ledger.collected_above_schedule", severity="warning").exists()
    client.force_login(people.compliance)
    shown = text(client.get(f"{PAGE}?day_from={DAY_1}&day_to={DAY_1}"))
    assert "1 hand short, $1.00 short , of 3 hands over 1 gaming day with play; 2 hands collected over the " \
           "schedule, $3.00 over ." in shown
    assert f"2026-06-01 Table O-1 2 $3.00 {schedule[0]} version {schedule[1]}" in shown


def test_the_rule_looks_back_thirty_days_and_allows_the_jurisdiction_s_tolerance():
    day = datetime.date
    params = ParameterSet([Parameter("CA", "over_collection_tolerance", Decimal("0"), "USD", day(1998, 1, 1),
                                     "confirmed", "Penal Code 337j")])
    facts = OverCollected("casino-marysville", "CA", day(2026, 6, 30), "7", day(2026, 6, 1), 1, Decimal("0.50"),
                          (("GEGA-002888", 1),))
    (found,) = rule_collected_above_schedule(facts, params)
    assert found.severity == "error" and found.message.startswith(
        "1 hand at table 7 on gaming day 2026-06-01 was collected above what the approved schedule (GEGA-002888 "
        "version 1) sets: $0.50 over in all.")
    assert found.citation == "Approved collection-rate schedule GEGA-002888 version 1; Penal Code 337j"
    assert rule_collected_above_schedule(OverCollected("casino-marysville", "CA", day(2026, 7, 1), "7",
                                                       day(2026, 6, 1), 1, Decimal("0.50")), params) == []
    lenient = ParameterSet([Parameter("CA", "over_collection_tolerance", Decimal("1"), "USD", day(1998, 1, 1),
                                      "confirmed", "room policy")])
    assert rule_collected_above_schedule(facts, lenient) == []


# -- an interpretation's words -------------------------------------------------------------------------------------


def test_an_interpretation_reads_with_its_field_s_and_choice_s_names_in_the_audit_log():
    words = describe("schedule.interpretation_proposed", {"code": "CMV-CA-PLAYER-WAGER", "version": 2, "option": 3,
                                                         "tier": 1, "field": "measure", "value": "player_wager"})
    assert words == ("Proposed a reading of CMV-CA-PLAYER-WAGER version 2 option 3 tier 1: what it is measured on "
                     "read as “The player's total base wager”.")
    assert "read as “open (no bound)”" in describe("schedule.interpretation_approved",
                                                   {"field": "upper", "value": ""})
