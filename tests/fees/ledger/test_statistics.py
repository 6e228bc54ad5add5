"""Issue 43: an import or a bulk intake that grew a month partition of the ledger leaves its planner statistics up to
date (``fees.ledger.statistics``): after a 1,000,000-row import the entry lists took 7-15 s a page until ``ANALYZE``.
The service's role owns no table, so it asks ``fees_ledger_analyze`` (fees 0022), which analyzes a ledger
partition and refuses anything else."""

import datetime

import pytest
from django.db import DatabaseError, connection, transaction

from cardroom.access import Scope
from fees import ledger
from fees.ledger import services, statistics
from fees.months.partitions import ENTRIES, month_name
from tests.factories import make_posted_table

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
DAY = datetime.date(2026, 6, 3)
PARTITION = month_name(ENTRIES, DAY.replace(day=1))


def analyzed_at(partition):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = %s",
                       [partition])
        return cursor.fetchone()[0]


def batch(table, start, count):
    at = datetime.datetime.combine(DAY, datetime.time(15), tzinfo=datetime.timezone.utc).isoformat()
    return [{"idempotency_key": f"stat-{start + n}", "table": table.pk, "gaming_day": DAY.isoformat(),
             "reference": f"H-{start + n}", "collected_at": at, "payer": "player", "player": "p1",
             "fee_kind": "player", "amount": "1.00"} for n in range(count)]


def test_an_intake_that_grew_a_month_partition_analyzes_it_and_only_then(people, monkeypatch):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    monkeypatch.setattr(statistics, "AT_LEAST", 40)
    table = make_posted_table(people.marysville, label="STAT-1",
                              effective_from=datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc))
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {PARTITION}")
    before = analyzed_at(PARTITION)

    ledger.record_entries(batch(table, 0, 10), scope=Scope(people.floor), user=people.floor)  # a few rows
    assert services.reconcile_table_days(people.floor, table_days={(table.pk, DAY)}).days == 1
    assert analyzed_at(PARTITION) == before, "ten rows are not worth an ANALYZE"

    ledger.record_entries(batch(table, 10, 60), scope=Scope(people.floor), user=people.floor)
    assert statistics.grown({DAY}) == [PARTITION]
    services.reconcile_table_days(people.floor, table_days={(table.pk, DAY)})
    assert analyzed_at(PARTITION) > before
    assert statistics.grown({DAY}) == [], "analyzed: nothing has grown since"


def test_the_owners_analyze_is_for_the_ledgers_partitions_alone(db):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    with pytest.raises(DatabaseError, match="not a month partition of the ledger"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT fees_ledger_analyze('auth_user')")
