"""Months closing by themselves (issue 35, fees.months.nightly, fees.tasks.close_due_months): a month due is
reconciled to its last day and closed; one that cannot close stays open and says why in the inbox of its rooms'
compliance officers and the administrators (fees.months.held), until it closes. Partitions are PostgreSQL's; the
last tests run the beat's task on a real worker."""

import datetime
import io
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from cardroom import registry
from cardroom.exceptions import BadInput, StateConflict
from cardroom.inbox import awaiting
from cardroom.models import AuditLogEntry
from cardroom.registry import Exporter
from fees import tasks
from fees.models import ClosedMonth, Reconciliation, RoundOfPlay
from fees.months import held, nightly, partitions
from fees.months import services as months
from tests.factories import make_posted_table
from tests.fees.months.test_services import JULY, JUNE, LONG_AGO, collect, play, relation

pytestmark = pytest.mark.django_db
postgresql = pytest.mark.services  # partitions are PostgreSQL's (bin/test's second pass)

NOW = datetime.datetime(2024, 7, 11, 12, tzinfo=datetime.timezone.utc)  # June ended 11 days ago
TENTH = JUNE.replace(day=10)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def in_process(settings):
    """The bundle is built and tasks run in-process (a services test would otherwise queue them for a worker)."""
    from project.celery import app

    before = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def june(people, settings, tmp_path):
    """A round and its collection at Casino Marysville on 10 June 2024, not reconciled; a round in July. The archive
    goes to a folder of the test's own."""
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    settings.LEDGER_ARCHIVE_DIR = tmp_path / "archive"
    partitions.ensure_months(JUNE, JULY)
    table = make_posted_table(people.marysville, label="NIGHT-1", effective_from=LONG_AGO)
    play(table, "H-1", TENTH)
    collect(people.floor, table, "H-1:1", TENTH)
    play(table, "J-1", JULY.replace(day=2))
    return table


def june_of(outcome):
    (found,) = [m for m in outcome["months"] if m["month"] == "2024-06"]
    return found


def held_items(user):
    return [item.what for item in awaiting(user) if item.kind == held.KIND]


def test_a_month_is_due_its_days_after_its_last_day():
    assert not nightly.is_due(JUNE, datetime.date(2024, 7, 9), 10)
    assert nightly.is_due(JUNE, datetime.date(2024, 7, 10), 10)  # 30 June + 10 days
    assert nightly.is_due(datetime.date(2024, 2, 1), datetime.date(2024, 3, 1), 1)  # 29 February, a leap year


def test_on_sqlite_nothing_is_closed_and_the_result_says_so(people, monkeypatch):
    with monkeypatch.context() as patched:  # only this: undo() would take back the suite's own patches too
        patched.setattr(connection, "vendor", "sqlite")
        outcome = tasks.close_due_months.run(now=NOW.isoformat())
    assert outcome["months"] == [] and outcome["note"].startswith("Nothing closed: on sqlite the ledger is kept in "
                                                                  "plain tables")
    assert not AuditLogEntry.objects.filter(action__startswith="ledger.month_").exists()


@postgresql
@pytest.mark.usefixtures("in_process")
def test_a_month_due_is_reconciled_to_its_last_day_and_closed(people, june):
    assert not Reconciliation.objects.filter(table=june, gaming_day=TENTH).exists()
    before = {m["month"] for m in nightly.close_due_months(reconcile=tasks.reconcile_as_scheduler,
                                                           now=NOW - datetime.timedelta(days=2))["months"]}
    assert "2024-06" not in before and not ClosedMonth.objects.filter(month=JUNE).exists()  # not due on 9 July

    outcome = tasks.close_due_months.run(now=NOW.isoformat())
    assert june_of(outcome) == {"month": "2024-06", "establishments": ["casino-marysville"], "closed": True,
                                "reconciled": 1, "reasons": []}
    assert "2024-07" not in {m["month"] for m in outcome["months"]}
    (reconciled,) = Reconciliation.objects.filter(table=june, gaming_day=TENTH)
    assert reconciled.trigger == Reconciliation.Trigger.NIGHTLY
    closed = ClosedMonth.objects.get(month=JUNE)
    assert closed.archived and closed.closed_by == nightly.LABEL and closed.reopened_at is None
    assert sorted(p.name for p in Path(closed.archive_dir).iterdir()) == [
        "audit-casino-marysville-2024-06-01-to-2024-06-30.zip", "fees_collectionentry_2024_06.copy.gz",
        "fees_roundofplay_2024_06.copy.gz"]
    assert relation(partitions.month_name("fees_roundofplay", JUNE)) is None  # archived and dropped
    assert set(AuditLogEntry.objects.filter(action__startswith="ledger.month_").values_list("actor_label", flat=True)
               ) == {nightly.LABEL}
    assert "2024-06" not in {m["month"] for m in tasks.close_due_months.run(now=NOW.isoformat())["months"]}


@postgresql
@pytest.mark.usefixtures("in_process")
def test_a_month_that_cannot_close_stays_open_and_the_inbox_says_why_until_it_closes(people, june):
    def refusing(day, table_ids):
        raise BadInput("the day's schedule cannot be read")

    outcome = nightly.close_due_months(reconcile=refusing, now=NOW)
    why = "gaming day 2024-06-10 could not be reconciled (the day's schedule cannot be read)"
    assert june_of(outcome) == {"month": "2024-06", "establishments": ["casino-marysville"], "closed": False,
                                "reconciled": 0, "reasons": [why]}
    assert not ClosedMonth.objects.filter(month=JUNE).exists()
    assert relation(partitions.month_name("fees_roundofplay", JUNE)) == ("fees_roundofplay_2024_06",
                                                                          "fees_roundofplay")  # still attached
    said = [f"2024-06 stays open: {why}"]
    assert held_items(people.compliance) == held_items(people.admin) == said
    assert held_items(people.compliance_wa) == [] and held_items(people.floor) == []  # another room's; no officer
    (item,) = [i for i in awaiting(people.compliance, people.marysville) if i.kind == held.KIND]
    assert item.path == "/compliance/casino-marysville/variance/" and item.asked_by == nightly.LABEL
    assert item.kind_label == "Month left open"

    nightly.close_due_months(reconcile=refusing, now=NOW)  # the same reasons: not logged again
    assert AuditLogEntry.objects.filter(action=held.HELD).count() == 1
    # A reconciliation that stores nothing: the day is still not reconciled, and the inbox says so instead.
    outcome = nightly.close_due_months(reconcile=lambda day, table_ids: [], now=NOW)
    assert june_of(outcome)["reasons"] == ["not reconciled: table NIGHT-1 on 2024-06-10"]
    assert held_items(people.compliance) == ["2024-06 stays open: not reconciled: table NIGHT-1 on 2024-06-10"]

    assert june_of(nightly.close_due_months(reconcile=tasks.reconcile_as_scheduler, now=NOW))["closed"]
    assert held_items(people.compliance) == held_items(people.admin) == []  # closed: the item goes
    assert AuditLogEntry.objects.filter(action=held.HELD).count() == 2  # the record of why stays


@postgresql
@pytest.mark.usefixtures("in_process")
def test_a_late_entry_is_reconciled_before_the_month_closes(people, june):
    tasks.reconcile_as_scheduler(TENTH, [june.pk])
    collect(people.floor, june, "H-1:late", TENTH, amount="2.00")  # recorded after the day's reconciliation
    assert nightly.unreconciled(JUNE) == {(june.pk, TENTH)}
    out = io.StringIO()
    call_command("close_due_months", stdout=out)  # the owner's door: the task's work, now (July is over too)
    assert "2024-06 (casino-marysville): closed\n2024-07 (casino-marysville): closed\n" in out.getvalue()
    latest = Reconciliation.objects.filter(table=june, gaming_day=TENTH).order_by("-run_at", "-id").first()
    assert latest.entries == 2 and latest.trigger == Reconciliation.Trigger.NIGHTLY  # the late entry counted


@postgresql
@pytest.mark.usefixtures("in_process")
def test_a_failed_export_and_a_missing_partition_keep_months_open_saying_so(people, june, monkeypatch):
    play(june, "OLD-1", datetime.date(2001, 3, 3))  # no month of its own: in DEFAULT

    def failing(establishment, first, last, path, say):
        raise StateConflict("The export failed: the disk is full")

    monkeypatch.setitem(registry._ENTRIES[Exporter], months.MONTH_BUNDLE, Exporter(months.MONTH_BUNDLE, failing))
    outcome = nightly.close_due_months(reconcile=tasks.reconcile_as_scheduler, now=NOW)
    (old,) = [m for m in outcome["months"] if m["month"] == "2001-03"]
    assert not old["closed"] and old["reasons"][0].startswith(
        "fees_roundofplay has no partition of its own for 2001-03 (a partition missing)")
    assert june_of(outcome)["reasons"] == ["the close failed: The export failed: the disk is full"]
    assert not ClosedMonth.objects.exists()  # the close undid its freeze
    assert sorted(held_items(people.compliance)) == [
        f"2001-03 stays open: {'; '.join(old['reasons'])}",
        "2024-06 stays open: the close failed: The export failed: the disk is full"]


@postgresql
def test_a_database_role_that_does_not_own_the_ledger_says_it_cannot_close(people):
    role = f"cardroom_worker_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {role}")  # undone with the test's transaction
        assert nightly.closing_privilege_problem() is None  # the owner (here, a superuser) may
        cursor.execute(f"SET LOCAL ROLE {role}")
        try:
            problem = nightly.closing_privilege_problem()
        finally:
            cursor.execute("RESET ROLE")
    assert problem == (f"the database role {role} that ran the nightly close does not own the ledger's tables: run "
                       f"'manage.py close_due_months' as the owner (MIGRATE_DATABASE_URL), or close_month")


# -- the beat's task on a real worker ---------------------------------------------------------------------------

# A worker whose own sends (the export job the close waits for) go to the test's queue, on two threads: the close
# waits on one while the export runs on the other, as on a worker of the default two processes.
WORKER = """import sys
from project.celery import app
app.conf.task_default_queue = sys.argv[1]
app.worker_main(["worker", "--pool=threads", "--concurrency=2", "-Q", sys.argv[1], "--without-heartbeat",
                 "--without-gossip", "--without-mingle", "-l", "warning"])
"""


@pytest.fixture
def worker(reseed, tmp_path):
    assert not settings.CELERY_TASK_ALWAYS_EAGER, "CELERY_BROKER_URL must be set: this test needs Redis"
    url = urlsplit(os.environ["DATABASE_URL"])
    queue = f"cardroom-months-test-{uuid.uuid4().hex[:8]}"
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER, queue], cwd=ROOT,
        env={**os.environ, "DATABASE_URL": urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"])),
             "CONN_MAX_AGE": "0", "LEDGER_ARCHIVE_DIR": str(tmp_path / "archive"),
             "MEDIA_ROOT": str(tmp_path / "media"), "SIGNING_KEY_FILE": str(settings.SIGNING_KEY_FILE)})
    try:
        yield queue
    finally:
        process.terminate()
        process.wait(timeout=60)


def nightly_on(worker):
    return tasks.close_due_months.apply_async(kwargs={"now": NOW.isoformat()}, queue=worker).get(timeout=300)


@postgresql
@pytest.mark.django_db(transaction=True)
def test_the_beat_task_closes_a_month_due_on_a_real_worker(worker, people, tmp_path):
    partitions.ensure_months(JUNE, JULY)
    table = make_posted_table(people.marysville, label="NIGHT-W", effective_from=LONG_AGO)
    play(table, "W-1", TENTH)
    collect(people.floor, table, "W-1:1", TENTH)
    assert june_of(nightly_on(worker))["closed"]
    closed = ClosedMonth.objects.get(month=JUNE)
    assert closed.archived and closed.archive_dir == str((tmp_path / "archive" / "2024-06").resolve())
    assert (tmp_path / "archive" / "2024-06" / "audit-casino-marysville-2024-06-01-to-2024-06-30.zip").is_file()
    assert Reconciliation.objects.filter(table=table, gaming_day=TENTH, trigger="nightly").exists()
    # Its rows read back (this test's tables outlive it: a transactional test's end empties them only).
    months.reopen(JUNE)
    assert RoundOfPlay.objects.filter(table=table, gaming_day=TENTH).count() == 1


@postgresql
@pytest.mark.django_db(transaction=True)
def test_on_a_real_worker_a_day_that_cannot_be_reconciled_keeps_the_month_open_in_the_inbox(worker, people):
    partitions.ensure_months(JUNE, JULY)
    table = make_posted_table(people.marysville, label="NIGHT-X", effective_from=LONG_AGO)
    play(table, "X-1", TENTH)
    refuse = ("CREATE FUNCTION test_refuse_reconciliation() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
              "RAISE EXCEPTION 'reconciliations of 10 June are refused'; END $$; "
              "CREATE TRIGGER test_refuse_reconciliation BEFORE INSERT ON fees_reconciliation FOR EACH ROW "
              "WHEN (NEW.gaming_day = '2024-06-10') EXECUTE FUNCTION test_refuse_reconciliation()")
    with connection.cursor() as cursor:
        cursor.execute(refuse)
    try:
        month = june_of(nightly_on(worker))
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER test_refuse_reconciliation ON fees_reconciliation; "
                           "DROP FUNCTION test_refuse_reconciliation()")
    assert not month["closed"] and len(month["reasons"]) == 1
    assert month["reasons"][0].startswith("gaming day 2024-06-10 could not be reconciled (reconciliations of 10 "
                                          "June are refused")
    assert not ClosedMonth.objects.exists()
    assert held_items(people.compliance) == [f"2024-06 stays open: {month['reasons'][0]}"]
    assert june_of(nightly_on(worker))["closed"]  # reconciled the next night, and closed
    assert held_items(people.compliance) == []
    months.reopen(JUNE)  # as the test before: the tables outlive the test
