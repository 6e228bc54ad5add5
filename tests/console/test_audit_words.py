"""Every action the code writes to the audit log has its sentence (console.audit_words): none reads as the
fallback "Recorded <code>." on the regulator's page."""

import re
from pathlib import Path

from console.audit_words import WORDS, describe

ROOT = Path(__file__).resolve().parents[2]
APPS = ("cardroom", "compliance", "console", "demo", "exports", "fees", "signage")


def test_every_action_written_with_a_literal_name_has_words():
    written = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            written |= set(re.findall(r'log_action\(\s*"([a-z_.]+)"', path.read_text()))
    assert "ledger.import_finished" in written and "compliance.run" in written
    assert written - set(WORDS) == set()


def test_an_import_and_a_run_read_as_sentences():
    assert describe("ledger.import_finished", {"file": "day.csv", "rounds_recorded": 2, "entries_recorded": 118,
                                               "already_recorded": 0, "refused": 5}) == (
        "Imported day.csv: 2 rounds and 118 collections recorded, 0 rows already recorded, 5 refused.")
    assert describe("compliance.run", {"kind": "establishment", "as_of": "2026-10-31", "errors": 3, "warnings": 2,
                                       "infos": 39}) == (
        "Ran validation (establishment, rules as of 2026-10-31): 3 errors, 2 warnings, 39 notes.")
