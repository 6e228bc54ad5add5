"""The regulator's month of fees summed per gaming day by the database, only the table-days that differ read, and the
tables reconciled counted there (issue 25: the page read every table-day of the month and summed it in Python), from
the ledger's kept sums (issue 35: no page sums the raw rows). The figures are the export's
(``exports.collect.fee_day_rows``, summed from the rows), to the cent."""

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cardroom.models import Game, Table
from console.views.regulator.ledger import _reconciled
from exports import collect
from exports.collect.scope import ExportScope
from fees.ledger import kept_sums, reconcile
from fees.models import CollectionEntry, LedgerDay, Reconciliation
from tests.console.views.regulator.test_regulator import DAY, LA, page_of, played, post

pytestmark = pytest.mark.django_db
NEXT = DAY + datetime.timedelta(days=1)


@pytest.fixture
def floor(people):
    """Three tables over two gaming days: table 1 collects what it owes on the 3rd and 10 cents short on the 4th;
    table 2 collects 3.10 instead of 3.00 on the 3rd, then a correction brings it to 3.00; table 10 has a
    collection with no round on the 4th. Only the 4th differs, at tables 1 (-0.10) and 10 (+2.00)."""
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    tables = [Table.objects.create(establishment=people.marysville, label=f"S-{n}", seats=7, game=game)
              for n in (1, 2, 10)]
    one, two, ten = tables
    posting_one, posting_two = post(one, "GEGA-002888"), post(two, "GEGA-002888")
    played(one, posting_one, "A", "1.10", "1.10")
    played(one, posting_one, "B", "2.20", "2.20")
    played(one, posting_one, "C", "0.30", "0.20", day=NEXT)
    played(two, posting_two, "A", "3.00", "3.10")
    wrong = CollectionEntry.objects.get(table=two, reference="A")
    at = datetime.datetime.combine(DAY, datetime.time(3), LA)
    CollectionEntry.objects.create(idempotency_key="fix-A", establishment=people.marysville, table=two, gaming_day=DAY,
                                   reference="A", collected_at=at, payer="player", fee_kind="player",
                                   amount=Decimal("3.00"), currency="USD", recorded_at=at, corrects=wrong,
                                   reason="miscounted")
    CollectionEntry.objects.create(idempotency_key="lone", establishment=people.marysville, table=ten, gaming_day=NEXT,
                                   reference="Z", collected_at=at, payer="player", fee_kind="player",
                                   amount=Decimal("2.00"), currency="USD", recorded_at=at)
    kept_sums.rewrite(people.marysville)  # the entries above were written around the services
    return tables


def test_the_days_and_the_differing_tables_are_the_exports_figures(people, floor):
    one, two, ten = floor
    days = collect.fees_by_day([people.marysville], DAY, NEXT)
    assert [(d["day"], d["currency"], d["expected"], d["collected"], d["difference"], d["tables"]) for d in days] == [
        (DAY, "USD", Decimal("6.30"), Decimal("6.30"), Decimal("0.00"), []),
        (NEXT, "USD", Decimal("0.30"), Decimal("2.20"), Decimal("1.90"),
         [("S-1", Decimal("0.30"), Decimal("0.20"), Decimal("-0.10")),
          ("S-10", Decimal("0.00"), Decimal("2.00"), Decimal("2.00"))]),
    ]
    # The same as the export's rows per table and day, summed.
    rows = list(collect.fee_day_rows(ExportScope([people.marysville], DAY, NEXT).freeze_ledger()))
    for day in days:
        mine = [r for r in rows if r[0] == day["day"]]
        assert day["expected"] == sum(r[3] for r in mine) and day["collected"] == sum(r[4] for r in mine)
        assert day["tables"] == [(r[2], r[3], r[4], r[5]) for r in mine if r[5]]


def test_the_queries_do_not_grow_with_the_tables(people, floor):
    with CaptureQueriesContext(connection) as few:
        collect.fees_by_day([people.marysville], DAY, NEXT)
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    for n in range(20, 26):
        table = Table.objects.create(establishment=people.marysville, label=f"S-{n}", seats=7, game=game)
        played(table, post(table, "GEGA-002888"), "A", "1.00", "0.50")
    with CaptureQueriesContext(connection) as more:
        days = collect.fees_by_day([people.marysville], DAY, NEXT)
    # The kept sums' table-days, summed per day by the same statement, and the closed months (none here; a closed
    # month's totals are its seal's: tests/fees/months/test_sealed.py).
    assert len(more) == len(few) == 2
    assert [label for label, *_ in days[0]["tables"]] == [f"S-{n}" for n in range(20, 26)]


def test_the_days_are_read_from_the_kept_sums_not_the_rows(people, floor):
    one, two, ten = floor
    # A month closed: its rows leave the live database, its kept sums stay. Here the kept sums alone are changed.
    LedgerDay.objects.filter(table=one, gaming_day=NEXT).update(collected_total=Decimal("0.30"))
    days = collect.fees_by_day([people.marysville], DAY, NEXT)
    assert (days[1]["expected"], days[1]["collected"]) == (Decimal("0.30"), Decimal("2.30"))
    assert days[1]["tables"] == [("S-10", Decimal("0.00"), Decimal("2.00"), Decimal("2.00"))]
    assert collect.fees_by_day([], DAY, NEXT) == []


def test_a_table_day_counts_its_latest_reconciliation(people, floor):
    one, two, ten = floor
    reconcile(NEXT, table_ids=[one.pk, ten.pk])  # both with a variance
    short = CollectionEntry.objects.get(table=one, reference="C")
    at = datetime.datetime.combine(NEXT, datetime.time(4), LA)
    CollectionEntry.objects.create(idempotency_key="fix-C", establishment=people.marysville, table=one,
                                   gaming_day=NEXT, reference="C", collected_at=at, payer="player", fee_kind="player",
                                   amount=Decimal("0.30"), currency="USD", recorded_at=at, corrects=short,
                                   reason="miscounted")  # now table 1 balances
    reconcile(NEXT, table_ids=[one.pk])
    reconcile(DAY, table_ids=[one.pk, two.pk])
    assert Reconciliation.objects.filter(table=one, gaming_day=NEXT).count() == 2
    ids = [t.pk for t in floor]
    assert _reconciled(ids, DAY, NEXT) == {DAY: {"tables": 2, "variance": 0}, NEXT: {"tables": 2, "variance": 1}}


def test_the_page_lists_only_the_tables_that_differ(client, people, floor):
    client.force_login(people.regulator_ca)
    html = client.get(page_of("casino-marysville"), {"month": "2026-03"}).content.decode()
    assert "Tables whose collections differed from what was expected (2 table-days)" in html
    assert "Wed 4 Mar: table S-1 \u2212$0.10; table S-10 +$2.00" in html
