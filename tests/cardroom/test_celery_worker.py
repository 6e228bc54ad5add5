"""A real Celery worker on Redis runs a task against the test database (bin/test's second pass and CI)."""

import datetime
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.db import connection

from cardroom.models import Approval, Game, Job, Table
from cardroom.tasks import worker_health

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


def start_worker(queue, **env):
    """A worker process (a process group of its own, so it can be killed whole) consuming ``queue``, connected to
    the test database."""
    url = urlsplit(os.environ["DATABASE_URL"])
    test_db_url = urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "project", "worker", "--pool=solo", "-Q", queue,
         "--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "warning"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": test_db_url, "CONN_MAX_AGE": "0", **env},
        start_new_session=True,
    )


def stop(process):
    """Ask the worker to stop; one stuck in its task (a failing test) is killed, so it holds nothing after."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.fixture
def worker(reseed):
    """A worker process consuming a queue of its own, connected to the test database."""
    assert not settings.CELERY_TASK_ALWAYS_EAGER, "CELERY_BROKER_URL must be set: this test needs Redis"
    queue = f"cardroom-test-{uuid.uuid4().hex[:8]}"
    process = start_worker(queue)
    try:
        yield queue
    finally:
        stop(process)


def test_real_worker_runs_task_against_the_database(worker):
    result = worker_health.apply_async(queue=worker)
    seen = result.get(timeout=90)
    assert seen == {"database": "postgresql", "games": Game.objects.count(), "approvals": Approval.objects.count()}
    assert seen["games"] > 0


def test_real_worker_prints_a_batch_and_reports_progress(worker, people):
    """The batch job runs on the worker; its progress and file are read back through the database."""
    import time

    from cardroom.models import Job, Table
    from signage import tasks
    from signage.postings import post_table

    tables = []
    for label in ("W1", "W2", "W3"):
        table = Table.objects.create(establishment=people.marysville, label=label, seats=7,
                                     game=Game.objects.get(slug="face-up-pai-gow-poker"))
        post_table(None,
                   fields={"table": table, "game": table.game, "schedule": table.game.schedules.get(code="GEGA-002888"),
                           "option_number": 1, "min_wager": 5, "max_wager": 500, "seats": 7,
                           "effective_from": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)},
                   actor_label="test")
        tables.append(table.pk)
    job = Job.objects.create(kind="signage_batch", establishment=people.marysville, requested_label="test",
                             params={"layout": "tent", "tables": tables})
    tasks.print_batch.apply_async((job.pk,), queue=worker)
    deadline = time.monotonic() + 90
    while job.status not in (Job.Status.DONE, Job.Status.FAILED) and time.monotonic() < deadline:
        time.sleep(0.1)
        job.refresh_from_db()
    assert (job.status, job.total, job.done, job.percent, job.error) == ("done", 3, 3, 100, "")
    assert [p["table"] for p in job.result["printed"]] == ["W1", "W2", "W3"]
    with job.file.open("rb") as f:
        assert f.read(5) == b"%PDF-"


BUSY_ROWS = 60_000


@pytest.fixture
def busy_day(reseed, people, api):
    """A gaming day past 50,000 rows in both streamed files: a round and an entry recorded through the API, then
    copied BUSY_ROWS times inside PostgreSQL (generate_series), each with its own reference and key."""
    from fees.models import CollectionEntry, RoundOfPlay, ScheduleDocument
    from signage.postings import post_table

    from tests.exports.test_build import ROUND

    table = Table.objects.create(establishment=people.marysville, label="BUSY-1", seats=7,
                                 game=Game.objects.get(slug="face-up-pai-gow-poker"))
    post_table(None,
               fields={"table": table, "game": table.game, "schedule": ScheduleDocument.objects.get(code="GEGA-002888"),
                       "option_number": 1, "min_wager": 5, "max_wager": 500, "seats": 7,
                       "effective_from": datetime.datetime(2026, 3, 1, 16, tzinfo=datetime.timezone.utc)},
               actor_label="test")
    api.force_authenticate(people.floor)
    answer = api.post("/api/v1/ledger/rounds/", {"table": table.pk, "gaming_day": "2026-03-03", "reference": "B-0",
                                                 "played_at": "2026-03-03T02:00:00-08:00", "facts": ROUND},
                      format="json")
    assert answer.status_code == 201, answer.json()
    answer = api.post("/api/v1/ledger/entries/", {"idempotency_key": "b-0", "table": table.pk,
                                                  "gaming_day": "2026-03-03", "reference": "B-0",
                                                  "collected_at": "2026-03-03T02:30:00-08:00", "payer": "player",
                                                  "fee_kind": "player", "seat": 1, "amount": "1.00"}, format="json")
    assert answer.status_code == 201, answer.json()
    copies = {RoundOfPlay: {"reference": "'B-' || n"},
              CollectionEntry: {"reference": "'B-' || n", "idempotency_key": "'b-' || n"}}
    with connection.cursor() as cursor:
        for model, changed in copies.items():
            columns = [f.column for f in model._meta.concrete_fields if not f.primary_key]
            cursor.execute(
                f"INSERT INTO {model._meta.db_table} ({', '.join(columns)}) "
                f"SELECT {', '.join(changed.get(c, c) for c in columns)} FROM {model._meta.db_table} "
                "CROSS JOIN generate_series(1, %s) AS n WHERE table_id = %s", [BUSY_ROWS, table.pk])
    return {"establishment": people.marysville, "day": datetime.date(2026, 3, 3), "rounds": BUSY_ROWS + 1}


def export_job(busy_day):
    day = busy_day["day"].isoformat()
    return Job.objects.create(kind="audit_export", establishment=busy_day["establishment"],
                              requested_label="test", params={"establishments": ["casino-marysville"],
                                                              "from": day, "to": day})


def watch(job, seconds, until, every=0.05):
    """Read the job back until ``until(job)`` or ``seconds`` pass; returns the (status, done, stage) seen."""
    seen, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if not seen or seen[-1] != (job.status, job.done, job.stage):
            seen.append((job.status, job.done, job.stage))
        if until(job):
            break
        time.sleep(every)
    return seen


def mid_file(stages):
    """Stages reported from inside a big file's stream, before the file was done: (file, rows so far)."""
    counts = {}
    for stage in stages:
        if m := re.fullmatch(r"(\w+\.(?:csv|json)): ([\d,]+) rows", stage):
            counts.setdefault(m[1], []).append(int(m[2].replace(",", "")))
    return {(name, n) for name, seen in counts.items() for n in seen if n < max(seen)}


@pytest.fixture
def progress_written():
    """Every progress write to a job, as PostgreSQL received it (a trigger): [(done, stage), ...] in order."""
    table = Job._meta.db_table
    statements = [
        "CREATE TABLE test_job_progress (id bigserial PRIMARY KEY, done integer, stage text)",
        "CREATE FUNCTION test_job_progress() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "INSERT INTO test_job_progress (done, stage) VALUES (NEW.done, NEW.stage); RETURN NEW; END $$",
        f"CREATE TRIGGER test_job_progress AFTER UPDATE OF done, stage ON {table} FOR EACH ROW "
        "EXECUTE FUNCTION test_job_progress()",
    ]
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)

    def written():
        with connection.cursor() as cursor:
            cursor.execute("SELECT done, stage FROM test_job_progress ORDER BY id")
            return cursor.fetchall()

    yield written
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TRIGGER test_job_progress ON {table}")
        cursor.execute("DROP FUNCTION test_job_progress()")
        cursor.execute("DROP TABLE test_job_progress")


def test_a_real_worker_exports_a_day_past_50000_rows_a_file_reporting_progress_as_it_streams(worker, busy_day,
                                                                                            progress_written):
    """Issue 23: the progress report inside the COPY loop waited on the COPY's own connection, for good."""
    from exports import tasks

    job = export_job(busy_day)
    tasks.export_audit.apply_async((job.pk,), queue=worker)
    seen = watch(job, 300, lambda j: j.status in (Job.Status.DONE, Job.Status.FAILED), every=0.2)
    assert (job.status, job.error) == ("done", ""), seen[-5:]
    assert job.result["rows"]["rounds"] == job.result["rows"]["ledger_entries"] == busy_day["rounds"] > 50_000
    # The bar moved while the big files streamed: written from inside each of them, files done one after another.
    written = progress_written()
    assert {name for name, _ in mid_file(stage for _, stage in written)} == {
        "rounds.csv", "ledger_entries.csv", "round_fee_lines.csv"}
    done = [d for d, _ in written]
    assert done == sorted(done) and done[-1] == job.total


@pytest.fixture
def sweep_queue():
    """A queue of the test's own, where the sweep (which sends to the default queue) sends jobs again."""
    from project.celery import app

    queue, before = f"cardroom-test-{uuid.uuid4().hex[:8]}", app.conf.task_default_queue
    app.conf.task_default_queue = queue
    yield queue
    app.conf.task_default_queue = before


def test_a_job_whose_worker_is_killed_mid_job_is_queued_again_and_finished_by_another(busy_day, settings,
                                                                                       sweep_queue):
    """Issue 23: a SIGKILLed worker left its job running for good. Its heartbeat stops; the sweep (the beat's,
    run here) queues it again; the next worker runs it as attempt 2."""
    from cardroom import jobs
    from exports import tasks

    queue = sweep_queue
    settings.CELERY_JOB_STALE = 10
    job = export_job(busy_day)
    first = start_worker(queue, CELERY_JOB_HEARTBEAT="1")
    try:
        tasks.export_audit.apply_async((job.pk,), queue=queue)
        seen = watch(job, 300, lambda j: j.status != Job.Status.QUEUED and j.done >= 1)
        assert job.status == "running", seen[-5:]  # files written, more to come
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        stop(first)
    time.sleep(3)
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 1)  # stranded: nobody will finish it unless it is sent again
    assert jobs.recover()["requeued"] == []  # its heartbeat stopped only a moment ago
    second = start_worker(queue, CELERY_JOB_HEARTBEAT="1")
    try:
        requeued = []
        deadline = time.monotonic() + 400
        while job.status not in (Job.Status.DONE, Job.Status.FAILED) and time.monotonic() < deadline:
            requeued += jobs.recover()["requeued"]
            time.sleep(0.5)
            job.refresh_from_db()
    finally:
        stop(second)
    assert (job.status, job.error, job.attempts, requeued) == ("done", "", 2, [job.pk])
    assert job.lost_worker_note() == "Queued again after a lost worker; attempt 2."
    assert job.result["rows"]["rounds"] == busy_day["rounds"]
