"""Collection entries partitioned by month of gaming day on PostgreSQL (fees.months.partitions, fees migration 0014): an
entry lands in its month's partition, a day with none in DEFAULT; a key names one entry whatever its day, though
the database's unique key is per day (fees.ledger.storage), even for two batches at once; a correction points at
(id, gaming day), which the database holds by a key of each partition onto itself."""

import datetime
import threading
from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from cardroom.access import Scope
from fees import ledger
from fees.ledger import intake, storage
from fees.models import CollectionEntry, LedgerConflict
from fees.months import partitions
from fees.months.partitions import ENTRIES
from tests.factories import make_posted_table

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@pytest.fixture
def table(people):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    return make_posted_table(people.marysville, label="EP-1",
                             effective_from=datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc))


def at(table, day, hour=14):
    return datetime.datetime.combine(day, datetime.time(hour), tzinfo=table.establishment.zone).isoformat()


def row(table, key, day, amount="3.00", reference="H-1"):
    return {"idempotency_key": key, "table": table.pk, "reference": reference, "collected_at": at(table, day),
            "payer": "player", "seat": 1, "fee_kind": "player", "amount": amount}


def record(people, *rows):
    return ledger.record_entries(list(rows), scope=Scope(people.floor), user=people.floor)


def partition_of(entry_id):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT tableoid::regclass::text FROM {ENTRIES} WHERE id = %s", [entry_id])
        return cursor.fetchone()[0]


def entry_id(key):
    return CollectionEntry.objects.get(idempotency_key=key).pk


def test_the_entries_table_is_partitioned_by_month_with_its_keys_and_triggers(table):
    this_month = timezone.localdate().replace(day=1)
    with connection.cursor() as cursor:
        assert partitions.is_partitioned(cursor, ENTRIES)
        cursor.execute("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                       "WHERE i.inhparent = %s::regclass", [ENTRIES])
        assert {partitions.month_name(ENTRIES, this_month), f"{ENTRIES}_default"} <= {n for (n,) in cursor.fetchall()}
        cursor.execute("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
                       "AND conname IN ('fees_collectionentry_pkey', 'ledger_entry_idempotency_key')", [ENTRIES])
        assert dict(cursor.fetchall()) == {
            "fees_collectionentry_pkey": "PRIMARY KEY (id, gaming_day)",
            "ledger_entry_idempotency_key": "UNIQUE (establishment_id, idempotency_key, gaming_day)",
        }
        # The corrections' key: each partition's own, onto itself; none onto the table, which would keep
        # PostgreSQL from detaching or dropping a month (fees.months).
        cursor.execute("SELECT conname FROM pg_constraint WHERE confrelid = %s::regclass", [ENTRIES])
        assert cursor.fetchall() == []
        cursor.execute("SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) FROM pg_inherits i "
                       "JOIN pg_class c ON c.oid = i.inhrelid "
                       "LEFT JOIN pg_constraint k ON k.conrelid = i.inhrelid AND k.confrelid = i.inhrelid "
                       "WHERE i.inhparent = %s::regclass", [ENTRIES])
        keys = cursor.fetchall()
        assert len(keys) >= 25  # DEFAULT, and the months a year either side of this one at least
        assert keys == [(name, f"{name}_corrects", f"FOREIGN KEY (corrects_id, gaming_day) REFERENCES {name}(id, "
                                                   "gaming_day) DEFERRABLE INITIALLY DEFERRED")
                        for name, _, _ in keys]
        # The append-only trigger (fees migration 0010) came across to the new table.
        cursor.execute("SELECT count(*) FROM pg_trigger WHERE tgrelid = %s::regclass "
                       "AND tgname = 'fees_ledger_append_only'", [ENTRIES])
        assert cursor.fetchone() == (1,)


def test_an_entry_lands_in_its_month_and_a_day_without_one_in_default_and_both_reconcile(people, table):
    today, long_ago = timezone.localdate() - datetime.timedelta(days=1), datetime.date(2001, 3, 3)
    assert record(people, row(table, "k-now", today), row(table, "k-old", long_ago, amount="2.00")).created == 2
    assert partition_of(entry_id("k-now")) == partitions.month_name(ENTRIES, today.replace(day=1))
    assert partition_of(entry_id("k-old")) == f"{ENTRIES}_default"
    for day, amount in ((today, Decimal("3.00")), (long_ago, Decimal("2.00"))):
        (found,) = ledger.reconcile(day, table_ids=[table.pk])
        assert (found.entries, found.collected_total) == (1, amount)


def test_a_key_resent_is_already_recorded_and_reused_on_the_same_or_another_day_is_refused(people, table):
    day = timezone.localdate() - datetime.timedelta(days=1)
    record(people, row(table, "k-1", day))
    assert record(people, row(table, "k-1", day)).already_recorded == 1
    other_day = day - datetime.timedelta(days=40)  # another month: another partition
    for reused in (row(table, "k-1", day, amount="4.00"), row(table, "k-1", other_day),
                   row(table, "k-1", other_day, amount="4.00")):
        with pytest.raises(LedgerConflict, match="'k-1' is already recorded for a different entry"):
            record(people, row(table, "k-2", day, reference="H-2"), reused)
    assert list(CollectionEntry.objects.values_list("idempotency_key", "gaming_day", "amount")) == [
        ("k-1", day, Decimal("3.00"))]


def test_a_correction_keeps_its_originals_day_and_partition_and_the_database_holds_its_key(people, table):
    far = timezone.localdate().replace(day=1, year=timezone.localdate().year + 2)
    assert partitions.ensure_months(far, far) == [partitions.month_name(t, far) for t in partitions.TABLES]
    record(people, row(table, "k-1", far))  # in a month made after the migration
    original = entry_id("k-1")
    fixed = record(people, {"idempotency_key": "k-1-fix", "corrects": original, "amount": "2.00",
                            "reason": "Seat 1 paid $2"})
    assert fixed.created == 1
    correction = CollectionEntry.objects.get(idempotency_key="k-1-fix")
    assert (correction.corrects_id, correction.gaming_day) == (original, far)
    assert partition_of(correction.pk) == partition_of(original) == partitions.month_name(ENTRIES, far)
    assert list(CollectionEntry.objects.effective().values_list("idempotency_key", flat=True)) == ["k-1-fix"]
    assert CollectionEntry.objects.get(pk=original).corrections.get() == correction

    columns = ("idempotency_key, establishment_id, table_id, gaming_day, reference, collected_at, payer, player, "
               "fee_kind, amount, currency, reason, recorded_at, corrects_id")
    far_month, this_month = partitions.month_name(ENTRIES, far), partitions.month_name(ENTRIES, timezone.localdate())
    refused = [(original + 10_000, far, far_month),  # no such entry
               (original, far + datetime.timedelta(days=1), far_month),  # its original is on another day
               (original, timezone.localdate(), this_month),  # ... of another month
               (original, datetime.date(2001, 3, 3), f"{ENTRIES}_default")]  # ... of a month without a partition
    # Each by the key of the partition the row goes to: that partition's own, onto itself.
    for corrects, day, partition in refused:
        with pytest.raises(IntegrityError, match=f'"{partition}_corrects"'), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(f"INSERT INTO {ENTRIES} ({columns}) VALUES ('raw', %s, %s, %s, 'H-1', now(), "
                               f"'player', '', 'player', 1, 'USD', 'r', now(), %s)",
                               [table.establishment_id, table.pk, day, corrects])


@pytest.mark.django_db(transaction=True)
def test_two_batches_recording_one_key_on_two_days_at_once_record_it_once(reseed, people, table):
    """The database's unique key is per day: the second batch to reach the key's lock waits for the first to
    commit, then finds its key on the other day."""
    day = timezone.localdate() - datetime.timedelta(days=1)
    scope = Scope(people.floor)
    first = intake.check_entries([row(table, "k-1", day)], scope=scope)
    second = intake.check_entries([row(table, "k-1", day - datetime.timedelta(days=40))], scope=scope)
    inserted, release, outcome = threading.Event(), threading.Event(), {}

    def first_batch():
        try:
            with transaction.atomic():
                outcome["first"] = storage.insert_postgresql(list(first.rows), None, timezone.now())
                inserted.set()
                release.wait(30)  # not committed until the second batch has had time to get as far as it can
        finally:
            connection.close()

    def second_batch():
        try:
            intake.record_checked(second, user=people.floor)
            outcome["second"] = "recorded"
        except LedgerConflict as error:
            outcome["second"] = str(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=first_batch), threading.Thread(target=second_batch)]
    threads[0].start()
    assert inserted.wait(30)
    threads[1].start()
    threads[1].join(1.0)
    assert threads[1].is_alive(), "the second batch should wait for the first's lock on the key"
    release.set()
    for thread in threads:
        thread.join(30)
    assert outcome["first"] == 1
    assert "'k-1' is already recorded for a different entry" in outcome["second"]
    assert list(CollectionEntry.objects.values_list("idempotency_key", "gaming_day")) == [("k-1", day)]
