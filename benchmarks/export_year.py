"""The audit export of a busy room's year (issue 15: under 5 minutes, peak memory under 300 MB), on the year that
benchmarks/ledger_year.py generates and benchmarks/ledger_reconcile.py keeps.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_year .venv/bin/python benchmarks/export_year.py

Builds the whole bundle (format 2: each kind once, as CSV, with the rounds' fee lines and pricings, the PDF report,
checkpoints, the signed manifest) for
Casino Marysville over the first BENCH_EXPORT_DAYS gaming days of the year (default 30; the year is 365: the
export reads its rows in one pass per kind, so its time grows with the rows and a year's is printed at that
rate), the way the export task does. Prints the time, the bundle's size, the rows per kind and the process's peak
memory beside the targets. Generates the days that are not there yet (ledger_year.ensure); days already
there are kept.

At the smoke size (BENCH_SMOKE=1, bin/bench --smoke: DATABASE_URL must name the database) 2 gaming days of the
smoke-sized year, generated in the run's own database, signed with a throw-away key.
"""

import datetime
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import database_url, figure, kept_file, sized  # noqa: E402

os.environ["DATABASE_URL"] = database_url("postgres://postgres@127.0.0.1:5432/cardroom_bench_year")
os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="cardroom-bench-media-"))
# The same key every run: the year is kept, and its database records the key that signed its first bundle.
os.environ.setdefault("SIGNING_KEY_FILE", str(kept_file("bench-year-key.pem")))
import ledger_ingest as setup  # noqa: E402  (puts the project on sys.path, Django's settings)
import ledger_year as year  # noqa: E402

EXPORT_DAYS = sized(30, 2, "BENCH_EXPORT_DAYS")
TIME_TARGET_S, MEMORY_TARGET_MB = 300, 300


def main():
    user, tables = setup.prepare(clean=False)
    from exports import build, collect

    generated_s = year.ensure(user, tables, EXPORT_DAYS)
    if generated_s:
        print(f"generated in {generated_s:.0f} s")
    last_day = year.FIRST_DAY + datetime.timedelta(days=EXPORT_DAYS - 1)
    place = tables[0].establishment
    began = time.perf_counter()
    scope = collect.ExportScope(establishments=[place], start=year.FIRST_DAY, end=last_day).freeze()
    with tempfile.TemporaryDirectory() as directory:
        bundle = Path(directory) / "bundle.zip"
        manifest = build.build(scope, bundle, requested_by="benchmark")
        size_mb = bundle.stat().st_size / 1e6
    seconds = time.perf_counter() - began
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    want = year.expected(days=EXPORT_DAYS)
    rows = manifest["rows"]
    assert rows["rounds"] == want.rounds, (rows["rounds"], want.rounds)
    assert rows["ledger_entries"] == want.stored_entries, (rows["ledger_entries"], want.stored_entries)
    year_s = seconds * year.DAYS / EXPORT_DAYS
    print(f"the bundle of {place} over {EXPORT_DAYS} gaming days ({year.FIRST_DAY} to {last_day}): "
          f"{rows['rounds']:,} rounds, {rows['ledger_entries']:,} entries, {sum(rows.values()):,} rows in all")
    print(f"  {size_mb:,.0f} MB zip, {sum(rows.values()) / seconds:,.0f} rows/s")
    figure(f"the bundle of {EXPORT_DAYS} gaming days", seconds, "s")
    figure(f"a year ({year.DAYS} days) at this rate", year_s / 60, "min", ("<", TIME_TARGET_S // 60))
    figure("peak memory (max RSS of the process)", peak_mb, "MB", ("<", MEMORY_TARGET_MB))


if __name__ == "__main__":
    main()
