"""The import preview of the demo day's file fits a 1280 x 800 window: no part of its table past the right edge,
and each refused row's reason in view, wrapped rather than pushed off screen (issue 42)."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from demo import files as demo_files

DEMO_FILE = Path(demo_files.__file__).parent / f"{demo_files.NAME}.csv"
WIDTH = 1280

# Every cell of the preview whose right edge is past the window's, and every reason not wholly inside the window.
OFF_SCREEN = """(width) => {
  const out = el => { const r = el.getBoundingClientRect(); return r.right > width || r.left < 0; };
  return {
    table: document.querySelector("#preview").getBoundingClientRect().right,
    cells: [...document.querySelectorAll("#preview th, #preview td")].filter(out).length,
    reasons: [...document.querySelectorAll("#preview .error")].filter(out).map(e => e.innerText),
  };
}"""


@pytest.fixture
def demo(site):
    call_command("load_demo", force=True, days=0, stdout=io.StringIO(), stderr=io.StringIO())
    return site


def test_the_preview_of_the_demo_day_fits_1280_px_with_its_reasons_in_view(login, demo):
    page = login(demo.compliance)
    page.set_viewport_size({"width": WIDTH, "height": 800})
    page.goto(f"{demo.url}/compliance/casino-marysville/imports/new/")
    page.get_by_label("File of rounds and collections").set_input_files(str(DEMO_FILE))
    page.get_by_role("button", name="Upload").click()
    page.wait_for_url("**/mapping/")
    page.get_by_role("button", name="Keep the mapping and preview").click()
    page.wait_for_url("**/preview/")
    reasons = page.locator("#preview .error")
    assert reasons.count() == 3  # a table the room does not have, a decimal comma, an unknown payer
    seen = page.evaluate(OFF_SCREEN, WIDTH)
    assert seen == {"table": seen["table"], "cells": 0, "reasons": []} and seen["table"] <= WIDTH
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    for reason in reasons.all():
        assert reason.is_visible()
