"""A real Celery worker on Redis runs a task against the test database (bin/test's second pass and CI)."""

import datetime
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.db import connection

from cardroom.models import Approval, Game
from cardroom.tasks import worker_health

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def worker(reseed):
    """A worker process consuming a queue of its own, connected to the test database."""
    assert not settings.CELERY_TASK_ALWAYS_EAGER, "CELERY_BROKER_URL must be set: this test needs Redis"
    url = urlsplit(os.environ["DATABASE_URL"])
    test_db_url = urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))
    queue = f"cardroom-test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": test_db_url, "CONN_MAX_AGE": "0"}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "cardroom", "worker", "--pool=solo", "-Q", queue,
         "--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "warning"],
        cwd=ROOT, env=env,
    )
    try:
        yield queue
    finally:
        process.terminate()
        process.wait(timeout=30)


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
        post_table({"table": table, "game": table.game, "schedule": table.game.schedules.get(code="GEGA-002888"),
                    "option_number": 1, "min_wager": 5, "max_wager": 500, "seats": 7,
                    "effective_from": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)},
                   actor_label="test")
        tables.append(table.pk)
    job = Job.objects.create(kind=Job.Kind.SIGNAGE_BATCH, establishment=people.marysville, requested_label="test",
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
