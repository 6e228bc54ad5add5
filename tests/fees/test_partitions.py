"""Rounds of play partitioned by month of gaming day on PostgreSQL (fees.partitions, fees migration 0009): a
round lands in its month's partition, a day with none in DEFAULT, and both are read as before; the daily task
keeps months ready ahead, once."""

import datetime

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from fees import ledger, partitions, tasks
from fees.models import RoundOfPlay
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
        assert partitions.is_partitioned(cursor)
        cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                       "WHERE i.inhparent = 'fees_roundofplay'::regclass")
        names = {name for (name,) in cursor.fetchall()}
    this_month = timezone.localdate().replace(day=1)
    assert {partitions.month_name(this_month), "fees_roundofplay_default"} <= names


def test_a_round_lands_in_its_month_and_a_day_without_one_in_default_and_both_reconcile(table):
    recent = play(table, "H-1", timezone.now() - datetime.timedelta(hours=1))
    old = play(table, "H-2", datetime.datetime(2001, 3, 3, 14, tzinfo=table.establishment.zone))
    assert partition_of(recent) == partitions.month_name(recent.gaming_day.replace(day=1))
    assert partition_of(old) == "fees_roundofplay_default"
    for round_ in (recent, old):
        assert RoundOfPlay.objects.get(pk=round_.pk).reference == round_.reference
        (found,) = ledger.reconcile(round_.gaming_day, table_ids=[table.pk])
        assert (found.rounds, found.expected_total, found.hands_with_variance) == (1, round_.expected_total, 1)


def test_months_are_made_once_and_a_month_already_in_default_is_left_there(table):
    far = timezone.localdate().replace(day=1, year=timezone.localdate().year + 3)
    made = partitions.ensure_months(far, far + datetime.timedelta(days=40))
    assert made == [partitions.month_name(far), partitions.month_name((far + datetime.timedelta(days=40))
                                                                      .replace(day=1))]
    assert partitions.ensure_months(far, far + datetime.timedelta(days=40)) == []
    later = play(table, "H-3", datetime.datetime.combine(far + datetime.timedelta(days=2), datetime.time(14),
                                                         tzinfo=table.establishment.zone))
    assert partition_of(later) == partitions.month_name(far)

    old = play(table, "H-4", datetime.datetime(2001, 3, 3, 14, tzinfo=table.establishment.zone))
    assert partitions.ensure_months(datetime.date(2001, 3, 1), datetime.date(2001, 4, 30)) == [
        partitions.month_name(datetime.date(2001, 4, 1))]  # March holds a round in DEFAULT: left as it is
    assert partition_of(old) == "fees_roundofplay_default"


def test_the_daily_task_keeps_a_year_ahead_ready(table):
    made = tasks.ensure_round_partitions()  # as the worker runs it
    assert tasks.ensure_round_partitions() == []
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [partitions.month_name(partitions.months(
            timezone.localdate(), timezone.localdate() + datetime.timedelta(days=366))[12])])
        assert cursor.fetchone()[0] is not None
    assert all(name.startswith("fees_roundofplay_") for name in made)


def test_a_role_that_may_only_read_and_write_rows_still_gets_its_months(table):
    """The service's database role cannot create tables (grant_service_role); the months come from a function of
    the table's owner."""
    far = datetime.date(timezone.localdate().year + 5, 6, 1)
    with connection.cursor() as cursor:
        cursor.execute("CREATE ROLE cardroom_rows_only NOLOGIN")
        cursor.execute("GRANT SELECT, INSERT ON fees_roundofplay TO cardroom_rows_only")
        cursor.execute("SET LOCAL ROLE cardroom_rows_only")
        with pytest.raises(DatabaseError, match="permission denied|must be owner"), transaction.atomic():
            cursor.execute(f"CREATE TABLE fees_roundofplay_try PARTITION OF fees_roundofplay "
                           f"FOR VALUES FROM ('{far}') TO ('{far.replace(month=7)}')")
        assert partitions.ensure_months(far, far, cursor) == [partitions.month_name(far)]
        cursor.execute("RESET ROLE")
