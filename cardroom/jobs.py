"""Running a Job: the Celery task's body calls ``run``; API and commands call ``submit``.

A job's progress is written with plain UPDATEs outside any transaction, so the API shows it while the job
runs. With no broker configured (the embedded default) ``submit`` runs the job in-process before returning.
"""

import logging
import time

from django.conf import settings
from django.db import transaction

from .exceptions import StateConflict
from .models import Job

logger = logging.getLogger(__name__)


def run(job_id, work):
    """Run ``work(job)`` for the job; it returns (filename, content, result) and the job is finished with them
    (or None when it finished the job itself, e.g. to save a large file before removing its temporary copy).

    A failure the user can act on (bad input, a conflict) is stored as the job's error; anything else is
    stored too and re-raised so the worker logs it.
    """
    job = Job.objects.get(pk=job_id)
    if job.status != Job.Status.QUEUED:
        return job.status  # delivered twice: the first delivery owns it
    job.start(total=0)
    try:
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
