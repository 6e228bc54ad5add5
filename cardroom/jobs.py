"""Running a Job: the Celery task's body calls ``run``; services queue it with ``submit``, or ``start`` where a
command may follow it to its end.

A job's progress is written with plain UPDATEs outside any transaction, so the API shows it while the job
runs. With no broker configured (the embedded default) ``submit`` runs the job in-process before returning.

A worker can be killed mid-job (issue 23). Tasks are acknowledged late (settings), so Redis delivers a lost
worker's task again; a running job beats a heartbeat, so a second delivery of a job still running stands back;
and ``recover`` (every minute, from the beat) queues again a job whose heartbeat stopped, or fails it saying why.
"""

import datetime
import logging
import threading
import time

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from . import registry
from .exceptions import StateConflict
from .models import Job
from .permissions import SYSTEM
from .registry import JobKind

logger = logging.getLogger(__name__)

def requester(user, label=None):
    """Who asks for a job, as its row keeps it: a person, or the installation itself (``SYSTEM``: a command an
    operator runs), named by ``label``."""
    if user is SYSTEM:
        return {"requested_by": None, "requested_label": label}
    return {"requested_by": user, "requested_label": user.get_username()}


def run(job_id, work):
    """Run ``work(job)`` for the job; it returns (filename, content, result) and the job is finished with them
    (or None when it finished the job itself, e.g. to save a large file before removing its temporary copy).

    A failure the user can act on (bad input, a conflict) is stored as the job's error; anything else is
    stored too and re-raised so the worker logs it.
    """
    job = Job.claim(job_id)
    if job is None:  # delivered twice (it runs elsewhere, or is over): the delivery that claimed it owns it
        return Job.objects.filter(pk=job_id).values_list("status", flat=True).first()
    try:
        with _Heartbeat(job):
            outcome = work(job)
    except (ValueError, StateConflict) as error:
        job.fail(str(error))
        return job.status
    except Exception as error:
        logger.exception("job %s failed", job.uuid)
        job.fail(f"The job stopped on an internal error ({type(error).__name__}); see the worker's log.")
        raise
    if outcome is not None:
        job.finish(*outcome)
    return job.status


class _Heartbeat:
    """On a worker, the job's heartbeat every CELERY_JOB_HEARTBEAT seconds from a thread of its own (its own
    connection), so a long step (a COPY, a PDF) still shows the worker alive. In-process (no broker) there is no
    beat to recover jobs, so nothing to beat for."""

    def __init__(self, job):
        self.job, self.stop, self.thread = job, threading.Event(), None

    def __enter__(self):
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            self.thread = threading.Thread(target=self._beat, daemon=True, name=f"heartbeat-{self.job.pk}")
            self.thread.start()

    def __exit__(self, *exc):
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=30)
        return False

    def _beat(self):
        try:
            while not self.stop.wait(settings.CELERY_JOB_HEARTBEAT):
                try:
                    self.job.beat()
                except Exception:  # the next beat may get through; the job itself goes on
                    logger.exception("heartbeat of job %s not written", self.job.uuid)
        finally:
            connection.close()  # this thread's own connection


def recover(now=None):
    """The beat's sweep (``cardroom.tasks.recover_jobs``): a running job silent for CELERY_JOB_STALE seconds lost
    its worker: it is queued and sent again, or failed with the reason once it has been started
    CELERY_JOB_ATTEMPTS times; a job queued CELERY_JOB_RESEND seconds ago that no worker took is sent again
    (a send lost with a broker restart, say). Returns {"requeued": [...], "failed": [...], "resent": [...]}."""
    now = now or timezone.now()
    stale = now - datetime.timedelta(seconds=settings.CELERY_JOB_STALE)
    unsent = now - datetime.timedelta(seconds=settings.CELERY_JOB_RESEND)
    done = {"requeued": [], "failed": [], "resent": []}
    lost = Job.objects.filter(Q(heartbeat_at__lt=stale) | Q(heartbeat_at=None, started_at__lt=stale),
                              status=Job.Status.RUNNING)
    for job in lost:
        if job.attempts >= settings.CELERY_JOB_ATTEMPTS:
            if job.fail_after_lost_worker():
                logger.error("job %s failed: its worker was lost %s times", job.uuid, job.attempts)
                done["failed"].append(job.pk)
        elif job.requeue_after_lost_worker():
            logger.warning("job %s queued again: its worker was lost (attempt %s)", job.uuid, job.attempts)
            _send(job)
            done["requeued"].append(job.pk)
    waiting = Job.objects.filter(Q(heartbeat_at__lt=unsent) | Q(heartbeat_at=None, created_at__lt=unsent),
                                 status=Job.Status.QUEUED)
    for job in waiting:
        if job.mark_sent():
            _send(job)
            done["resent"].append(job.pk)
    return done


def _send(job):
    # The task of the job's kind, as the app that owns the kind registered it (cardroom.registry.JobKind).
    current_app.send_task(registry.entry(JobKind, job.kind).task.name, args=[job.pk])


def start(job, task, work, follow=None):
    """Queue ``task`` for the job (``submit``) and return the job as it stands (already done when jobs run
    in-process). A command passes ``follow(job)``: told once the job is queued, then as it runs; the job is run
    here or followed on its worker (``run_or_follow``, ``work`` being what ``task`` runs) and returned finished or
    failed."""
    if follow is None:
        submit(job, task)
        job.refresh_from_db()
        return job
    follow(job)
    return run_or_follow(job, task, work, follow)


def run_or_follow(job, task, work, report, timeout=3600):
    """For commands: with no broker, run ``work`` here (it calls ``report(job)`` as it goes); otherwise queue
    ``task`` for a worker and report the job's progress as it changes. Returns the job, finished or failed."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        run(job.pk, lambda j: work(j, on_progress=report))
    else:
        submit(job, task)
        started, last = time.monotonic(), None
        while time.monotonic() - started < timeout:
            job.refresh_from_db()
            seen = (job.status, job.done, job.total, job.stage)
            if seen != last and job.status == Job.Status.RUNNING and job.total:
                report(job)
                last = seen
            if job.status in (Job.Status.DONE, Job.Status.FAILED):
                break
            time.sleep(0.25)
    job.refresh_from_db()
    return job


def submit(job, task):
    """Queue ``task(job.pk)`` once the job row is committed (a worker must be able to read it)."""
    transaction.on_commit(lambda: task.delay(job.pk))
    return job
