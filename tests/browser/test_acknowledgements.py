"""Acknowledgements stick (issue 25), in a real browser: a warning acknowledged in the findings page is still
acknowledged, and not new, after "Run validation now"."""

import datetime

from cardroom.models import Game, Table
from compliance.models import Finding
from fees.models import ScheduleDocument
from signage.postings import post_table

from .conftest import serious_violations

NO_MAXIMUM = "No table maximum is posted."


def test_an_acknowledged_warning_stays_acknowledged_after_run_validation_now(login, site):
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    table = Table.objects.create(establishment=site.marysville, label="T-2", seats=6, game=game)
    post_table(None, fields={"table": table, "game": game, "schedule": ScheduleDocument.objects.get(code="GEGA-002888"),
                             "option_number": 1, "min_wager": 5, "max_wager": None, "seats": 6,
                             "effective_from": datetime.datetime(2026, 3, 1, 8, tzinfo=datetime.UTC)},
               actor_label="test")
    warning = Finding.objects.get(message=NO_MAXIMUM)
    page = login(site.compliance)
    page.goto(f"{site.url}/compliance/casino-marysville/findings/?severity=warning")
    row = page.locator("tr.finding-row", has_text=NO_MAXIMUM)
    row.get_by_text("Acknowledge…").click()
    row.get_by_label("How it was handled").fill("The maximum is on the rail sign; the Bureau agreed.")
    row.get_by_role("button", name="Acknowledge").click()
    page.get_by_text(f"Finding {warning.pk} acknowledged.").wait_for()

    page.get_by_role("button", name="Run validation now").click()
    page.get_by_text("Validation run", exact=False).wait_for()
    assert page.locator("tr.finding-row", has_text=NO_MAXIMUM).count() == 0  # not open again
    page.goto(f"{site.url}/compliance/casino-marysville/findings/?severity=warning&show=all")
    row = page.locator("tr.finding-row", has_text=NO_MAXIMUM)
    assert row.count() == 1
    assert row.locator(".badge.ok", has_text="acknowledged").count() == 1
    assert "the Bureau agreed" in row.inner_text() and "new" not in row.locator(".badge").all_inner_texts()
    assert Finding.objects.filter(message=NO_MAXIMUM).latest("id").pk != warning.pk  # found again by the run
    assert serious_violations(page) == []
