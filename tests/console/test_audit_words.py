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
            text = path.read_text()
            written |= set(re.findall(r'log_action\(\s*"([a-z_.]+)"', text))
            written |= set(re.findall(r'_log\(\s*"([a-z_.]+)"', text))  # fees.months' own helper
            written |= set(re.findall(r'\(\s*"([a-z_]+\.[a-z_.]+)",\s*\{', text))  # log_actions([("action", {...}), ...])
    assert "ledger.import_finished" in written and "compliance.run" in written and "ledger.month_closed" in written
    assert written - set(WORDS) == set()


def test_an_import_and_a_run_read_as_sentences():
    assert describe("ledger.import_finished", {"file": "day.csv", "rounds_recorded": 2, "entries_recorded": 118,
                                               "already_recorded": 0, "refused": 5}) == (
        "Imported day.csv: 2 rounds and 118 collections recorded, 0 rows already recorded, 5 refused.")
    assert describe("compliance.run", {"kind": "establishment", "as_of": "2026-10-31", "errors": 3, "warnings": 2,
                                       "infos": 39}) == (
        "Ran validation (establishment, rules as of 2026-10-31): 3 errors, 2 warnings, 39 notes.")


def test_closing_a_month_reads_as_sentences():
    assert describe("ledger.month_closed", {"month": "2026-10", "partitions": [{"partition": "a"}, {"partition": "b"}],
                                            "bundles": []}) == (
        "Closed October 2026: its 2 partitions archived beside its audit export; it can be read from the export and "
        "reopened.")
    unfrozen = {"month": "2026-10", "reason": "the export failed; nothing was archived"}
    assert describe("ledger.month_unfrozen", unfrozen) == (
        "Stopped closing October 2026: it is open again as it was (the export failed; nothing was archived).")
