"""A year of a busy room, generated inside PostgreSQL (generate_series): what the reconciliation and export
benchmarks work on.

50 tables at Casino Marysville, each posted on GEGA-002888 option 43, play ROUNDS_PER_TABLE_DAY rounds (1,096:
60 hands an hour for 18 hours) every gaming day of 2025: 20,002,000 rounds. Each round is the same 6-spot round
priced by the fee engine once, before generating (7.00 USD: 3.00 and 1.00 from the two players, 3.00 from the
player-dealer), with its facts and fee lines stored as the ledger stores them (its pricing, what every round of the
option shares, stored once: fees.ledger.compact). Its three entries collect
that, except where a hand is made to disagree, by the hand's number h in the year (0, 1, ...):

- every 211th hand has nothing collected;
- every 97th hand's player-dealer fee is a dollar short;
- every 101st hand's second player fee is keyed as 0.00 and then corrected (a correcting entry) to 1.00;
- every 1,000th hand has a stray 2.00 collected under a reference with no round (``S-<h>``).

Rows are written in the order they are played (a day's rows together), a month per transaction, two months at a
time. ``expected(...)``
gives, by arithmetic and not from the database, what a reconciliation of any run of whole days must find.

At the smoke size (BENCH_SMOKE=1) 3 tables play 12 rounds a gaming day; the scripts that use the year generate
only the few days they need.
"""

import datetime
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal

from support import sized

TABLES = sized(50, 3)  # ledger_ingest.TABLES: the benchmark tables the year is played at
ROUNDS_PER_TABLE_DAY = sized(1_096, 12)
FIRST_DAY = datetime.date(2025, 1, 1)
DAYS = 365
HANDS_PER_DAY = TABLES * ROUNDS_PER_TABLE_DAY
ROUND = {"wagers": [
    {"player": "p1", "base": "150", "bonus": "25", "backline": False},
    {"player": "p1", "base": "20"},
    {"player": "p2", "base": "40", "backline": True},
]}
UNCOLLECTED_EVERY, SHORT_EVERY, CORRECTED_EVERY, STRAY_EVERY = 211, 97, 101, 1000
KEY_PREFIX = "y"
WORKERS = 2


@dataclass
class Expected:
    rounds: int
    entries: int  # counted by a reconciliation: those no later entry corrects
    stored_entries: int  # corrections included
    expected: Decimal
    collected: Decimal
    variance_hands: int


def _multiples(every, first, last):
    """How many hand numbers in [first, last] are multiples of ``every``."""
    return last // every - (first - 1) // every if first > 0 else last // every + 1


def expected(first_day=FIRST_DAY, days=DAYS, fee=Decimal("7.00")):
    """What reconciling ``days`` gaming days from ``first_day`` must find, counted from the rules above."""
    first = (first_day - FIRST_DAY).days * HANDS_PER_DAY
    last = first + days * HANDS_PER_DAY - 1
    rounds = last - first + 1
    uncollected = _multiples(UNCOLLECTED_EVERY, first, last)
    short = _multiples(SHORT_EVERY, first, last) - _multiples(SHORT_EVERY * UNCOLLECTED_EVERY, first, last)
    corrected = (_multiples(CORRECTED_EVERY, first, last)
                 - _multiples(CORRECTED_EVERY * UNCOLLECTED_EVERY, first, last))
    strays = _multiples(STRAY_EVERY, first, last)
    collected = (rounds - uncollected) * fee - short + 2 * strays
    counted = 3 * (rounds - uncollected) + strays
    return Expected(rounds=rounds, entries=counted, stored_entries=counted + corrected, expected=rounds * fee,
                    collected=collected, variance_hands=uncollected + short + strays)


def generate(user, tables, *, days=DAYS, after=0, progress=print):
    """Write the rounds and entries of the year's first ``days`` gaming days at ``tables`` (the 50 benchmark
    tables), leaving out the first ``after`` (already there). Returns seconds taken."""
    from django.db import connection, transaction

    from fees.months import partitions
    from fees.quotes import quoting
    from fees.engine.compact import option_tiers
    from fees.ledger import compact, rounds as ledger_rounds
    from fees.models import CollectionEntry, RoundOfPlay, TablePosting

    at = datetime.datetime.combine(FIRST_DAY, datetime.time(18), tzinfo=datetime.timezone.utc)
    posting = TablePosting.objects.in_force(tables[0], at)
    schedule, option, quote = quoting.quote_posting(posting, ROUND, at)
    lines, by_payer = ledger_rounds.lines_of(quote)
    explanation = quoting.explain(schedule, option, quote, as_of=at.date())
    fees = {(p["payer"], p["player"]): p["fee"] for p in by_payer}
    # What every round stores of its account: the shared pricing (stored here, once), its fee lines; each round is
    # priced as of its own day, as record_round does.
    stored = compact.compacted(explanation, lines, by_payer, tiers=option_tiers(schedule, option))
    assert Decimal(quote.total) == Decimal("7.00"), quote.total
    establishment = tables[0].establishment_id
    table_ids = [t.pk for t in tables]
    posting_ids = [TablePosting.objects.in_force(t, at).pk for t in tables]
    rounds, entries = RoundOfPlay._meta.db_table, CollectionEntry._meta.db_table
    # One row per hand of the chunk: h (the hand's number in the year), its table, day, reference and moment.
    hands = (
        "SELECT d.day::date AS day, t.id AS table_id, t.posting, 'H-' || n AS reference, "
        "((d.day::date - %(first)s::date) * %(per_day)s + n * %(tables)s + t.i - 1)::bigint AS h, "
        "(d.day::date + time '18:00') AT TIME ZONE 'UTC' + n * interval '59 seconds' AS at "
        "FROM generate_series(%(start)s::date, %(end)s::date, interval '1 day') AS d(day) "
        "CROSS JOIN generate_series(0, %(per_table)s - 1) AS n "
        "CROSS JOIN unnest(%(ids)s::bigint[], %(postings)s::bigint[]) WITH ORDINALITY AS t(id, posting, i)"
    )
    insert_rounds = (
        f"INSERT INTO {rounds} (establishment_id, table_id, gaming_day, reference, played_at, facts, posting_id, "
        "schedule_code, schedule_version, option_number, expected_total, currency, pricing_id, fee_lines, priced_on, "
        "recorded_by_id, recorded_at) "
        # The JSON is parsed once, not once a row.
        "WITH c AS MATERIALIZED (SELECT %(facts)s::jsonb AS facts) "
        "SELECT %(establishment)s, table_id, day, reference, at, c.facts, posting, %(code)s, %(version)s, "
        "%(option)s, %(total)s, 'USD', %(pricing)s, %(fee_lines)s, day, %(user)s, at "
        f"FROM ({hands}) hands CROSS JOIN c ORDER BY day, at, table_id"
    )
    entry_columns = ("idempotency_key, establishment_id, table_id, gaming_day, reference, collected_at, payer, seat, "
                     "player, fee_kind, amount, currency, corrects_id, reason, recorded_by_id, recorded_at")
    insert_entries = (
        f"INSERT INTO {entries} ({entry_columns}) "
        "SELECT %(prefix)s || '-' || h || '-' || s.slot, %(establishment)s, table_id, day, reference, at, s.payer, "
        "s.seat, s.player, s.payer, CASE WHEN s.slot = 1 AND h %% %(corrected)s = 0 THEN 0 "
        "WHEN s.slot = 2 AND h %% %(short)s = 0 THEN s.fee - 1 ELSE s.fee END, 'USD', NULL::bigint, '', %(user)s, at "
        f"FROM ({hands}) hands CROSS JOIN (VALUES (0, 'player', 1, 'p1', %(fee_p1)s::numeric), "
        "(1, 'player', 2, 'p2', %(fee_p2)s::numeric), (2, 'player_dealer', NULL, '', %(fee_dealer)s::numeric)) "
        "AS s(slot, payer, seat, player, fee) WHERE h %% %(uncollected)s <> 0 "
        "UNION ALL "
        "SELECT %(prefix)s || '-' || h || '-stray', %(establishment)s, table_id, day, 'S-' || h, at, 'player', 3, "
        f"'', 'player', 2.00, 'USD', NULL::bigint, '', %(user)s, at FROM ({hands}) hands WHERE h %% %(stray)s = 0 "
        "ORDER BY 6, 1"
    )
    insert_corrections = (
        f"INSERT INTO {entries} ({entry_columns}) "
        "SELECT e.idempotency_key || '-fix', e.establishment_id, e.table_id, e.gaming_day, e.reference, "
        "e.collected_at + interval '5 minutes', e.payer, e.seat, e.player, e.fee_kind, %(fee_p2)s, 'USD', e.id, "
        f"'keyed as 0', %(user)s, e.recorded_at + interval '5 minutes' FROM ({hands}) hands JOIN {entries} e "
        "ON e.establishment_id = %(establishment)s AND e.idempotency_key = %(prefix)s || '-' || h || '-1' "
        "WHERE h %% %(corrected)s = 0 AND h %% %(uncollected)s <> 0"
    )
    params = {
        "first": FIRST_DAY, "per_day": HANDS_PER_DAY, "tables": TABLES, "per_table": ROUNDS_PER_TABLE_DAY,
        "ids": table_ids, "postings": posting_ids, "establishment": establishment, "facts": json.dumps(ROUND),
        "code": schedule.code, "version": schedule.version, "option": option.number, "total": Decimal(quote.total),
        "pricing": stored["pricing_id"], "fee_lines": stored["fee_lines"],
        "user": user.pk, "prefix": KEY_PREFIX, "corrected": CORRECTED_EVERY, "short": SHORT_EVERY,
        "uncollected": UNCOLLECTED_EVERY, "stray": STRAY_EVERY, "fee_p1": fees[("player", "p1")],
        "fee_p2": fees[("player", "p2")], "fee_dealer": fees[("player_dealer", "")],
    }
    start, end_of_year = FIRST_DAY + datetime.timedelta(days=after), FIRST_DAY + datetime.timedelta(days=days - 1)
    months = [(max(first, start), min(partitions.next_month(first) - datetime.timedelta(days=1), end_of_year))
              for first in partitions.months(start, end_of_year)]

    def month(bounds):
        start, end = bounds
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                # Loading rows made consistent by construction, as pg_restore --disable-triggers does: no per-row
                # foreign-key check at commit (most of the time otherwise). lz4 compresses each round's JSON
                # several times faster than the default pglz.
                cursor.execute("SET LOCAL session_replication_role = replica")
                cursor.execute("SET LOCAL default_toast_compression = lz4")
                chunk = {**params, "start": start, "end": end}
                cursor.execute(insert_rounds, chunk)
                made_rounds = cursor.rowcount
                cursor.execute(insert_entries, chunk)
                made_entries = cursor.rowcount
                cursor.execute(insert_corrections, chunk)
                made_entries += cursor.rowcount
        finally:
            connection.close()  # this thread's own connection
        progress(f"  {start:%B %Y}: {made_rounds:,} rounds, {made_entries:,} entries "
                 f"({time.perf_counter() - began:.0f} s so far)")

    began = time.perf_counter()
    partitions.ensure_months(FIRST_DAY, end_of_year)  # the year's months, as the daily task would have made them
    # Two months at a time, on two connections: PostgreSQL's work, one backend per core.
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        list(pool.map(month, months))
    with connection.cursor() as cursor:
        # What autovacuum does to an insert-only table in service: statistics, and the visibility map that lets
        # index-only scans skip the table.
        cursor.execute(f"VACUUM ANALYZE {rounds}")
        cursor.execute(f"VACUUM ANALYZE {entries}")
    return time.perf_counter() - began


def days_present(tables):
    """How many of the year's first days are in the database, whole (it takes minutes to make them; the
    benchmarks keep them); 0 when what is there is not such a run of days."""
    from django.db.models import Count, Max

    from fees.models import CollectionEntry, RoundOfPlay

    there = RoundOfPlay.objects.filter(table__in=tables).aggregate(rounds=Count("id"), last=Max("gaming_day"))
    if not there["rounds"]:
        return 0
    days = (there["last"] - FIRST_DAY).days + 1
    want = expected(days=days)
    entries = CollectionEntry.objects.filter(table__in=tables).count()
    return days if (there["rounds"], entries) == (want.rounds, want.stored_entries) else 0


def ensure(user, tables, days, *, regenerate=False, progress=print):
    """The year's first ``days`` days in the database: kept if there, the missing days added (all made again
    with ``regenerate`` or when what is there is not a run of the first days). Returns seconds spent making."""
    import ledger_ingest

    assert len(tables) == TABLES, (len(tables), TABLES)
    have = 0 if regenerate else days_present(tables)
    if have >= days:
        return 0.0
    if not have:
        ledger_ingest.cleanup(tables)  # whatever is there is not the year's first days
    progress(f"generating gaming days {have + 1} to {days} inside PostgreSQL ...")
    return generate(user, tables, days=days, after=have, progress=progress)
