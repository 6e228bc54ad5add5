"""A regulator keeps a checkpoint of an establishment's audit log, and later checks the log against it on the audit
log page, after the service's own checkpoints were deleted (issue 23): consistent while the log was only appended
to, NOT consistent once its tail was rewritten with every hash recomputed."""

from types import SimpleNamespace

from django.db import transaction

from cardroom.audit import chain_name, log_action

from .conftest import serious_violations


def _steps(site, count):
    for i in range(count):
        log_action("test.step", actor_label="test", establishment=site.marysville, data={"n": i})


def test_a_regulator_checks_the_log_against_a_checkpoint_they_kept(login, site, tmp_path):
    from tests.cardroom.test_transparency import forget_checkpoints, rewrite_tail

    _steps(site, 5)
    page = login(site.regulator_ca)
    page.goto(f"{site.url}/regulator/casino-marysville/audit-log/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download a checkpoint of the chain now").click()
    kept = tmp_path / "kept.txt"
    download.value.save_as(kept)
    size = int(kept.read_text().split("\n")[1])

    _steps(site, 2)
    with transaction.atomic():
        forget_checkpoints()
    page.reload()
    page.get_by_label("or upload it (the .txt file)").set_input_files(str(kept))
    page.get_by_role("button", name="Check").click()
    result = page.locator("#kept-result").inner_text()
    assert "Consistent" in result and "grew by 2 entries" in result, result
    assert serious_violations(page) == []

    with transaction.atomic():
        rewrite_tail(SimpleNamespace(chain=chain_name(site.marysville)), size - 1)
        forget_checkpoints()
    page.goto(f"{site.url}/regulator/casino-marysville/audit-log/")
    assert "Intact" in page.locator("#chain-status").inner_text()  # every hash recomputed: the chain walks clean
    page.get_by_label("Paste a checkpoint you kept").fill(kept.read_text())
    page.get_by_role("button", name="Check").click()
    result = page.locator("#kept-result").inner_text()
    assert "NOT consistent" in result and f"first {size} entries no longer give your checkpoint's root" in result

    page.get_by_label("Paste a checkpoint you kept").fill("not a checkpoint")
    page.get_by_role("button", name="Check").click()
    assert "not a signed checkpoint" in page.locator("#kept-error").inner_text()
