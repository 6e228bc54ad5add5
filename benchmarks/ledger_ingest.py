"""Bulk ledger ingest: collection entries into PostgreSQL through POST /api/v1/ledger/entries/bulk/.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench .venv/bin/python benchmarks/ledger_ingest.py

Creates (if needed) and migrates the benchmark database, loads the seed data, makes 50 benchmark tables at
Casino Marysville and a floor supervisor, then posts BENCH_ROWS rows (default 1,000,000) in batches of
BENCH_BATCH (default 10,000) through the API in-process (DRF's APIClient: JSON parsing, the whole-batch
check, COPY into a temporary table, INSERT ... ON CONFLICT DO NOTHING). Each request body is encoded before
its clock starts, so the figure is the server's work. Then it re-posts one batch (a retry: nothing is
recorded twice) and, for comparison, times the portable path (bulk_create) on BENCH_PORTABLE_ROWS rows.
Prints rows/s and elapsed beside the target (>= 20,000 rows/s) and deletes every row it made.

Then the service's throughput, issue 15's target (>= 100,000 rows/s): BENCH_CLIENTS (default 2, a core each)
processes post BENCH_ROWS more rows side by side, each its share in its own batches; rows/s is all of them over
the wall time from the moment all are ready to the last answer.

At the smoke size (BENCH_SMOKE=1, bin/bench --smoke: DATABASE_URL must name the database) 300 rows in batches of
100 at 3 tables, 100 on the portable path.
"""

import datetime
import json
import os
import sys
import time
from pathlib import Path

# benchmarks/ is on sys.path as a script
from support import database_url, ensure_postgres_database, figure, migrate_and_seed, sized

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATABASE_URL = database_url("postgres://postgres@127.0.0.1:5432/cardroom_bench")
os.environ["DATABASE_URL"] = DATABASE_URL
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
os.environ.setdefault("LOG_LEVEL", "ERROR")
ROWS = sized(1_000_000, 300, "BENCH_ROWS")
BATCH = sized(10_000, 100, "BENCH_BATCH")
PORTABLE_ROWS = sized(100_000, 100, "BENCH_PORTABLE_ROWS")
TABLES = sized(50, 3)
DAYS = 30
FIRST_DAY = datetime.date(2026, 1, 1)
TARGET = 20_000
SERVICE_TARGET = 100_000  # issue 15
CLIENTS = sized(2, 2, "BENCH_CLIENTS")
USERNAME = "bench-ledger"


def ensure_database():
    ensure_postgres_database(DATABASE_URL)


def prepare(clean=True):
    """Django set up on the benchmark database: migrated, seeded, 50 posted tables and a floor supervisor (with
    ``clean``, no ledger rows at them)."""
    ensure_database()
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from cardroom.models import Establishment, Game, Role, Table
    from cardroom.roles import appoint
    from fees.models import ScheduleDocument, TablePosting

    migrate_and_seed()
    marysville = Establishment.objects.get(slug="casino-marysville")
    user, _ = get_user_model().objects.get_or_create(username=USERNAME)
    appoint(user, Role.FLOOR_SUPERVISOR, establishment=marysville)
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    schedule = ScheduleDocument.objects.get(code="GEGA-002888")
    tables = []
    for number in range(1, TABLES + 1):
        table, _ = Table.objects.get_or_create(establishment=marysville, label=f"BENCH-{number:02d}",
                                               defaults={"seats": 7, "game": game})
        if not TablePosting.objects.filter(table=table).exists():
            TablePosting.objects.create(
                table=table, game=game, schedule=schedule, option_number=43, seats=7,
                effective_from=datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
            )
        tables.append(table)
    if clean:
        cleanup(tables)
    return user, tables


def cleanup(tables, models=None):
    """Remove every ledger row at the benchmark tables, or only those of ``models`` (raw SQL: the application never
    deletes them).

    The audit-log entries of the reconciliations stay: the log is append-only and hash-chained, and
    PostgreSQL refuses to delete from it (docs/audit.md).
    """
    from django.db import connection

    from fees.models import CollectionEntry, Reconciliation, RoundOfPlay

    ids = [t.pk for t in tables]
    models = models or (Reconciliation, RoundOfPlay, CollectionEntry)
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"DELETE FROM {model._meta.db_table} WHERE table_id = ANY(%s)", [ids])
        for model in models:
            cursor.execute(f"VACUUM ANALYZE {model._meta.db_table}")


PAYERS = [("player", "player"), ("player", "player"), ("player_dealer", "player_dealer")]


def entry_rows(tables, start, count, prefix):
    """``count`` entries: three per round (two players, the player-dealer), spread over 50 tables and 30 days."""
    rows = []
    for i in range(start, start + count):
        hand, slot = divmod(i, 3)
        table = tables[hand % TABLES]
        day = FIRST_DAY + datetime.timedelta(days=(hand // TABLES) % DAYS)
        payer, fee_kind = PAYERS[slot]
        rows.append({
            "idempotency_key": f"{prefix}-{i}", "table": table.pk, "gaming_day": day.isoformat(),
            "reference": f"H-{hand // (TABLES * DAYS)}", "collected_at": f"{day.isoformat()}T{10 + slot}:00:00-08:00",
            "payer": payer, "seat": slot + 1 if payer == "player" else None, "fee_kind": fee_kind,
            "amount": "3.00" if slot != 1 else "1.00",
        })
    return rows


def _client(user, tables, prefix, first, count, ready, results):
    """One of the side-by-side clients (a process of its own, forked): its bodies made before the start."""
    from django.db import connection
    from rest_framework.test import APIClient

    connection.close()  # the parent's connection is not this process's to use
    client = APIClient()
    client.force_authenticate(user)
    bodies = [json.dumps({"entries": entry_rows(tables, start, min(BATCH, first + count - start), prefix)})
              for start in range(first, first + count, BATCH)]
    ready.wait()
    for body in bodies:
        response = client.post("/api/v1/ledger/entries/bulk/", body, content_type="application/json")
        if response.status_code != 201:
            results.put(f"{response.status_code} {response.content[:300]!r}")
            return
    results.put(time.perf_counter())


def side_by_side(user, tables, prefix):
    """BENCH_ROWS rows posted by CLIENTS processes at once; returns the wall time in seconds."""
    import multiprocessing

    from django.db import connection

    connection.close()
    context = multiprocessing.get_context("fork")
    ready, results = context.Barrier(CLIENTS + 1), context.Queue()
    share = -(-ROWS // CLIENTS)
    clients = [context.Process(target=_client, args=(user, tables, prefix, n * share, min(share, ROWS - n * share),
                                                     ready, results)) for n in range(CLIENTS)]
    for process in clients:
        process.start()
    ready.wait()
    began = time.perf_counter()
    ends = [results.get() for _ in clients]
    for process in clients:
        process.join()
    failed = [end for end in ends if isinstance(end, str)]
    if failed:
        raise SystemExit(f"a client was refused: {failed[0]}")
    return max(ends) - began


def main():
    user, tables = prepare()
    from django.db import connection, transaction
    from rest_framework.test import APIClient

    from cardroom.access import Scope
    from fees import ledger
    from fees.ledger import storage
    from fees.models import CollectionEntry

    client = APIClient()
    client.force_authenticate(user)
    url = "/api/v1/ledger/entries/bulk/"
    prefix = f"bench-{int(time.time())}"
    try:
        posting, created = 0.0, 0
        wall = time.perf_counter()
        for start in range(0, ROWS, BATCH):
            body = json.dumps({"entries": entry_rows(tables, start, min(BATCH, ROWS - start), prefix)})
            began = time.perf_counter()
            response = client.post(url, body, content_type="application/json")
            posting += time.perf_counter() - began
            if response.status_code != 201:
                raise SystemExit(f"batch at {start}: {response.status_code} {response.content[:500]!r}")
            created += response.json()["created"]
        wall = time.perf_counter() - wall
        stored = CollectionEntry.objects.filter(idempotency_key__startswith=prefix).count()
        assert created == stored == ROWS, (created, stored)

        # A retry of one batch: everything already recorded, nothing written.
        body = json.dumps({"entries": entry_rows(tables, 0, BATCH, prefix)})
        began = time.perf_counter()
        retry = client.post(url, body, content_type="application/json")
        retry_s = time.perf_counter() - began
        assert retry.status_code == 200 and retry.json()["created"] == 0, retry.content[:300]

        # The portable path (bulk_create) on PostgreSQL, for comparison: the same checks (the ledger's own,
        # ``check_entries``), then the rows written as SQLite's path writes them instead of by COPY.
        scope = Scope(user)
        rows = entry_rows(tables, 0, PORTABLE_ROWS, prefix + "-portable")
        began = time.perf_counter()
        for start in range(0, PORTABLE_ROWS, BATCH):
            checked = ledger.check_entries(rows[start:start + BATCH], scope=scope)
            assert not checked.errors, list(checked.errors.values())[:3]
            with transaction.atomic():
                storage.insert_portable(list(checked.rows), user.pk, datetime.datetime.now(datetime.timezone.utc),
                                        chunk=2000)
        portable_s = time.perf_counter() - began

        side_prefix = prefix + "-side"
        side_s = side_by_side(user, tables, side_prefix)
        stored = CollectionEntry.objects.filter(idempotency_key__startswith=side_prefix).count()
        assert stored == ROWS, (stored, ROWS)
    finally:
        began = time.perf_counter()
        cleanup(tables)
        cleanup_s = time.perf_counter() - began

    print(f"PostgreSQL {connection.pg_version // 10000}, {os.cpu_count()} CPUs; {TABLES} tables, {DAYS} gaming days")
    print(f"ingest through POST {url}: {ROWS:,} rows in batches of {BATCH:,} (server time {posting:.1f} s; wall "
          f"time incl. generating the JSON {wall:.1f} s)")
    figure("ingest through the bulk API, one client", ROWS / posting, "rows/s", (">=", TARGET))
    figure(f"a retried {BATCH:,}-row batch (created 0)", retry_s * 1000, "ms")
    figure(f"the portable path (bulk_create) on PostgreSQL, {PORTABLE_ROWS:,} rows", PORTABLE_ROWS / portable_s,
           "rows/s")
    figure(f"the service, {CLIENTS} clients side by side", ROWS / side_s, "rows/s", (">=", SERVICE_TARGET))
    print(f"clean-up (delete + vacuum): {cleanup_s:.1f} s")


if __name__ == "__main__":
    main()
