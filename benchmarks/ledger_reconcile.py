"""Reconciliation of a month: 50 tables x 30 gaming days, about 1,000,000 collection entries, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench .venv/bin/python benchmarks/ledger_reconcile.py

Sets up the benchmark database as ledger_ingest.py does, then loads a month of play: BENCH_ROWS (default
1,000,000) entries, three per round (two players and the player-dealer of a GEGA-002888 option 43 round whose
expected fee the engine computed: 7.00), so about 333,000 rounds. Some hands are made to disagree: every 97th
round's player-dealer fee is a dollar short, every 211th round has nothing collected, every 1,000th hand has
a collection with no round, and every 101st round has a player's fee keyed as 0 and then corrected (through
the ledger service) to the dollar really collected. The rows are loaded with COPY (setup, not measured).

Measured with time.perf_counter:
- the whole month reconciled in one pass (what a month-end run does): 1,500 reconciliations stored and logged;
- the month again as 30 nightly runs, one gaming day each;
- an on-demand run of one table and day through POST /api/v1/ledger/reconciliations/run/.
Prints elapsed beside the target (a month in under 60 s), checks the totals, and deletes every row it made.
"""

import datetime
import json
import os
import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ledger_ingest as setup  # noqa: E402  (also puts the project on sys.path and sets DATABASE_URL)

ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
TABLES, DAYS, FIRST_DAY = setup.TABLES, setup.DAYS, setup.FIRST_DAY
LAST_DAY = FIRST_DAY + datetime.timedelta(days=DAYS - 1)
TARGET_S = 60
ROUND = {"wagers": [
    {"player": "p1", "base": "150", "bonus": "25", "backline": False},
    {"player": "p1", "base": "20"},
    {"player": "p2", "base": "40", "backline": True},
]}
SHORT_EVERY, UNCOLLECTED_EVERY, STRAY_EVERY, CORRECTED_EVERY = 97, 211, 1000, 101


def moment(day, hand):
    return datetime.datetime.combine(day, datetime.time(10), tzinfo=datetime.timezone.utc) + datetime.timedelta(
        seconds=hand % 50_000)


def load_month(user, tables):
    """COPY a month of rounds and entries in; return what the reconciliation must find."""
    from django.db import connection, transaction

    from cardroom.access import Scope
    from fees import ledger, quoting
    from fees.models import RoundOfPlay, TablePosting

    posting = TablePosting.objects.in_force(tables[0], moment(FIRST_DAY, 0))
    at = moment(FIRST_DAY, 0)
    schedule, option, quote = quoting.quote_posting(posting, ROUND, at)
    lines, by_payer = ledger._lines(quote)
    explanation = quoting.explain(schedule, option, quote, as_of=at.date())
    expected = Decimal(quote.total)
    fees = {(p["payer"], p["player"]): Decimal(p["fee"]) for p in by_payer}
    assert expected == Decimal("7.00"), expected
    postings = {t.pk: TablePosting.objects.in_force(t, at).pk for t in tables}
    field = ledger._copy_field
    constant = "\t".join([
        field(json.dumps(ROUND)), "{posting}", schedule.code, str(schedule.version), str(option.number), str(expected),
        schedule.currency, field(json.dumps(by_payer)), field(json.dumps(lines)), field(json.dumps(explanation)),
        str(user.pk), datetime.datetime.now(datetime.timezone.utc).isoformat(),
    ])
    payers = [("player", "p1", 1, fees[("player", "p1")]), ("player", "p2", 2, fees[("player", "p2")]),
              ("player_dealer", "", None, fees[("player_dealer", "")])]
    rounds_text, entries, corrections = [], [], []
    truth = {"expected": Decimal(0), "collected": Decimal(0), "variance_hands": 0}
    hand = 0
    while len(entries) < ROWS:
        table = tables[hand % TABLES].pk
        day = FIRST_DAY + datetime.timedelta(days=(hand // TABLES) % DAYS)
        reference = f"H-{hand // (TABLES * DAYS)}"
        at = moment(day, hand)
        rounds_text.append(f"{table}\t{day}\t{reference}\t{at.isoformat()}\t"
                           + constant.replace("{posting}", str(postings[table])) + "\n")
        truth["expected"] += expected
        collected = Decimal(0)
        if hand % UNCOLLECTED_EVERY:
            for slot, (payer, player, seat, fee) in enumerate(payers):
                amount = fee
                if payer == "player_dealer" and hand % SHORT_EVERY == 0:
                    amount -= 1
                key = f"m-{hand}-{slot}"
                if payer == "player" and player == "p2" and hand % CORRECTED_EVERY == 0:
                    corrections.append({"idempotency_key": key + "-fix", "corrects_key": key, "amount": str(fee),
                                        "reason": "keyed as 0"})
                    entries.append((len(entries), key, table, day, reference, at, payer, seat, player, payer,
                                    Decimal("0.00"), "USD", None, ""))
                else:
                    entries.append((len(entries), key, table, day, reference, at, payer, seat, player, payer,
                                    amount, "USD", None, ""))
                collected += amount
        if hand % STRAY_EVERY == 0:
            entries.append((len(entries), f"m-{hand}-stray", table, day, f"S-{hand}", at, "player", 3, "", "player",
                            Decimal("2.00"), "USD", None, ""))
            truth["variance_hands"] += 1
            truth["collected"] += 2
        if collected != expected:
            truth["variance_hands"] += 1
        truth["collected"] += collected
        hand += 1
    truth["rounds"] = hand
    truth["entries"] = len(entries) + len(corrections)
    began = time.perf_counter()
    with transaction.atomic():
        with connection.cursor() as cursor:
            with cursor.cursor.copy(
                f"COPY {RoundOfPlay._meta.db_table} (table_id, gaming_day, reference, played_at, facts, posting_id, "
                "schedule_code, schedule_version, option_number, expected_total, currency, expected_by_payer, "
                "expected_lines, explanation, recorded_by_id, recorded_at) FROM STDIN"
            ) as copy:
                for start in range(0, len(rounds_text), 10_000):
                    copy.write("".join(rounds_text[start:start + 10_000]))
        now = datetime.datetime.now(datetime.timezone.utc)
        for start in range(0, len(entries), 50_000):
            ledger._insert_postgresql(entries[start:start + 50_000], user.pk, now)
    result = ledger.record_entries(corrections, scope=Scope(user), user=user)
    assert result.created == len(corrections)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE fees_roundofplay")
        cursor.execute("ANALYZE fees_collectionentry")
    return truth, time.perf_counter() - began


def main():
    user, tables = setup.prepare()
    from rest_framework.test import APIClient

    from fees import ledger
    from fees.models import Reconciliation

    try:
        truth, load_s = load_month(user, tables)
        ids = [t.pk for t in tables]

        began = time.perf_counter()
        month = ledger.reconcile(FIRST_DAY, LAST_DAY, table_ids=ids, user=user,
                                 trigger=Reconciliation.Trigger.ON_DEMAND)
        month_s = time.perf_counter() - began
        assert len(month) == TABLES * DAYS
        assert sum(r.expected_total for r in month) == truth["expected"], "expected totals disagree"
        assert sum(r.collected_total for r in month) == truth["collected"], "collected totals disagree"
        assert sum(r.hands_with_variance for r in month) == truth["variance_hands"], "variance counts disagree"
        assert sum(r.rounds for r in month) == truth["rounds"]

        began = time.perf_counter()
        nightly = []
        for offset in range(DAYS):
            nightly += ledger.reconcile(FIRST_DAY + datetime.timedelta(days=offset),
                                        trigger=Reconciliation.Trigger.NIGHTLY)
        nightly_s = time.perf_counter() - began
        assert len(nightly) == TABLES * DAYS

        client = APIClient()
        client.force_authenticate(user)
        began = time.perf_counter()
        for table in tables[:20]:
            response = client.post("/api/v1/ledger/reconciliations/run/",
                                   {"table": table.pk, "gaming_day": FIRST_DAY.isoformat()}, format="json")
            assert response.status_code == 201, response.content[:300]
        on_demand_ms = (time.perf_counter() - began) / 20 * 1000
        sample = response.json()
    finally:
        began = time.perf_counter()
        setup.cleanup(tables)
        cleanup_s = time.perf_counter() - began

    print(f"a month: {TABLES} tables x {DAYS} gaming days, {truth['rounds']:,} rounds, {truth['entries']:,} "
          f"entries (loaded with COPY in {load_s:.1f} s, not measured)")
    print(f"  expected {truth['expected']:,} USD, collected {truth['collected']:,} USD, "
          f"{truth['variance_hands']:,} hands with a variance")
    print(f"month in one pass: {month_s:.1f} s for {len(month):,} reconciliations stored and logged "
          f"(target < {TARGET_S} s: {'met' if month_s < TARGET_S else 'NOT met'})")
    print(f"month as {DAYS} nightly runs: {nightly_s:.1f} s ({nightly_s / DAYS * 1000:.0f} ms per gaming day of "
          f"{TABLES} tables)")
    print(f"on demand, one table and day through the API: {on_demand_ms:.0f} ms per run "
          f"({sample['hands']} hands, {len(sample['variances'])} variances listed)")
    print(f"clean-up (delete + vacuum): {cleanup_s:.1f} s")


if __name__ == "__main__":
    main()
