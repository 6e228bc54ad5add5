"""Audit exports of an establishment over a month: what the bundle holds matches the data, it verifies, and
the export is logged (issue 6). The bundle format itself is tested in tests/cardroom/bundle/test_verification.py."""

import csv
import datetime
import io
import json
import zipfile
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from cardroom import bundle, keys
from cardroom.audit import chain_head, chain_name
from cardroom.models import AuditLogEntry, Game, Job, Table
from fees.ledger import compact
from fees.models import RoundOfPlay, RoundPricing, ScheduleDocument
from signage import printing
from signage.models import SignPrint
from signage.postings import post_table

from tests import signs

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p2", "base": "40"}]}


@pytest.fixture
def month(api, people):
    """A table posted on 1 March, two rounds and their collections on 3 March (one hand under-collected)."""
    table = Table.objects.create(establishment=people.marysville, label="X-1", seats=7,
                                 game=Game.objects.get(slug="face-up-pai-gow-poker"))
    posting, _ = post_table(None, fields={"table": table, "game": table.game, "schedule": ScheduleDocument.objects.get(
        code="GEGA-002888"), "option_number": 1, "min_wager": 5, "max_wager": 500, "seats": 7,
        "effective_from": datetime.datetime(2026, 3, 1, 8, tzinfo=LA)}, actor_label="test")
    printing.print_signs([posting], "letter", label="test", channel=SignPrint.Channel.API)
    printing.print_signs([posting], "tent", label="test", channel=SignPrint.Channel.API)
    api.force_authenticate(people.floor)
    expected = Decimal("0")
    for i in (1, 2):
        answer = api.post("/api/v1/ledger/rounds/", {"table": table.pk, "gaming_day": "2026-03-03",
                                                     "reference": f"H-{i}", "played_at": "2026-03-03T02:00:00-08:00",
                                                     "facts": ROUND}, format="json")
        assert answer.status_code == 201, answer.json()
        expected += Decimal(answer.json()["expected_total"])
        answer = api.post("/api/v1/ledger/entries/", {"idempotency_key": f"x-{i}", "table": table.pk,
                                             "gaming_day": "2026-03-03", "reference": f"H-{i}",
                                             "collected_at": "2026-03-03T02:30:00-08:00", "payer": "player",
                                             "fee_kind": "player", "seat": i, "amount": "1.00"}, format="json")
        assert answer.status_code == 201, answer.json()
    api.force_authenticate(None)
    return {"table": table, "posting": posting, "expected": expected, "collected": Decimal("2.00")}


def export(people, tmp_path, **period):
    out = tmp_path / "bundle.zip"
    args = ["--establishment", "casino-marysville", "-o", str(out)]
    # Up to today: the signs are printed today.
    for key, value in (period or {"from": "2026-03-01", "to": timezone.localdate().isoformat()}).items():
        args += [f"--{key.replace('_', '-')}", value]
    call_command("export_audit", *args)
    return out


def read_csv(zf, name):
    return list(csv.DictReader(io.StringIO(zf.read(name).decode())))


def test_a_month_export_verifies_and_holds_the_data(people, month, tmp_path, capsys):
    path = export(people, tmp_path)
    assert "100%" in capsys.readouterr().out
    checked = bundle.verify(path, keys.public_key())
    assert checked.ok, checked.problems
    manifest = checked.manifest
    assert manifest["period"] == {"from": "2026-03-01", "to": timezone.localdate().isoformat()}
    assert manifest["scope"]["establishments"] == ["casino-marysville"]
    assert manifest["signing_key"] == keys.key_fingerprint()
    heads = {c["chain"]: (c["sequence"], c["entry_hash"]) for c in manifest["audit_chains"]}
    assert heads[chain_name(people.marysville)][0] <= chain_head(people.marysville)[0]
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        # Format 2: each kind once, as CSV, with its rows counted in the manifest; JSON only where records nest.
        for kind in ("ledger_entries", "rounds", "fees_by_table_day", "postings", "sign_prints", "findings",
                     "schedule_versions", "approvals", "audit_log"):
            assert f"{kind}.csv" in names and f"{kind}.json" not in names
            listed = next(f for f in manifest["files"] if f["name"] == f"{kind}.csv")
            assert len(read_csv(zf, f"{kind}.csv")) == listed["rows"] == manifest["rows"][kind]
        assert {n for n in names if n.endswith(".json")} == {"columns.json", "manifest.json", "round_pricings.json"}
        # Each round's fee lines add up to what it was expected to pay, and name the pricing it shares.
        rounds = {r["id"]: r for r in read_csv(zf, "rounds.csv") if r["table"] == "X-1"}
        lines = [line for line in read_csv(zf, "round_fee_lines.csv") if line["round"] in rounds]
        pricings = {p["id"]: p for p in json.loads(zf.read("round_pricings.json"))}
        assert len(pricings) == 1 and manifest["rows"]["round_pricings"] == 1
        for round_id, played in rounds.items():
            stored = RoundOfPlay.objects.get(pk=round_id)
            mine = [line for line in lines if line["round"] == round_id]
            assert [int(line["line"]) for line in mine] == list(range(1, len(mine) + 1))
            assert [(line["payer"], line["player"], line["fee"]) for line in mine] == [
                (line["payer"], line["player"], line["fee"]) for line in compact.rebuilt(stored)[1]]
            assert sum(Decimal(line["fee"]) for line in mine) == Decimal(played["expected_total"])
            pricing = pricings[int(played["pricing"])]
            assert (pricing["schedule"], pricing["version"], pricing["option"]) == (
                "GEGA-002888", int(played["schedule_version"]), 1)
            assert pricing["body"] == RoundPricing.objects.get(pk=stored.pricing_id).body
            assert {int(line["tier"]) for line in mine if line["tier"]} <= {
                tier["order"] for tier in pricing["body"]["tiers"]}
        days = [r for r in read_csv(zf, "fees_by_table_day.csv") if r["table"] == "X-1"]
        assert days == [{"gaming_day": "2026-03-03", "establishment": "casino-marysville", "table": "X-1",
                         "expected": f"{month['expected']:.2f}", "collected": "2.00",
                         "difference": f"{Decimal('2.00') - month['expected']:.2f}", "currency": "USD"}]
        prints = [r for r in read_csv(zf, "sign_prints.csv") if r["table"] == "X-1"]
        assert [(r["number"], r["reprint"]) for r in prints] == [("1", "false"), ("2", "true")]
        assert [r["id"] for r in read_csv(zf, "postings.csv") if r["table"] == "X-1"] == [str(month["posting"].pk)]
        entries = read_csv(zf, "ledger_entries.csv")
        assert {(e["reference"], e["amount"]) for e in entries if e["table"] == "X-1"} == {("H-1", "1.00"),
                                                                                           ("H-2", "1.00")}
        audit = read_csv(zf, "audit_log.csv")
        assert audit and all(a["chain"] == chain_name(people.marysville) for a in audit)
        text = signs.text(zf.read("report.pdf"), layout=False)
        assert f"Audit export: Casino Marysville, 2026-03-01 to {timezone.localdate()}" in " ".join(text.split())
        assert "Fees expected vs collected" in text
    job = Job.objects.get(kind="audit_export")
    logged = AuditLogEntry.objects.get(action="audit.export")
    assert logged.data["job"] == str(job.uuid) and logged.data["sha256"] == job.result["sha256"]


def test_tampering_with_an_export_is_named(people, month, tmp_path):
    path = export(people, tmp_path)
    with zipfile.ZipFile(path) as zf:
        contents = {name: zf.read(name) for name in zf.namelist()}
    altered = tmp_path / "altered.zip"
    data = bytearray(contents["ledger_entries.csv"])
    data[-3] ^= 1
    with zipfile.ZipFile(altered, "w") as zf:
        for name, value in contents.items():
            if name != "postings.csv":  # removed
                zf.writestr(name, bytes(data) if name == "ledger_entries.csv" else value)
    with pytest.raises(CommandError) as error:
        call_command("verify_export", str(altered))
    assert "ledger_entries.csv" in str(error.value) and "postings.csv" in str(error.value)
    call_command("verify_export", str(path))


def test_bad_export_requests(people, api, month, tmp_path):
    with pytest.raises(CommandError, match="after to"):
        export(people, tmp_path, **{"from": "2026-03-31", "to": "2026-03-01"})
    api.force_login(people.floor)  # floor supervisors do not export
    answer = api.post("/api/v1/exports", {"establishment": "casino-marysville", "as_of": "2026-03-31"},
                      format="json")
    assert answer.status_code == 403
    api.force_login(people.compliance)
    for body, status, message in (
            ({"establishment": "casino-marysville"}, 400, "Give the period"),
            ({"establishment": "casino-marysville", "jurisdiction": "CA", "as_of": "2026-03-31"}, 400, "not both"),
            ({"establishment": "casino-marysville", "from": "March", "to": "2026-03-31"}, 400, "from must be a date"),
            ({"jurisdiction": "CA", "as_of": "2026-03-31"}, 403, "exported by its regulators")):
        answer = api.post("/api/v1/exports", body, format="json")
        assert answer.status_code == status and message in answer.json()["error"]["message"], body
    assert not Job.objects.exists()
