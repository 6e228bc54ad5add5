"""Months closing by themselves (issue 35): each night, every month of the ledger that ended
``LEDGER_CLOSE_AFTER_DAYS`` days ago or more and is not closed is closed (``fees.months.services.close``, as
``close_month`` closes it) for every establishment with rows in it, once its last reconciliations are done.

For each month due, oldest first:

1. **its partitions**: a month whose rows sit in a ``DEFAULT`` partition (no partition of its own) cannot be closed;
2. **its last reconciliations**: every table-day with rounds or entries and no reconciliation since its last row was
   recorded is reconciled now (as the nightly reconciliation does: ``SYSTEM``); a day that cannot be reconciled, or
   is still not reconciled after, keeps the month open;
3. **the close**, with ``close``'s own checks (a room whose gaming day is still in the month, a month closed already,
   an archive file already there); a failed export is undone by ``close`` itself.

A month that cannot close stays open and says why: ``ledger.month_held`` in the audit log of each of its rooms,
which the inbox of their compliance officers and of the administrators shows until the month closes
(``fees.months.held``). The same reasons are not logged again night after night. A month once reopened
(``reopen_month``) is left to whoever reopened it: ``close_month`` closes it again.

What reconciles a day is given by the caller (``reconcile(day, table_ids)``: ``fees.tasks`` passes the ledger's,
which stands beside this package and imports it). Partitions are PostgreSQL's: on SQLite nothing is closed, and
the result says so. Closing alters tables: the database role must own the ledger's tables (as for
``close_month``); a role that does not (the service's) closes nothing, and the months due say so in the inbox.
"""

import dataclasses
import datetime
import logging

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models import Max
from django.utils import timezone

from cardroom.audit import log_actions
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import Establishment, Table

from ..models import ClosedMonth, CollectionEntry, Reconciliation, RoundOfPlay
from . import partitions, services
from .held import HELD, standing

logger = logging.getLogger(__name__)
LABEL = "nightly close (fees.tasks.close_due_months)"
SHOWN = 10  # the days named in a reason; the rest are counted


@dataclasses.dataclass
class Month:
    """What became of one month due: closed, or held open with its reasons."""

    first: datetime.date
    establishments: list
    reasons: list = dataclasses.field(default_factory=list)
    reconciled: int = 0
    closed: bool = False

    def as_dict(self):
        return {"month": f"{self.first:%Y-%m}", "establishments": [e.slug for e in self.establishments],
                "closed": self.closed, "reconciled": self.reconciled, "reasons": list(self.reasons)}


def last_day(first):
    return partitions.next_month(first) - datetime.timedelta(days=1)


def is_due(first, today, after_days):
    """A month is due once ``after_days`` days have passed since its last day."""
    return today >= last_day(first) + datetime.timedelta(days=after_days)


def close_due_months(*, reconcile, now=None, after_days=None):
    """Close every month due (see the module). ``reconcile(day, table_ids)`` reconciles tables' gaming day. Returns
    {"database", "months": [Month.as_dict()...], "note"}; never raises for a month that cannot close."""
    now = now or timezone.now()
    after_days = settings.LEDGER_CLOSE_AFTER_DAYS if after_days is None else after_days
    if connection.vendor != "postgresql":
        note = (f"Nothing closed: on {connection.vendor} the ledger is kept in plain tables, with no month partitions "
                f"to close (months close on PostgreSQL).")
        logger.info(note)
        return {"database": connection.vendor, "months": [], "note": note}
    today = timezone.localdate(now)
    done = []
    for first in due_months(today, after_days):
        month = Month(first, establishments_of(first))
        if not month.establishments:
            continue  # no row: nothing to archive
        _try_to_close(month, reconcile, now)
        if not month.closed:
            _hold(month)
        done.append(month.as_dict())
    closed = [m["month"] for m in done if m["closed"]]
    held = [m["month"] for m in done if not m["closed"]]
    note = f"Closed: {', '.join(closed) or 'none'}; left open: {', '.join(held) or 'none'}."
    logger.info(note)
    return {"database": connection.vendor, "months": done, "note": note}


def due_months(today, after_days):
    """First days of the months with rows (in a partition of their own or in ``DEFAULT``) that are due and were never
    closed, oldest first. Read from the catalogue and the DEFAULT partitions, not the months' rows."""
    found = set()
    with connection.cursor() as cursor:
        for table in partitions.TABLES:
            if not partitions.is_partitioned(cursor, table):
                continue
            cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                           "WHERE i.inhparent = %s::regclass", [table])
            for (name,) in cursor.fetchall():
                try:
                    first = datetime.datetime.strptime(name[len(table) + 1:], "%Y_%m").date()
                except ValueError:
                    continue  # the DEFAULT partition
                if is_due(first, today, after_days) and first not in found:
                    cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {connection.ops.quote_name(name)})")
                    if cursor.fetchone()[0]:
                        found.add(first)
            cursor.execute(f"SELECT DISTINCT date_trunc('month', gaming_day)::date FROM "
                           f"{connection.ops.quote_name(table + '_default')}")
            found |= {first for (first,) in cursor.fetchall() if is_due(first, today, after_days)}
    ever_closed = set(ClosedMonth.objects.filter(month__in=found).values_list("month", flat=True))
    return sorted(found - ever_closed)


def _month_rows(model, first):
    return model.objects.filter(gaming_day__gte=first, gaming_day__lt=partitions.next_month(first)).order_by()


def establishments_of(first):
    """Every establishment with rounds or entries in the month: all of them are closed together."""
    ids = set()
    for model in (RoundOfPlay, CollectionEntry):
        ids |= set(_month_rows(model, first).values_list("establishment_id", flat=True).distinct())
    return list(Establishment.objects.filter(pk__in=ids).select_related("jurisdiction").order_by("slug"))


def unreconciled(first):
    """{(table id, gaming day)} of the month with rows recorded after its last reconciliation, or none."""
    recorded = {}
    for model in (RoundOfPlay, CollectionEntry):
        for table_id, day, last in (_month_rows(model, first).values_list("table_id", "gaming_day")
                                    .annotate(last=Max("recorded_at"))):
            recorded[(table_id, day)] = max(last, recorded.get((table_id, day), last))
    runs = dict(((table_id, day), last) for table_id, day, last in
                _month_rows(Reconciliation, first).values_list("table_id", "gaming_day").annotate(last=Max("run_at")))
    return {key for key, last in recorded.items() if key not in runs or runs[key] < last}


def _days(pairs):
    tables = dict(Table.objects.filter(pk__in={t for t, _ in pairs}).values_list("pk", "label"))
    named = [f"table {tables.get(t, t)} on {day.isoformat()}" for t, day in sorted(pairs, key=lambda p: (p[1], p[0]))]
    more = f" and {len(named) - SHOWN} more" if len(named) > SHOWN else ""
    return ", ".join(named[:SHOWN]) + more


def _said(error):
    """An error's first line: the database's CONTEXT lines (and the row a COPY stopped at) stay in the log."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _has_partition(cursor, table, name):
    cursor.execute("SELECT 1 FROM pg_inherits WHERE inhparent = %s::regclass AND inhrelid = to_regclass(%s)",
                   [table, name])
    return cursor.fetchone() is not None


def _try_to_close(month, reconcile, now):
    first, label = month.first, f"{month.first:%Y-%m}"
    with connection.cursor() as cursor:
        for table in partitions.TABLES:
            if not _has_partition(cursor, table, partitions.month_name(table, first)):
                month.reasons.append(f"{table} has no partition of its own for {label} (a partition missing): its "
                                     f"rows of the month are in {table}_default, which is not closed a month at a "
                                     f"time")
    # The month's last reconciliations, a day at a time (its tables together), before anything is frozen.
    by_day = {}
    for table_id, day in unreconciled(first):
        by_day.setdefault(day, set()).add(table_id)
    failed = set()
    for day in sorted(by_day):
        try:
            month.reconciled += len(reconcile(day, sorted(by_day[day])))
        # The driver's own errors too: the reconciliations are written with COPY on its cursor (cardroom.bulk).
        except (BadInput, StateConflict, DatabaseError, connection.Database.Error) as error:
            failed |= {(t, day) for t in by_day[day]}
            month.reasons.append(f"gaming day {day.isoformat()} could not be reconciled ({_said(error)})")
    if still := unreconciled(first) - failed:
        month.reasons.append(f"not reconciled: {_days(still)}")
    if month.reasons:
        return
    if problem := closing_privilege_problem():
        month.reasons.append(problem)
        return
    try:
        services.close(first, [e.slug for e in month.establishments], now=now,
                       say=lambda line: logger.info("%s: %s", label, line.strip()), label=LABEL)
    except (BadInput, StateConflict) as error:
        month.reasons.append(f"the close failed: {error}")
    except (DatabaseError, connection.Database.Error) as error:  # a COPY's, the driver's own
        logger.exception("closing %s", label)
        month.reasons.append(f"the close failed on a database error: {_said(error)}")
    else:
        month.closed = True


def closing_privilege_problem():
    """Why this database role cannot close a month (None when it can): it must own the ledger's tables (it detaches
    and drops partitions) and write the closing's record, as the owner does (``bin/migrate``)."""
    role, may = services.database_role()
    if may:
        return None
    return (f"the database role {role} that ran the nightly close does not own the ledger's tables: run "
            f"'manage.py close_due_months' as the owner (MIGRATE_DATABASE_URL), or close_month")


def _hold(month):
    """Say why in each room's audit log (so in the inbox), unless the same reasons stand there already."""
    label = f"{month.first:%Y-%m}"
    standing_now = {entry.establishment_id: entry.data.get("reasons") for entry in
                    standing().filter(data__month=label, establishment__in=month.establishments)}
    rooms = [e for e in month.establishments if standing_now.get(e.pk) != month.reasons]
    logger.warning("%s left open: %s", label, "; ".join(month.reasons))
    if rooms:
        log_actions([(HELD, {"actor_label": LABEL, "establishment": e, "jurisdiction": e.jurisdiction,
                             "data": {"month": label, "reasons": month.reasons,
                                      "establishments": [r.slug for r in month.establishments]}})
                     for e in rooms])
