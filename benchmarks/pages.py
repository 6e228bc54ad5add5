"""Role pages: server time (p50/p95) and query count of every page, with the demo month and a 200-table floor.

    .venv/bin/python benchmarks/pages.py [--tables 200] [--repeat 30]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_pages .venv/bin/python benchmarks/pages.py

Uses DATABASE_URL when set; otherwise a throw-away SQLite database. Migrates, loads the seed and the demo (a
month of play at Casino Marysville), adds a 200-table floor at a benchmark establishment in California, then asks
each page ``--repeat`` times through Django's test client (the whole request: middleware, session, view,
template) as the role that uses it, for the demo floor and for the 200-table floor. Prints p50 and p95 server
time and the queries per request for both; the query count must not grow with the number of tables.

Target (issue 11): every page under 100 ms p95, and the same queries for 14 tables as for 200. Exit status 0
when met.
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
TARGET_MS = 100
# Pages that list every table (or every finding or posting): their queries must not grow with the floor.
LISTS = {"floor", "compliance home", "findings", "postings", "regulator room"}


def setup():
    from support import setup_django

    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    setup_django(demo=True)


def big_floor(n):
    """A California room of ``n`` posted tables (GEGA-002888, every option in turn), with its own floor
    supervisor and compliance officer."""
    from django.contrib.auth import get_user_model

    from cardroom.models import Establishment, Game, Jurisdiction, Role, Table
    from cardroom.roles import appoint
    from fees.models import ScheduleDocument
    from signage.postings import post_table

    place, _ = Establishment.objects.get_or_create(
        slug="bench-200", defaults={"name": "Benchmark 200", "kind": "card_room", "is_demo": True,
                                    "jurisdiction": Jurisdiction.objects.get(code="CA")})
    users = get_user_model().objects
    floor, _ = users.get_or_create(username="bench-floor")
    officer, _ = users.get_or_create(username="bench-compliance")
    appoint(floor, Role.FLOOR_SUPERVISOR, establishment=place)
    appoint(officer, Role.COMPLIANCE_OFFICER, establishment=place)
    gega = ScheduleDocument.objects.get(code="GEGA-002888")
    games = list(Game.objects.filter(schedules=gega))
    start = datetime.datetime(2026, 1, 1, 8, tzinfo=datetime.timezone.utc)
    for i in range(n):
        table, created = Table.objects.get_or_create(establishment=place, label=str(i + 1),
                                                     defaults={"seats": 7, "game": games[i % len(games)]})
        if created:
            post_table({"table": table, "game": table.game, "schedule": gega, "option_number": 1 + i % 49,
                        "min_wager": 5, "max_wager": 500, "seats": 7, "effective_from": start},
                       actor_label="benchmark")
    return place, floor, officer


def pages(slug, floor, officer, regulator):
    """(label, user, url) of every role page for the establishment ``slug``."""
    from cardroom.models import Table

    table = Table.objects.filter(establishment__slug=slug).order_by("pk").first()
    return [
        ("floor", floor, f"/floor/{slug}/"),
        ("floor table", floor, f"/floor/{slug}/tables/{table.pk}/"),
        ("posted at", floor, f"/floor/{slug}/posted/?table={table.pk}&day=2026-10-15&time=02:30"),
        ("compliance home", officer, f"/compliance/{slug}/"),
        ("findings", officer, f"/compliance/{slug}/findings/"),
        ("schedules", officer, f"/compliance/{slug}/schedules/"),
        ("schedule option", officer, f"/compliance/{slug}/schedules/GEGA-002888/?option=43"),
        ("postings", officer, f"/compliance/{slug}/postings/"),
        ("approvals", officer, f"/compliance/{slug}/approvals/"),
        ("regulator home", regulator, "/regulator/"),
        ("regulator room", regulator, f"/regulator/{slug}/?month=2026-10"),
        ("audit log", regulator, f"/regulator/{slug}/audit-log/"),
        ("export form", regulator, "/regulator/export/"),
    ]


def measure(client, user, url, repeat):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(user)
    answer = client.get(url)
    if answer.status_code != 200:
        raise SystemExit(f"{url} answered {answer.status_code} for {user}")
    times, cpu = [], []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            started, started_cpu = time.perf_counter(), time.thread_time()
            client.get(url)
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
    return statistics.median(times), p95(times), p95(cpu), len(queries.captured_queries)


def p95(values):
    values = sorted(values)
    return values[max(0, int(len(values) * 0.95) - 1)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    _, big_floor_user, big_officer = big_floor(args.tables)
    from support import analyze

    analyze()
    users = get_user_model().objects
    regulator = users.get(username="regulator-ca")
    demo = pages("casino-marysville", users.get(username="floor"), users.get(username="compliance"), regulator)
    big = pages("bench-200", big_floor_user, big_officer, regulator)
    client = Client()
    print(f"Role pages, {args.repeat} requests each (server time through Django's test client), "
          f"database {os.environ['DATABASE_URL'].split(':')[0]}")
    print("wall: the request's time on the clock; cpu: the time this thread spent on the processor (on SQLite the\n"
          "whole request, database included, and unaffected by other processes sharing the cores)")
    print(f"{'page':<18} {'demo p50':>9} {'p95':>7} {'cpu p95':>8} {'queries':>8} | {args.tables}-table p50 "
          f"{'p95':>7} {'cpu p95':>8} {'queries':>8}")
    worst, growing = 0.0, []
    for (label, user, url), (_, big_user, big_url) in zip(demo, big):
        p50, wall95, cpu95, queries = measure(client, user, url, args.repeat)
        big_p50, big_wall95, big_cpu95, big_queries = measure(client, big_user, big_url, args.repeat)
        worst = max(worst, wall95, big_wall95)
        if label in LISTS and big_queries > queries:
            growing.append(label)
        print(f"{label:<18} {p50:>7.1f}ms {wall95:>5.1f}ms {cpu95:>6.1f}ms {queries:>8} | {big_p50:>14.1f}ms "
              f"{big_wall95:>5.1f}ms {big_cpu95:>6.1f}ms {big_queries:>8}")
    print(f"Worst p95 {worst:.1f} ms (target under {TARGET_MS} ms); queries growing with the tables: "
          f"{', '.join(growing) or 'none'}")
    return 0 if worst < TARGET_MS and not growing else 1


if __name__ == "__main__":
    sys.exit(main())
