"""A busy room's year with its months closed by the nightly close (issue 35), on the year benchmarks/ledger_year.py
generates (50 tables x 365 gaming days of 2025, 20,002,000 rounds): the live database and the archives after eleven
months closed, and the export of the year, a bundle of bundles.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_year .venv/bin/python benchmarks/closed_year.py

1. Generates the days not there yet (ledger_year.ensure, ~15 minutes the first time) and the ledger's kept sums.
2. Runs the nightly close as of 20 December 2025 (``fees.months.nightly.close_due_months``, LEDGER_CLOSE_AFTER_DAYS
   10): January to November are due; each month's unreconciled days are reconciled, then the month is closed
   (its bundle exported and verified, its partitions archived and dropped). Prints each month's time.
3. Prints the database's size (``pg_database_size``) and the archives' (files on disk) beside the targets.
4. Exports the year (the export job's own function, ``exports.closed.write``): eleven closed months' bundles as
   they are, December's days built; verifies the result; prints the time beside the target.

Months already closed by an earlier run are kept (step 2 closes only what is due and open), so a second run measures
steps 3 and 4 alone. ``LEDGER_ARCHIVE_DIR`` (default var/bench-year-archive) holds the archives.

At the smoke size (BENCH_SMOKE=1, bin/bench --smoke: DATABASE_URL must name the database) the smoke-sized year's
first 62 days (3 tables, 12 rounds a table and day) closed as of 20 March 2025: January and February closed, March's
three days built into the export; a throw-away key and archive directory.
"""

import datetime
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import database_url, figure, kept_file, sized  # noqa: E402

os.environ["DATABASE_URL"] = database_url("postgres://postgres@127.0.0.1:5432/cardroom_bench_year")
os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="cardroom-bench-media-"))
os.environ.setdefault("SIGNING_KEY_FILE", str(kept_file("bench-year-key.pem")))
os.environ.setdefault("LEDGER_ARCHIVE_DIR", str(kept_file("bench-year-archive")))
import ledger_ingest as setup  # noqa: E402  (puts the project on sys.path, Django's settings)
import ledger_year as year  # noqa: E402

DAYS = sized(year.DAYS, 62)
AS_OF = datetime.datetime(2025, 12, 20, 12, tzinfo=datetime.UTC) if DAYS == year.DAYS else \
    datetime.datetime(2025, 3, 20, 12, tzinfo=datetime.UTC)
DATABASE_TARGET_GB, ARCHIVE_TARGET_GB, EXPORT_TARGET_S = 4, 3, 60


def gigabytes(path):
    return int(subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True).stdout.split()[0]) / 1e9


def main():
    user, tables = setup.prepare(clean=False)
    from django.db import connection

    from cardroom import bundle, keys
    from exports import closed, collect
    from fees.ledger import kept_sums
    from fees.models import ClosedMonth
    from fees.months import nightly
    from fees.tasks import reconcile_as_scheduler

    # A second run finds months closed: their days are archived, not missing, so the year is not made again
    # (ledger_year.ensure would take the gap for a year that is not there and start clearing the tables).
    closed_before = ClosedMonth.objects.filter(reopened_at__isnull=True).exists()
    generated_s = 0 if closed_before else year.ensure(user, tables, DAYS)
    last = year.FIRST_DAY + datetime.timedelta(days=DAYS - 1)
    if generated_s:
        print(f"generated the year in {generated_s:.0f} s")
        began = time.perf_counter()
        kept_sums.rewrite(tables[0].establishment, year.FIRST_DAY, last)
        print(f"kept sums written in {time.perf_counter() - began:.0f} s")

    began = time.perf_counter()
    result = nightly.close_due_months(reconcile=reconcile_as_scheduler, now=AS_OF, after_days=10)
    closing_s = time.perf_counter() - began
    for month in result["months"]:
        print(f"  {month['month']}: {'closed' if month['closed'] else 'LEFT OPEN: ' + '; '.join(month['reasons'])}")
    figure(f"the nightly close of {len(result['months'])} months", closing_s, "s")

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("SELECT pg_database_size(current_database())")
        database_gb = cursor.fetchone()[0] / 1e9
    archive_gb = gigabytes(os.environ["LEDGER_ARCHIVE_DIR"])
    closed_months = ClosedMonth.objects.filter(reopened_at__isnull=True).count()
    figure(f"the live database with {closed_months} months closed", database_gb, "GB", ("<", DATABASE_TARGET_GB))
    figure("the archives (bundles and partitions' files)", archive_gb, "GB", ("<", ARCHIVE_TARGET_GB))

    place = tables[0].establishment
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "year.zip"
        began = time.perf_counter()
        scope = collect.ExportScope(establishments=[place], start=year.FIRST_DAY, end=last).freeze()
        manifest = closed.write(scope, path, requested_by="benchmark")
        export_s = time.perf_counter() - began
        began = time.perf_counter()
        checked = bundle.verify(path, keys.public_key())
        verify_s = time.perf_counter() - began
        figure(f"the year's export ({year.FIRST_DAY} to {last}, {manifest.get('format')}, "
               f"{len(manifest.get('bundles', []))} inner bundles, {path.stat().st_size / 1e9:.2f} GB)", export_s, "s",
               ("<", EXPORT_TARGET_S))
        verdict = "HOLDS" if checked.ok else "DOES NOT HOLD: " + "; ".join(checked.problems[:3])
        figure(f"its verification ({verdict})", verify_s, "s")


if __name__ == "__main__":
    main()
