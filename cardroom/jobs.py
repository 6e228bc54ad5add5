"""Running a Job: the Celery task's body calls ``run``; API and commands call ``submit``.

A job's progress is written with plain UPDATEs outside any transaction, so the API shows it while the job
runs. With no broker configured (the embedded default) ``submit`` runs the job in-process before returning.
"""

import logging

from django.db import transaction

from .exceptions import StateConflict
from .models import Job

logger = logging.getLogger(__name__)


def run(job_id, work):
    """Run ``work(job)`` for the job; it returns (filename, content, result) and the job is finished with them.

    A failure the user can act on (bad input, a conflict) is stored as the job's error; anything else is
    stored too and re-raised so the worker logs it.
    """
    job = Job.objects.get(pk=job_id)
    if job.status != Job.Status.QUEUED:
        return job.status  # delivered twice: the first delivery owns it
    job.start(total=0)
    try:
        name, content, result = work(job)
    except (ValueError, StateConflict) as error:
        job.fail(str(error))
        return job.status
    except Exception as error:
        logger.exception("job %s failed", job.uuid)
        job.fail(f"The job stopped on an internal error ({type(error).__name__}); see the worker's log.")
        raise
    job.finish(name, content, result)
    return job.status


def submit(job, task):
    """Queue ``task(job.pk)`` once the job row is committed (a worker must be able to read it)."""
    transaction.on_commit(lambda: task.delay(job.pk))
    return job
