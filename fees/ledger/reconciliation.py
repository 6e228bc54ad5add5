"""Reconciliation: expected (rounds) against collected (effective entries) per table and gaming day, hand by hand,
aggregated in SQL; each result stored as a ``Reconciliation`` row and logged. Where a retroactive version now covers
the day, what the rounds are owed as known now is stored beside it (``fees.ledger.restating``)."""

import datetime
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

from django.db import connection, transaction
from django.utils import timezone

from cardroom import bulk
from cardroom.audit import log_actions
from cardroom.models import Table
from cardroom.money import CENT

from ..models import CollectionEntry, Reconciliation, RoundOfPlay, VarianceChange
from ..models.ledger import effective_on_day_sql
from ..months.selectors import refuse_closed
from .restating import restate

VARIANCE = "(h.rounds = 0 OR ABS(h.expected - h.collected) >= 0.005)"


def _hands_sql(day, table_ids):
    """Per (table, reference) of one gaming day: expected, collected (effective entries), rounds and entries. A
    reference names one round a table and day (``ledger_round_reference``), so only the entries are grouped (a
    gaming day's 160,000 of them into 55,000 hands), then joined to the rounds: a hand with entries and no round, or
    a round with none, is a row all the same."""
    rounds, entries = RoundOfPlay._meta.db_table, CollectionEntry._meta.db_table
    where_tables, tables = "", []
    if table_ids is not None:
        where_tables = f" AND {{alias}}.table_id IN ({', '.join(['%s'] * len(table_ids))})"
        tables = list(table_ids)
    effective_join, effective = effective_on_day_sql("e")  # its parameter: the day
    sql = (
        "SELECT coalesce(r.table_id, c.table_id) AS table_id, coalesce(r.reference, c.reference) AS reference, "
        "coalesce(r.expected_total, 0) AS expected, coalesce(c.collected, 0) AS collected, "
        "CASE WHEN r.table_id IS NULL THEN 0 ELSE 1 END AS rounds, coalesce(c.entries, 0) AS entries FROM ("
        f"SELECT r.table_id, r.reference, r.expected_total FROM {rounds} r WHERE r.gaming_day = %s"
        + where_tables.format(alias="r") + ") r FULL JOIN ("
        f"SELECT e.table_id, e.reference, SUM(e.amount) AS collected, COUNT(*) AS entries FROM {entries} e "
        f"{effective_join} WHERE e.gaming_day = %s" + where_tables.format(alias="e") + f" AND {effective} "
        "GROUP BY e.table_id, e.reference) c ON c.table_id = r.table_id AND c.reference = r.reference"
    )
    return sql, [day, *tables, day, day, *tables]


def _reconcile_sql(day, table_ids):
    """One pass over the hands of a gaming day: a row per table (kind 0, its sums and counts), then a row per hand
    with a variance (kind 1)."""
    hands, params = _hands_sql(day, table_ids)
    return (
        f"WITH h AS MATERIALIZED ({hands}) "
        "SELECT 0 AS kind, h.table_id, NULL AS reference, SUM(h.expected), SUM(h.collected), SUM(h.rounds), "
        f"SUM(h.entries), COUNT(*), SUM(CASE WHEN {VARIANCE} THEN 1 ELSE 0 END) FROM h GROUP BY h.table_id "
        "UNION ALL "
        f"SELECT 1, h.table_id, h.reference, h.expected, h.collected, h.rounds, h.entries, 1, 1 FROM h "
        f"WHERE {VARIANCE} "
        "ORDER BY 1, 2, 3"
    ), params


def _money(value):
    """A SQL sum as Decimal cents (SQLite returns floats for sums of decimals)."""
    if value is None:
        return Decimal("0.00")
    if isinstance(value, float):
        return Decimal(repr(round(value, 2))).quantize(CENT)
    return Decimal(value).quantize(CENT)


PARALLEL_DAYS = 2  # connections reconciling days side by side: PostgreSQL's work, a backend per core


def compute(day_from, day_to=None, table_ids=None):
    """Reconcile in SQL. Returns {(table_id, gaming_day): summary dict with its variance list}.

    A gaming day at a time: each day's hands are grouped in memory, read through the covering indexes on the
    gaming day, so a year costs 365 days, not one grouping of a year's hands. On PostgreSQL, outside a
    transaction (a nightly or on-demand run, not a test's), days go to PARALLEL_DAYS connections at once: days
    are independent, each read in one statement."""
    day_to = day_to or day_from
    if table_ids is not None and not table_ids:
        return {}
    days = [day_from + datetime.timedelta(days=n) for n in range((day_to - day_from).days + 1)]
    if connection.vendor != "postgresql" or connection.in_atomic_block or len(days) < 2:
        return _compute_days(days, table_ids)
    results = {}
    with ThreadPoolExecutor(max_workers=PARALLEL_DAYS) as pool:
        for part in pool.map(_compute_days_apart, [(days[n::PARALLEL_DAYS], table_ids) for n in range(PARALLEL_DAYS)]):
            results.update(part)
    return results


def _compute_days_apart(job):
    try:
        return _compute_days(*job)
    finally:
        connection.close()  # the thread's own connection


def _compute_days(days, table_ids):
    results = {}
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A busy day's hands (55,000 of them) grouped in memory, not sorted on disk; JIT costs more than it
            # saves on queries this short.
            cursor.execute("SET LOCAL work_mem = '64MB'")
            cursor.execute("SET LOCAL jit = off")
        for day in days:
            cursor.execute(*_reconcile_sql(day, table_ids))
            for kind, table_id, reference, expected, collected, n_rounds, n_entries, n_hands, n_variance in \
                    cursor.fetchall():
                expected, collected = _money(expected), _money(collected)
                key = (table_id, day)
                if kind == 0:
                    results[key] = {
                        "expected_total": expected, "collected_total": collected, "difference": collected - expected,
                        "rounds": int(n_rounds), "entries": int(n_entries), "hands": int(n_hands),
                        "hands_with_variance": int(n_variance), "hands_balanced": int(n_hands) - int(n_variance),
                        "variances": [],
                    }
                    continue
                if not n_rounds:
                    status, expected_text = "no_round", None
                elif not n_entries:
                    status, expected_text = "not_collected", str(expected)
                else:
                    status = "under_collected" if collected < expected else "over_collected"
                    expected_text = str(expected)
                results[key]["variances"].append({
                    "reference": reference, "status": status, "expected": expected_text, "collected": str(collected),
                    "difference": str(collected - expected), "rounds": int(n_rounds), "entries": int(n_entries),
                })
    return results


def empty_summary():
    zero = Decimal("0.00")
    return {"expected_total": zero, "collected_total": zero, "difference": zero, "rounds": 0, "entries": 0,
            "hands": 0, "hands_with_variance": 0, "hands_balanced": 0, "variances": []}


def tables_with_activity(day_from, day_to=None):
    day_to = day_to or day_from
    active = set(RoundOfPlay.objects.filter(gaming_day__range=(day_from, day_to)).values_list("table_id", flat=True)
                 .distinct())
    active |= set(CollectionEntry.objects.filter(gaming_day__range=(day_from, day_to))
                  .values_list("table_id", flat=True).distinct())
    return active


def table_days_with_activity(establishment, day_from, day_to):
    """The (table id, gaming day) pairs of ``establishment`` with rounds or entries from ``day_from`` to
    ``day_to``: what a run over a period reconciles (a table-day with no play gets no report)."""
    found = set()
    for model in (RoundOfPlay, CollectionEntry):
        found |= set(model.objects.filter(establishment=establishment, gaming_day__range=(day_from, day_to))
                     .order_by().values_list("table_id", "gaming_day").distinct())
    return found


def reconcile(day_from, day_to=None, *, table_ids=None, user=None, trigger=Reconciliation.Trigger.ON_DEMAND):
    """Reconcile tables over gaming days and store one Reconciliation per table and day.

    With ``table_ids`` every named table gets a report for every day, activity or not; without, only the
    tables and days with rounds or entries do. Each stored reconciliation is logged in the audit log. A day of a
    closed month is refused (``fees.months.selectors.MonthClosed``, a BadInput).
    """
    day_to = day_to or day_from
    refuse_closed(day_from, day_to)  # its rows are archived: "nothing played" would be wrong
    results = compute(day_from, day_to, table_ids)
    if table_ids is not None:
        day = day_from
        while day <= day_to:
            for table_id in table_ids:
                results.setdefault((table_id, day), empty_summary())
            day += datetime.timedelta(days=1)
    restate(results, day_from, day_to)  # owed as known now, beside owed when collected (a retroactive version)
    tables = Table.objects.select_related("establishment__jurisdiction").in_bulk({t for t, _ in results})
    run_by = user if getattr(user, "is_authenticated", False) else None
    stored = []
    with transaction.atomic():
        for (table_id, day), summary in sorted(results.items(), key=lambda item: (item[0][1], item[0][0])):
            table = tables[table_id]
            stored.append(Reconciliation(
                establishment=table.establishment, table=table, gaming_day=day, trigger=trigger,
                currency=table.establishment.jurisdiction.currency,
                status=Reconciliation.Status.VARIANCE if summary["hands_with_variance"] else
                Reconciliation.Status.BALANCED, run_by=run_by, **summary,
            ))
        stored = bulk.insert(Reconciliation, stored)
        # In the same transaction: the variance summaries look at these table-days again, whatever their ids.
        VarianceChange.objects.bulk_create([VarianceChange(establishment_id=r.establishment_id, table_id=r.table_id,
                                                           gaming_day=r.gaming_day) for r in stored], batch_size=1000)
        log_actions([("ledger.reconcile", {
            "actor": run_by, "actor_label": "" if run_by else f"reconciliation ({trigger})", "obj": reconciliation,
            "establishment": reconciliation.table.establishment,
            "jurisdiction": reconciliation.table.establishment.jurisdiction,
            "data": {"table": reconciliation.table.pk, "gaming_day": reconciliation.gaming_day.isoformat(),
                     "trigger": trigger, "status": reconciliation.status,
                     "expected_total": str(reconciliation.expected_total),
                     "collected_total": str(reconciliation.collected_total),
                     "difference": str(reconciliation.difference),
                     "hands_with_variance": reconciliation.hands_with_variance,
                     **({"owed_now_total": str(reconciliation.owed_now_total),
                         "restatements": reconciliation.restatements} if reconciliation.restatements else {})},
        }) for reconciliation in stored])
    return stored


def previous_gaming_day(today=None):
    return (today or timezone.localdate()) - datetime.timedelta(days=1)
