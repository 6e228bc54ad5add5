"""A job whose worker was lost is queued again or failed saying why; a second delivery of a running job stands
back; tasks are acknowledged late (issue 23). The real worker killed mid-job is in test_celery_worker.py."""

import datetime

import pytest

from cardroom import jobs, registry
from project.celery import app
from cardroom.models import Job
from cardroom.registry import JobKind

pytestmark = pytest.mark.django_db
MOMENT = datetime.datetime(2026, 3, 3, 22, 2, tzinfo=datetime.timezone.utc)  # 14:02 PST


@pytest.fixture
def sent(monkeypatch):
    """What the sweep sends to the workers: (task, job id)."""
    out = []
    monkeypatch.setattr(jobs, "_send", lambda job: out.append((registry.entry(JobKind, job.kind).task.name, job.pk)))
    return out


@pytest.fixture
def limits(settings):
    settings.CELERY_JOB_STALE, settings.CELERY_JOB_ATTEMPTS, settings.CELERY_JOB_RESEND = 120, 3, 900
    return settings


def a_job(people, **fields):
    return Job.objects.create(kind="audit_export", establishment=people.marysville, requested_label="test",
                              **fields)


def running(people, silent_for, attempts=1):
    beat = MOMENT - datetime.timedelta(seconds=silent_for)
    return a_job(people, status=Job.Status.RUNNING, attempts=attempts, started_at=beat, heartbeat_at=beat,
                 done=3, total=30, stage="rounds.csv: 50,000 rows")


def test_a_running_job_whose_heartbeat_stopped_is_queued_again_and_sent(people, sent, limits, time_machine):
    time_machine.move_to(MOMENT, tick=False)
    lost, alive = running(people, silent_for=180), running(people, silent_for=30)
    assert jobs.recover() == {"requeued": [lost.pk], "failed": [], "resent": []}
    assert sent == [("exports.tasks.export_audit", lost.pk)]
    lost.refresh_from_db()
    assert (lost.status, lost.attempts, lost.heartbeat_at) == ("queued", 1, MOMENT)
    assert lost.stage == "The worker running attempt 1 stopped at 2026-03-03 13:59 PST; queued again."
    assert lost.lost_worker_note() == "Queued again after the worker running it was lost; attempt 2 waits for a worker."
    alive.refresh_from_db()
    assert (alive.status, alive.stage) == ("running", "rounds.csv: 50,000 rows")


def test_a_job_lost_as_often_as_allowed_is_failed_with_the_reason(people, sent, limits, time_machine):
    time_machine.move_to(MOMENT, tick=False)
    lost = running(people, silent_for=600, attempts=3)
    assert jobs.recover() == {"requeued": [], "failed": [lost.pk], "resent": []}
    assert sent == []
    lost.refresh_from_db()
    assert (lost.status, lost.finished_at) == ("failed", MOMENT)
    assert lost.error == "The worker running this job stopped at 2026-03-03 13:52 PST; tried 3 times."


def test_a_job_that_beats_after_it_was_read_is_left_running(people, sent, limits, time_machine):
    time_machine.move_to(MOMENT, tick=False)
    lost = running(people, silent_for=600)
    seen = Job.objects.get(pk=lost.pk)
    lost.beat()  # its worker came back between the sweep's read and its update
    assert seen.requeue_after_lost_worker() is False and seen.fail_after_lost_worker() is False
    lost.refresh_from_db()
    assert (lost.status, lost.heartbeat_at) == ("running", MOMENT)


def test_a_queued_job_no_worker_took_is_sent_again_once_a_period(people, sent, limits, time_machine):
    time_machine.move_to(MOMENT, tick=False)
    forgotten = a_job(people)
    fresh = a_job(people)
    Job.objects.filter(pk=forgotten.pk).update(created_at=MOMENT - datetime.timedelta(seconds=901))
    Job.objects.filter(pk=fresh.pk).update(created_at=MOMENT - datetime.timedelta(seconds=60))
    assert jobs.recover()["resent"] == [forgotten.pk]
    assert jobs.recover()["resent"] == []  # sent a moment ago: not again until the period has passed
    time_machine.move_to(MOMENT + datetime.timedelta(seconds=901), tick=False)
    assert sorted(jobs.recover()["resent"]) == sorted([forgotten.pk, fresh.pk])
    assert sorted(pk for _, pk in sent) == sorted([forgotten.pk, forgotten.pk, fresh.pk])
    assert Job.objects.get(pk=forgotten.pk).status == "queued"


def test_a_second_delivery_of_a_running_job_stands_back(people):
    job = a_job(people)
    calls = []

    def work(j):
        calls.append(j.attempts)
        assert jobs.run(j.pk, lambda _: calls.append("twice")) == "running"  # delivered again meanwhile
        return None

    jobs.run(job.pk, work)
    assert calls == [1]
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 1)
    assert job.heartbeat_at is not None


def test_a_job_queued_again_runs_as_its_next_attempt_and_says_so(people, api):
    from django.core.files.base import ContentFile

    job = a_job(people, status=Job.Status.QUEUED, attempts=1)
    assert jobs.run(job.pk, lambda j: ("x.zip", ContentFile(b"zip"), {})) == "done"
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2)
    api.force_authenticate(people.compliance)
    answer = api.get(f"/api/v1/jobs/{job.uuid}/").json()
    assert (answer["attempts"], answer["lost_worker"]) == (2, "Queued again after a lost worker; attempt 2.")
    assert api.get(f"/api/v1/jobs/{a_job(people).uuid}/").json()["lost_worker"] == ""


def test_the_job_page_says_the_job_was_queued_again(people, client):
    job = a_job(people, status=Job.Status.QUEUED, attempts=1,
                stage="The worker running attempt 1 stopped at 14:02 PST; queued again.")
    client.force_login(people.compliance)
    page = client.get(f"/jobs/{job.uuid}/").content.decode()
    assert "The worker running attempt 1 stopped at 14:02 PST; queued again." in page
    assert "attempt 2 waits for a worker" in page
    other = a_job(people)
    assert "job-lost-worker" not in client.get(f"/jobs/{other.uuid}/").content.decode()


def test_every_task_is_acknowledged_when_it_ends_and_delivered_again_when_its_worker_is_lost():
    import exports.tasks
    import fees.tasks
    import signage.tasks  # noqa: F401  (registers the tasks)

    ours = [t for name, t in app.tasks.items() if name.split(".")[0] in ("cardroom", "exports", "fees", "signage")]
    assert "fees.tasks.reconcile_table_day" in {t.name for t in ours}  # the reconciliation answered 202
    assert {t.name: (t.acks_late, t.reject_on_worker_lost) for t in ours} == {t.name: (True, True) for t in ours}
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.broker_transport_options["visibility_timeout"] == 600
    assert app.conf.beat_schedule["jobs-recover"]["task"] == "cardroom.tasks.recover_jobs"
    # Every kind of job has its task, registered by the app that owns it; the values its rows keep are unchanged.
    kinds = {kind.value: kind.task for kind in registry.entries(JobKind)}
    assert {task.name for task in kinds.values()} <= set(app.tasks)
    assert set(kinds) == {"signage_batch", "audit_export", "bundle_verify", "ledger_import", "reconciliation"}
    assert kinds["audit_export"] is exports.tasks.export_audit
    assert {value for value, _ in Job._meta.get_field("kind").choices} == set(kinds)
    assert fees.tasks.reconcile_table_day.name in app.tasks
