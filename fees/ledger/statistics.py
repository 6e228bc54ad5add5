"""The planner's statistics of the ledger's month partitions, brought up to date when a bulk load grew them (issue 43).

After a 1,000,000-row import the entry lists took 7-15 s a page until ``ANALYZE`` (then 0.2 s): PostgreSQL planned
them on the statistics of a month that was nearly empty when last sampled, and autovacuum gets round to a partition
in its own time. So an import and the API's bulk intake, when they end (``fees.ledger.services.reconcile_table_days``,
before reconciling, which reads the same partitions), analyze each month partition of their days that changed
materially since its last ``ANALYZE``: at least ``AT_LEAST`` rows and ``SHARE`` of what it held.

The service's database role owns no table, and only an owner may ``ANALYZE`` one: it asks ``fees_ledger_analyze``
(``fees`` migration 0022), owned by the tables' owner, which analyzes a partition of the ledger and nothing else.
Nothing here runs on SQLite, whose statistics are refreshed nightly and after loading
(``cardroom.tasks.refresh_planner_statistics``).
"""

from django.db import connection

from ..months.partitions import TABLES, month_name, months

AT_LEAST = 10_000  # rows changed: fewer never move a plan
SHARE = 0.2  # of the rows the planner knew of at its last ANALYZE


def grown(days):
    """The partitions of rounds and entries holding ``days`` (their months', and DEFAULT) changed materially since
    their last ``ANALYZE`` (PostgreSQL's own counts: ``pg_stat_user_tables``)."""
    if connection.vendor != "postgresql" or not days:
        return []
    names = [f"{table}_default" for table in TABLES]
    names += [month_name(table, first) for table in TABLES for first in sorted({day.replace(day=1) for day in days})]
    with connection.cursor() as cursor:
        if not connection.in_atomic_block:
            # This connection's own last changes are counted once it flushes them (at most a second late): asked
            # for now, they are flushed as this statement ends, before the next is read.
            cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute(
            "SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid "
            "WHERE s.schemaname = 'public' AND s.relname = ANY(%s) "
            "AND s.n_mod_since_analyze >= GREATEST(%s, %s * GREATEST(c.reltuples, 0)) ORDER BY 1",
            [names, AT_LEAST, SHARE])
        return [name for (name,) in cursor.fetchall()]


def refresh(days):
    """``ANALYZE`` the partitions of ``days`` that grew materially; returns their names."""
    partitions = grown(days)
    with connection.cursor() as cursor:
        for partition in partitions:
            cursor.execute("SELECT fees_ledger_analyze(%s)", [partition])
    return partitions
