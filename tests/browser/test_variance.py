"""The demo month's variance page, as a compliance officer and a regulator find it in Chromium: table 5, whose
evening's last hands the demo leaves uncollected six gaming days in a row, stands out, and a click shows its hands."""

import io

import pytest
from django.core.management import call_command

from demo import play as demo_play

from .conftest import log_in, serious_violations


@pytest.fixture
def demo(site):
    call_command("load_demo", force=True, stdout=io.StringIO())
    return site


def test_the_demo_month_shows_the_short_table_and_drills_down_to_its_hands(page, demo, offsite_requests):
    log_in(page, demo.url, "compliance", "compliance-dev-only")
    page.goto(f"{demo.url}/compliance/casino-marysville/")
    page.get_by_role("link", name="Variance").click()
    page.wait_for_url("**/compliance/casino-marysville/variance/")
    # The month of the latest reconciliation: the demo's October.
    assert page.get_by_label("From gaming day", exact=True).input_value() == "2026-10-01"
    assert page.get_by_label("to gaming day", exact=True).input_value() == "2026-10-31"
    table = page.locator("#variance-table")
    first = table.locator("tbody tr").first
    assert first.locator("th").inner_text() == f"Table {demo_play.STREAK_TABLE}"  # the most short, on top
    assert "unusual" in first.inner_text() and "unusual" == first.get_attribute("class")
    assert serious_violations(page) == []

    first.get_by_role("link", name="hands").click()
    page.locator("#variance-hands").wait_for()
    assert page.get_by_role("heading", name=f"The hands short: Table {demo_play.STREAK_TABLE}").is_visible()
    rows = page.locator("#variance-hands tbody tr")
    streak = [rows.nth(i).inner_text() for i in range(rows.count())]
    days = {f"2026-10-{13 + n}" for n in range(len(demo_play.STREAK_DAYS))}
    uncollected = [r for r in streak if "not collected" in r and r.split("\t")[0] in days]
    assert len(uncollected) == len(demo_play.STREAK_DAYS) * demo_play.STREAK_HANDS == 12
    assert all(r.split("\t")[1] == demo_play.STREAK_TABLE for r in streak)

    # A regulator of California sees the same from the room's own navigation.
    page.context.clear_cookies()
    log_in(page, demo.url, "regulator-ca", "regulator-dev-only")
    page.goto(f"{demo.url}/regulator/casino-marysville/")
    page.get_by_role("link", name="Variance").click()
    assert page.locator("#variance-table tbody tr th").first.inner_text() == f"Table {demo_play.STREAK_TABLE}"
    assert offsite_requests == []
