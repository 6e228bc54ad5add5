"""The pages work under their Content-Security-Policy in a real browser, and the browser refuses nothing on
them: no inline script or style is left for the policy to drop (htmx included), the styles moved to the
stylesheets still apply, forms post, htmx swaps and polls, the admin and the API docs run."""

import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cardroom.access import Scope
from cardroom.models import Game, Table
from fees.ledger import kept_sums
from fees.models import CollectionEntry, RoundOfPlay
from signage.postings import post_table, read_posting


LA = ZoneInfo("America/Los_Angeles")


@pytest.fixture
def refused(page):
    """Everything the browser refused under the policy: securitypolicyviolation events (recorded in each
    document before its own scripts run) and the console's "violates the following Content Security Policy"."""
    seen = []
    page.add_init_script("""
        window.__refused = [];
        document.addEventListener("securitypolicyviolation",
            e => window.__refused.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
    """)
    page.on("console", lambda message: seen.append(message.text)
            if "Content Security Policy" in message.text else None)

    def on_this_page():
        return seen + page.evaluate("window.__refused")
    return on_this_page


@pytest.fixture
def played(site):
    """Table 3 posted a minute ago, and a round played at it today, collected a dollar short."""
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    table = Table.objects.create(establishment=site.marysville, label="3", seats=7, game=game)
    now = datetime.datetime.now(tz=LA).replace(second=0, microsecond=0)
    data = {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5", "max_wager": "500",
            "effective_from": (now - datetime.timedelta(minutes=1)).isoformat()}
    with time_machine.travel(now - datetime.timedelta(minutes=2), tick=False):
        posting, _ = post_table(site.floor, fields=read_posting(data, scope=Scope(site.floor),
                                                                now=now - datetime.timedelta(minutes=2)))
    RoundOfPlay.objects.create(establishment=site.marysville, table=table, gaming_day=now.date(), reference="H-1",
                               played_at=now, facts={}, posting=posting, schedule_code="GEGA-002888",
                               schedule_version=1, option_number=1, expected_total=Decimal("3.00"), currency="USD")
    CollectionEntry.objects.create(idempotency_key="csp-H-1", establishment=site.marysville, table=table,
                                   gaming_day=now.date(), reference="H-1", collected_at=now, payer="player",
                                   fee_kind="player", amount=Decimal("2.00"), currency="USD", recorded_at=now)
    kept_sums.rewrite(site.marysville)  # written around the services: the regulator's chart reads the kept sums
    site.posting = posting
    return site


def style(page, selector, prop):
    return page.locator(selector).first.evaluate(f"e => getComputedStyle(e)[{prop!r}]")


def test_the_compliance_pages_post_and_swap_under_the_policy(login, site, refused):
    page = login(site.compliance)  # the login form posts
    assert page.url.endswith("/compliance/casino-marysville/")
    page.goto(f"{site.url}/compliance/casino-marysville/schedules/GEGA-002888/")
    page.get_by_label("Option", exact=False).first.select_option("43")  # htmx swaps the option in place
    page.get_by_role("heading", name="Option 43", exact=False).wait_for()
    page.goto(f"{site.url}/compliance/casino-marysville/schedules/")
    assert style(page, "caption.muted", "textAlign") == "left"
    page.goto(f"{site.url}/compliance/casino-marysville/findings/")
    page.get_by_role("button", name="Run validation now").click()  # a form in the page posts
    page.wait_for_load_state()
    assert refused() == []


def test_the_floor_prints_with_its_progress_bar_under_the_policy(login, played, refused):
    page = login(played.floor)
    page.get_by_role("button", name="Print the whole floor as one PDF").click()
    page.wait_for_url("**/jobs/*/")
    page.get_by_role("link", name="Download").wait_for()  # htmx polled the job until it was done
    assert refused() == []


def test_the_regulators_chart_keeps_its_styles(login, played, refused):
    page = login(played.regulator_ca)
    page.goto(f"{played.url}/regulator/casino-marysville/")
    page.locator("#fees-chart").wait_for()
    assert style(page, ".swatch.short", "backgroundColor") == "rgb(164, 22, 26)"
    assert style(page, ".chart-row", "display") == "flex"
    assert page.locator("#fees-chart").bounding_box()["width"] <= 640
    assert style(page, 'nav.row a[aria-current="page"]', "fontWeight") == "600"
    assert refused() == []


def test_the_public_sign_check_keeps_its_styles(page, played, refused):
    page.goto(f"{played.url}/verify/{played.posting.public_token}/")
    assert page.locator("#status").inner_text().startswith("In force")
    assert style(page, "#status", "borderTopWidth") == "2px"
    assert refused() == []


def test_the_admin_and_the_api_docs_run_under_the_policy(login, site, refused):
    page = login(site.admin)
    page.goto(f"{site.url}/admin/fees/scheduledocument/")
    page.locator("#result_list").wait_for()
    page.goto(f"{site.url}/admin/auth/user/{site.floor.pk}/change/")
    page.locator("#user_form").wait_for()
    page.goto(f"{site.url}/api/v1/docs/")
    page.locator(".swagger-ui .opblock").first.wait_for()
    assert refused() == []


def test_redoc_runs_on_this_host_alone(login, site, refused, offsite_requests):
    """drf-spectacular's Redoc page, as the project serves it (templates/drf_spectacular/redoc.html), asks no
    other host for anything: no Google fonts, no logo from Redoc's CDN (the card room's network may be offline),
    and Redoc renders under the policy."""
    page = login(site.compliance)
    page.goto(f"{site.url}/api/v1/redoc/")
    page.locator(".menu-content").first.wait_for()
    assert page.locator(".menu-content li").count() > 20
    page.get_by_text("API docs by Redocly").wait_for()  # the side menu's foot, where Redoc shows its logo
    page.wait_for_load_state("networkidle")
    assert offsite_requests == []
    assert refused() == []
