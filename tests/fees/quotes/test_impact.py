"""Impact before publishing (issue 13): a draft priced over the demo month of recorded rounds at Casino Marysville,
per table and gaming day, against what the version in force expected; the tier edges it moves; and a retroactive
draft's reach (the reconciliations and postings publishing it would change). Page and API alike."""

import datetime
import io
import json
from collections import Counter, defaultdict
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from demo import play as demo_play
from fees.models import FeeTier, Reconciliation, RoundOfPlay, ScheduleDocument, TablePosting
from fees.quotes import impact, quoting
from tests.factories import make_draft

pytestmark = pytest.mark.django_db

CODE = "CMV-CA-TABLE-ACTION"  # the room's own player-dealer schedule: the demo's busiest (option 1)
OCTOBER = (demo_play.MONTH_START, demo_play.MONTH_START + datetime.timedelta(days=demo_play.MONTH_DAYS - 1))
RAISED = Decimal("0.75")  # added to option 1's "$101-$200" player-dealer fee ($4.00)
LATER = datetime.date(2027, 1, 1)


@pytest.fixture(scope="module", autouse=True)
def demo_month(django_db_setup, django_db_blocker):
    """The demo floor and its month of recorded play, loaded once for the module and rolled back after it (each
    test's own changes are rolled back as usual)."""
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("load_demo", force=True, stdout=io.StringIO())
        yield
        transaction.set_rollback(True)


@pytest.fixture
def marysville(people):
    return people.marysville


def draft(people, effective_from=LATER):
    document = ScheduleDocument.objects.get(code=CODE)
    return make_draft(document, based_on=document.version_as_of(OCTOBER[1]), user=people.compliance,
                      reason="Impact test", effective_from=effective_from)


def raise_tier(version):
    tier = FeeTier.objects.get(option__version=version, option__number=1, printed_bounds="$101-$200")
    tier.fee += RAISED
    tier.printed_fee = f"${tier.fee}"
    tier.save()
    return tier


def table_action(facts):
    return sum(Decimal(w["base"]) + Decimal(w.get("bonus", "0")) for w in facts["wagers"])


def october_rounds(marysville):
    return RoundOfPlay.objects.filter(establishment=marysville, schedule_code=CODE, gaming_day__range=OCTOBER)


def by_table_day(report):
    return {(row["table"].pk, row["day"]): row["figures"] for row in report.rows}


def test_a_raised_tier_shows_exactly_its_difference_per_table_and_day(people, marysville):
    version = draft(people)
    raise_tier(version)
    report = impact.impact(version, marysville, *OCTOBER)

    # Worked out here from the rounds themselves: each round whose total table action is over $100 and up to $200
    # (the "$101-$200" band, amounts between bands going up) now pays $0.75 more; nothing else changes.
    rounds = list(october_rounds(marysville))
    assert len(rounds) > 300 and {r.option_number for r in rounds} == {1}
    in_band, expected = Counter(), defaultdict(Decimal)
    for r in rounds:
        expected[(r.table_id, r.gaming_day)] += r.expected_total
        if Decimal(100) < table_action(r.facts) <= Decimal(200):
            in_band[(r.table_id, r.gaming_day)] += 1
    assert sum(in_band.values()) > 20  # the band is played: the test can fail

    figures = by_table_day(report)
    assert set(figures) == set(expected)
    for key, day in figures.items():
        assert day.expected == expected[key]
        assert day.difference == RAISED * in_band[key], key
        assert day.repriced == expected[key] + RAISED * in_band[key]
        assert day.unpriced == 0
    assert report.figures.totals.rounds == len(rounds)
    assert report.figures.totals.difference == RAISED * sum(in_band.values())
    assert report.currency == "USD" and report.figures.problems == []

    # The one edge that moved: that tier, with the rounds in it and all of the difference.
    (edge,) = report.figures.edges
    assert (edge.option, edge.status, edge.fee_kind) == (1, "changed", "player_dealer")
    assert edge.before["fee"] == Decimal("4.00") and edge.after["fee"] == Decimal("4.75")
    assert "amount" in edge.fields
    assert edge.rounds == sum(in_band.values())
    assert edge.difference == report.figures.totals.difference
    assert report.figures.unattributed == 0

    # Alike rounds are priced once.
    distinct = {(r.option_number, json.dumps(r.facts, sort_keys=True)) for r in rounds}
    assert report.figures.distinct == len(distinct) < len(rounds)


def test_a_moved_band_edge_is_put_down_to_the_band_that_now_prices_the_rounds(people, marysville):
    version = draft(people)
    tiers = {t.printed_bounds: t for t in FeeTier.objects.filter(option__version=version, option__number=1)}
    lower, upper = tiers["$51-$100"], tiers["$101-$200"]  # $3 and $4
    lower.upper, lower.printed_bounds = Decimal(120), "$51-$120"
    lower.save()
    upper.lower, upper.printed_bounds = Decimal(121), "$121-$200"
    upper.save()
    report = impact.impact(version, marysville, *OCTOBER)

    actions = [table_action(r.facts) for r in october_rounds(marysville)]
    moved = sum(1 for a in actions if Decimal(100) < a <= Decimal(120))  # now $3 instead of $4
    assert moved > 0
    assert report.figures.totals.difference == -moved
    edges = {edge.after["printed_bounds"]: edge for edge in report.figures.edges}
    assert set(edges) == {"$51-$120", "$121-$200"}
    assert edges["$51-$120"].difference == -moved and edges["$121-$200"].difference == 0
    assert edges["$51-$120"].rounds == sum(1 for a in actions if Decimal(50) < a <= Decimal(120))
    assert edges["$121-$200"].rounds == sum(1 for a in actions if Decimal(100) < a <= Decimal(200))
    assert report.figures.edges[0] is edges["$51-$120"] and report.figures.unattributed == 0


def test_alike_rounds_are_priced_once(people, marysville, monkeypatch):
    version = draft(people)
    raise_tier(version)
    calls = Counter()
    price = quoting.quote_facts

    def counted(schedule, option, facts):
        calls[schedule.version] += 1
        return price(schedule, option, facts)

    monkeypatch.setattr(quoting, "quote_facts", counted)
    report = impact.impact(version, marysville, *OCTOBER)
    distinct = report.figures.distinct
    assert calls == {version.number: distinct, 1: distinct}  # once under the draft, once as priced under (edges)
    assert report.figures.totals.rounds > distinct > 0  # what keeps a month quick (timed in benchmarks/, not here)


def test_an_unchanged_draft_shows_no_difference(people, marysville):
    report = impact.impact(draft(people), marysville, *OCTOBER)
    assert report.figures.totals.rounds == october_rounds(marysville).count()
    for row in report.rows:
        assert row["figures"].difference == 0 and row["figures"].repriced == row["figures"].expected
        assert row["versions"] == [1]
    assert report.figures.totals.difference == 0
    assert report.figures.edges == [] and report.figures.problems == []


def test_an_option_the_draft_lacks_is_reported_not_crashed_on(people, marysville):
    version = draft(people)
    version.options.get(number=1).delete()
    report = impact.impact(version, marysville, *OCTOBER)
    rounds = october_rounds(marysville).count()
    (problem,) = report.figures.problems
    assert problem.option == 1 and problem.rounds == rounds and "has no option 1" in problem.message
    assert report.figures.totals.unpriced == rounds and report.figures.totals.difference == 0
    assert report.figures.totals.repriced == 0


def test_the_default_period_is_the_last_31_days_with_rounds_or_from_a_retroactive_date(people, marysville):
    days = sorted(set(october_rounds(marysville).values_list("gaming_day", flat=True)))
    assert impact.default_period(draft(people), marysville) == (days[-31:][0], days[-1])
    retroactive = draft(people, effective_from=datetime.date(2026, 10, 1))
    today = datetime.date(2026, 11, 20)
    assert impact.default_period(retroactive, marysville, today) == (datetime.date(2026, 10, 1), today)
    longer = draft(people, effective_from=datetime.date(2026, 6, 1))
    assert impact.default_period(longer, marysville, today) == (datetime.date(2026, 6, 1), datetime.date(2026, 8, 31))


def test_a_retroactive_draft_reaches_the_reconciliations_and_postings_of_its_period(people, marysville, clock):
    clock(datetime.datetime(2026, 11, 20, 12, tzinfo=marysville.zone))
    assert impact.reach(draft(people), marysville) is None  # dated after today: nothing played to change
    version = draft(people, effective_from=datetime.date(2026, 10, 10))
    reach = impact.reach(version, marysville)
    assert (reach.start, reach.end) == (datetime.date(2026, 10, 10), datetime.date(2026, 11, 20))

    posted = TablePosting.objects.filter(table__establishment=marysville, schedule__code=CODE)
    assert {posting.pk for posting, until in reach.postings} == set(posted.values_list("pk", flat=True))
    assert all(until is None for _, until in reach.postings)
    runs = Reconciliation.objects.filter(table__in=posted.values("table"), gaming_day__gte=reach.start)
    assert runs.exists()
    assert [(r.table_id, r.gaming_day) for r in reach.reconciliations] == sorted(
        set(runs.values_list("table_id", "gaming_day")), key=lambda k: (k[1], int(
            marysville.tables.get(pk=k[0]).label)))
    assert reach.runs == runs.count()
    assert not [r for r in reach.reconciliations if r.gaming_day < reach.start]


# -- the page ------------------------------------------------------------------------------------------------------

def page(version, **query):
    url = reverse("console:compliance-impact", args=["casino-marysville", CODE, version.number])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_the_page_shows_each_table_and_day_the_totals_and_the_edges(client, people):
    version = draft(people)
    raise_tier(version)
    client.force_login(people.compliance)
    answer = client.get(page(version, **{"from": "2026-10-01", "to": "2026-10-31"}))
    assert answer.status_code == 200
    html = answer.content.decode()
    report = impact.impact(version, people.marysville, *OCTOBER)
    total = report.figures.totals.difference
    assert f"+${total:,.2f}" in html and 'id="edges-table"' in html and "$101-$200" in html
    assert html.count("<tr>") >= len(report.rows) + 2
    assert 'id="reach"' not in html  # not retroactive
    # The page says what a round is and what the distinct rounds priced are.
    assert "A <strong>round</strong> is one hand, or one half-hour of time collection" in html
    assert f"({report.figures.distinct} distinct round" in html and "the <strong>distinct rounds priced</strong> are" in html
    # The default period (no dates given, or both left empty) is the last 31 days with rounds: October.
    for query in ({}, {"from": "", "to": ""}):
        assert "Gaming days 2026-10-01 to 2026-10-31" in client.get(page(version, **query)).content.decode()


def test_the_page_shows_a_retroactive_drafts_reach(client, people, clock):
    clock(datetime.datetime(2026, 11, 20, 12, tzinfo=people.marysville.zone))
    version = draft(people, effective_from=datetime.date(2026, 10, 25))
    client.force_login(people.compliance)
    html = client.get(page(version)).content.decode()
    assert 'id="reach"' in html and 'id="reach-table"' in html and "Gaming days 2026-10-25 to 2026-11-20" in html


@pytest.mark.parametrize("query, says", [
    ({"from": "2026-13-01", "to": "2026-10-31"}, "date written YYYY-MM-DD, not &#x27;2026-13-01&#x27;"),
    ({"from": "2026-10-31", "to": "2026-10-01"}, "must not end before it starts"),
    ({"from": "2026-01-01", "to": "2026-10-31"}, "can be at most 92 days"),
    ({"from": "2026-10-01"}, "Give both days"),
    ({"from": "2026-10-01", "to": "1899-12-31"}, "To gaming day: Must be between 1900-01-01"),
])
def test_the_page_answers_400_saying_what_is_wrong_with_the_dates(client, people, query, says):
    client.force_login(people.compliance)
    answer = client.get(page(draft(people), **query))
    assert answer.status_code == 400
    assert says in answer.content.decode()


def test_the_page_of_the_version_in_force_says_it_is_in_force(client, people):
    # It said "version 1 is in force today" of a version 2 already published and in force.
    document = ScheduleDocument.objects.get(code=CODE)
    in_force = document.versions.in_force_for([document.pk], datetime.date.today())[document.pk]
    client.force_login(people.compliance)
    html = client.get(page(in_force)).content.decode()
    assert "(this version is in force today)" in html and "is in force today)" not in html.replace(
        "(this version is in force today)", "")
    assert f"(version {in_force.number} is in force today)" in client.get(page(draft(people))).content.decode()


def test_the_page_is_for_those_who_may_see_the_version(client, people):
    version = draft(people)
    client.force_login(people.floor)
    assert client.get(page(version)).status_code == 403  # a compliance page
    client.force_login(people.compliance_wa)
    assert client.get(page(version)).status_code == 404  # another room
    client.force_login(people.compliance)
    assert client.get(page(version).replace(f"/{version.number}/", "/99/")).status_code == 404


# -- the API -------------------------------------------------------------------------------------------------------

def api_url(version, **query):
    query.setdefault("establishment", "casino-marysville")
    return (f"/api/v1/schedules/{CODE}/versions/{version.number}/impact?"
            + "&".join(f"{k}={v}" for k, v in query.items()))


def test_the_api_answers_the_same_figures_as_strings_with_the_currency(api, people):
    version = draft(people)
    raise_tier(version)
    api.force_login(people.compliance)
    body = api.get(api_url(version, **{"from": "2026-10-01", "to": "2026-10-31"})).json()
    report = impact.impact(version, people.marysville, *OCTOBER)
    assert body["currency"] == "USD" and body["period"] == {"from": "2026-10-01", "to": "2026-10-31"}
    assert body["totals"]["difference"] == f"{report.figures.totals.difference:.2f}"
    assert len(body["days"]) == len(report.rows)
    first = report.rows[0]
    assert body["days"][0]["table_label"] == first["table"].label
    assert body["days"][0]["expected"] == f"{first['figures'].expected:.2f}"
    (edge,) = body["tier_edges"]
    assert edge["before"]["fee"] == "4.00" and edge["after"]["fee"] == "4.75" and edge["option"] == 1
    assert body["retroactive"] is None and body["status"] == "draft"


def test_the_api_lists_a_retroactive_drafts_reach(api, people, clock):
    clock(datetime.datetime(2026, 11, 20, 12, tzinfo=people.marysville.zone))
    version = draft(people, effective_from=datetime.date(2026, 10, 25))
    api.force_login(people.compliance)
    body = api.get(api_url(version)).json()
    reach = impact.reach(version, people.marysville)
    assert body["period"] == {"from": "2026-10-25", "to": "2026-11-20"}
    assert [r["id"] for r in body["retroactive"]["reconciliations"]] == [r.pk for r in reach.reconciliations]
    assert len(body["retroactive"]["postings"]) == len(reach.postings) > 0


@pytest.mark.parametrize("query, field", [
    ({"from": "2026-10-01", "to": "2026-13-01"}, "to"),
    ({"from": "01/10/2026", "to": "2026-10-31"}, "from"),
    ({"from": "2026-10-31", "to": "2026-10-01"}, None),
    ({"from": "2026-01-01", "to": "2026-10-31"}, None),
    ({"to": "2026-10-31"}, None),
    ({"establishment": ""}, "establishment"),
    ({"establishment": "nowhere"}, "establishment"),
    ({"establishment": "test-wa-room"}, None),  # seen, but GEGA and CMV schedules are not posted there
])
def test_the_api_answers_400_for_bad_or_missing_parameters(api, people, query, field):
    api.force_login(people.admin)
    answer = api.get(api_url(draft(people), **query))
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    if field:
        assert field in error["details"]


def test_the_api_hides_drafts_from_those_who_may_not_edit_the_schedule(api, people):
    version = draft(people)
    for user, status in ((people.floor, 404), (people.regulator_ca, 404), (people.compliance_wa, 404),
                         (people.compliance, 200)):
        api.force_login(user)
        assert api.get(api_url(version)).status_code == status, user
    api.force_login(people.regulator_ca)  # the published version: a regulator reads the ledger and the schedule
    assert api.get(api_url(version.based_on)).status_code == 200
    assert api.get(api_url(version.based_on).replace("/versions/1/", f"/versions/{2**40}/")).status_code == 404
