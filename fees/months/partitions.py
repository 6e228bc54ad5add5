"""The ledger's two big tables partitioned by month of gaming day, on PostgreSQL (declarative partitioning).

Rounds (~2 kB each, ~41 GB a year for a busy room) and collection entries (~290 B, ~17 GB; docs/scaling.md) each
get a partition a month: a day's reconciliation reads only its month's indexes, and a closed month can later be
exported, detached and archived without touching the others. ``fees`` migrations 0009 (rounds) and 0014 (entries)
turn the tables into partitioned ones; ``ensure_months`` (the migrations, and a daily beat task through
``ensure_ahead``) keeps partitions ready ahead. A day with no month's partition (long past, or far ahead) lands
in the table's DEFAULT partition, so no row is ever refused for it.

Nothing here runs on SQLite: the tables there stay plain ones.
"""

import datetime

from django.db import connection

ROUNDS, ENTRIES = "fees_roundofplay", "fees_collectionentry"
TABLES = (ROUNDS, ENTRIES)


def month_name(table, first):
    return f"{table}_{first:%Y_%m}"


def next_month(first):
    return (first.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)


def months(start, end):
    """First days of the months from ``start``'s to ``end``'s, both included."""
    first, found = start.replace(day=1), []
    while first <= end:
        found.append(first)
        first = next_month(first)
    return found


# Keys a partition holds onto itself, by table: ``<partition>_<key>``, its template's {0} the partition, {1} the key.
# The corrections' key: a correction has its original's gaming day (fees.ledger.intake), so both rows are in one
# partition and each partition's key points at that partition. On the parent instead, PostgreSQL would refuse to
# detach or drop a month it sees referenced, and making the key again would check every other month.
OWN_KEYS = {
    ENTRIES: {"corrects": "ALTER TABLE {0} ADD CONSTRAINT {1} FOREIGN KEY (corrects_id, gaming_day) "
                          "REFERENCES {0} (id, gaming_day) DEFERRABLE INITIALLY DEFERRED"},
}


def add_own_keys(cursor, table, partition):
    """Give ``partition`` of ``table`` its keys onto itself (the rounds have none); this checks its rows."""
    q = connection.ops.quote_name
    for key, template in OWN_KEYS.get(table, {}).items():
        cursor.execute(template.format(q(partition), q(f"{partition}_{key}")))


def drop_own_keys(cursor, table):
    """Drop the keys each partition of ``table`` holds onto itself."""
    q = connection.ops.quote_name
    for (partition,) in _partitions(cursor, table):
        for key in OWN_KEYS.get(table, {}):
            cursor.execute(f"ALTER TABLE {q(partition)} DROP CONSTRAINT IF EXISTS {q(f'{partition}_{key}')}")


def _partitions(cursor, table):
    cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                   "WHERE i.inhparent = %s::regclass ORDER BY 1", [table])
    return cursor.fetchall()


def is_partitioned(cursor, table):
    cursor.execute("SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid "
                   "WHERE c.relname = %s AND c.relnamespace = 'public'::regnamespace", [table])
    return cursor.fetchone() is not None


def month_function_sql(table):
    """``<table>_month(first)``: makes that month's partition of ``table``, returns its name (NULL: nothing made).

    Made by the migration, owned by the table's owner: the service's database role may not create tables (it only
    reads and writes rows: grant_service_role), so the daily task asks this function to, for this one purpose. It
    makes none for a closed month (fees.months): SECURITY DEFINER must not become a way around the closing.
    It gives the partition its keys onto itself (``OWN_KEYS``) as ``add_own_keys`` does."""
    keys = "".join(f"\n    EXECUTE format('{template.format('%1$I', '%2$I')}', name, name || '_{key}');"
                   for key, template in OWN_KEYS.get(table, {}).items())
    return f"""
CREATE OR REPLACE FUNCTION {table}_month(first date) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    following date := (date_trunc('month', first) + interval '1 month')::date;
    name text := '{table}_' || to_char(first, 'YYYY_MM');
    closed boolean;
BEGIN
    first := date_trunc('month', first)::date;
    IF to_regclass(name) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    -- A closed month (fees.months) is archived: no partition is made for it, so its rows stay refused (the
    -- DEFAULT's CHECK) until reopen_month restores the archived one. (Read dynamically: the closed months' table
    -- comes in a later migration than this function.)
    IF to_regclass('public.fees_closedmonth') IS NOT NULL THEN
        EXECUTE 'SELECT EXISTS (SELECT 1 FROM fees_closedmonth WHERE month = $1 AND reopened_at IS NULL)'
            INTO closed USING first;
        IF closed THEN
            RAISE NOTICE '% is a closed month: no partition is made for it', to_char(first, 'YYYY-MM');
            RETURN NULL;
        END IF;
    END IF;
    -- Rows of that month already in DEFAULT: PostgreSQL would refuse the partition; they stay where they are.
    IF EXISTS (SELECT 1 FROM {table}_default WHERE gaming_day >= first AND gaming_day < following) THEN
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE %I PARTITION OF {table} FOR VALUES FROM (%L) TO (%L)', name, first, following);{keys}
    RETURN name;
END $$"""


def ensure_months(start, end, cursor=None, tables=TABLES):
    """Create the month partitions from ``start`` to ``end`` that are missing, for each of ``tables`` that is
    partitioned. A month whose rows already sit in the DEFAULT partition is left there (PostgreSQL would refuse the
    partition): they stay correct, only unpruned. Returns the names created."""
    if connection.vendor != "postgresql":
        return []
    own = cursor is None
    cursor = cursor or connection.cursor()
    try:
        made = []
        for table in tables:
            if not is_partitioned(cursor, table):
                continue
            for first in months(start, end):
                cursor.execute(f"SELECT {table}_month(%s)", [first])
                (name,) = cursor.fetchone()
                if name:
                    made.append(name)
        return made
    finally:
        if own:
            cursor.close()


def ensure_ahead(today=None):
    """Both tables' months from this one to the same month next year (what the daily beat task keeps ready)."""
    this_month = (today or datetime.date.today()).replace(day=1)
    return ensure_months(this_month, this_month.replace(year=this_month.year + 1))


def partition_table(cursor, today, table=ROUNDS):
    """Turn the plain ``table`` into one partitioned by month of gaming day: the same columns, checks, indexes,
    foreign keys and triggers under the same names (later migrations find them), the primary key (id, gaming_day)
    as PostgreSQL requires the partition key in it, the ids going on from the same number. Every other unique key
    must already contain gaming_day. Rows are copied across in one statement: for a large ledger this migration
    takes a while and holds the table."""
    _rebuild(cursor, table, today, partitioned=True)


def unpartition_table(cursor, table=ROUNDS):
    """The way back: the plain table of before, the rows copied back (migrating backwards)."""
    _rebuild(cursor, table, None, partitioned=False)


def _rebuild(cursor, table, today, *, partitioned):
    old = f"{table}_before"
    if not partitioned:
        drop_own_keys(cursor, table)  # they need the partitions' primary keys, dropped below with the parent's
    cursor.execute(f"ALTER TABLE {table} RENAME TO {old}")
    cursor.execute(
        "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = %s::regclass AND contype IN ('p', 'u', 'f') ORDER BY contype = 'p', contype = 'u'",
        [old])
    constraints = cursor.fetchall()  # foreign keys first, then unique, then the primary key: the order to drop
    cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = %s "
                   "AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)",
                   [old, old])
    indexes = cursor.fetchall()
    # Triggers the table was given (the ledger's append-only one, fees migration 0010), not PostgreSQL's own.
    cursor.execute("SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = %s::regclass "
                   "AND NOT tgisinternal ORDER BY tgname", [old])
    triggers = cursor.fetchall()
    for name, _ in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    for name, _, _ in constraints:
        cursor.execute(f'ALTER TABLE {old} DROP CONSTRAINT "{name}"')
    cursor.execute(f"CREATE TABLE {table} (LIKE {old} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE "
                   f"INCLUDING COMPRESSION){' PARTITION BY RANGE (gaming_day)' if partitioned else ''}")
    # Primary and unique keys before the partitions (a partition's keys onto itself, OWN_KEYS, need its primary
    # key); foreign keys after the rows are copied: added to a full table, each is checked by one query, where
    # present during the copy it would queue a check per row (60 million for a year of entries: hours, and memory).
    for name, kind, definition in reversed(constraints):
        if kind == "p":
            definition = "PRIMARY KEY (id, gaming_day)" if partitioned else "PRIMARY KEY (id)"
        if kind != "f":
            cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
    if partitioned:
        cursor.execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
        cursor.execute(month_function_sql(table))
        # Months for the rows there (at most ten years back: anything older stays in DEFAULT), a year either side.
        this_month = today.replace(day=1)
        cursor.execute(f"SELECT min(gaming_day) FROM {old}")
        first = max(min(cursor.fetchone()[0] or this_month, this_month.replace(year=this_month.year - 1)),
                    this_month.replace(year=this_month.year - 10))
        ensure_months(first, this_month.replace(year=this_month.year + 1), cursor, tables=[table])
        drop_own_keys(cursor, table)  # the month function gave each month its own; made again after the copy
    for name, definition in indexes:
        cursor.execute(definition.replace(f"ON public.{old} ", f"ON public.{table} ")
                       .replace(f"ON ONLY public.{old} ", f"ON public.{table} "))
    cursor.execute(f"ALTER TABLE {table} ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY")
    cursor.execute(f"INSERT INTO {table} SELECT * FROM {old}")
    for name, kind, definition in constraints:
        if kind == "f":
            cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
    if partitioned:
        for (partition,) in _partitions(cursor, table):
            add_own_keys(cursor, table, partition)
    # Checks still pending from earlier in the transaction run now: PostgreSQL refuses to alter a table with checks
    # pending, and a migration backwards goes on altering it (Django's key on corrects).
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                   f"(SELECT coalesce(max(id), 0) + 1 FROM {old}), false)")
    for name, definition in triggers:  # after the copy: a trigger on inserts would not run for rows moved across
        cursor.execute(definition.replace(f" ON public.{old} ", f" ON public.{table} "))
    cursor.execute(f"DROP TABLE {old}")
    if not partitioned:
        cursor.execute(f"DROP FUNCTION IF EXISTS {table}_month(date)")
    cursor.execute(f"SELECT pg_get_serial_sequence('{table}', 'id')")
    cursor.execute(f"ALTER SEQUENCE {cursor.fetchone()[0]} RENAME TO {table}_id_seq")  # the name the old one had
