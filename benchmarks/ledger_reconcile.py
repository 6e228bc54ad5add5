"""Reconciliation of a year of a busy room: 50 tables x 365 gaming days, 20,002,000 rounds and 58,998,000 entries
(benchmarks/ledger_year.py), on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_year .venv/bin/python benchmarks/ledger_reconcile.py

The year is generated inside PostgreSQL the first time (minutes; the time is printed) and kept for the next run,
which adds only the days missing (BENCH_REGENERATE=1 makes it all again; BENCH_DAYS=n the first n days only, where
the disk cannot hold a year: the year's figure is then n days' times 365 / n, as days are reconciled one by one).
Measured with time.perf_counter:
- the whole year reconciled in one pass: 18,250 reconciliations stored and logged (target < 60 s);
- one gaming day of 50 tables, as the nightly run does it (target < 1 s; the median of 7 days across the year);
- an on-demand run of one table and day through POST /api/v1/ledger/reconciliations/run/.
Every figure is checked against what the generator's rules say the reconciliation must find (ledger_year.expected).
The reconciliations made are deleted afterwards; the year stays.

At the smoke size (BENCH_SMOKE=1, bin/bench --smoke: DATABASE_URL must name the database) 3 gaming days of the
smoke-sized year (3 tables, 12 rounds a table and day), generated in the run's own database.
"""

import datetime
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import database_url, figure, sized  # noqa: E402

os.environ["DATABASE_URL"] = database_url("postgres://postgres@127.0.0.1:5432/cardroom_bench_year")
import ledger_ingest as setup  # noqa: E402  (puts the project on sys.path, Django's settings)
import ledger_year as year  # noqa: E402

DAYS = sized(year.DAYS, 3, "BENCH_DAYS")
YEAR_TARGET_S, DAY_TARGET_S = 30, 0.15  # issue 26 (issue 15 asked 60 s and 1 s)


def check(stored, want, what):
    assert sum(r.rounds for r in stored) == want.rounds, f"{what}: rounds disagree"
    assert sum(r.entries for r in stored) == want.entries, f"{what}: entries disagree"
    assert sum(r.expected_total for r in stored) == want.expected, f"{what}: expected totals disagree"
    assert sum(r.collected_total for r in stored) == want.collected, f"{what}: collected totals disagree"
    assert sum(r.hands_with_variance for r in stored) == want.variance_hands, f"{what}: variance counts disagree"
    assert sum(len(r.variances) for r in stored) == want.variance_hands, f"{what}: variances listed disagree"


def main():
    user, tables = setup.prepare(clean=False)
    from django.db import connection
    from rest_framework.test import APIClient

    from fees import ledger
    from fees.models import Reconciliation

    setup.cleanup(tables, models=[Reconciliation])
    generated_s = year.ensure(user, tables, DAYS, regenerate=bool(os.environ.get("BENCH_REGENERATE")))
    if generated_s:
        print(f"generated in {generated_s:.0f} s")
    want = year.expected(days=DAYS)
    last_day = year.FIRST_DAY + datetime.timedelta(days=DAYS - 1)
    ids = [t.pk for t in tables]
    with connection.cursor() as cursor:
        # A partitioned table's size is its partitions' (the rounds on PostgreSQL: fees.months.partitions).
        cursor.execute("SELECT pg_size_pretty(pg_total_relation_size(t) + coalesce((SELECT sum(pg_total_relation_size("
                       "inhrelid)) FROM pg_inherits WHERE inhparent = t), 0)) FROM unnest(%s::regclass[]) AS t",
                       [["fees_roundofplay", "fees_collectionentry"]])
        sizes = [size for (size,) in cursor.fetchall()]
    try:
        began = time.perf_counter()
        stored = ledger.reconcile(year.FIRST_DAY, last_day, table_ids=ids, user=user,
                                  trigger=Reconciliation.Trigger.ON_DEMAND)
        year_s = time.perf_counter() - began
        assert len(stored) == year.TABLES * DAYS
        check(stored, want, "the year")

        day_times = []
        for offset in range(0, DAYS, max(1, DAYS // 7))[:7]:
            day = year.FIRST_DAY + datetime.timedelta(days=offset)
            began = time.perf_counter()
            nightly = ledger.reconcile(day, trigger=Reconciliation.Trigger.NIGHTLY)
            day_times.append(time.perf_counter() - began)
            assert len(nightly) == year.TABLES
            check(nightly, year.expected(day, 1), f"gaming day {day}")
        day_s = statistics.median(day_times)

        client = APIClient()
        client.force_authenticate(user)
        began = time.perf_counter()
        on_demand = tables[:20]
        for table in on_demand:
            response = client.post("/api/v1/ledger/reconciliations/run/",
                                   {"table": table.pk, "gaming_day": last_day.isoformat()}, format="json")
            assert response.status_code == 201, response.content[:300]
        on_demand_ms = (time.perf_counter() - began) / len(on_demand) * 1000
        sample = response.json()
    finally:
        setup.cleanup(tables, models=[Reconciliation])

    print(f"PostgreSQL {connection.pg_version // 10000}, {os.cpu_count()} CPUs")
    print(f"{'a year' if DAYS == year.DAYS else 'part of a year'}: {year.TABLES} tables x {DAYS} gaming days, "
          f"{want.rounds:,} rounds ({sizes[0]} with indexes), "
          f"{want.stored_entries:,} entries ({sizes[1]})")
    print(f"  expected {want.expected:,} USD, collected {want.collected:,} USD, "
          f"{want.variance_hands:,} hands with a variance")
    figure(f"{DAYS} gaming days in one pass ({len(stored):,} reconciliations stored and logged)", year_s, "s")
    # Days are reconciled one by one, so a year takes 365 times a day (what a shorter run can tell).
    figure(f"the year{' (at this rate)' if DAYS != year.DAYS else ''}", year_s * year.DAYS / DAYS, "s",
           ("<", YEAR_TARGET_S))
    figure(f"one gaming day of {year.TABLES} tables (nightly), median of {len(day_times)} days", day_s, "s",
           ("<", DAY_TARGET_S))
    figure(f"one gaming day, the slowest of {len(day_times)}", max(day_times), "s")
    figure(f"on demand, one table and day through the API ({sample['hands']} hands, {len(sample['variances'])} "
           f"variances listed)", on_demand_ms, "ms")


if __name__ == "__main__":
    main()
