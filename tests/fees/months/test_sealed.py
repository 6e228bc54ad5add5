"""What is closed stays closed, the sums too (issue 41): a closed month's kept sums (``LedgerDay``), its variance rows
(``VarianceDay``, ``VarianceCell``) and its reconciliations are refused to the service's database role by PostgreSQL,
as its entries are; the closing seals their totals (``fees.months.sealed``, the seal's statement v2); what the
owner changes behind the triggers' back is found by ``check_ledger_sums`` and not shown as truth in the regulator's
room."""

import base64
import datetime
import io

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection
from django.db.models import F
from django.urls import reverse

from cardroom import transparency
from exports import collect
from fees import ledger
from fees.models import ClosedMonth, LedgerDay, Reconciliation, VarianceCell, VarianceChange, VarianceDay
from fees.months import partitions, selectors
from fees.months import services as months
from fees.variance import services as variance
from tests.console.views.regulator.test_regulator import page_of
from tests.database_roles import acting_as, make_service_role
from tests.fees.months.test_services import jobs_here, june  # noqa: F401  (the fixtures)
from tests.fees.months.test_services import JUNE, JULY, close, play

pytestmark = [pytest.mark.django_db, pytest.mark.services]

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
    # A change that keeps the day's totals (here: who paid) is found by the digest of the rows behind them.
    LedgerDay.objects.filter(table=table, gaming_day=DAY).update(
        collected_total=kept.collected_total, paid_by_player=0, paid_by_pot=F("paid_by_player"))
    out = io.StringIO()
    with pytest.raises(CommandError, match="differ"):
        call_command("check_ledger_sums", stdout=out)
    assert (f"casino-marysville {DAY} USD: its tables' kept sums differ from those sealed (the day's totals agree)"
            in out.getvalue()), out.getvalue()


def test_the_regulators_room_shows_a_closed_months_sealed_totals(client, people, closed_june):
    table, kept = closed_june["table"], closed_june["kept"]
    (day,) = collect.fees_by_day([people.marysville], JUNE, JUNE_END)
    assert day["sealed"] and day["problem"] is None and day["reconciled"] == {"tables": 1, "variance": 1}
    assert day["tables"] == [("CLOSE-1", kept.expected_total, kept.collected_total,
                              kept.collected_total - kept.expected_total)]
    forge(table)
    (day,) = collect.fees_by_day([people.marysville], JUNE, JUNE_END)
    assert (day["expected"], day["collected"]) == (kept.expected_total, kept.collected_total)
    assert "sealed" in day["problem"] and day["tables"] == []
    client.force_login(people.regulator_ca)
    html = client.get(page_of("casino-marysville"), {"month": "2024-06"}).content.decode()
    assert "collected short of expected on 1 of 1 gaming day" in html
    assert "differ from the totals sealed when June 2024 was closed" in html
    # The variance page reads the summaries: one changed behind the triggers' back is said, not taken as the record.
    variance_page = reverse("console:regulator-variance", args=["casino-marysville"])
    period = {"day_from": JUNE.isoformat(), "day_to": JUNE_END.isoformat()}
    shown = client.get(variance_page, period).content.decode()
    assert "differ from what its closing sealed" not in shown
    assert "June 2024 is closed (on " in shown and "Its figures here are those its closing sealed" in shown
    VarianceDay.objects.filter(table=table, gaming_day=DAY).update(hands_short=0, amount_short=0)
    answer = client.get(variance_page, period)
    assert answer.status_code == 200
    assert (f"differ from what its closing sealed (casino-marysville {DAY} variance short: now 0, sealed 2)"
            in answer.content.decode())


def statement(closed):
    return selectors.seal_statement(closed).decode()


def test_the_seal_covers_the_sums_and_a_reopened_months_earlier_seal_still_verifies(people, closed_june):
    table, kept, role = closed_june["table"], closed_june["kept"], closed_june["role"]
    closed = ClosedMonth.objects.get(month=JUNE)
    assert closed.seal["statement"] == selectors.SEAL == "cardroom/closed-month@v2"
    assert selectors.seal_problem(closed) is None
    lines = statement(closed).splitlines()
    assert lines[0] == selectors.SEAL
    (ledger_line,) = [line for line in lines if line.startswith("ledger ")]
    assert ledger_line.startswith(f"ledger casino-marysville {DAY} USD tables 1 rounds 2 expected "
                                  f"{kept.expected_total} entries 2 collected {kept.collected_total} rows ")
    (variance_line,) = [line for line in lines if line.startswith("variance ")]
    assert variance_line.startswith(f"variance casino-marysville {DAY} tables 1 variance 1 hands 2 short 2 ")
    # The record's totals are the owner's to write, and the seal covers them: rewritten, the record is not as sealed.
    forged = {**closed.totals, "ledger": [{**row, "collected": row["expected"]} for row in closed.totals["ledger"]]}
    ClosedMonth.objects.filter(pk=closed.pk).update(totals=forged)
    assert "not as it was sealed" in selectors.seal_problem(ClosedMonth.objects.get(pk=closed.pk))
    assert [p.kind for p in selectors.sealed_months([people.marysville], JUNE, JUNE_END).problems] == ["record"]
    with pytest.raises(CommandError, match="differ from what their closings sealed"):
        call_command("check_ledger_sums", stdout=io.StringIO())
    ClosedMonth.objects.filter(pk=closed.pk).update(totals=closed.totals)

    # A reconciliation's mark on a closed day (the service may write marks): summing up leaves the day as sealed
    # and keeps the mark for a reopening, instead of failing on the database's refusal.
    with acting_as(role):
        VarianceChange.objects.create(establishment=people.marysville, table=table, gaming_day=DAY)
        assert variance.refresh(people.marysville) == 0
    assert VarianceChange.objects.filter(gaming_day=DAY).count() == 1

    call_command("reopen_month", "--month", "2024-06", stdout=io.StringIO())
    closed.refresh_from_db()
    assert closed.reopened_at is not None and selectors.seal_problem(closed) is None  # the earlier seal, as made
    out = io.StringIO()
    call_command("check_ledger_sums", stdout=out)
    assert "agree" in out.getvalue()
    (day,) = collect.fees_by_day([people.marysville], JUNE, JUNE_END)
    assert "sealed" not in day  # open again: the kept sums are read
    with acting_as(role), connection.cursor() as cursor:  # and the service writes them again
        cursor.execute("UPDATE fees_ledgerday SET rounds = rounds WHERE gaming_day = %s", [DAY])
        assert cursor.rowcount == 1
        variance.refresh(people.marysville)  # the mark kept is looked at now (the day's latest run is as summed)
    assert not VarianceChange.objects.filter(gaming_day=DAY).exists()


def test_a_month_closed_before_its_sums_were_sealed_still_reopens(people, closed_june):
    """A closing made before v2: its record holds no totals and its seal signed the v1 statement (no "statement"
    named). It verifies, is read from its kept sums, is said by check_ledger_sums, and reopens."""
    closed = ClosedMonth.objects.get(month=JUNE)
    closed.totals = {}
    private, key = transparency.current_key()
    closed.seal = {"key": key.fingerprint, "signature": base64.b64encode(
        private.sign(selectors.seal_statement(closed, selectors.SEAL_V1))).decode()}
    closed.save(update_fields=["totals", "seal"])
    assert selectors.seal_version(closed) == selectors.SEAL_V1 and selectors.seal_problem(closed) is None
    assert statement(closed).splitlines()[0] == "cardroom/closed-month@v1" and "ledger " not in statement(closed)
    # Named v2 now, the same record is not what was signed: a seal cannot be read as another statement.
    ClosedMonth.objects.filter(pk=closed.pk).update(seal={**closed.seal, "statement": selectors.SEAL})
    assert "not as it was sealed" in selectors.seal_problem(ClosedMonth.objects.get(pk=closed.pk))
    ClosedMonth.objects.filter(pk=closed.pk).update(seal=closed.seal)
    out = io.StringIO()
    call_command("check_ledger_sums", stdout=out)
    assert "closed 2024-06: closed before closings sealed their sums" in out.getvalue()
    (day,) = collect.fees_by_day([people.marysville], JUNE, JUNE_END)
    assert "sealed" not in day and day["collected"] == closed_june["kept"].collected_total
    out = io.StringIO()
    call_command("reopen_month", "--month", "2024-06", stdout=out)
    assert "SHA-256 as sealed" in out.getvalue()


def test_a_month_whose_kept_sums_differ_from_its_rows_is_not_closed(people, june, tmp_path):
    """While a month is open the service writes its kept sums; one changed then is found when the month closes,
    while its rows are there to say so, and nothing is sealed."""
    table = june["table"]
    forge(table)
    with pytest.raises(CommandError, match=rf"The kept sums of 2024-06 differ from its rows at 1 table-day\(s\) "
                                           rf"\(the first: table {table.pk} on {DAY} in USD.*check_ledger_sums "
                                           rf"--repair --from 2024-06-01 --to 2024-06-30.*Nothing was changed"):
        close("casino-marysville", archive=tmp_path / "june")
    assert not ClosedMonth.objects.exists() and not (tmp_path / "june").exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE conname LIKE 'closed_2024_06%%'")
        assert cursor.fetchall() == []
    assert partitions.month_name("fees_roundofplay", JUNE) in {
        name for (name,) in connection.cursor().execute("SELECT relname FROM pg_class").fetchall()}


def test_the_service_role_is_told_it_may_not_reopen_nor_close_a_month(closed_june):
    """Issue 41: ``reopen_month`` and ``close_month`` as the service's role ended in a raw traceback ("must be owner
    of table", "permission denied for table fees_closedmonth"). Now a sentence, exit status 2, nothing changed."""
    for command in (["reopen_month", "--month", "2024-06"],
                    ["close_month", "--month", "2024-07", "--establishment", "casino-marysville",
                     "--archive-dir", str(closed_june["archive"] / "july")]):
        with pytest.raises(CommandError, match=rf"may not run {command[0]}: .*Nothing was changed") as refused, \
                acting_as(closed_june["role"]):
            call_command(*command, stdout=io.StringIO())
        assert refused.value.returncode == 2
    assert ClosedMonth.objects.get(month=JUNE).reopened_at is None
    assert not ClosedMonth.objects.filter(month=JULY).exists() and not (closed_june["archive"] / "july").exists()
