"""A floor supervisor's jobs in a real browser: the floor at a glance, a table's posting at a moment, a sign
previewed and printed, the whole floor printed with its progress, on a phone too."""

import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cardroom.access import Scope
from cardroom.models import Game, Table
from signage.models import SignPrint
from signage.postings import post_table, read_posting

from .conftest import serious_violations

LA = ZoneInfo("America/Los_Angeles")


@pytest.fixture
def floor(site):
    """Tables 2, 7 and 10 posted a minute from now (postings start now or later), table 12 unposted."""
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    now = datetime.datetime.now(tz=LA).replace(second=0, microsecond=0)
    tables = {}
    for label in ("10", "2", "7", "12"):
        tables[label] = Table.objects.create(establishment=site.marysville, label=label, seats=7, game=game)
        if label != "12":
            data = {"table": tables[label].pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5",
                    "max_wager": "500", "effective_from": (now - datetime.timedelta(minutes=1)).isoformat()}
            with time_machine.travel(now - datetime.timedelta(minutes=2), tick=False):
                post_table(site.floor,
                           fields=read_posting(data, scope=Scope(site.floor), now=now - datetime.timedelta(minutes=2)))
    site.tables = tables
    return site


def test_the_floor_at_a_glance_and_a_sign_printed(login, floor):
    page = login(floor.floor)
    assert page.url.endswith("/floor/casino-marysville/")
    labels = page.locator("#floor-tables tbody tr td:nth-child(2)").all_inner_texts()
    assert labels == ["2", "7", "10", "12"]
    assert page.get_by_text("Signs to print or reprint (3)").is_visible()
    assert serious_violations(page) == []

    page.get_by_role("link", name="7", exact=True).click()
    assert page.get_by_role("heading", name="Table 7").is_visible()
    with page.expect_download() as download:
        page.get_by_role("button", name="Print this sign").click()
    assert download.value.suggested_filename.startswith("signs-casino-marysville-table-7-letter")
    assert SignPrint.objects.filter(posting__table=floor.tables["7"]).count() == 1
    assert serious_violations(page) == []


def test_the_whole_floor_prints_with_a_progress_bar(login, floor):
    page = login(floor.floor)
    page.get_by_role("button", name="Print the whole floor as one PDF").click()
    page.wait_for_url("**/jobs/*/")
    page.get_by_role("link", name="Download").wait_for()
    assert page.locator("#job-bar").get_attribute("value") == "100"
    with page.expect_download() as download:
        page.get_by_role("link", name="Download").click()
    assert download.value.suggested_filename.endswith(".pdf")
    assert SignPrint.objects.count() == 3
    assert serious_violations(page) == []


def test_what_was_posted_at_a_moment(login, floor):
    page = login(floor.floor)
    # A minute on: the lookup answers as the record stood at that minute, and the posting was made seconds ago.
    now = datetime.datetime.now(tz=LA) + datetime.timedelta(minutes=1)
    page.get_by_label("Table", exact=True).select_option(label="Table 7")
    page.get_by_label("Day").fill(f"{now:%Y-%m-%d}")
    page.get_by_label("Time").fill(f"{now:%H:%M}")
    page.get_by_role("button", name="Look up").click()
    answer = page.locator("#answer")
    assert answer.inner_text().startswith("Table 7 at ")
    assert page.get_by_text("$5.00 to $500.00").is_visible()
    assert page.get_by_role("heading", name="Collection fees").is_visible()
    assert serious_violations(page) == []


def test_the_floor_works_on_a_phone(login, floor, page):
    page.set_viewport_size({"width": 390, "height": 844})
    login(floor.floor)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    assert page.get_by_role("link", name="10", exact=True).is_visible()


def test_the_api_docs_work_offline(login, site, page):
    """Swagger UI comes from drf-spectacular-sidecar, served here: the login fixture fails on any off-host request."""
    login(site.compliance)
    page.goto(f"{site.url}/api/v1/docs/")
    page.locator(".swagger-ui .opblock").first.wait_for()
    assert page.locator(".swagger-ui .opblock").count() > 20
