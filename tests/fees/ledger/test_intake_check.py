"""The ledger's check alone (``check_entries``) and the recording of what it passed (``record_checked``): the same
checks and messages as ``record_entries``, every bad row named, nothing recorded until asked."""

import datetime

import pytest

from cardroom.access import Scope
from cardroom.exceptions import BadInput
from fees import ledger
from fees.models import CollectionEntry, LedgerConflict
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db

POSTED_FROM = datetime.datetime(2026, 3, 1, 6, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-8)))


@pytest.fixture
def table(people):
    return make_posted_table(people.marysville, label="L-7", effective_from=POSTED_FROM)


def entry(table, key, amount="3.00", **extra):
    return {"idempotency_key": key, "table": table.pk, "gaming_day": "2026-03-03", "reference": f"H-{key}",
            "collected_at": "2026-03-03T02:30:00-08:00", "payer": "player", "seat": 1, "fee_kind": "player",
            "amount": amount, **extra}


def test_the_check_names_every_bad_row_and_records_nothing(people, table):
    rows = [entry(table, f"k-{n}", amount="x" if n % 2 else "3.00") for n in range(50)]
    rows.append(entry(table, "k-0"))  # the first row's key again
    checked = ledger.check_entries(rows, scope=Scope(people.floor), max_errors=None)
    assert sorted(checked.errors) == [*range(1, 50, 2), 50]
    assert checked.errors[1] == "entries[1].amount: must be an amount of money such as \"12.50\", not 'x'."
    assert checked.errors[50] == "entries[50].idempotency_key: 'k-0' is used twice in this batch (also by row 0)."
    assert [row[0] for row in checked.rows] == list(range(0, 50, 2))  # each good row with its index
    assert CollectionEntry.objects.count() == 0
    # As record_entries, the check stops at 20 bad rows unless told otherwise.
    assert len(ledger.check_entries(rows, scope=Scope(people.floor)).errors) == 20


def test_the_checked_rows_are_recorded_as_record_entries_records_them(people, table):
    rows = [entry(table, "a-1"), entry(table, "a-2", amount="12.5"), entry(table, "a-3", seat=9)]
    checked = ledger.check_entries(rows, scope=Scope(people.floor), label=lambda index: "", max_errors=None)
    assert checked.errors == {2: "seat: must be a betting position from 1 to 7 at table L-7, not 9."}
    result = ledger.record_checked(checked, user=people.floor)
    assert (result.received, result.created) == (2, 2)
    assert sorted(CollectionEntry.objects.values_list("idempotency_key", "amount")) == [("a-1", 3), ("a-2", 12.5)]
    assert CollectionEntry.objects.get(idempotency_key="a-2").recorded_by == people.floor
    again = ledger.record_checked(ledger.check_entries(rows[:2], scope=Scope(people.floor)), user=people.floor)
    assert (again.created, again.already_recorded) == (0, 2)
    # A key recorded for other content: the checked rows are a conflict when recorded, as with record_entries.
    changed = ledger.check_entries([entry(table, "a-1", amount="4.00")], scope=Scope(people.floor))
    assert changed.errors == {}
    with pytest.raises(LedgerConflict, match="already recorded for a different entry"):
        ledger.record_checked(changed, user=people.floor)
    with pytest.raises(LedgerConflict, match="already recorded for a different entry"):
        ledger.record_entries([entry(table, "a-1", amount="4.00")], scope=Scope(people.floor))
    assert CollectionEntry.objects.count() == 2


def test_record_entries_still_refuses_the_whole_batch_with_the_same_message(people, table):
    rows = [entry(table, f"r-{n}", amount="3,00" if n in (1, 4) else "3.00") for n in range(6)]
    with pytest.raises(BadInput) as refused:
        ledger.record_entries(rows, scope=Scope(people.floor))
    assert str(refused.value) == (
        "Nothing was recorded. entries[1].amount: must be an amount of money such as \"12.50\", not '3,00'. "
        "entries[4].amount: must be an amount of money such as \"12.50\", not '3,00'.")
    assert refused.value.field == "entries"
    assert CollectionEntry.objects.count() == 0


def test_the_check_asks_for_the_permission_and_the_batch(people, table):
    from cardroom.exceptions import NotAllowed

    with pytest.raises(NotAllowed):
        ledger.check_entries([entry(table, "p-1")], scope=Scope(people.regulator_ca))
    with pytest.raises(BadInput, match="entries"):
        ledger.check_entries([], scope=Scope(people.floor))
    assert CollectionEntry.objects.count() == 0


def test_a_batch_sent_again_as_it_is_is_found_by_one_anti_join_and_writes_nothing(people, table):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from fees.ledger import kept_sums

    if connection.vendor != "postgresql":
        pytest.skip("the set-based path is PostgreSQL's")
    rows = [entry(table, f"r-{n}", amount=f"{n}.00") for n in range(1, 6)]
    ledger.record_entries(rows, scope=Scope(people.floor), user=people.floor)
    with CaptureQueriesContext(connection) as queries:
        again = ledger.record_entries(rows, scope=Scope(people.floor), user=people.floor)
    assert (again.created, again.already_recorded) == (0, 5)
    written = [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(("INSERT", "WITH"))
               or "advisory" in q["sql"]]
    assert written == []  # no INSERT into the ledger or its kept sums, no key lock
    # One new row among them: recorded, and the kept sums (one upsert, summed by PostgreSQL) still the rows' sums.
    more = ledger.record_entries([*rows, entry(table, "r-6", amount="6.00")], scope=Scope(people.floor),
                                 user=people.floor)
    assert (more.created, more.already_recorded) == (1, 5)
    assert kept_sums.differences() == []
    assert kept_sums.kept()[(people.marysville.pk, table.pk, datetime.date(2026, 3, 3), "USD")]["collected_total"] \
        == 21
