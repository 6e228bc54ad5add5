"""Importing a room's file through the import pages' service (fees.imports): a 1,000,000-row CSV of collection
entries into PostgreSQL: issue 43's targets, under 30 s, the same file again under 15 s; and the entries' list
page right after it (the API's first page of one gaming day, as the importer), under 0.3 s.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench .venv/bin/python benchmarks/imports.py
    BENCH_ROWS=100000 .venv/bin/python benchmarks/imports.py --profile   # where the job's CPU goes

Prepares the benchmark database as ``ledger_ingest`` does (seed data, 50 posted tables at Casino Marysville) with a
compliance officer, writes BENCH_ROWS rows (default 1,000,000; one row in BENCH_BAD_EVERY refused, default 10,000)
as a room's CSV (local times, table labels, no keys: keys derived from content), then times what the pages do:
``receive_upload`` (size and row checks, SHA-256, the header), ``save_mapping`` and ``start_import``, the job run
in-process (jobs run in-process with no broker). Prints each step's wall time, rows/s, and rows per CPU second of
this process (the machine may be shared: the CPU figure does not count waiting, nor PostgreSQL's own work). Then
imports the same file again (nothing recorded twice) and deletes the rows it made.

At the smoke size (BENCH_SMOKE=1, bin/bench --smoke: DATABASE_URL must name the database) 300 rows, 6 of them bad.
"""

import cProfile
import csv
import datetime
import os
import pstats
import sys
import tempfile
import time

# benchmarks/ is on sys.path as a script
from ledger_ingest import TABLES, cleanup, ensure_database, prepare
from support import figure, sized

ROWS = sized(1_000_000, 300, "BENCH_ROWS")
BAD_EVERY = sized(10_000, 50, "BENCH_BAD_EVERY")
PROFILE = "--profile" in sys.argv  # cProfile the first import's job (its own time per function; slower)
TARGETS = {"first import": 30.0, "same file again": 15.0}
LIST_TARGET = 0.3  # s, the ledger list page right after the import
FIRST_DAY = datetime.date(2026, 1, 1)
HEADER = ["Record", "Table", "Gaming date", "Time", "Hand #", "Payer", "Seat", "Fee type", "Amount"]
SLOTS = [("player", "1", "player", "3.00"), ("player", "2", "player", "1.00"), ("player_dealer", "", "player_dealer",
                                                                                 "3.00")]


def write_file(path, tables):
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(HEADER)
        for i in range(ROWS):
            hand, slot = divmod(i, 3)
            table = tables[hand % TABLES].label
            day = FIRST_DAY + datetime.timedelta(days=(hand // TABLES) % 30)
            payer, seat, fee_kind, amount = SLOTS[slot]
            if BAD_EVERY and i % BAD_EVERY == BAD_EVERY - 1:
                amount = "3,00"  # refused: a decimal comma
            writer.writerow(["entry", table, day.isoformat(), f"{day.isoformat()} {10 + slot}:00:00",
                             f"H-{hand // (TABLES * 30)}", payer, seat, fee_kind, amount])


def timed(what, function, profile=False):
    profiler = cProfile.Profile() if profile else None
    wall, cpu = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    result = function()
    if profiler is not None:
        profiler.disable()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    print(f"  {what:<34} {wall:7.1f} s wall, {cpu:7.1f} s CPU, {ROWS / wall:9,.0f} rows/s, "
          f"{ROWS / max(cpu, 1e-9):9,.0f} rows per CPU second")
    return result, wall, cpu


def list_page(officer, room):
    """The API's first page of the entries of one gaming day of the file, as the importer reads it: its median."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(officer)
    url = f"/api/v1/ledger/entries/?establishment={room.slug}&gaming_day={FIRST_DAY + datetime.timedelta(days=14)}"
    times = []
    for _ in range(5):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (response.status_code, response.content[:300])
    return sorted(times)[len(times) // 2]


def main():
    ensure_database()
    user, tables = prepare(clean=True)
    from django.contrib.auth import get_user_model
    from django.core.files import File

    from cardroom.models import Establishment, Job, Role
    from cardroom.roles import appoint
    from fees import imports
    from fees.models import CollectionEntry, LedgerDay

    room = Establishment.objects.get(slug="casino-marysville")
    officer, _ = get_user_model().objects.get_or_create(username="bench-import")
    appoint(officer, Role.COMPLIANCE_OFFICER, establishment=room)
    path = os.path.join(tempfile.mkdtemp(prefix="bench-import-"), "bench.csv")
    started = time.perf_counter()
    write_file(path, tables)
    print(f"{ROWS:,} rows written to {path} ({os.path.getsize(path) / 1e6:.0f} MB) in "
          f"{time.perf_counter() - started:.1f} s")
    try:
        for attempt in ("first import", "same file again"):
            print(f"{attempt}:")
            with open(path, "rb") as binary:
                received, wall_1, cpu_1 = timed(
                    "receive (check, hash, header)",
                    lambda: imports.receive_upload(officer, establishment=room, upload=File(binary, name="bench.csv")))
            imports.save_mapping(officer, establishment=room, mapping=imports.guess_mapping(received.header),
                                 header=received.header)
            job, wall_2, cpu_2 = timed("start and run the job",
                                       lambda: imports.start_import(officer, record_import=received),
                                       profile=PROFILE and attempt == "first import")
            received.refresh_from_db()
            job.refresh_from_db()
            total = wall_1 + wall_2
            print(f"  status {job.status}{': ' + job.error if job.error else ''}; recorded "
                  f"{received.entries_recorded:,}, already recorded {received.already_recorded:,}, refused "
                  f"{received.refused:,}")
            assert job.status == Job.Status.DONE, (job.status, job.error)
            figure(f"{attempt} through the page's service, {ROWS:,} rows", total, "s", ("<", TARGETS[attempt]))
            figure(f"{attempt}, rows per CPU second of this process", ROWS / (cpu_1 + cpu_2), "rows/s")
            if attempt == "first import":
                figure("the entries' list page right after it (median of 5)", list_page(officer, room), "s",
                       ("<", LIST_TARGET), digits=3)
        print(f"entries at the benchmark tables: {CollectionEntry.objects.filter(table__in=tables).count():,}")
    finally:
        cleanup(tables, [CollectionEntry, LedgerDay])  # and their kept sums, which would outlive them
        os.remove(path)


if __name__ == "__main__":
    sys.exit(main())
