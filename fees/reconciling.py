"""A room's gaming days reconciled on a person's word (the variance page): a period of at most
``MAX_RECONCILE_DAYS`` days, every table-day with play in it, as a background job with progress a day at a time
(``request_reconciliation`` queues it, ``run_reconciliation`` is its work, through ``fees.services.reconcile``).
With no broker (the embedded default) the job runs in-process before the request answers."""

import datetime

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from cardroom import jobs, permissions
from cardroom.audit import log_action
from cardroom.exceptions import BadInput, NotAllowed
from cardroom.models import Job

from . import ledger, services

PERMISSION = services.LEDGER  # fees.record_ledger, as for every reconciliation a person runs
MAX_RECONCILE_DAYS = 92  # a quarter at most: a busy room's day takes about a quarter of a second (docs/scaling.md)


def read_period(day_from, day_to):
    """(first, last) of a period to reconcile; BadInput saying what is wrong (naming ``day_to``: the period's end
    is what is out of bounds)."""
    if day_from is None or day_to is None:
        raise BadInput("Give the first and the last gaming day to reconcile.")
    if day_to < day_from:
        raise BadInput(f"The period ends ({day_to}) before it begins ({day_from}): give the earlier day first.",
                       field="day_to")
    if (day_to - day_from).days + 1 > MAX_RECONCILE_DAYS:
        raise BadInput(f"Reconcile at most {MAX_RECONCILE_DAYS} gaming days at a time; {day_from} to {day_to} is "
                       f"{(day_to - day_from).days + 1}.", field="day_to")
    if day_to > timezone.localdate() + datetime.timedelta(days=1):
        raise BadInput(f"{day_to} has not been played yet: reconcile days up to today.", field="day_to")
    return day_from, day_to


def request_reconciliation(actor, establishment, day_from, day_to):
    """Reconcile every table-day of ``establishment`` with play from ``day_from`` to ``day_to`` (at most
    MAX_RECONCILE_DAYS), as a background job (``run_reconciliation``; done already when jobs run in-process).
    Asks ``fees.record_ledger`` for the room; logs ``ledger.reconcile_requested``. Returns the Job."""
    permissions.require(actor, PERMISSION, establishment)
    first, last = read_period(day_from, day_to)
    with transaction.atomic():
        job = Job.objects.create(kind=Job.Kind.RECONCILIATION, establishment=establishment, requested_by=actor,
                                 requested_label=actor.get_username(),
                                 params={"day_from": first.isoformat(), "day_to": last.isoformat()})
        log_action("ledger.reconcile_requested", actor=actor, obj=job, establishment=establishment,
                   data={"day_from": first.isoformat(), "day_to": last.isoformat(), "job": str(job.uuid)})
        jobs.submit(job, reconcile_period)
    job.refresh_from_db()
    return job


def run_reconciliation(job, on_progress=None):
    """The job's work: the room's table-days with play over the period reconciled for whoever asked (asked again
    for ``fees.record_ledger``: a membership may have ended since), with progress a day at a time."""
    first = datetime.date.fromisoformat(job.params["day_from"])
    last = datetime.date.fromisoformat(job.params["day_to"])
    try:
        permissions.require(job.requested_by, PERMISSION, job.establishment)
    except NotAllowed as refused:
        raise ValueError(str(refused)) from None  # the job fails saying so (cardroom.jobs.run)
    table_days = ledger.table_days_with_activity(job.establishment, first, last)
    job.plan(len({day for _, day in table_days}), f"Reconciling {first} to {last}")

    def progress(done, total):
        job.advance(done, f"{done} of {total} gaming days with play reconciled")
        if on_progress is not None:
            on_progress(job)

    result = services.reconcile_table_days(job.requested_by, table_days, on_progress=progress)
    job.status, job.done, job.finished_at, job.stage = Job.Status.DONE, job.total, timezone.now(), ""
    job.result = {"day_from": first.isoformat(), "day_to": last.isoformat(), **result.as_dict()}
    job.save(update_fields=["status", "done", "finished_at", "stage", "result"])
    return None


# Its name as queued (the job's kind registers it with cardroom.jobs), where it was first declared.
@shared_task(name="fees.tasks.reconcile_period")
def reconcile_period(job_id):
    return jobs.run(job_id, run_reconciliation)
