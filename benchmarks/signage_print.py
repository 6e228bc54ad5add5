"""Sign printing speed: one sign (API-equivalent path, record + PDF), and a 200-table floor batch.

    .venv/bin/python benchmarks/signage_print.py [--tables 200] [--repeat 20]

Uses DATABASE_URL when set; otherwise a throw-away SQLite database, migrated and seeded. Builds a floor of
``--tables`` tables at Casino Marysville, each posted (through the same service as the API, so each
posting is validated) on a varied GEGA-002888 option or card-room schedule, then times:

- one sign: ``printing.print_signs([posting], layout)`` end to end (gate, print record, audit log, content
  from the database, PDF), median of ``--repeat``, for each layout; the pure render alone too;
- the batch: the Celery task's body (``tasks.build_batch``) for every table, letter layout, as the task runs it.

Targets (issue 5): one sign under 100 ms, the 200-table batch under 20 s. At the smoke size (BENCH_SMOKE=1) 3
tables, once each.
"""

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import figure, setup_django, sized  # noqa: E402


def floor(n):
    """``n`` benchmark tables at Casino Marysville (where the games are approved), labelled B1, B2, ..."""
    from django.contrib.auth import get_user_model

    from cardroom.models import Establishment, Game, Table
    from fees.models import ScheduleDocument
    from signage.models import PrintOverride
    from signage.postings import post_table

    place = Establishment.objects.get(slug="casino-marysville")
    officer, _ = get_user_model().objects.get_or_create(username="benchmark-compliance")
    gega = ScheduleDocument.objects.get(code="GEGA-002888")
    games = list(Game.objects.filter(schedules=gega))
    start = datetime.datetime(2026, 1, 1, 8, tzinfo=datetime.timezone.utc)
    tables = []
    for i in range(n):
        table, created = Table.objects.get_or_create(establishment=place, label=f"B{i + 1}",
                                                     defaults={"seats": 7, "game": games[i % len(games)]})
        if created:
            option = 1 + i % 49  # every option in turn, the longest tier tables (39-49) included
            posting, run = post_table(None, fields={"table": table, "game": table.game, "schedule": gega,
                                                    "option_number": option, "min_wager": 5, "max_wager": 500,
                                                    "seats": 7, "effective_from": start}, actor_label="benchmark")
            if run.errors:  # e.g. a closed top below 7 x $500: print anyway, as an officer would after review
                PrintOverride.objects.create(posting=posting, requested_by=officer, reason="benchmark",
                                             status=PrintOverride.Status.APPROVED, decided_by=officer,
                                             decided_at=start, decision_reason="benchmark")
        tables.append(table)
    return place, tables


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=sized(200, 3))
    parser.add_argument("--repeat", type=int, default=sized(20, 1))
    args = parser.parse_args()
    setup_django(demo=False)
    from django.utils import timezone

    from cardroom.models import Job
    from signage import content, printing, render, tasks
    from signage.models import SignPrint

    place, tables = floor(args.tables)
    posting = printing.postings_in_force(tables[:1], timezone.now())[tables[0].pk]
    print(f"database: {os.environ['DATABASE_URL'].split(':')[0]}; {len(tables)} tables posted")
    one = {}
    for layout in render.LAYOUTS:
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            rendered, _ = printing.print_signs([posting], layout, label="benchmark", channel=SignPrint.Channel.API)
            times.append(time.perf_counter() - t)
        one[layout] = statistics.median(times)
        sign = content.sign_for(posting)
        pure = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            render.render([sign], layout)
            pure.append(time.perf_counter() - t)
        print(f"one sign, {layout}: min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f} ms end to end; "
              f"{len(rendered.pdf):,} bytes")
        figure(f"one sign, {layout}, end to end (median)", one[layout] * 1000, "ms", ("<", 100))
        figure(f"one sign, {layout}, the render alone (median)", statistics.median(pure) * 1000, "ms")

    job = Job.objects.create(kind="signage_batch", establishment=place, requested_label="benchmark",
                             params={"layout": "letter", "tables": [t.pk for t in tables]})
    t = time.perf_counter()
    name, data, result = tasks.build_batch(job)
    batch = time.perf_counter() - t
    print(f"batch of {result['pages']} tables, letter: {batch / result['pages'] * 1000:.1f} ms per sign, "
          f"{len(data):,} bytes, {len(result['skipped'])} skipped")
    figure(f"the batch of {result['pages']} tables, letter", batch, "s", ("<", 20))


if __name__ == "__main__":
    sys.exit(main())
