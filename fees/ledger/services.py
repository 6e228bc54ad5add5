"""Every action that reconciles the ledger, one function each, called by every door: ``reconcile`` (a person, on
demand, for tables of rooms where they hold ``fees.record_ledger``; or ``SYSTEM``, the scheduler's nightly run),
``reconcile_table_days`` (the table-days an import or a batch of entries touched, when it ends; a room's period),
``reconcile_after_publication`` (the open table-days a retroactive version reaches, once it is published: what
they were owed as known now, beside what they were owed when collected), and ``request_reconciliation``: a room's
gaming days reconciled on a person's word (the variance page), a period
of at most ``MAX_RECONCILE_DAYS`` days, every table-day with play in it, as a background job with progress a day at
a time (``run_reconciliation`` is its work). With no broker (the embedded default) the job runs in-process before
the request answers.

Each run stores new rows (a day reconciled again keeps the earlier result), so nothing is locked; the rows and their
audit entries ("ledger.reconcile") are written together by ``fees.ledger.reconciliation.reconcile``.
"""

import datetime
from collections import defaultdict
from dataclasses import dataclass, field

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from cardroom import jobs, permissions
from cardroom.audit import log_action
from cardroom.exceptions import BadInput, NotAllowed
from cardroom.models import Job, Table
from cardroom.permissions import SYSTEM
from cardroom.registry import JobKind

from ..models import Reconciliation, RoundOfPlay
from ..months.selectors import MonthClosed, closed_for, closed_months, closed_words, refusal
from . import statistics
from .reconciliation import reconcile as store_reconciliations, table_days_with_activity, tables_with_activity
from .restating import reach_of

PERMISSION = "fees.record_ledger"  # as for every reconciliation a person runs
MAX_RECONCILE_DAYS = 92  # a quarter at most: a busy room's day takes about a quarter of a second (docs/scaling.md)



def reconcile(actor, *, day_from, day_to=None, table_ids=None):
    """Reconcile tables over gaming days (every named table gets a report for every day; without ``table_ids``,
    the tables with activity): a person, on demand, for tables of establishments where they hold
    ``fees.record_ledger`` (else nothing is reconciled); ``SYSTEM``, the scheduler's nightly run (its audit entries
    name "reconciliation (nightly)"). Returns the stored reconciliations."""
    if day_to is not None and day_to < day_from:
        raise BadInput(f"day_to ({day_to}) comes before day_from ({day_from}).", field="day_to")
    if actor is SYSTEM:
        return store_reconciliations(day_from, day_to, table_ids=table_ids, trigger=Reconciliation.Trigger.NIGHTLY)
    wanted = set(table_ids) if table_ids is not None else tables_with_activity(day_from, day_to)
    tables = Table.objects.select_related("establishment").in_bulk(wanted)
    if missing := sorted(wanted - set(tables)):
        raise BadInput(f"table: no table {', '.join(map(str, missing))}.", field="table")
    if not tables:
        permissions.require(actor, PERMISSION)  # nothing to reconcile: still only for those who may
    for establishment in {t.establishment_id: t.establishment for t in tables.values()}.values():
        permissions.require(actor, PERMISSION, establishment)
    return store_reconciliations(day_from, day_to, table_ids=table_ids, user=actor,
                                 trigger=Reconciliation.Trigger.ON_DEMAND)


@dataclass
class Reconciled:
    """What ``reconcile_table_days`` did: the reconciliations stored, and a sentence for each day it skipped."""

    stored: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    days: int = 0

    @property
    def with_variance(self):
        return sum(1 for r in self.stored if r.status == Reconciliation.Status.VARIANCE)

    def as_dict(self):
        return {"days": self.days, "reconciled": len(self.stored), "with_variance": self.with_variance,
                "skipped": list(self.skipped)}


def reconcile_table_days(actor, *, table_days, on_progress=None):
    """Reconcile each (table id, gaming day) of ``table_days``: what an import or a batch of entries touched, or a
    period's play. A day at a time, its tables together, through ``reconcile`` (so ``actor`` is asked for
    ``fees.record_ledger`` at each room, as there). A day of a closed month is skipped and said, not an error for
    the other days: its rows are archived. ``on_progress(done, total)`` after each day."""
    by_day = defaultdict(set)
    for table_id, day in table_days:
        by_day[day].add(table_id)
    # What an import or a bulk intake grew: the planner's statistics first, for these reads and every list after.
    statistics.refresh(by_day)
    result = Reconciled(days=len(by_day))
    for done, day in enumerate(sorted(by_day), 1):
        try:
            result.stored += reconcile(actor, day_from=day, table_ids=sorted(by_day[day]))
        except MonthClosed:
            result.skipped.append(f"Not reconciled: {refusal(day)}")
        if on_progress is not None:
            on_progress(done, len(by_day))
    return result


def reconcile_after_publication(version):
    """Reconcile again, as the installation (trigger "publication"), every table-day with rounds of ``version``'s
    schedule from its effective date to the day it was published, in open months; a closed month is left alone
    (its rows are archived and its figures sealed) and said. Logs ``ledger.restated``. Returns what was done."""
    document = version.document
    first, last = reach_of(version)
    pairs = set(RoundOfPlay.objects.filter(schedule_code=document.code, gaming_day__range=(first, last))
                .order_by().values_list("table_id", "gaming_day").distinct())
    closed = closed_for({day for _, day in pairs})
    by_day = defaultdict(set)
    for table_id, day in pairs:
        if day not in closed:
            by_day[day].add(table_id)
    stored = []
    for day in sorted(by_day):
        stored += store_reconciliations(day, table_ids=sorted(by_day[day]), trigger=Reconciliation.Trigger.PUBLICATION)
    months = sorted({day.replace(day=1) for day in closed})
    result = {
        "schedule": document.code, "version": version.number, "first": first.isoformat(), "last": last.isoformat(),
        "reconciled": len(stored), "restated": sum(1 for r in stored if r.restatements),
        "closed_months_left_alone": [f"{month:%Y-%m}" for month in months],
        "skipped": [f"Not reconciled: {refusal(month)}" for month in months],
    }
    log_action("ledger.restated", actor_label=f"reconciliation ({Reconciliation.Trigger.PUBLICATION})", obj=version,
               establishment=document.establishment, jurisdiction=document.jurisdiction, data=result)
    return result


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


def _months(first, last):
    """The first days of the months from ``first`` to ``last``."""
    found, month = set(), first.replace(day=1)
    while month <= last:
        found.add(month)
        month = (month + datetime.timedelta(days=32)).replace(day=1)
    return found


def request_reconciliation(actor, *, establishment, day_from, day_to):
    """Reconcile every table-day of ``establishment`` with play from ``day_from`` to ``day_to`` (at most
    MAX_RECONCILE_DAYS), as a background job (``run_reconciliation``; done already when jobs run in-process).
    Asks ``fees.record_ledger`` for the room; logs ``ledger.reconcile_requested``. Returns the Job."""
    permissions.require(actor, PERMISSION, establishment)
    first, last = read_period(day_from, day_to)
    closed = closed_months(first, last)
    if closed and _months(first, last) <= {c.month for c in closed}:
        # Every day of the period is in a closed month: nothing to run ("0 table-days" would be wrong).
        raise MonthClosed(" ".join(closed_words(c, establishment.zone) for c in closed))
    with transaction.atomic():
        job = Job.objects.create(kind=RECONCILIATION_KIND.value, establishment=establishment, requested_by=actor,
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
    table_days = table_days_with_activity(job.establishment, first, last)
    job.plan(len({day for _, day in table_days}), f"Reconciling {first} to {last}")

    def progress(done, total):
        job.advance(done, f"{done} of {total} gaming days with play reconciled")
        if on_progress is not None:
            on_progress(job)

    result = reconcile_table_days(job.requested_by, table_days=table_days, on_progress=progress)
    # A closed month's days have no rows here to reconcile (archived): said, not counted as days without play.
    result.skipped += [f"Not reconciled: {closed_words(c, job.establishment.zone)}" for c in closed_months(first, last)]
    job.status, job.done, job.finished_at, job.stage = Job.Status.DONE, job.total, timezone.now(), ""
    job.result = {"day_from": first.isoformat(), "day_to": last.isoformat(), **result.as_dict()}
    job.save(update_fields=["status", "done", "finished_at", "stage", "result"])
    return None


# Its name as queued (the job's kind registers it with cardroom.jobs), where it was first declared.
@shared_task(name="fees.tasks.reconcile_period")
def reconcile_period(job_id):
    return jobs.run(job_id, run_reconciliation)


# Its kind of job (registered in FeesConfig.ready): seen by whoever asked and the establishment's compliance officers.
RECONCILIATION_KIND = JobKind("reconciliation", "Reconciliation of gaming days", reconcile_period, asker=True,
                              places=permissions.is_compliance_officer_of_establishment.places)