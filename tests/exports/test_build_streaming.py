"""Progress while a big file streams from PostgreSQL (COPY) never waits on the connection the COPY holds
(issue 23: an export passing 50,000 rows in a file held its worker forever); a whole bundle built there verifies."""

import contextlib
import datetime
import io
import signal

import pytest
from django.db import connection

from cardroom.models import Game, Job, Table
from exports import build, collect
from fees.models import ScheduleDocument
from signage.postings import post_table

from tests.exports.test_build import LA, ROUND, month  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.services]


class _Zip:
    """What _write_csv writes to: collects the bytes of each file."""

    def __init__(self):
        self.files = {}

    def open(self, name):
        handle = io.BytesIO()
        handle.rows = None
        self.files[name] = handle

        class Closing:
            def __enter__(self):
                return handle

            def __exit__(self, *exc):
                return False

        return Closing()


@contextlib.contextmanager
def within(seconds):
    """Fail instead of hanging: a lock waited on forever is interrupted by the alarm."""

    def expired(signum, frame):
        raise TimeoutError(f"still waiting after {seconds} s")

    before = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


@pytest.fixture
def two_rounds(api, people):
    """A table posted on 1 March and two rounds played there on 3 March."""
    table = Table.objects.create(establishment=people.marysville, label="S-1", seats=7,
                                 game=Game.objects.get(slug="face-up-pai-gow-poker"))
    post_table(None,
               fields={"table": table, "game": table.game, "schedule": ScheduleDocument.objects.get(code="GEGA-002888"),
                       "option_number": 1, "min_wager": 5, "max_wager": 500, "seats": 7,
                       "effective_from": datetime.datetime(2026, 3, 1, 8, tzinfo=LA)},
               actor_label="test")
    api.force_authenticate(people.floor)
    for i in (1, 2):
        answer = api.post("/api/v1/ledger/rounds/", {"table": table.pk, "gaming_day": "2026-03-03",
                                                     "reference": f"H-{i}", "played_at": "2026-03-03T02:00:00-08:00",
                                                     "facts": ROUND}, format="json")
        assert answer.status_code == 201, answer.json()


def test_progress_inside_a_copy_is_written_while_the_file_streams(people, two_rounds, monkeypatch):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    monkeypatch.setattr(build, "PROGRESS_EVERY", 1)  # a report after every row: inside the COPY
    job = Job.objects.create(kind="audit_export", establishment=people.marysville, requested_label="test")
    reports = []

    def report(done, total, stage):  # as the export job's does: a query
        job.advance(done, stage)
        reports.append(stage)

    scope = collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31)).freeze()
    kind = next(k for k in collect.KINDS if k.name == "rounds")
    with within(15):
        rows = build._write_csv(_Zip(), kind, scope, build.Progress(1, report))
    assert rows == 2
    # Both rows reported from inside the stream, then the file as done.
    assert reports == ["rounds.csv: 1 rows", "rounds.csv: 2 rows", "rounds.csv: 2 rows"]
    job.refresh_from_db()  # the connection is usable again
    assert job.stage == "rounds.csv: 2 rows"


def test_a_whole_bundle_from_postgresql_verifies(people, month, tmp_path):  # noqa: F811
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    from cardroom import bundle, keys

    scope = collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31))
    manifest = build.build(scope, tmp_path / "b.zip", requested_by="test")
    checked = bundle.verify(tmp_path / "b.zip", keys.public_key())
    assert checked.ok and checked.format == bundle.FORMAT_2
    assert manifest["rows"]["ledger_entries"] == 2 and manifest["rows"]["rounds"] == 2
