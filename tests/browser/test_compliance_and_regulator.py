"""A compliance officer's and a regulator's jobs in a real browser: one option's tiers found in a few steps,
a finding acknowledged with a reason; an audit export requested, watched, downloaded, tampered with and caught
by the upload page."""

import datetime
import io
import zipfile
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cardroom.access import Scope
from cardroom.models import Game, Table
from compliance.models import Finding
from signage.postings import post_table, read_posting

from .conftest import serious_violations

LA = ZoneInfo("America/Los_Angeles")


@pytest.fixture
def posted_with_an_error(site):
    """Table 5, No Bust 21st Century Blackjack on a schedule option with more collection rates than its rules
    allow: posted a minute ago, with an error finding."""
    game = Game.objects.get(slug="no-bust-21st-century-blackjack")
    table = Table.objects.create(establishment=site.marysville, label="5", seats=7, game=game)
    now = datetime.datetime.now(tz=LA).replace(second=0, microsecond=0)
    data = {"table": table.pk, "schedule": "CMV-CA-TABLE-ACTION", "option": 1, "min_wager": "5",
            "max_wager": "500", "effective_from": (now - datetime.timedelta(minutes=1)).isoformat()}
    with time_machine.travel(now - datetime.timedelta(minutes=2), tick=False):
        post_table(site.compliance,
                   fields=read_posting(data, scope=Scope(site.compliance), now=now - datetime.timedelta(minutes=2)))
    return site


def test_a_compliance_officer_finds_one_options_tiers_and_handles_a_finding(login, posted_with_an_error):
    site = posted_with_an_error
    page = login(site.compliance)
    assert page.url.endswith("/compliance/casino-marysville/")
    page.get_by_label("Find a schedule").fill("GEGA-002888")
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name="GEGA-002888").first.click()
    page.get_by_label("Option", exact=False).first.select_option("43")  # htmx swaps the option in place
    page.get_by_role("heading", name="Option 43", exact=False).wait_for()
    assert "option=43" in page.url
    assert page.locator("#option-panel table").count() >= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert serious_violations(page) == []

    page.goto(f"{site.url}/compliance/casino-marysville/findings/?severity=error")
    error = Finding.objects.filter(severity="error", run__posting__table__label="5").first()
    page.locator(f'a[href$="/findings/{error.pk}/"]').first.click()
    page.get_by_label("How it was handled").fill("Bureau asked about the fifth rate; table closed until then.")
    page.get_by_role("button", name=f"Acknowledge finding {error.pk}").click()
    page.get_by_text(f"Finding {error.pk} acknowledged.").wait_for()
    error.refresh_from_db()
    assert error.acknowledged_by == site.compliance
    assert serious_violations(page) == []


def test_a_regulator_exports_downloads_and_catches_a_tampered_bundle(login, site, tmp_path):
    page = login(site.regulator_ca)
    assert page.url.endswith("/regulator/")
    assert "Washington" not in page.content() and "Test WA Room" not in page.content()
    page.get_by_role("link", name="Request an audit export").first.click()
    assert "Test WA Room" not in page.locator("#export-form").inner_html()
    page.get_by_label("What to export").select_option(label="Casino Marysville")
    today = datetime.date.today()
    page.get_by_label("From (gaming day)").fill(f"{today - datetime.timedelta(days=7):%Y-%m-%d}")
    page.get_by_label("To (gaming day, included)").fill(f"{today:%Y-%m-%d}")
    page.get_by_role("button", name="Request the export").click()
    page.wait_for_url("**/jobs/*/")
    download_link = page.locator("#job-download")
    download_link.wait_for(timeout=60_000)
    assert serious_violations(page) == []
    with page.expect_download() as download:
        download_link.click()
    bundle = tmp_path / "bundle.zip"
    download.value.save_as(bundle)

    with zipfile.ZipFile(bundle) as source:
        names = source.namelist()
        contents = {name: source.read(name) for name in names}
    changed = next(n for n in names if n.endswith(".csv"))
    removed = next(n for n in names if n.endswith(".json") and n != "manifest.json" and n != changed)
    tampered = io.BytesIO()
    with zipfile.ZipFile(tampered, "w") as target:
        for name, data in contents.items():
            if name != removed:
                target.writestr(name, data + b"\n" if name == changed else data)
        target.writestr("smuggled.csv", b"id\n1\n")
    (tmp_path / "tampered.zip").write_bytes(tampered.getvalue())

    page.goto(f"{site.url}/regulator/verify/")
    page.get_by_label("Bundle (.zip)").set_input_files(str(tmp_path / "tampered.zip"))
    page.get_by_role("button", name="Verify").click()
    assert changed in page.locator("#altered-files").inner_text()
    assert removed in page.locator("#missing-files").inner_text()
    assert "smuggled.csv" in page.locator("#added-files").inner_text()
    assert serious_violations(page) == []

    page.goto(f"{site.url}/regulator/verify/")
    page.get_by_label("Bundle (.zip)").set_input_files(str(bundle))
    page.get_by_role("button", name="Verify").click()
    assert page.get_by_text("Verified: every file is as signed").is_visible()


def test_a_compliance_officer_drafts_edits_a_tier_and_publishes(login, site):
    """The whole change of a fee: a draft from the version in force, one tier's amount changed with a reason, the
    publish page's diff, publication asked for, then approved by a second officer for a day to come."""
    from fees.models import ScheduleDocument

    document = ScheduleDocument.objects.get(code="CMV-POKER-HOLDEM")
    current = document.versions.filter(status="published").order_by("-number").first()
    option = current.options.order_by("number").first()
    tier = option.tiers.order_by("order").first()
    page = login(site.compliance)
    page.goto(f"{site.url}/compliance/casino-marysville/schedules/CMV-POKER-HOLDEM/versions/{current.number}/")
    page.get_by_role("link", name=f"Start a new draft from v{current.number}").click()
    starts = datetime.date.today() + datetime.timedelta(days=30)
    page.get_by_label("Effective from").fill(f"{starts:%Y-%m-%d}")
    page.get_by_label("Reason").fill("Bureau letter of 2 November: the first tier's drop rises by a dollar.")
    page.get_by_role("button", name="Start the draft").click()
    draft = document.versions.get(number=current.number + 1)
    page.wait_for_url(f"**/versions/{draft.number}/**")
    page.get_by_role("link", name=f"Edit option {option.number}'s tiers").click()
    amount = page.get_by_label(f"Amount, row {tier.order}", exact=True)
    new_fee = tier.fee + 1
    amount.fill(f"{new_fee}")
    page.get_by_label("Reason").fill("The first tier's drop rises by a dollar (Bureau letter of 2 November).")
    page.get_by_role("button", name="Save the tiers").click()
    page.wait_for_load_state()
    assert serious_violations(page) == []
    changed = draft.options.get(number=option.number).tiers.get(order=tier.order)
    assert changed.fee == new_fee

    page.get_by_role("link", name=f"Review and publish v{draft.number}").click()
    summary = page.get_by_role("region", name="Summary of changes").inner_text()
    assert "1 option changed" in summary
    changed_option = page.get_by_role("region", name=f"Option {option.number}", exact=False).first.inner_text()
    assert f"{tier.fee:,.2f}" in changed_option and f"{new_fee:,.2f}" in changed_option  # the tier, old and new
    assert serious_violations(page) == []
    page.get_by_role("textbox", name="Reason").fill("Published as the Bureau's letter of 2 November allows.")
    page.get_by_role("button", name=f"Ask a second officer to publish version {draft.number}").click()
    page.get_by_text("publication asked for").wait_for()
    draft.refresh_from_db()
    assert draft.status == "in_review" and draft.review_requested_by == site.compliance

    page.context.clear_cookies()
    page = login(site.compliance_2)  # the second officer
    page.goto(f"{site.url}/compliance/casino-marysville/schedules/CMV-POKER-HOLDEM/versions/{draft.number}/publish/")
    assert "Awaiting a second officer" in page.content()
    assert serious_violations(page) == []
    page.get_by_role("textbox", name="Why").fill("Checked against the Bureau's letter of 2 November.")
    page.get_by_role("button", name=f"Approve and publish version {draft.number}").click()
    page.get_by_text(f"CMV-POKER-HOLDEM version {draft.number} is published").wait_for()
    draft.refresh_from_db()
    assert draft.is_published and draft.published_by == site.compliance_2 and draft.effective_from == starts


def test_a_compliance_officer_verifies_a_bundle_and_the_page_follows_the_check(login, site, tmp_path):
    """From the compliance pages' link: the upload is checked in the background and the page shows the result; a
    check still running shows its progress, and its result in place once done."""
    from cardroom.models import Job
    from cardroom import bundle, keys

    march = tmp_path / "march.zip"
    with bundle.BundleWriter(march) as writer:
        writer.add_bytes("ledger_entries.csv", b"id,amount\n1,1.00\n")
        writer.finish({"period": {"from": "2026-03-01", "to": "2026-03-31"}}, keys.installation_key())
    page = login(site.compliance)
    page.get_by_role("link", name="Verify a bundle").click()
    page.get_by_label("Bundle (.zip)").set_input_files(str(march))
    page.get_by_role("button", name="Verify").click()
    page.get_by_text("Verified: every file is as signed").wait_for()
    assert "?job=" in page.url and "ledger_entries.csv" in page.locator("#files-table").inner_text()
    assert serious_violations(page) == []

    job = Job.objects.create(kind="bundle_verify", status=Job.Status.RUNNING, total=4, done=1,
                             stage="checking files (1 of 4)", requested_by=site.compliance,
                             requested_label=site.compliance.get_username(), params={"bundle": "april.zip"})
    page.goto(f"{site.url}/regulator/verify/?job={job.uuid}")
    assert "25%" in page.locator("#verify-job").inner_text()
    Job.objects.filter(pk=job.pk).update(status=Job.Status.DONE, done=4, result={
        "ok": False, "problems": ["rounds.csv: SHA-256 does not match the manifest (altered)"], "manifest": None,
        "public_key_fingerprint": keys.key_fingerprint(), "installation_key": True, "signature": "valid",
        "files": {"rounds.csv": "altered"}})
    page.get_by_text("Not verified: 1 problem").wait_for(timeout=10_000)
    assert "rounds.csv" in page.locator("#altered-files").inner_text()
    assert serious_violations(page) == []
