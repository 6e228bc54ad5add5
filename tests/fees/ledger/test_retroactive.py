"""A retroactive change reaches the money (issue 42): what was collected stays as recorded; what was owed is judged
twice, when collected (each round priced as its table's sign showed) and as known now (the retroactive version),
side by side on the reconciliation. The impact preview shown before publishing is what publishing records, to the
cent; a closed month is left alone, and the preview says so."""

import datetime
import io
from decimal import Decimal

import pytest
import time_machine
from django.core.management import call_command
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

from cardroom.access import Scope
from demo import play as demo_play
from fees import ledger
from fees.ledger import restating
from fees.models import ClosedMonth, FeeTier, Reconciliation, RoundOfPlay, ScheduleDocument
from fees.quotes import impact
from fees.schedules import services
from tests.factories import make_draft

pytestmark = pytest.mark.django_db

CODE = "CMV-CA-TABLE-ACTION"  # the demo's busiest schedule (option 1)
RAISED = Decimal("0.75")  # added to option 1's "$101-$200" player-dealer fee
OCTOBER = (demo_play.MONTH_START, demo_play.MONTH_START + datetime.timedelta(days=demo_play.MONTH_DAYS - 1))
FROM = datetime.date(2026, 10, 15)


@pytest.fixture(scope="module", autouse=True)
def demo_month(django_db_setup, django_db_blocker):
    # Loaded the day before the tests' today, so that the runs publishing makes are the latest.
    with django_db_blocker.unblock(), transaction.atomic():
        with time_machine.travel(datetime.datetime(2026, 11, 19, 9, tzinfo=datetime.timezone.utc), tick=True):
            call_command("load_demo", force=True, stdout=io.StringIO())
        yield
        transaction.set_rollback(True)


@pytest.fixture
def today(people, clock):
    clock(datetime.datetime(2026, 11, 20, 12, tzinfo=people.marysville.zone))


def retroactive_draft(people, effective_from=FROM):
    document = ScheduleDocument.objects.get(code=CODE)
    version = make_draft(document, based_on=document.version_as_of(OCTOBER[1]), user=people.compliance,
                         reason="Bureau letter: the $101-$200 band's fee raised", effective_from=effective_from)
    tier = FeeTier.objects.get(option__version=version, option__number=1, printed_bounds="$101-$200")
    tier.fee += RAISED
    tier.printed_fee = f"${tier.fee}"
    tier.save()
    return version


def publish(people, version, django_capture_on_commit_callbacks):
    """Through the two officers, its commit's work run (the reconciliation again)."""
    with django_capture_on_commit_callbacks(execute=True):
        services.request_publication(people.compliance, version=version, reason="The bureau's letter of 2 November",
                                     effective_from=version.effective_from, retroactive=True,
                                     retroactive_reason="The bureau's rate applies from 15 October")
    with django_capture_on_commit_callbacks(execute=True):
        services.approve_publication(people.compliance_2, version=version, reason="Checked against the letter")


def latest(table_id, day):
    return Reconciliation.objects.filter(table_id=table_id, gaming_day=day).first()  # the latest run


def test_publishing_records_per_open_table_day_the_difference_the_preview_showed(
        people, today, django_capture_on_commit_callbacks):
    marysville = people.marysville
    version = retroactive_draft(people)
    report = impact.impact(version, marysville, *impact.default_period(version, marysville))
    previewed = {(row["table"].pk, row["day"]): row["figures"] for row in report.rows}
    assert sum(f.difference for f in previewed.values()) > 0 and len(previewed) > 20  # the test can fail
    before = {key: latest(*key) for key in previewed}

    publish(people, version, django_capture_on_commit_callbacks)

    for (table_id, day), figures in previewed.items():
        run = latest(table_id, day)
        assert run.trigger == Reconciliation.Trigger.PUBLICATION, (table_id, day)
        # Collected and owed when collected as recorded; owed as known now beside them, the difference the preview's.
        assert run.collected_total == before[(table_id, day)].collected_total
        assert run.expected_total == figures.expected == before[(table_id, day)].expected_total
        assert run.status == before[(table_id, day)].status and run.variances == before[(table_id, day)].variances
        assert run.retroactive_difference == figures.difference, (table_id, day)
        assert run.owed_now_total == figures.repriced
        if figures.difference:
            (restated,) = run.restatements
            assert restated["schedule"] == CODE and restated["version_now"] == version.number
            assert restated["version_then"] == version.number - 1 and restated["currency"] == "USD"
            assert Decimal(restated["difference"]) == figures.difference and restated["rounds"] == figures.rounds
    # Days before its effective date are not reached.
    earlier = Reconciliation.objects.filter(table__establishment=marysville, gaming_day__lt=FROM)
    assert not earlier.filter(trigger=Reconciliation.Trigger.PUBLICATION).exists()


def test_a_closed_month_is_left_alone_and_the_preview_says_it_is_closed(
        people, today, django_capture_on_commit_callbacks, client, tmp_path):
    ClosedMonth.objects.create(month=datetime.date(2026, 10, 1), archive_dir=str(tmp_path), closed_by="test",
                               closed_at=timezone.now())
    version = retroactive_draft(people)
    reach = impact.reach(version, people.marysville)
    assert reach.closed_months == [datetime.date(2026, 10, 1)]
    assert reach.reconciliations == []  # none of closed October's is "to be run again"

    client.force_login(people.compliance)
    html = client.get(reverse("console:compliance-impact", args=["casino-marysville", CODE, version.number])
                      ).content.decode()
    assert "October 2026 is closed" in html and "reopen_month --month 2026-10" in html

    runs = Reconciliation.objects.count()
    publish(people, version, django_capture_on_commit_callbacks)
    assert Reconciliation.objects.count() == runs  # closed October untouched


def test_a_round_recorded_after_the_publication_for_a_play_before_it_is_priced_as_the_sign_showed(
        people, today, django_capture_on_commit_callbacks):
    version = retroactive_draft(people)
    publish(people, version, django_capture_on_commit_callbacks)
    # A hand in the raised band, played on 20 October and recorded now: the sign showed the version before.
    model = next(r for r in RoundOfPlay.objects.filter(schedule_code=CODE, gaming_day=datetime.date(2026, 10, 20))
                 if Decimal(100) < sum(Decimal(w["base"]) + Decimal(w.get("bonus", "0"))
                                       for w in r.facts["wagers"]) <= Decimal(200))
    table = model.table
    played_at = datetime.datetime(2026, 10, 20, 12, tzinfo=people.marysville.zone)
    late, created = ledger.record_round(table=table, reference="LATE-1", played_at=played_at, facts=model.facts,
                                        user=people.floor)
    assert created and late.schedule_version == version.number - 1
    assert late.expected_total == model.expected_total  # owed when collected: what the sign said
    ledger.record_entries([{
        "idempotency_key": "late-1", "table": table.pk, "gaming_day": "2026-10-20", "reference": "LATE-1",
        "collected_at": played_at.isoformat(), "payer": "player_dealer", "fee_kind": "player_dealer",
        "amount": str(late.expected_total)}], scope=Scope(people.floor), user=people.floor)

    (run,) = ledger.reconcile(datetime.date(2026, 10, 20), table_ids=[table.pk], user=people.compliance)
    assert "LATE-1" not in {v["reference"] for v in run.variances}  # collected what it owed when collected
    (restated,) = run.restatements
    rounds = RoundOfPlay.objects.filter(table=table, gaming_day=datetime.date(2026, 10, 20), schedule_code=CODE)
    in_band = sum(1 for r in rounds if Decimal(100) < sum(Decimal(w["base"]) + Decimal(w.get("bonus", "0"))
                                                           for w in r.facts["wagers"]) <= Decimal(200))
    assert Decimal(restated["difference"]) == RAISED * in_band and in_band >= 2
    assert run.owed_now_total == run.expected_total + RAISED * in_band


def test_the_normal_path_reads_one_query_for_retroactive_versions(people, django_assert_num_queries):
    results = {(1, OCTOBER[0]): {"expected_total": Decimal("1.00")}}
    with django_assert_num_queries(1):
        restating.restate(results, *OCTOBER)
    assert results[(1, OCTOBER[0])]["restatements"] == []


# -- where people look -----------------------------------------------------------------------------------------------

def test_the_variance_page_and_the_regulators_room_say_owed_under_each_version(
        people, today, client, api, django_capture_on_commit_callbacks):
    version = retroactive_draft(people)
    publish(people, version, django_capture_on_commit_callbacks)
    run = (Reconciliation.objects.filter(table__establishment=people.marysville, owed_now_total__isnull=False)
           .exclude(owed_now_total=models.F("expected_total")).select_related("table").first())
    (restated,) = run.restatements
    line = (f"Table {run.table.label}, {run.gaming_day.isoformat()}: owed ${Decimal(restated['owed_now']):,.2f} under "
            f"{CODE} v{version.number} (published retroactively on 2026-11-20), "
            f"${Decimal(restated['owed_then']):,.2f} under v{version.number - 1} when collected: retroactive "
            f"difference +${Decimal(restated['difference']):,.2f}")
    day = run.gaming_day.isoformat()

    client.force_login(people.compliance)
    html = client.get(reverse("console:compliance-variance", args=["casino-marysville"]),
                      {"day_from": day, "day_to": day}).content.decode()
    assert 'id="restated"' in html and line in html
    total = sum((Decimal(r["difference"]) for run in Reconciliation.objects.filter(
        table__establishment=people.marysville, gaming_day=run.gaming_day, trigger=Reconciliation.Trigger.PUBLICATION)
        for r in run.restatements), Decimal("0.00"))
    assert f'<strong id="restated-in-all">+${total:,.2f} over' in html
    api.force_authenticate(people.compliance)
    body = api.get(f"/api/v1/ledger/reconciliations/{run.pk}/").json()
    assert (body["expected_total"], body["owed_now_total"], body["retroactive_difference"]) == (
        str(run.expected_total), str(run.owed_now_total), restated["difference"])
    assert body["currency"] == "USD" and body["restatements"] == run.restatements
    client.force_login(people.regulator_ca)
    for url, query in ((reverse("console:regulator-variance", args=["casino-marysville"]),
                        {"day_from": day, "day_to": day}),
                       (reverse("console:regulator-establishment", args=["casino-marysville"]), {"month": "2026-10"})):
        html = client.get(url, query).content.decode()
        assert line in html, url


def test_the_posted_at_lookup_shows_what_the_sign_showed_and_says_what_changed_since(
        people, today, client, django_capture_on_commit_callbacks):
    version = retroactive_draft(people)
    publish(people, version, django_capture_on_commit_callbacks)
    table = RoundOfPlay.objects.filter(schedule_code=CODE).select_related("table").first().table
    client.force_login(people.floor)
    html = client.get(reverse("console:floor-posted-at", args=["casino-marysville"]),
                      {"table": table.pk, "day": "2026-10-20", "time": "12:00"}).content.decode()
    assert f"<dd>{CODE} version {version.number - 1}, option" in html  # what its sign showed
    assert "no posting in force then" not in html
    assert (f"Since changed retroactively: {CODE} v{version.number}, published on 2026-11-20, applies from "
            "2026-10-15") in html
