from celery import shared_task
from django.db import connection

from .models import Approval, Game


@shared_task
def worker_health():
    """What a worker sees of the database: proves the broker, the worker and the database are wired up."""
    return {"database": connection.vendor, "games": Game.objects.count(), "approvals": Approval.objects.count()}


@shared_task
def sign_checkpoints():
    """The beat's checkpoints: every audit chain that grew since its last one. Fails (so the failure shows where
    tasks are watched) when a chain disagrees with a checkpoint already signed; each such chain is also logged."""
    from . import transparency

    signed, refused = transparency.sign_moved_chains()
    if refused:
        raise transparency.ChainRewritten(f"Refused to sign checkpoints of {', '.join(refused)}: they no longer "
                                          "agree with checkpoints already signed (see the audit log).")
    return {"signed": signed}


@shared_task
def recover_jobs():
    """The beat's every minute: jobs whose worker was lost are queued again or failed saying why, and queued jobs
    no worker took are sent again (``cardroom.jobs.recover``)."""
    from . import jobs

    return jobs.recover()
