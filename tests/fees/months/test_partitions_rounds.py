"""Rounds of play partitioned by month of gaming day on PostgreSQL (fees.months.partitions, fees migration 0009): a
round lands in its month's partition, a day with none in DEFAULT, and both are read as before; the daily task
keeps both ledger tables' months ready ahead, once (the entries' own tests: test_partitions_entries.py)."""

import datetime

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from fees import ledger, tasks
from fees.models import RoundOfPlay
from fees.months import partitions
from fees.months.partitions import ENTRIES, ROUNDS
from tests.factories import make_posted_table

pytestmark = [pytest.mark.services, pytest.mark.django_db]
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p2", "base": "40"}]}


@pytest.fixture
def table(people):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    return make_posted_table(people.marysville, label="PART-1",
                             effective_from=datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc))


def partition_of(round_):
    with connection.cursor() as cursor:
        cursor.execute("SELECT tableoid::regclass::text FROM fees_roundofplay WHERE id = %s", [round_.pk])
        return cursor.fetchone()[0]


def play(table, reference, at):
    round_, created = ledger.record_round(table=table, reference=reference, played_at=at, facts=ROUND)
    assert created
    return round_


def test_the_rounds_table_is_partitioned_by_month_with_months_around_today(table):
    with connection.cursor() as cursor:
        assert partitions.is_partitioned(cursor, ROUNDS)
        cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                       "WHERE i.inhparent = 'fees_roundofplay'::regclass")
        names = {name for (name,) in cursor.fetchall()}
    this_month = timezone.localdate().replace(day=1)
    assert {partitions.month_name(ROUNDS, this_month), "fees_roundofplay_default"} <= names


def test_a_round_lands_in_its_month_and_a_day_without_one_in_default_and_both_reconcile(table):
    recent = play(table, "H-1", timezone.now() - datetime.timedelta(hours=1))
    old = play(table, "H-2", datetime.datetime(2001, 3, 3, 14, tzinfo=table.establishment.zone))
    assert partition_of(recent) == partitions.month_name(ROUNDS, recent.gaming_day.replace(day=1))
    assert partition_of(old) == "fees_roundofplay_default"
    for round_ in (recent, old):
        assert RoundOfPlay.objects.get(pk=round_.pk).reference == round_.reference
        (found,) = ledger.reconcile(round_.gaming_day, table_ids=[table.pk])
        assert (found.rounds, found.expected_total, found.hands_with_variance) == (1, round_.expected_total, 1)


def test_months_are_made_once_and_a_month_already_in_default_is_left_there(table):
    far = timezone.localdate().replace(day=1, year=timezone.localdate().year + 3)
    following = (far + datetime.timedelta(days=40)).replace(day=1)
    made = partitions.ensure_months(far, far + datetime.timedelta(days=40))
    assert made == [partitions.month_name(t, first) for t in partitions.TABLES for first in (far, following)]
    assert partitions.ensure_months(far, far + datetime.timedelta(days=40)) == []
    later = play(table, "H-3", datetime.datetime.combine(far + datetime.timedelta(days=2), datetime.time(14),
                                                         tzinfo=table.establishment.zone))
    assert partition_of(later) == partitions.month_name(ROUNDS, far)

    old = play(table, "H-4", datetime.datetime(2001, 3, 3, 14, tzinfo=table.establishment.zone))
    # March holds a round in DEFAULT: left as it is for the rounds; the entries have none there, so theirs is made.
    march, april = datetime.date(2001, 3, 1), datetime.date(2001, 4, 1)
    assert partitions.ensure_months(march, datetime.date(2001, 4, 30)) == [
        partitions.month_name(ROUNDS, april), partitions.month_name(ENTRIES, march),
        partitions.month_name(ENTRIES, april)]
    assert partition_of(old) == "fees_roundofplay_default"


def test_the_daily_task_keeps_a_year_ahead_ready_for_both_tables(table, clock):
    later = datetime.date(timezone.localdate().year + 4, 2, 10)  # beyond the months the migrations made
    clock(datetime.datetime.combine(later, datetime.time(12), tzinfo=datetime.timezone.utc))
    ahead = partitions.months(later, later.replace(year=later.year + 1))
    made = tasks.ensure_ledger_partitions()  # as the worker runs it
    assert made == [partitions.month_name(t, first) for t in partitions.TABLES for first in ahead]
    assert len(made) == 26
    assert tasks.ensure_ledger_partitions() == [] and tasks.ensure_round_partitions() == []  # the old name too
    with connection.cursor() as cursor:
        for name in made:
            cursor.execute("SELECT to_regclass(%s)", [name])
            assert cursor.fetchone()[0] is not None, name


def test_a_role_that_may_only_read_and_write_rows_still_gets_its_months(table):
    """The service's database role cannot create tables (grant_service_role); the months come from a function of
    each table's owner."""
    far = datetime.date(timezone.localdate().year + 5, 6, 1)
    with connection.cursor() as cursor:
        cursor.execute("CREATE ROLE cardroom_rows_only NOLOGIN")
        cursor.execute("GRANT SELECT, INSERT ON fees_roundofplay, fees_collectionentry TO cardroom_rows_only")
        cursor.execute("SET LOCAL ROLE cardroom_rows_only")
        for name in partitions.TABLES:
            with pytest.raises(DatabaseError, match="permission denied|must be owner"), transaction.atomic():
                cursor.execute(f"CREATE TABLE {name}_try PARTITION OF {name} "
                               f"FOR VALUES FROM ('{far}') TO ('{far.replace(month=7)}')")
        assert partitions.ensure_months(far, far, cursor) == [partitions.month_name(t, far) for t in partitions.TABLES]
        cursor.execute("RESET ROLE")
        # The entries' month came with its corrections' key onto itself, which the role could not have made.
        entries = partitions.month_name(ENTRIES, far)
        cursor.execute("SELECT confrelid::regclass::text FROM pg_constraint WHERE conrelid = %s::regclass "
                       "AND conname = %s", [entries, f"{entries}_corrects"])
        assert cursor.fetchall() == [(entries,)]
