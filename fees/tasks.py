"""Ledger tasks: reconcile a table's gaming day on demand, the table-days a batch of entries touched once it is
committed, a room's period as a job (the variance page), and every table with activity each night; keep the month
partitions ahead, and close the months due (``fees.months.nightly``).

With no broker configured (the embedded default) ``.delay()`` runs these in-process.
"""

import datetime

from celery import shared_task
from django.contrib.auth import get_user_model

from cardroom.exceptions import BadInput, NotAllowed
from cardroom.permissions import SYSTEM

from . import ledger
from .imports import import_records  # noqa: F401  (the worker registers the tasks of fees.tasks)
from .ledger import services
from .ledger.services import reconcile_period  # noqa: F401  (likewise)
from .models import Reconciliation, ScheduleVersion
from .months import nightly, partitions


@shared_task
def reconcile_table_day(table_id, gaming_day, user_id=None):
    """Reconcile one table's gaming day (YYYY-MM-DD) for the person ``user_id`` (``fees.ledger.services.reconcile``,
    which refuses anyone else, no one included); returns the stored reconciliation's id."""
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    day = datetime.date.fromisoformat(gaming_day)
    (reconciliation,) = services.reconcile(user, day_from=day, table_ids=[table_id])
    return reconciliation.pk


@shared_task
def reconcile_table_days(table_days, user_id):
    """Reconcile the (table id, YYYY-MM-DD) pairs a committed batch of entries touched, for the person who
    recorded it (``fees.ledger.services.reconcile_table_days``: a day of a closed month is skipped and said). Returns
    what was done (days, reconciled, with_variance, skipped)."""
    user = get_user_model().objects.filter(pk=user_id).first()
    pairs = [(int(table_id), datetime.date.fromisoformat(day)) for table_id, day in table_days]
    try:
        return services.reconcile_table_days(user, table_days=pairs).as_dict()
    except (BadInput, NotAllowed) as error:  # the entries stand; the nightly run reconciles what is left
        return {"days": len({day for _, day in pairs}), "reconciled": 0, "with_variance": 0,
                "skipped": [f"Not reconciled: {error}"]}


@shared_task
def reconcile_after_publication(version_id):
    """The open table-days a retroactive version reaches, reconciled again once its publication is committed
    (``fees.ledger.services.reconcile_after_publication``)."""
    version = ScheduleVersion.objects.select_related("document").get(pk=version_id)
    return services.reconcile_after_publication(version)


def published(sender, version, **kwargs):
    """``fees.models.version_published``'s receiver: only a version confirmed as retroactive reaches recorded play."""
    if version.retroactive and version.effective_from is not None:
        reconcile_after_publication.delay(version.pk)


@shared_task
def reconcile_previous_gaming_day(gaming_day=None):
    """Nightly: reconcile every table with rounds or entries on the previous gaming day (or ``gaming_day``), as the
    scheduler (``fees.ledger.services.reconcile`` as ``SYSTEM``: no person acts)."""
    day = datetime.date.fromisoformat(gaming_day) if gaming_day else ledger.previous_gaming_day()
    stored = services.reconcile(SYSTEM, day_from=day)
    return {
        "gaming_day": day.isoformat(),
        "reconciled": len(stored),
        "with_variance": sum(1 for r in stored if r.status == Reconciliation.Status.VARIANCE),
        "reconciliations": [r.pk for r in stored],
    }


@shared_task
def ensure_ledger_partitions():
    """Daily: the rounds' and the collection entries' month partitions from this month to a year ahead
    (PostgreSQL; nothing elsewhere)."""
    return partitions.ensure_ahead()


@shared_task
def ensure_round_partitions():
    """The daily task's name before the entries were partitioned too (the beat schedule's and queued messages'):
    the same work, both tables."""
    return partitions.ensure_ahead()


def reconcile_as_scheduler(day, table_ids):
    """What the nightly close reconciles a month's last days with: the nightly reconciliation's (``SYSTEM``)."""
    return services.reconcile(SYSTEM, day_from=day, table_ids=table_ids)


@shared_task
def close_due_months(now=None):
    """Nightly: close each month of the ledger LEDGER_CLOSE_AFTER_DAYS days after it ended, its last days reconciled
    first (``fees.months.nightly``); a month that cannot close stays open and says why in the inbox. On SQLite
    nothing is closed, and the result says so. ``now``: an ISO datetime, for a run as of another moment."""
    moment = datetime.datetime.fromisoformat(now) if now else None
    return nightly.close_due_months(reconcile=reconcile_as_scheduler, now=moment)
