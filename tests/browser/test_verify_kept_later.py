"""A regulator exports a room's audit log, more happens in the log, and they keep a later checkpoint of it; later
they check the bundle, unzipped and zipped again by their own tools (another order, another compression, folders'
own entries, all in one folder), against that later checkpoint on the verify page: "verified", and said how
(issue 25, "Regulators"). A checkpoint kept after a rewrite is refused, naming why."""

import datetime
import zipfile
from types import SimpleNamespace

from django.db import transaction

from cardroom.audit import chain_name, log_action

from .conftest import serious_violations


def _export(page, site, tmp_path):
    page.get_by_role("link", name="Request an audit export").first.click()
    page.get_by_label("What to export").select_option(label="Casino Marysville")
    today = datetime.date.today()
    page.get_by_label("From (gaming day)").fill(f"{today - datetime.timedelta(days=7):%Y-%m-%d}")
    page.get_by_label("To (gaming day, included)").fill(f"{today:%Y-%m-%d}")
    page.get_by_role("button", name="Request the export").click()
    page.wait_for_url("**/jobs/*/")
    link = page.locator("#job-download")
    link.wait_for(timeout=60_000)
    with page.expect_download() as download:
        link.click()
    path = tmp_path / "bundle.zip"
    download.value.save_as(path)
    return path


def _zip_again(source, target):
    """As an archive tool does it: the files' bytes unchanged, in one folder, in another order, stored, dated now,
    with each folder's own entry."""
    with zipfile.ZipFile(source) as archive:
        files = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as out:
        out.writestr("audit-casino-marysville/", b"")
        out.writestr("audit-casino-marysville/checkpoints/", b"")
        for name, data in sorted(files, reverse=True):
            out.writestr(f"audit-casino-marysville/{name}", data)
    return target


def _keep_checkpoint(page, site, tmp_path):
    page.goto(f"{site.url}/regulator/casino-marysville/audit-log/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download a checkpoint of the chain now").click()
    kept = tmp_path / "kept-later.txt"
    download.value.save_as(kept)
    return kept


def _verify(page, site, bundle, kept):
    page.goto(f"{site.url}/regulator/verify/")
    page.get_by_label("Bundle (.zip)").set_input_files(str(bundle))
    page.get_by_text("Check against a checkpoint you kept").click()
    page.get_by_label("or upload the checkpoint (the .txt file)").set_input_files(str(kept))
    page.get_by_role("button", name="Verify").click()
    page.locator("#verdict").wait_for(timeout=60_000)


def test_a_regulator_verifies_a_rezipped_bundle_against_a_checkpoint_kept_after_the_export(login, site, tmp_path):
    from tests.cardroom.test_transparency import forget_checkpoints, rewrite_tail

    page = login(site.regulator_ca)
    bundle = _export(page, site, tmp_path)
    with zipfile.ZipFile(bundle) as archive:
        size = int(archive.read(f"checkpoints/establishment-{site.marysville.pk}.txt").decode().split("\n")[1])
    for n in range(3):
        log_action("test.after_export", actor_label="test", establishment=site.marysville, data={"n": n})
    kept = _keep_checkpoint(page, site, tmp_path)
    later = int(kept.read_text().split("\n")[1])
    assert later > size

    again = _zip_again(bundle, tmp_path / "again.zip")
    _verify(page, site, again, kept)
    assert page.locator("#verdict").inner_text() == "Verified: every file is as signed"
    assert page.locator("#kept-status").inner_text() == (
        f"the audit log of {site.marysville.name}: your kept checkpoint of {later} entries holds the bundle's {size} "
        "entries "
        "unchanged: the log was only appended to after the export.")
    assert "audit-casino-marysville/" in page.locator("#bundle-folder").inner_text()
    assert serious_violations(page) == []

    # The log rewritten after the export, and a checkpoint kept of it: refused, in one sentence.
    with transaction.atomic():
        rewrite_tail(SimpleNamespace(chain=chain_name(site.marysville)), size - 1)
        forget_checkpoints()
    rewritten = _keep_checkpoint(page, site, tmp_path)
    assert int(rewritten.read_text().split("\n")[1]) == later  # as many entries, one of them changed
    _verify(page, site, again, rewritten)
    assert page.locator("#verdict").inner_text() == "Not verified: 1 problem"
    assert page.locator("#problems").inner_text() == (
        f"the audit log of {site.marysville.name}: your kept checkpoint of {later} entries does NOT hold the bundle's "
        f"{size} entries as the bundle has them: the log was rewritten between the export and your checkpoint.")

    # Not a checkpoint: the form says so and nothing is queued.
    page.goto(f"{site.url}/regulator/verify/")
    page.get_by_label("Bundle (.zip)").set_input_files(str(again))
    page.get_by_text("Check against a checkpoint you kept").click()
    page.get_by_label("A checkpoint you kept (optional)").fill("not a checkpoint")
    page.get_by_role("button", name="Verify").click()
    assert "This checkpoint cannot be used" in page.locator("#kept-error").inner_text()
