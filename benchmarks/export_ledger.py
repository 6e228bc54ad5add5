"""Audit export of a period with 1,000,000 ledger rows on PostgreSQL, against PostgreSQL's own COPY.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_export .venv/bin/python benchmarks/export_ledger.py

Fills one benchmark table at Casino Marysville with ``--rows`` collection entries over March 2026 (one
INSERT ... SELECT generate_series, not timed), then times, in one run:

- ``COPY (the export's SELECT) TO STDOUT (FORMAT csv)`` read to the end by psycopg, discarding the data;
- the export's ledger_entries.csv written into a bundle (COPY streamed through the zip entry, hashed, deflated);
- the whole bundle (format 2: each kind once, as CSV, the rounds' pricings, columns.json, the PDF report,
  checkpoints, the signed manifest), with peak memory; and the bundle-to-CSV ratio, in time and in zipped bytes
  (format 1, every kind as CSV and JSON, was 2.98x the CSV's time).

Targets: the CSV within 3x of COPY (issue 6); the whole bundle within 2x of the CSV's time and peak memory under
300 MB (issue 14). Exit 0 when all are met.
"""

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    from support import ensure_postgres_database

    ensure_postgres_database(os.environ.get("DATABASE_URL", ""))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardroom.settings")
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="cardroom-bench-media-"))
    os.environ.setdefault("SIGNING_KEY_FILE", str(Path(tempfile.mkdtemp()) / "key.pem"))
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from psycopg import sql

    from cardroom.models import Establishment, Game, Table
    from exports import build, collect
    from cardroom.bundle import BundleWriter

    call_command("migrate", verbosity=0)
    call_command("load_seed_data", verbosity=0)
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
    scope = collect.ExportScope(establishments=[place], start=__import__("datetime").date(2026, 3, 1),
                                end=__import__("datetime").date(2026, 3, 31)).freeze()
    kind = next(k for k in collect.KINDS if k.name == "ledger_entries")
    statement = sql.SQL("COPY ({}) TO STDOUT (FORMAT csv)").format(kind.copy_sql(scope))

    def copy_only():
        size = 0
        with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
            for data in copy:
                size += len(data)
        return size

    def export_csv():
        """(rows, zipped bytes) of ledger_entries.csv alone in a bundle."""
        with tempfile.TemporaryDirectory() as d:
            with BundleWriter(Path(d) / "b.zip") as writer:
                rows = build._write_csv(writer, kind, scope, build.Progress(1, None))
                writer.close()
            return rows, (Path(d) / "b.zip").stat().st_size

    copy_only()  # warm the cache: both timings read the same rows from memory
    t = time.perf_counter()
    size = copy_only()
    copy_s = time.perf_counter() - t
    t = time.perf_counter()
    rows, csv_bytes = export_csv()
    csv_s = time.perf_counter() - t
    print(f"COPY TO STDOUT: {copy_s:.2f} s ({size / 1e6:.0f} MB of CSV)")
    print(f"export ledger_entries.csv: {rows:,} rows in {csv_s:.2f} s = {rows / csv_s:,.0f} rows/s "
          f"({csv_s / copy_s:.2f}x COPY), {csv_bytes / 1e6:.1f} MB zipped")
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        manifest = build.build(scope, Path(d) / "bundle.zip", requested_by="benchmark")
        bundle_bytes = (Path(d) / "bundle.zip").stat().st_size
    whole = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"whole bundle ({manifest['format']}): {whole:.1f} s, {bundle_bytes / 1e6:.1f} MB, "
          f"ledger rows {manifest['rows']['ledger_entries']:,}; peak memory (max RSS of the process) {peak:.0f} MB")
    print(f"bundle / CSV: {whole / csv_s:.2f}x the time, {bundle_bytes / csv_bytes:.2f}x the zipped bytes "
          f"(format 1: 2.98x the time)")
    checks = [("CSV within 3x of COPY", f"{csv_s / copy_s:.2f}x", csv_s <= 3 * copy_s),
              ("whole bundle within 2x of the CSV's time", f"{whole / csv_s:.2f}x ({whole:.1f} s / {csv_s:.1f} s)",
               whole <= 2 * csv_s),
              ("peak memory < 300 MB", f"{peak:.0f} MB", peak < 300)]
    for target, figure, met in checks:
        print(f"{target:45} {figure:28} {'met' if met else 'NOT met'}")
    ok = all(met for _, _, met in checks)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
