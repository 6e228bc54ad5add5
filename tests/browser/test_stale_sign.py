"""A stale sign after an interpretation (issue 25), in a real browser on the demo's data: the demo's compliance
officers read Table 8's option (one proposes, the other approves), which adds a notice to its sign; the floor
supervisor then sees Table 8 due for reprint, with the reason, prints it, and it is current again."""

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from cardroom.models import Table
from fees.models import Interpretation
from signage import printing
from signage.models import SignPrint

from .conftest import log_in, serious_violations

DEMO_PASSWORDS = {"compliance": "compliance-dev-only", "compliance-2": "compliance-dev-only",
                  "floor": "floor-dev-only"}  # demo/management/commands/load_demo.py
READINGS = "/compliance/casino-marysville/schedules/CMV-CA-FEES-PAI-GOW/versions/1/interpretations/"
STATEMENT = "Each player's fee is by their total base wager; the player-dealer's by the total table action."


@pytest.fixture
def demo(site):
    """The demo loaded (no play recorded), and every one of Casino Marysville's signs printed."""
    call_command("load_demo", force=True, days=0, stdout=io.StringIO(), stderr=io.StringIO())
    tables = Table.objects.filter(establishment__slug="casino-marysville")
    printing.print_signs(printing.postings_in_force(tables, timezone.now()).values(), "letter",
                         user=None, label="test", channel=SignPrint.Channel.COMMAND)
    site.table_8 = tables.get(label="8")
    return site


def log_in_as(page, url, username):
    page.context.clear_cookies()
    log_in(page, url, username, DEMO_PASSWORDS[username])


def test_an_interpretation_approved_makes_table_8s_sign_due_until_it_is_reprinted(page, demo, offsite_requests):
    page.goto(f"{demo.url}/login/")
    log_in_as(page, demo.url, "floor")
    assert page.get_by_text("Every sign is current.").is_visible()

    # One compliance officer proposes how option 1's basis is read ...
    log_in_as(page, demo.url, "compliance")
    page.goto(demo.url + READINGS)
    form = page.locator("#propose")
    form.get_by_label("What is read").select_option(value="1:")
    form.get_by_label("Which value").select_option(value="basis")
    form.locator("select[name=choice]").select_option(value="player_total_wager_and_table_action")
    form.get_by_label("The reading in words").fill(STATEMENT)
    form.get_by_label("Decided on").fill("2025-12-15")
    form.get_by_label("Citation").fill("Demo: Bureau answer (fictional, for the demo)")
    form.get_by_role("button", name="Propose this reading").click()
    assert page.get_by_text("A second officer approves or refuses it.").first.is_visible()
    reading = Interpretation.objects.get(field="basis", status=Interpretation.Status.PROPOSED)

    # ... and the second approves it.
    log_in_as(page, demo.url, "compliance-2")
    page.goto(demo.url + READINGS)
    row = page.locator(f"#reading-{reading.pk}")
    row.get_by_label("Why").fill("Read against the Bureau's answer.")
    row.get_by_role("button", name="Approve").click()
    assert page.get_by_text(f"Interpretation #{reading.pk} approved").is_visible()
    reading.refresh_from_db()
    day = timezone.localtime(reading.reviewed_at, demo.table_8.establishment.zone).date()

    # The floor supervisor sees Table 8 due, and why; its sign printed, it is current again.
    log_in_as(page, demo.url, "floor")
    why = f"a reading approved on {day.isoformat()} adds a notice: reprint it"
    due = page.locator("#reprint")
    assert due.get_by_role("heading").inner_text() == "Signs to print or reprint (1)"
    assert due.locator("li").all_inner_texts() == [f"Table 8: {why}"]
    assert serious_violations(page) == []
    due.get_by_role("link", name="Table 8").click()
    assert page.get_by_text(f"A{why[1:]}.").is_visible()
    with page.expect_download():
        page.get_by_role("button", name="Print this sign").click()
    assert SignPrint.objects.filter(posting__table=demo.table_8).count() == 2
    page.goto(f"{demo.url}/floor/casino-marysville/")
    assert page.get_by_text("Every sign is current.").is_visible()
    assert page.locator("#reprint li").count() == 0
    assert offsite_requests == []
