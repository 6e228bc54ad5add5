"""What is closed stays closed, the sums too (issue 41): a closed month's kept sums (``LedgerDay``), its variance rows
(``VarianceDay``, ``VarianceCell``) and its reconciliations are refused to the service's database role by PostgreSQL,
as its entries are; the closing seals their totals (``fees.months.sealed``, the seal's statement v2); what the
owner changes behind the triggers' back is found by ``check_ledger_sums`` and not shown as truth in the regulator's
room."""

import datetime
import io
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection
from django.db.models import F

from exports import collect
from fees import ledger
from fees.models import ClosedMonth, LedgerDay, Reconciliation, VarianceCell, VarianceChange, VarianceDay
from fees.months import selectors
from fees.months import services as months
from fees.variance import services as variance
from tests.console.views.regulator.test_regulator import page_of
from tests.database_roles import acting_as, make_service_role
from tests.fees.months.test_services import JUNE, JULY, close, collect as record_entry, jobs_here, june, play

pytestmark = [pytest.mark.django_db, pytest.mark.services]
__all__ = ["jobs_here", "june"]  # the fixtures, used by name

DAY = JUNE.replace(day=10)
JUNE_END = datetime.date(2024, 6, 30)


@pytest.fixture
def closed_june(people, june, tmp_path):
    """June 2024 closed at Casino Marysville, its day reconciled and summed up first (the 10th: two hands, both
    collected short), with a service role made beforehand; July stays open."""
    table = june["table"]
    ledger.reconcile(DAY, table_ids=[table.pk])
    ledger.reconcile(JULY.replace(day=2), table_ids=[table.pk])
    variance.refresh(people.marysville)
    role = make_service_role()
    kept = LedgerDay.objects.get(table=table, gaming_day=DAY)
    assert kept.collected_total < kept.expected_total  # collected short: what a forger would hide
    assert VarianceDay.objects.get(table=table, gaming_day=DAY).hands_short == 2
    assert VarianceCell.objects.filter(gaming_day=DAY).exists()
    close("casino-marysville", archive=tmp_path)
    return {**june, "role": role, "kept": kept, "archive": tmp_path}


ATTACKS = {
    "the day's sums made whole": f"UPDATE fees_ledgerday SET collected_total = expected_total "
                                 f"WHERE gaming_day = '{DAY}'",
    "the day's sums deleted": f"DELETE FROM fees_ledgerday WHERE gaming_day = '{DAY}'",
    "a table-day's sums added": f"INSERT INTO fees_ledgerday (establishment_id, table_id, gaming_day, currency, rounds, "
                                f"expected_total, entries, collected_total, paid_by_player, paid_by_player_dealer, "
                                f"paid_by_pot, kind_player, kind_player_dealer, kind_collection, kind_jackpot, "
                                f"kind_designated_table, kind_time) SELECT establishment_id, table_id, '2024-06-11', "
                                f"currency, 1, 5, 1, 5, 5, 0, 0, 5, 0, 0, 0, 0, 0 FROM fees_ledgerday "
                                f"WHERE gaming_day = '{DAY}'",
    "the day's variance cleared": f"UPDATE fees_varianceday SET hands_short = 0, amount_short = 0 "
                                  f"WHERE gaming_day = '{DAY}'",
    "the day's variance deleted": f"DELETE FROM fees_varianceday WHERE gaming_day = '{DAY}'",
    "a variance cell cleared": f"UPDATE fees_variancecell SET amount_short = 0 WHERE gaming_day = '{DAY}'",
    "a variance cell deleted": f"DELETE FROM fees_variancecell WHERE gaming_day = '{DAY}'",
}


def test_a_closed_months_sums_and_variance_rows_refuse_the_service_roles_sql(closed_june):
    """The attack as filed: the service's role UPDATEs a closed month's kept sums, and its variance rows accept
    UPDATE and DELETE. Refused by the database, whatever the application does."""
    table, role = closed_june["table"], closed_june["role"]
    before = (list(LedgerDay.objects.filter(gaming_day__range=(JUNE, JUNE_END)).values()),
              list(VarianceDay.objects.filter(gaming_day__range=(JUNE, JUNE_END)).values()),
              list(VarianceCell.objects.filter(gaming_day__range=(JUNE, JUNE_END)).values()))
    for what, sql in ATTACKS.items():
        with pytest.raises(DatabaseError, match="closed month"), acting_as(role), connection.cursor() as cursor:
            cursor.execute(sql)
            pytest.fail(f"{what}: not refused")
    # A reconciliation added to the closed month (one balanced run would read as the day's latest).
    columns = [c for c in months._columns(connection.cursor(), "fees_reconciliation") if c != "id"]
    picked = ", ".join({"status": "'balanced'", "run_at": "now()"}.get(c, c) for c in columns)
    with pytest.raises(DatabaseError, match="closed month"), acting_as(role), connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO fees_reconciliation ({', '.join(columns)}) SELECT {picked} "
                       f"FROM fees_reconciliation WHERE gaming_day = %s", [DAY])
    after = (list(LedgerDay.objects.filter(gaming_day__range=(JUNE, JUNE_END)).values()),
             list(VarianceDay.objects.filter(gaming_day__range=(JUNE, JUNE_END)).values()),
             list(VarianceCell.objects.filter(gaming_day__range=(JUNE, JUNE_END)).values()))
    assert after == before and all(before)
    assert Reconciliation.objects.filter(gaming_day=DAY).count() == 1
    # July is open: the service writes its sums and summaries as ever (ledger writes add to the sums).
    with acting_as(role), connection.cursor() as cursor:
        cursor.execute("UPDATE fees_ledgerday SET rounds = rounds WHERE gaming_day = %s", [JULY.replace(day=2)])
        assert cursor.rowcount == 1
        cursor.execute("UPDATE fees_varianceday SET hands = hands WHERE gaming_day = %s", [JULY.replace(day=2)])
        assert cursor.rowcount == 1
    with acting_as(role):
        play(table, "J-2", JULY.replace(day=2))
    assert LedgerDay.objects.get(table=table, gaming_day=JULY.replace(day=2)).rounds == 2


def forge(table):
    """What the tables' owner can still do behind the triggers' back: make the closed day's collections whole."""
    assert LedgerDay.objects.filter(table=table, gaming_day=DAY).update(collected_total=F("expected_total")) == 1


def test_check_ledger_sums_finds_an_owners_change_to_a_closed_months_sums(closed_june):
    table, kept = closed_june["table"], closed_june["kept"]
    out = io.StringIO()
    call_command("check_ledger_sums", stdout=out)
    assert "agree" in out.getvalue()
    forge(table)
    out = io.StringIO()
    with pytest.raises(CommandError, match="differ"):
        call_command("check_ledger_sums", stdout=out)
    said = out.getvalue()
    assert (f"casino-marysville {DAY} USD collected: kept {kept.expected_total}, sealed {kept.collected_total}"
            in said), said
    # --repair cannot put a closed month right from rows it no longer holds: it says so, and changes nothing.
    with pytest.raises(CommandError, match="differ"):
        call_command("check_ledger_sums", "--repair", stdout=io.StringIO())
    assert LedgerDay.objects.get(table=table, gaming_day=DAY).collected_total == kept.expected_total


def test_the_regulators_room_shows_a_closed_months_sealed_totals(client, people, closed_june):
    table, kept = closed_june["table"], closed_june["kept"]
    forge(table)
    (day,) = collect.fees_by_day([people.marysville], JUNE, JUNE_END)
    assert (day["expected"], day["collected"]) == (kept.expected_total, kept.collected_total)
    assert "sealed" in day["problem"]
    client.force_login(people.regulator_ca)
    html = client.get(page_of("casino-marysville"), {"month": "2024-06"}).content.decode()
    assert "collected short of expected on 1 of 1 gaming day" in html
    assert "differ from the totals sealed when June 2024 was closed" in html
