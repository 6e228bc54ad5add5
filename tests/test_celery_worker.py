"""A real Celery worker on Redis runs a task against the test database (bin/test's second pass and CI)."""

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
