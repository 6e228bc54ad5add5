"""Where the money goes missing (fees.variance): expected vs collected by table, gaming day, shift and recorder
from the stored reconciliations, the control-chart statistic, the drill-down to the hands, the finding for a
table or recorder short day after day (and a room's tighter threshold), and the export report's section."""

import datetime
import math
import re
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from cardroom.access import Scope
from cardroom.models import Jurisdiction
from cardroom.permissions import SYSTEM
from compliance import services as compliance_services
from compliance.models import RuleParameter
from compliance.rules.base import CHECK, Parameter, ParameterSet
from compliance.rules.variance import ShortDays, room_key, rule_short_days_in_a_row
from exports import collect, report as export_report
from fees import ledger
from fees.ledger import services
from fees.models import Reconciliation
from fees.variance import selectors as variance
from fees.variance import services as summaries
from fees.variance.stats import c_chart, p_chart, runs_in_a_row, shift_of
from tests import signs
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25", "backline": False},
                    {"player": "p1", "base": "20"}, {"player": "p2", "base": "40", "backline": True}]}  # $7.00
FULL = ("3.00", "1.00", "3.00")  # p1, p2, the player-dealer
PAYERS = (("player", "p1"), ("player", "p2"), ("player_dealer", ""))
BASE_DAY = datetime.date(2026, 5, 1)
FIRST, LAST = datetime.date(2026, 6, 1), datetime.date(2026, 6, 5)
PAGE = "/compliance/casino-marysville/variance/"
REGULATOR_PAGE = "/regulator/casino-marysville/variance/"


def _hand(table, day, reference, hour, paid, user):
    """A round at ``hour`` (room time) and its collection: ``paid`` amounts per payer, or None (not collected)."""
    played = datetime.datetime.combine(day, datetime.time(hour), tzinfo=LA)
    ledger.record_round(table=table, reference=reference, played_at=played, facts=ROUND, gaming_day=day, user=user)
    if paid is None:
        return
    rows = [{"idempotency_key": f"{table.label}-{day}-{reference}-{i}", "table": table.pk,
             "gaming_day": day.isoformat(), "reference": reference, "collected_at": played.isoformat(),
             "payer": payer, "player": player, "fee_kind": payer, "amount": amount}
            for i, ((payer, player), amount) in enumerate(zip(PAYERS, paid))]
    ledger.record_entries(rows, scope=Scope(user), user=user)


@pytest.fixture
def room(people):
    """Two tables at Casino Marysville, two hands of $7.00 a day each; V-1's recorded by the floor supervisor,
    V-2's by the compliance officer.

    - History (1 May): V-1 both in full; V-2's 16:00 hand $1 short. 4 hands, 1 short.
    - Period (1-5 June): V-1's two hands (15:00, 23:00) each $1 short on 1-4 June, in full on 5 June; V-2 in
      full but for its 10:00 hand of 3 June, not collected. 20 hands, 9 short, $15.00 short."""
    v1 = make_posted_table(people.marysville, label="V-1")
    v2 = make_posted_table(people.marysville, label="V-2")
    short = ("3.00", "1.00", "2.00")
    _hand(v1, BASE_DAY, "A", 15, FULL, people.floor)
    _hand(v1, BASE_DAY, "B", 23, FULL, people.floor)
    _hand(v2, BASE_DAY, "A", 10, FULL, people.compliance)
    _hand(v2, BASE_DAY, "B", 16, short, people.compliance)
    day = FIRST
    while day <= LAST:
        for reference, hour in (("A", 15), ("B", 23)):
            _hand(v1, day, reference, hour, short if day < LAST else FULL, people.floor)
        _hand(v2, day, "A", 10, None if day == datetime.date(2026, 6, 3) else FULL, people.compliance)
        _hand(v2, day, "B", 16, FULL, people.compliance)
        day += datetime.timedelta(days=1)
    services.reconcile(SYSTEM, day_from=BASE_DAY)
    services.reconcile(SYSTEM, day_from=FIRST, day_to=LAST)
    return v1, v2


def rows_of(found, group):
    return {row.label: row for row in found.groups[group]}


# -- the pure statistics -------------------------------------------------------------------------------------


def test_the_p_chart_judges_a_share_against_the_history_with_three_sigma_limits():
    judged = p_chart(8, 10, 1, 4)
    sigma = math.sqrt(0.25 * 0.75 / 10)
    assert judged.centre == 0.25 and judged.limit == pytest.approx(0.25 + 3 * sigma)
    assert judged.z == pytest.approx((0.8 - 0.25) / sigma) and judged.unusual
    assert judged.words == "4.0 σ above usual: unusual"
    assert not p_chart(6, 10, 1, 4).unusual  # 0.6 is under 0.25 + 3σ = 0.66
    assert p_chart(1, 10, 0, 0).words == "no history to compare"
    assert p_chart(1, 10, 0, 40).unusual and p_chart(1, 10, 0, 40).z is None  # none short before: one stands out


def test_the_c_chart_judges_a_count_against_the_rate_per_day_of_play():
    judged = c_chart(4, 5, 1, 1)  # one a day in the history: five expected over five days
    assert judged.centre == 5 and judged.limit == pytest.approx(5 + 3 * math.sqrt(5))
    assert judged.z == pytest.approx(-1 / math.sqrt(5)) and not judged.unusual
    assert c_chart(12, 5, 1, 1).unusual


def test_shifts_are_hour_bands_and_the_night_one_wraps_past_midnight():
    assert [shift_of(h) for h in (6, 13, 14, 21, 22, 23, 0, 5)] == [
        "06:00–14:00", "06:00–14:00", "14:00–22:00", "14:00–22:00", "22:00–06:00", "22:00–06:00", "22:00–06:00",
        "22:00–06:00"]


def test_days_in_a_row_count_the_days_played_only():
    d = [datetime.date(2026, 6, n) for n in range(1, 9)]
    # Played on 1, 2, 4, 5, 7 and 8 (closed on 3 and 6); short on 1, 2, 4, 7.
    assert runs_in_a_row([d[0], d[1], d[3], d[6]], [d[0], d[1], d[3], d[4], d[6], d[7]]) == [
        (d[0], d[3], 3), (d[6], d[6], 1)]


# -- the report ------------------------------------------------------------------------------------------------


def test_the_report_gives_exact_figures_by_table_day_shift_and_recorder(room):
    found = variance.report(room[0].establishment, FIRST, LAST)
    assert found.baseline_from == "history"
    assert found.baseline == (datetime.date(2026, 3, 3), datetime.date(2026, 5, 31))
    total = found.total
    assert (total.expected, total.collected, total.hands, total.hands_short, total.amount_short, total.days) == (
        Decimal("140.00"), Decimal("125.00"), 20, 9, Decimal("15.00"), 5)

    tables = rows_of(found, "table")
    assert list(tables) == ["Table V-1", "Table V-2"]  # the most short first
    v1, v2 = tables["Table V-1"], tables["Table V-2"]
    assert (v1.expected, v1.collected, v1.hands, v1.hands_short, v1.amount_short) == (
        Decimal("70.00"), Decimal("62.00"), 10, 8, Decimal("8.00"))
    assert (v2.expected, v2.collected, v2.hands, v2.hands_short, v2.amount_short) == (
        Decimal("70.00"), Decimal("63.00"), 10, 1, Decimal("7.00"))
    # p-chart against the history's share, 1 in 4: V-1's 8 in 10 is four sigma above it, V-2's 1 in 10 below.
    sigma = math.sqrt(0.25 * 0.75 / 10)
    assert v1.judgement.unusual and v1.judgement.z == pytest.approx(0.55 / sigma)
    assert not v2.judgement.unusual and v2.judgement.z == pytest.approx(-0.15 / sigma)

    days = rows_of(found, "day")
    assert list(days) == [f"2026-06-0{n}" for n in range(1, 6)]
    assert (days["2026-06-03"].hands, days["2026-06-03"].hands_short, days["2026-06-03"].amount_short) == (
        4, 3, Decimal("9.00"))
    assert days["2026-06-05"].hands_short == 0 and days["2026-06-05"].collected == Decimal("28.00")

    shifts = rows_of(found, "shift")
    assert [(s.hands_short, s.amount_short) for s in shifts.values()] == [
        (1, Decimal("7.00")), (4, Decimal("4.00")), (4, Decimal("4.00"))]
    afternoon = shifts["14:00–22:00"].judgement  # one short a day of play in the history: five expected
    assert afternoon.centre == 5 and afternoon.z == pytest.approx(-1 / math.sqrt(5)) and not afternoon.unusual
    assert shifts["22:00–06:00"].judgement.unusual  # none at night in the history

    recorders = rows_of(found, "recorder")
    assert list(recorders) == ["t-floor", "t-compliance"]
    assert (recorders["t-floor"].hands_short, recorders["t-floor"].amount_short) == (8, Decimal("8.00"))
    # The not-collected hand is its round's recorder's.
    assert (recorders["t-compliance"].hands_short, recorders["t-compliance"].amount_short) == (1, Decimal("7.00"))
    assert recorders["t-compliance"].judgement.z == pytest.approx((1 - 5) / math.sqrt(5))


def test_a_later_reconciliation_replaces_the_earlier_one_of_its_table_day(people, room):
    v1, _ = room
    # Put V-1's 1 June hand A right and reconcile the day again: its latest run counts, the first does not.
    ledger.record_entries([{"idempotency_key": "fix", "corrects_key": f"V-1-{FIRST}-A-2", "amount": "3.00",
                            "reason": "found in the drop box"}], scope=Scope(people.compliance), user=people.compliance)
    services.reconcile(people.compliance, day_from=FIRST, table_ids=[v1.pk])
    found = variance.report(v1.establishment, FIRST, LAST)
    assert (found.total.hands_short, found.total.amount_short, found.total.hands) == (8, Decimal("14.00"), 20)


def _next_reconciliation_id(after, monkeypatch):
    """The next reconciliation is given id ``after`` + 1, as when its run drew its id before others committed."""
    from django.db import connection

    from cardroom import bulk

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT setval(pg_get_serial_sequence('fees_reconciliation', 'id'), %s)", [after])
        return
    insert = bulk.insert  # SQLite's AUTOINCREMENT never goes below its largest id: the id is given explicitly

    def with_ids(model, objs, **options):
        if model is Reconciliation:
            for number, obj in enumerate(objs, start=after + 1):
                obj.pk = number
            monkeypatch.setattr(bulk, "insert", insert)
        return insert(model, objs, **options)

    monkeypatch.setattr(bulk, "insert", with_ids)


def test_a_reconciliation_committed_late_with_a_low_id_is_still_summed(people, room, monkeypatch):
    v1, v2 = room
    room_ = v1.establishment
    variance.report(room_, FIRST, LAST)  # the summaries written
    june_6 = LAST + datetime.timedelta(days=1)
    _hand(v1, june_6, "A", 15, ("3.00", "1.00", "2.00"), people.floor)  # $1 short
    low = Reconciliation.objects.order_by("-id").values_list("id", flat=True).first()
    # Runs committed meanwhile were given ids far above it, and summed up.
    _next_reconciliation_id(low + 5000, monkeypatch)
    services.reconcile(SYSTEM, day_from=LAST, table_ids=[v2.pk])
    assert variance.report(room_, FIRST, june_6).total.hands_short == 9
    # Then the run that drew the low id commits: the next look sums it all the same.
    _next_reconciliation_id(low, monkeypatch)
    late = services.reconcile(SYSTEM, day_from=june_6, table_ids=[v1.pk])
    assert [r.pk for r in late] == [low + 1]
    found = variance.report(room_, FIRST, june_6)
    assert (found.total.hands_short, found.total.amount_short, found.total.hands) == (10, Decimal("16.00"), 21)
    assert rows_of(found, "day")[june_6.isoformat()].hands_short == 1
    assert summaries.refresh(room_) == 0  # nothing changed since: nothing looked at again


def test_without_history_the_period_itself_is_the_centre_line(room):
    alone = variance.report(room[0].establishment, datetime.date(2026, 4, 1), datetime.date(2026, 5, 1))
    assert alone.baseline_from == "period" and alone.groups["table"][0].judgement.centre == 0.25  # 1 of 4 hands


def test_drilling_down_gives_the_hands_with_their_rounds_and_entries(room):
    v1, v2 = room
    hands, count = variance.hands_behind(v1.establishment, FIRST, LAST, "table", str(v1.pk))
    assert count == 8 and [(h.day.day, h.reference) for h in hands] == [
        (1, "A"), (1, "B"), (2, "A"), (2, "B"), (3, "A"), (3, "B"), (4, "A"), (4, "B")]
    first = hands[0]
    assert (first.status, first.expected, first.collected, first.short, first.recorder) == (
        "under_collected", Decimal("7.00"), Decimal("6.00"), Decimal("1.00"), "t-floor")
    assert first.local_time.hour == 15 and first.round_id
    assert [e.amount for e in first.entries] == [Decimal("3.00"), Decimal("1.00"), Decimal("2.00")]
    night, count = variance.hands_behind(v1.establishment, FIRST, LAST, "shift", "06:00–14:00")
    assert count == 1 and (night[0].table_label, night[0].status, night[0].entries) == ("V-2", "not_collected", [])
    assert variance.hands_behind(v1.establishment, FIRST, LAST, "day", "not-a-day") == ([], 0)


# -- the pages ------------------------------------------------------------------------------------------------


def text(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_the_page_shows_the_groups_and_drills_down_to_the_hands(client, people, room):
    v1, _ = room
    client.force_login(people.compliance)
    period = f"day_from={FIRST}&day_to={LAST}"
    response = client.get(f"{PAGE}?{period}")
    assert response.status_code == 200
    shown = text(response)
    assert "9 hands short, $15.00 short , of 20 hands over 5 gaming days" in shown
    assert "Table V-1 $70.00 $62.00 10 8 $8.00" in shown and "4.0 σ above usual: unusual" in shown
    link = f"?{period}&by=table&key={v1.pk}#hands".replace("&", "&amp;")
    assert f'href="{link}"' in response.content.decode()
    drilled = client.get(f"{PAGE}?{period}&by=table&key={v1.pk}")
    assert "The hands short: Table V-1" in text(drilled) and text(drilled).count("collected short") == 8


def test_the_default_period_is_the_month_of_the_latest_reconciliation(client, people, room):
    client.force_login(people.regulator_ca)
    response = client.get(REGULATOR_PAGE)
    assert response.status_code == 200 and "2026-06-01 to 2026-06-05" in text(response)


@pytest.mark.parametrize("query, message", [
    ("day_from=2026-06-05&day_to=2026-06-01", "The period ends before it begins"),
    ("day_from=2026-13-01&day_to=2026-06-01",
     "From: Must be a date written YYYY-MM-DD, not &#x27;2026-13-01&#x27; (no such day)."),
    ("day_from=2025-01-01&day_to=2026-06-01", "Give a period of at most 366 gaming days."),
    ("day_from=2026-06-01&day_to=2026-06-05&by=nonsense&key=1", "Drill down by table, day, shift or recorder."),
])
def test_a_bad_period_is_a_400_with_the_form_and_its_message(client, people, query, message):
    client.force_login(people.compliance)
    response = client.get(f"{PAGE}?{query}")
    assert response.status_code == 400 and message in text(response)


def test_only_the_room_s_officers_and_its_jurisdiction_s_regulators_see_it(client, people):
    client.force_login(people.compliance_wa)
    assert client.get(PAGE).status_code == 404
    client.force_login(people.regulator_wa)
    assert client.get(REGULATOR_PAGE).status_code == 404
    client.force_login(people.floor)
    assert client.get(PAGE).status_code == 403


# -- the finding ----------------------------------------------------------------------------------------------


def variance_findings(people, day):
    run = compliance_services.run_establishment(SYSTEM, establishment=people.marysville, as_of=day)
    return sorted((f.subject_type, f.subject.get("table") or f.subject.get("recorder"), f.severity)
                  for f in run.findings.filter(rule="ledger.short_days_in_a_row"))


def test_a_table_and_a_recorder_short_three_days_in_a_row_are_a_warning_not_before(people, room):
    assert variance_findings(people, datetime.date(2026, 6, 2)) == []
    assert variance_findings(people, datetime.date(2026, 6, 3)) == [
        ("recorder", "t-floor", "warning"), ("table", "V-1", "warning")]
    run = compliance_services.run_establishment(SYSTEM, establishment=people.marysville,
                                                as_of=datetime.date(2026, 6, 4))
    found = run.findings.get(rule="ledger.short_days_in_a_row", subject_type="table")
    assert found.table == room[0] and found.subject["from"] == "2026-06-01"
    assert "on 4 days it was played in a row, 2026-06-01 to 2026-06-04" in found.message
    assert found.parameters[0]["key"] == "variance_short_days_warning" and found.parameters[0]["status"] == CHECK


def test_a_room_may_tighten_the_threshold_but_not_loosen_it(people, room):
    california = Jurisdiction.objects.get(code="CA")
    source = RuleParameter.objects.get(jurisdiction=california, key="variance_short_days_warning").source
    for value in ("2", "9"):  # 9 is looser than the jurisdiction's 3: the 3 stands
        RuleParameter.objects.create(
            jurisdiction=california, key=room_key("variance_short_days_warning", "casino-marysville"),
            value=Decimal(value), unit="count", source=source,
            effective_from=datetime.date(2026, 1, 1) if value == "2" else datetime.date(2026, 6, 3),
            status="confirmed", citation="Casino Marysville internal controls, 4.2")
    assert variance_findings(people, datetime.date(2026, 6, 2)) == [
        ("recorder", "t-floor", "warning"), ("table", "V-1", "warning")]
    assert variance_findings(people, datetime.date(2026, 6, 3)) == [
        ("recorder", "t-floor", "warning"), ("table", "V-1", "warning")]


def test_the_rule_reports_error_at_its_length_and_forgets_old_runs():
    day = datetime.date
    params = ParameterSet([
        Parameter("CA", "variance_short_days_warning", Decimal(3), "count", day(1998, 1, 1), CHECK, "room policy"),
        Parameter("CA", "variance_short_days_error", Decimal(5), "count", day(1998, 1, 1), CHECK, "room policy")])
    played = tuple(day(2026, 6, n) for n in range(1, 31))
    facts = ShortDays("casino-marysville", "CA", day(2026, 6, 30), "table", "7", played, played[:5])
    assert [f.severity for f in rule_short_days_in_a_row(facts, params)] == ["error"]
    old = ShortDays("casino-marysville", "CA", day(2026, 8, 1), "table", "7", played, played[:5])
    assert rule_short_days_in_a_row(old, params) == []  # ended more than 30 days before


# -- the export report --------------------------------------------------------------------------------------------


def test_the_export_report_has_the_section_with_exact_figures(people, room):
    scope = collect.ExportScope(establishments=[people.marysville], start=FIRST, end=LAST).freeze()
    counts = {kind.name: sum(1 for _ in kind.rows(scope)) for kind in collect.KINDS}
    pdf = export_report.render(scope, counts, generated_at=timezone.now(), requested_by="t-regulator-ca")
    texts = [re.sub(r"[ \xa0]+", " ", page) for page in signs.text(pdf).split("\f")]
    page = " ".join(" ".join(t.split()) for t in texts if "Where the money goes missing" in t)
    assert "2026-06-01 to 2026-06-05: 9 hand(s) short of 20, $15.00 short; expected $140.00, collected $125.00." in page
    assert "V-1 $70.00 $62.00 10 8 $8.00 4.0 SD above usual: unusual" in page
    assert "t-floor 8 $8.00" in page and "t-compliance 1 $7.00" in page
