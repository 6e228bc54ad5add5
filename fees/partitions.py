"""Rounds of play partitioned by month of gaming day, on PostgreSQL (declarative partitioning).

The rounds are the ledger's bulk (~2 kB each, ~41 GB a year for a busy room; docs/scaling.md). With a partition a
month, a day's reconciliation reads only its month's indexes, and a closed month can later be exported, detached
and archived without touching the others. ``fees`` migration 0009 turns the table into a partitioned one;
``ensure_months`` (the migration, and a daily beat task through ``ensure_ahead``) keeps partitions ready ahead.
A day with no month's partition (long past, or far ahead) lands in the DEFAULT partition, so no round is ever
refused for it.

Nothing here runs on SQLite: the table there stays a plain one.
"""

import datetime

from django.db import connection

TABLE = "fees_roundofplay"


def month_name(first):
    return f"{TABLE}_{first:%Y_%m}"


def next_month(first):
    return (first.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)


def months(start, end):
    """First days of the months from ``start``'s to ``end``'s, both included."""
    first, found = start.replace(day=1), []
    while first <= end:
        found.append(first)
        first = next_month(first)
    return found


def is_partitioned(cursor):
    cursor.execute("SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid "
                   "WHERE c.relname = %s AND c.relnamespace = 'public'::regnamespace", [TABLE])
    return cursor.fetchone() is not None


# Made by the migration, owned by the table's owner: the service's database role may not create tables (it only
# reads and writes rows: grant_service_role), so the daily task asks this function to, for this one purpose.
MONTH_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {TABLE}_month(first date) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    following date := (date_trunc('month', first) + interval '1 month')::date;
    name text := '{TABLE}_' || to_char(first, 'YYYY_MM');
BEGIN
    first := date_trunc('month', first)::date;
    IF to_regclass(name) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    -- Rounds of that month already in DEFAULT: PostgreSQL would refuse the partition; they stay where they are.
    IF EXISTS (SELECT 1 FROM {TABLE}_default WHERE gaming_day >= first AND gaming_day < following) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE %I PARTITION OF {TABLE} FOR VALUES FROM (%L) TO (%L)', name, first, following);
    RETURN name;
END $$"""


def ensure_months(start, end, cursor=None):
    """Create the month partitions from ``start`` to ``end`` that are missing. A month whose rounds already sit in
    the DEFAULT partition is left there (PostgreSQL would refuse the partition): they stay correct, only unpruned.
    Returns the names created."""
    if connection.vendor != "postgresql":
        return []
    own = cursor is None
    cursor = cursor or connection.cursor()
    try:
        if not is_partitioned(cursor):
            return []
        made = []
        for first in months(start, end):
            cursor.execute(f"SELECT {TABLE}_month(%s)", [first])
            (name,) = cursor.fetchone()
            if name:
                made.append(name)
        return made
    finally:
        if own:
            cursor.close()


def ensure_ahead(today=None):
    """The months from this one to the same month next year (what the daily beat task keeps ready)."""
    this_month = (today or datetime.date.today()).replace(day=1)
    return ensure_months(this_month, this_month.replace(year=this_month.year + 1))


def partition_table(cursor, today):
    """Turn the plain rounds table into one partitioned by month of gaming day: the same columns, checks, indexes
    and foreign keys under the same names (later migrations find them), the primary key (id, gaming_day) as
    PostgreSQL requires the partition key in it, the ids going on from the same number. Rows are copied across
    in one statement: for a large ledger this migration takes a while and holds the table."""
    _rebuild(cursor, today, partitioned=True)


def unpartition_table(cursor):
    """The way back: the plain table of before, the rows copied back (migrating backwards)."""
    _rebuild(cursor, None, partitioned=False)


def _rebuild(cursor, today, *, partitioned):
    old = f"{TABLE}_before"
    cursor.execute(f"ALTER TABLE {TABLE} RENAME TO {old}")
    cursor.execute(
        "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = %s::regclass AND contype IN ('p', 'u', 'f') ORDER BY contype = 'p', contype = 'u'",
        [old])
    constraints = cursor.fetchall()  # foreign keys first, then unique, then the primary key: the order to drop
    cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = %s "
                   "AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)",
                   [old, old])
    indexes = cursor.fetchall()
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    for name, _, _ in constraints:
        cursor.execute(f'ALTER TABLE {old} DROP CONSTRAINT "{name}"')
    cursor.execute(f"CREATE TABLE {TABLE} (LIKE {old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE "
                   f"INCLUDING COMPRESSION){' PARTITION BY RANGE (gaming_day)' if partitioned else ''}")
    if partitioned:
        cursor.execute(f"CREATE TABLE {TABLE}_default PARTITION OF {TABLE} DEFAULT")
        cursor.execute(MONTH_FUNCTION)
        # Months for the rows there (at most ten years back: anything older stays in DEFAULT), a year either side.
        this_month = today.replace(day=1)
        cursor.execute(f"SELECT min(gaming_day) FROM {old}")
        first = max(min(cursor.fetchone()[0] or this_month, this_month.replace(year=this_month.year - 1)),
                    this_month.replace(year=this_month.year - 10))
        ensure_months(first, this_month.replace(year=this_month.year + 1), cursor)
    for name, kind, definition in reversed(constraints):
        if kind == "p":
            definition = "PRIMARY KEY (id, gaming_day)" if partitioned else "PRIMARY KEY (id)"
        cursor.execute(f'ALTER TABLE {TABLE} ADD CONSTRAINT "{name}" {definition}')
    for name, definition in indexes:
        cursor.execute(definition.replace(f"ON public.{old} ", f"ON public.{TABLE} ")
                       .replace(f"ON ONLY public.{old} ", f"ON public.{TABLE} "))
    cursor.execute(f"ALTER TABLE {TABLE} ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY")
    cursor.execute(f"INSERT INTO {TABLE} SELECT * FROM {old}")
    cursor.execute(f"SELECT setval(pg_get_serial_sequence('{TABLE}', 'id'), "
                   f"(SELECT coalesce(max(id), 0) + 1 FROM {old}), false)")
    cursor.execute(f"DROP TABLE {old}")
    if not partitioned:
        cursor.execute(f"DROP FUNCTION IF EXISTS {TABLE}_month(date)")
    cursor.execute(f"SELECT pg_get_serial_sequence('{TABLE}', 'id')")
    cursor.execute(f"ALTER SEQUENCE {cursor.fetchone()[0]} RENAME TO {TABLE}_id_seq")  # the name the old one had
