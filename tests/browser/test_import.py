"""A compliance officer imports the demo day's file in a real browser: maps its columns, sees the refused rows,
downloads them, fixes them and imports them again; the fixed rows are recorded, nothing twice."""

import csv
import io
from pathlib import Path

import pytest
from django.core.management import call_command

from demo import files as demo_files
from fees.models import CollectionEntry, RoundOfPlay

DEMO_FILE = Path(demo_files.__file__).parent / f"{demo_files.NAME}.csv"


@pytest.fixture
def demo(site):
    call_command("load_demo", force=True, days=0, stdout=io.StringIO(), stderr=io.StringIO())
    return site


def upload_and_import(page, site, path, *, first_time, bad=0, rows=10):
    page.goto(f"{site.url}/compliance/casino-marysville/imports/")
    page.get_by_role("link", name="Import a file").click()
    page.get_by_label("File of rounds and collections").set_input_files(str(path))
    page.get_by_role("button", name="Upload").click()
    page.wait_for_url("**/mapping/")
    heading = "The first import at" if first_time else "The room's kept mapping"
    assert heading in page.locator("main, body").first.inner_text()
    assert page.get_by_label("Hand or round").input_value() == "Hand #"
    assert page.get_by_label("Fee kind (entries)").input_value() == "Fee type"
    page.get_by_role("button", name="Keep the mapping and preview").click()
    page.wait_for_url("**/preview/")
    # The preview is a compact table (issue 33): its ten rows fit a screen, each bad value marked with a ✗.
    assert page.locator("#preview tbody tr").count() == rows
    assert page.locator("#preview").bounding_box()["height"] < 700
    marked = page.locator("#preview td.bad")
    assert marked.count() == bad
    assert all(text.startswith("✗") for text in marked.all_inner_texts())
    page.locator("#start-import").click()
    page.locator("#import-status").filter(has_text="Done").wait_for()
    return page


def counts(page):
    return {name: int(page.locator(f"#{name}").inner_text())
            for name in ("rounds-recorded", "entries-recorded", "already-recorded", "refused-count")}


def test_import_the_demo_day_fix_the_refused_rows_and_import_them_again(login, demo, tmp_path):
    clean = demo_files.clean_rows()
    rounds = sum(1 for row in clean if row[0] == "round")
    entries = len(clean) - rounds
    page = login(demo.compliance)
    page.get_by_role("link", name="Imports").click()
    # In its first ten rows: a table the room does not have, a decimal comma, an unknown payer.
    upload_and_import(page, demo, DEMO_FILE, first_time=True, bad=3)
    assert counts(page) == {"rounds-recorded": rounds, "entries-recorded": entries - 5, "already-recorded": 0,
                            "refused-count": 5}
    refused = page.locator("#refused-rows li").all_inner_texts()
    assert [line.split(":", 1)[0] for line in refused] == ["Line 3", "Line 6", "Line 9", "Line 12", "Line 15"]
    assert "no table 'T99' at Casino Marysville" in refused[0]
    assert "2026-11-06 25:10" in refused[3]

    with page.expect_download() as download:
        page.locator("#refused-download").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][-1] == "refused because" and len(rows) == 6
    fixed = tmp_path / "fixed.csv"
    fixed.write_text(demo_files.fixed(text), encoding="utf-8")

    upload_and_import(page, demo, fixed, first_time=False, rows=5)
    assert counts(page) == {"rounds-recorded": 0, "entries-recorded": 5, "already-recorded": 0, "refused-count": 0}
    assert CollectionEntry.objects.filter(gaming_day=demo_files.DAY).count() == entries
    assert RoundOfPlay.objects.filter(gaming_day=demo_files.DAY).count() == rounds

    upload_and_import(page, demo, DEMO_FILE, first_time=False, bad=3)  # the first file again: nothing twice
    assert counts(page) == {"rounds-recorded": 0, "entries-recorded": 0, "already-recorded": len(clean) - 5,
                            "refused-count": 5}
    assert CollectionEntry.objects.filter(gaming_day=demo_files.DAY).count() == entries
    page.get_by_role("link", name="Back to the imports").click()
    assert page.locator("#imports tbody tr").count() == 3
