"""Reconciliation: expected (rounds) against collected (entries no later entry corrects), hand by hand, per
table and gaming day; on demand through the API and a Celery task, and nightly for the previous gaming day."""

import datetime
import os
import subprocess
import sys
import uuid
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from cardroom.models import AuditLogEntry
from fees import ledger, tasks
from fees.ledger import reconciliation
from fees.models import LedgerImmutableError, Reconciliation
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db

ENTRIES = "/api/v1/ledger/entries/"
BULK = ENTRIES + "bulk/"
ROUNDS = "/api/v1/ledger/rounds/"
RECONCILIATIONS = "/api/v1/ledger/reconciliations/"
RUN = RECONCILIATIONS + "run/"
DAY = datetime.date(2026, 3, 3)
CALIFORNIA_ROUND = {"wagers": [
    {"player": "p1", "base": "150", "bonus": "25", "backline": False},
    {"player": "p1", "base": "20"},
    {"player": "p2", "base": "40", "backline": True},
]}


@pytest.fixture(autouse=True)
def eager_tasks(request):
    """Tasks run in-process here even when a broker is configured (bin/test's second pass); the test marked
    ``services`` sends them to a real worker instead. Set and put back by hand: monkeypatch's setitem on Celery's
    settings did not undo (a later worker test found Celery still eager)."""
    if request.node.get_closest_marker("services"):
        yield
        return
    from project.celery import app

    before = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = before


def make_table(people, label):
    return make_posted_table(people.marysville, label=label)


@pytest.fixture
def table(people):
    return make_table(people, "R-1")


def moment(day, hour=2):
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour, 0)))


def play(api, table, reference, day=DAY, facts=CALIFORNIA_ROUND):
    response = api.post(ROUNDS, {"table": table.pk, "gaming_day": day.isoformat(), "reference": reference,
                                 "played_at": moment(day).isoformat(), "facts": facts}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def collected(table, reference, amounts, day=DAY, prefix=None):
    """Entries for a California round: p1, p2, then the player-dealer."""
    payers = [("player", "p1"), ("player", "p2"), ("player_dealer", "")]
    return [
        {"idempotency_key": f"{prefix or table.label}-{day}-{reference}-{i}", "table": table.pk,
         "gaming_day": day.isoformat(), "reference": reference, "collected_at": moment(day).isoformat(),
         "payer": payers[i][0], "player": payers[i][1], "fee_kind": payers[i][0], "amount": amount}
        for i, amount in enumerate(amounts)
    ]


@pytest.fixture
def day_of_play(api, people, table):
    """H-1 collected in full, H-2 under-collected by $1, H-3 not collected, X-9 collected with no round, and H-4
    first keyed as $1 short then corrected to the full amount."""
    api.force_authenticate(people.floor)
    for reference in ("H-1", "H-2", "H-3", "H-4"):
        play(api, table, reference)
    rows = (collected(table, "H-1", ["3.00", "1.00", "3.00"]) + collected(table, "H-2", ["3.00", "1.00", "2.00"])
            + collected(table, "X-9", ["5.00"]) + collected(table, "H-4", ["3.00", "0.00", "3.00"]))
    assert api.post(BULK, {"entries": rows}, format="json").status_code == 201
    fix = api.post(ENTRIES, {"idempotency_key": "fix-h4", "corrects_key": f"{table.label}-{DAY}-H-4-1",
                             "amount": "1.00", "reason": "p2 paid $1; keyed as 0"}, format="json")
    assert fix.status_code == 201, fix.json()
    return table


def test_a_run_lists_the_under_collected_hand_and_the_other_variances(api, people, day_of_play):
    table = day_of_play
    api.force_authenticate(people.floor)
    response = api.post(RUN, {"table": table.pk, "gaming_day": DAY.isoformat()}, format="json")
    assert response.status_code == 201, response.json()
    report = response.json()
    assert report["currency"] == "USD" and report["status"] == "variance"
    # Expected: four rounds of 7.00. Collected: 7 + 6 + 0 + 5 (no round) + 7 (after the correction).
    assert (report["expected_total"], report["collected_total"], report["difference"]) == ("28.00", "25.00", "-3.00")
    assert (report["rounds"], report["entries"], report["hands"]) == (4, 10, 5)
    assert (report["hands_balanced"], report["hands_with_variance"]) == (2, 3)
    variances = {v["reference"]: v for v in report["variances"]}
    assert set(variances) == {"H-2", "H-3", "X-9"}
    assert variances["H-2"] == {"reference": "H-2", "status": "under_collected", "expected": "7.00",
                                "collected": "6.00", "difference": "-1.00", "rounds": 1, "entries": 3}
    assert variances["H-3"]["status"] == "not_collected" and variances["H-3"]["difference"] == "-7.00"
    assert variances["X-9"]["status"] == "no_round" and variances["X-9"]["expected"] is None
    assert variances["X-9"]["difference"] == "5.00"
    assert Reconciliation.objects.get().trigger == "on_demand"
    assert Reconciliation.objects.get().run_by == people.floor


def test_each_run_is_stored_logged_and_served(api, people, day_of_play):
    table = day_of_play
    api.force_authenticate(people.compliance)
    first = api.post(RUN, {"table": table.pk, "gaming_day": DAY.isoformat()}, format="json").json()
    # Put H-2 right and reconcile again: both runs are kept, newest first.
    api.post(ENTRIES, {"idempotency_key": "fix-h2", "corrects_key": f"{table.label}-{DAY}-H-2-2", "amount": "3.00",
                       "reason": "PD fee found in the drop box"}, format="json")
    second = api.post(RUN, {"table": table.pk, "gaming_day": DAY.isoformat()}, format="json").json()
    assert second["difference"] == "-2.00" and "H-2" not in {v["reference"] for v in second["variances"]}
    listed = api.get(RECONCILIATIONS, {"table": table.pk, "gaming_day": DAY.isoformat()}).json()
    assert [r["id"] for r in listed["results"]] == [second["id"], first["id"]]
    assert api.get(RECONCILIATIONS, {"establishment": "casino-marysville"}).json()["count"] == 2
    assert api.get(RECONCILIATIONS, {"establishment": "test-wa-room"}).json()["count"] == 0
    assert api.get(RECONCILIATIONS, {"gaming_day": "2026-03-04"}).json()["count"] == 0
    assert api.get(f"{RECONCILIATIONS}{first['id']}/").json()["difference"] == "-3.00"
    logged = AuditLogEntry.objects.filter(action="ledger.reconcile", object_id=str(first["id"])).get()
    assert logged.actor == people.compliance and logged.establishment == people.marysville
    assert logged.data["difference"] == "-3.00" and logged.data["gaming_day"] == DAY.isoformat()
    with pytest.raises(LedgerImmutableError):
        Reconciliation.objects.filter(pk=first["id"]).update(difference=0)


def test_a_quiet_day_reconciles_to_zero(api, people, table):
    api.force_authenticate(people.floor)
    report = api.post(RUN, {"table": table.pk, "gaming_day": "2026-03-10"}, format="json").json()
    assert (report["status"], report["expected_total"], report["collected_total"], report["hands"]) == (
        "balanced", "0.00", "0.00", 0)


def test_who_may_run_and_read_reconciliations(api, people, day_of_play):
    table = day_of_play
    body = {"table": table.pk, "gaming_day": DAY.isoformat()}
    for user in (people.regulator_ca, people.regulator_wa, people.outsider):
        api.force_authenticate(user)
        assert api.post(RUN, body, format="json").status_code == 403
    api.force_authenticate(people.compliance_wa)
    assert api.post(RUN, body, format="json").status_code == 400
    api.force_authenticate(people.floor)
    assert api.post(RUN, body, format="json").status_code == 201
    for user, count in ((people.regulator_ca, 1), (people.admin, 1), (people.regulator_wa, 0),
                        (people.compliance_wa, 0), (people.outsider, 0)):
        api.force_authenticate(user)
        assert api.get(RECONCILIATIONS).json()["count"] == count, user


def test_bad_run_requests_are_400(api, people, table):
    api.force_authenticate(people.floor)
    for body in ({}, {"table": "R-1", "gaming_day": "2026-03-03"}, {"table": table.pk, "gaming_day": "3 March"},
                 {"table": 999999, "gaming_day": "2026-03-03"}, {"table": table.pk}):
        response = api.post(RUN, body, format="json")
        assert response.status_code == 400, (body, response.json())
    assert Reconciliation.objects.count() == 0


def test_the_nightly_task_reconciles_every_table_active_on_the_previous_gaming_day(api, people, table):
    other = make_table(people, "R-2")
    idle = make_table(people, "R-3")
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    earlier = yesterday - datetime.timedelta(days=1)
    api.force_authenticate(people.floor)
    play(api, table, "N-1", day=yesterday)
    rows = (collected(table, "N-1", ["3.00", "1.00", "3.00"], day=yesterday)
            + collected(other, "N-7", ["2.00"], day=yesterday)
            + collected(idle, "N-8", ["2.00"], day=earlier))
    api.post(BULK, {"entries": rows}, format="json")
    outcome = tasks.reconcile_previous_gaming_day.delay().get()
    assert outcome["gaming_day"] == yesterday.isoformat()
    assert (outcome["reconciled"], outcome["with_variance"]) == (2, 1)
    stored = {r.table_id: r for r in Reconciliation.objects.all()}
    assert set(stored) == {table.pk, other.pk}
    assert all(r.trigger == "nightly" and r.gaming_day == yesterday and r.run_by is None for r in stored.values())
    assert stored[table.pk].status == "balanced" and stored[table.pk].difference == Decimal("0.00")
    assert stored[other.pk].variances[0]["status"] == "no_round"
    assert AuditLogEntry.objects.filter(action="ledger.reconcile", actor_label="reconciliation (nightly)").count() == 2


def test_the_nightly_task_is_scheduled():
    entry = settings.CELERY_BEAT_SCHEDULE["ledger-reconcile-previous-gaming-day"]
    assert entry["task"] == tasks.reconcile_previous_gaming_day.name == "fees.tasks.reconcile_previous_gaming_day"


def test_reconciling_many_tables_and_days_at_once(api, people, table):
    """The set-based path the nightly run and the benchmark use: one SQL pass for every table and day."""
    other = make_table(people, "R-2")
    api.force_authenticate(people.floor)
    rows = []
    for offset in range(3):
        day = DAY + datetime.timedelta(days=offset)
        for t in (table, other):
            play(api, t, "H-1", day=day)
            rows += collected(t, "H-1", ["3.00", "1.00", "3.00" if offset else "2.50"], day=day)
    api.post(BULK, {"entries": rows}, format="json")
    results = ledger.compute(DAY, DAY + datetime.timedelta(days=2))
    assert len(results) == 6
    assert results[(table.pk, DAY)]["difference"] == Decimal("-0.50")
    assert results[(table.pk, DAY)]["variances"][0]["difference"] == "-0.50"
    assert results[(other.pk, DAY + datetime.timedelta(days=2))]["hands_with_variance"] == 0
    stored = ledger.reconcile(DAY, DAY + datetime.timedelta(days=2), trigger=Reconciliation.Trigger.NIGHTLY)
    assert len(stored) == 6 and sum(r.status == "variance" for r in stored) == 2


# -- a real worker -------------------------------------------------------------------------------------------

@pytest.fixture
def seeded():
    """The seed data, committed: a transactional test before this one (tests/cardroom/test_celery_worker.py) ends with
    a flush that empties the database."""
    call_command("load_seed_data", verbosity=0)


@pytest.fixture
def worker(seeded):
    """A Celery worker on Redis consuming a queue of its own, connected to the test database."""
    assert not settings.CELERY_TASK_ALWAYS_EAGER, "CELERY_BROKER_URL must be set: this test needs Redis"
    url = urlsplit(os.environ["DATABASE_URL"])
    test_db_url = urlunsplit(url._replace(path="/" + connection.settings_dict["NAME"]))
    queue = f"cardroom-ledger-test-{uuid.uuid4().hex[:8]}"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "project", "worker", "--pool=solo", "-Q", queue,
         "--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "warning"],
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "DATABASE_URL": test_db_url, "CONN_MAX_AGE": "0"},
    )
    try:
        yield queue
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_nightly_and_on_demand_reconciliations(seeded, worker, people):
    from cardroom.access import Scope

    table = make_table(people, "R-W")
    yesterday = timezone.localdate() - datetime.timedelta(days=1)
    ledger.record_round(table=table, reference="W-1", played_at=moment(yesterday), facts=CALIFORNIA_ROUND,
                        user=people.floor)
    ledger.record_entries(collected(table, "W-1", ["3.00", "1.00", "2.00"], day=yesterday),
                          scope=Scope(people.floor), user=people.floor)
    outcome = tasks.reconcile_previous_gaming_day.apply_async(queue=worker).get(timeout=90)
    assert (outcome["gaming_day"], outcome["reconciled"], outcome["with_variance"]) == (yesterday.isoformat(), 1, 1)
    nightly = Reconciliation.objects.get(pk=outcome["reconciliations"][0])
    assert nightly.difference == Decimal("-1.00") and nightly.variances[0]["reference"] == "W-1"
    on_demand = tasks.reconcile_table_day.apply_async((table.pk, yesterday.isoformat(), people.floor.pk),
                                                      queue=worker).get(timeout=90)
    assert Reconciliation.objects.get(pk=on_demand).run_by == people.floor


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_days_reconciled_side_by_side_on_postgresql_agree_with_one_connection(seeded, people, monkeypatch):
    """Outside a transaction, PostgreSQL gets the days on PARALLEL_DAYS connections at once (a year in a
    minute, benchmarks/ledger_reconcile.py); every day comes back, as one connection finds it."""
    from cardroom.access import Scope

    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    table = make_table(people, "R-P")
    rows = []
    for offset in range(5):
        day = DAY + datetime.timedelta(days=offset)
        ledger.record_round(table=table, reference="H-1", played_at=moment(day), facts=CALIFORNIA_ROUND,
                            user=people.floor)
        rows += collected(table, "H-1", ["3.00", "1.00", f"{offset}.00"], day=day)
    ledger.record_entries(rows, scope=Scope(people.floor), user=people.floor)
    apart = []
    monkeypatch.setattr(reconciliation, "_compute_days_apart", lambda job, run=reconciliation._compute_days_apart: (
        apart.append(job[0]), run(job))[1])

    side_by_side = ledger.compute(DAY, DAY + datetime.timedelta(days=4))
    assert sorted(len(days) for days in apart) == [2, 3]  # days 1, 3, 5 on one connection; 2 and 4 on the other
    assert side_by_side == reconciliation._compute_days([DAY + datetime.timedelta(days=n) for n in range(5)], None)
    assert [side_by_side[(table.pk, DAY + datetime.timedelta(days=n))]["difference"] for n in range(5)] == [
        Decimal(n - 3) for n in range(5)]  # the player-dealer's 3.00 collected as 0.00, 1.00, ... 4.00
