"""Audit export of a period with 1,000,000 ledger rows on PostgreSQL, against PostgreSQL's own COPY.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_export .venv/bin/python benchmarks/export_ledger.py

Fills one benchmark table at Casino Marysville with ``--rows`` collection entries over March 2026 (one
INSERT ... SELECT generate_series, not timed), then times, in one run:

- ``COPY (the export's SELECT) TO STDOUT (FORMAT csv)`` read to the end by psycopg, discarding the data;
- the whole bundle (``exports.build.build``; format 2: each kind once, as CSV, the rounds' pricings, columns.json,
  the PDF report, checkpoints, the signed manifest), with peak memory, and within it the export's
  ledger_entries.csv (COPY streamed through the zip entry, hashed, deflated), timed from the build's own progress
  reports (the file begun, the file done); the bundle-to-CSV ratio, in time and in zipped bytes (format 1, every
  kind as CSV and JSON, was 2.98x the CSV's time).

Targets: the CSV within 3x of COPY (issue 6); the whole bundle within 2x of the CSV's time and peak memory under
300 MB (issue 14). At the smoke size (BENCH_SMOKE=1, bin/bench --smoke: DATABASE_URL must name the database) 500
rows.
"""

import argparse
import datetime
import os
import resource
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main():
    parser = argparse.ArgumentParser()
    from support import database_url, ensure_postgres_database, figure, migrate_and_seed, sized

    parser.add_argument("--rows", type=int, default=sized(1_000_000, 500))
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = database_url("postgres://postgres@127.0.0.1:5432/cardroom_bench_export")
    ensure_postgres_database(os.environ["DATABASE_URL"])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="cardroom-bench-media-"))
    os.environ.setdefault("SIGNING_KEY_FILE", str(Path(tempfile.mkdtemp()) / "key.pem"))
    import django

    django.setup()
    from django.db import connection
    from psycopg import sql

    from cardroom.models import Establishment, Game, Table
    from exports import build, collect

    migrate_and_seed()
    place = Establishment.objects.get(slug="casino-marysville")
    table, _ = Table.objects.get_or_create(establishment=place, label="BENCH-EXPORT",
                                           defaults={"seats": 7, "game": Game.objects.get(slug="pai-gow-tiles")})
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM fees_collectionentry WHERE table_id = %s", [table.pk])
        have = cursor.fetchone()[0]
        if have < args.rows:
            t = time.perf_counter()
            cursor.execute("""
                INSERT INTO fees_collectionentry (idempotency_key, establishment_id, table_id, gaming_day, reference,
                    collected_at, payer, seat, player, fee_kind, amount, currency, reason, recorded_at)
                SELECT 'bench-export-' || g, %s, %s, DATE '2026-03-01' + (g %% 31), 'H-' || g,
                       TIMESTAMPTZ '2026-03-01 10:00:00-08' + (g %% 31) * INTERVAL '1 day' + (g %% 3600) * INTERVAL '1 s',
                       'player', 1 + g %% 7, '', 'player', 1 + (g %% 5), 'USD', '', now()
                FROM generate_series(%s, %s) g""", [place.pk, table.pk, have + 1, args.rows])
            print(f"inserted {args.rows - have:,} entries in {time.perf_counter() - t:.1f} s")
        cursor.execute("ANALYZE")  # as autovacuum would after such a load: the plans depend on it
    scope = collect.ExportScope(establishments=[place], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31)).freeze()
    kind = next(k for k in collect.KINDS if k.name == "ledger_entries")
    statement = sql.SQL("COPY ({}) TO STDOUT (FORMAT csv)").format(kind.copy_sql(scope))

    def copy_only():
        size = 0
        with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
            for data in copy:
                size += len(data)
        return size

    name = f"{kind.name}.csv"
    moments = {}

    def progress(done, total, text):
        """The build's reports: ``name`` as the file is begun, ``name: N rows`` with one more file done at its end
        (the reports between, every so many rows, leave ``done`` as it was)."""
        if text == name:
            moments["begun"] = time.perf_counter()
        elif text.startswith(f"{name}:") and done != moments.get("done_before"):
            moments["done"] = time.perf_counter()
        moments["done_before"] = done

    copy_only()  # warm the cache: both timings read the same rows from memory
    t = time.perf_counter()
    size = copy_only()
    copy_s = time.perf_counter() - t
    print(f"COPY TO STDOUT: {copy_s:.2f} s ({size / 1e6:.0f} MB of CSV)")
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        manifest = build.build(scope, Path(d) / "bundle.zip", requested_by="benchmark", on_progress=progress)
        bundle_bytes = (Path(d) / "bundle.zip").stat().st_size
        with zipfile.ZipFile(Path(d) / "bundle.zip") as bundle:
            csv_bytes = next(i.compress_size for i in bundle.infolist() if i.filename.endswith(f"/{name}")
                             or i.filename == name)
    whole = time.perf_counter() - t
    csv_s = moments["done"] - moments["begun"]
    rows = manifest["rows"]["ledger_entries"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"export {name}: {rows:,} rows in {csv_s:.2f} s = {rows / csv_s:,.0f} rows/s, {csv_bytes / 1e6:.1f} MB "
          f"zipped; the whole bundle ({manifest['format']}): {whole:.1f} s, {bundle_bytes / 1e6:.1f} MB, "
          f"{bundle_bytes / csv_bytes:.2f}x the CSV's zipped bytes")
    figure(f"the export's {name} against COPY", csv_s / copy_s, "x", ("<=", 3))
    figure("the whole bundle against the CSV's time (format 1: 2.98x)", whole / csv_s, "x", ("<=", 2))
    figure("peak memory (max RSS of the process)", peak, "MB", ("<", 300))


if __name__ == "__main__":
    sys.exit(main())
