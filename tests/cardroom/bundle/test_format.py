"""Bundle formats (issue 26): format 2 holds each kind once, as CSV described in columns.json; bundles of format 1
(every kind as CSV and JSON), made before, still verify: manifest, signature, hashes, and the audit rows against their
checkpoints, offline. The audit check gives the same results whichever format holds the rows.

The format-1 bundle in fixtures/ was built with the exporter as it was before format 2 (the seed, a table posted with
two rounds and their collections in March 2026, three audit entries in the period, one earlier checkpoint kept);
fixtures/bundle-v1.keys.json is the installation's keys file then, bundle-v1.public-key.pem its public key."""

import contextlib
import datetime
import hashlib
import io
import json
import re
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from cardroom import bundle, keys, tlog
from cardroom.audit import chain_name, log_action
from cardroom.bundle import reading as bundle_read
from cardroom.bundle import writing as bundle_write
from cardroom.models import Establishment
from exports import build, collect

from tests.cardroom.test_audit_chain import tamper
from tests.cardroom.test_transparency import installation_root
from tests.exports.test_build import month  # noqa: F401  (the fixture)

FIXTURES = Path(__file__).parent / "fixtures"
V1 = FIXTURES / "bundle-v1.zip"
V1_KEYS = FIXTURES / "bundle-v1.keys.json"
V1_PUBLIC_KEY = (FIXTURES / "bundle-v1.public-key.pem").read_text()
V1_KEPT = FIXTURES / "bundle-v1.kept-checkpoint.txt"
TYPES = {"text", "integer", "decimal", "date", "timestamp", "boolean", "json"}


# The root of trust of the installation that made the fixture, as its regulator kept it.
V1_ROOT = "SHA256:7949b1491bb08a3d2ca4e84f4f5e506f5737b0c9498da7fb224d60cbaf1a26eb"
# Its log's origin (the default AUDIT_LOG_ORIGIN then; its keys file, of before the keys file named it, names none).
V1_ORIGIN = "cardroom/audit"


def offline(*args, keys_file=V1_KEYS, trust=V1_ROOT, origin=V1_ORIGIN):
    """The offline verifier's exit code and output, as a regulator runs it (``--trust``, ``--origin``: the root and
    the log's origin they kept)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = tlog.main(["--keys", str(keys_file), "--trust", trust, *(["--origin", origin] if origin else []), *args])
    return code, out.getvalue()


def rezip(source, target, change):
    """A copy of a bundle with ``change(name, data) -> data`` applied to every file."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            new.writestr(info.filename, change(info.filename, old.read(info)))
    return target


# -- format 1, as bundles were made before ----------------------------------------------------------------------------


def test_the_format_1_fixture_is_small_and_of_format_1():
    assert V1.stat().st_size < 200_000
    with zipfile.ZipFile(V1) as archive:
        names = set(archive.namelist())
        assert json.loads(archive.read("manifest.json"))["format"] == bundle.FORMAT_1 == "cardroom-audit-bundle/1"
    assert {"audit_log.json", "audit_log.csv", "ledger_entries.json", "rounds.json"} <= names


def test_a_format_1_bundle_still_verifies_and_says_its_format():
    checked = bundle.verify(V1, V1_PUBLIC_KEY)
    assert checked.ok, checked.problems
    assert checked.format == bundle.FORMAT_1 and checked.signature == "valid"
    assert set(checked.files.values()) == {"ok"} and len(checked.files) == 31


def test_a_format_1_bundle_checks_offline_audit_rows_and_kept_checkpoint():
    code, out = offline("export", str(V1), "--kept", str(V1_KEPT))
    assert code == 0, out
    assert "the manifest and its 31 files, signed by" in out
    assert "establishment:1: the bundle's 3 audit rows (positions 19 to 21) are the log's entries" in out
    assert "the log of 21 entries still holds the 18 entries of the kept checkpoint, unchanged" in out
    assert out.rstrip().endswith("HOLDS") and "FAIL" not in out


def test_a_keys_file_of_before_it_named_the_origin_needs_one_given():
    """The fixture's keys file names no origin (it was saved before the keys file did): with no --origin and no kept
    checkpoint, nothing is said to hold; the checkpoint kept gives the name (the regulator's own), and so does
    --origin; another name fails."""
    code, out = offline("export", str(V1), origin=None)
    assert code == 3, out
    assert ("NOTE no log origin given (--origin <base>), and the keys file names none: checkpoints of any cardroom "
            "log were accepted.") in out.splitlines()
    assert out.splitlines()[-1].startswith("NOT CHECKED: no log origin given (--origin <base>)")
    assert offline("export", str(V1), "--kept", str(V1_KEPT), origin=None)[0] == 0
    code, out = offline("export", str(V1), origin="room.example/audit")
    assert code == 1 and "it is of the log cardroom/audit/establishment:1, not of room.example/audit" in out, out


def test_a_tampered_format_1_bundle_fails(tmp_path):
    def rewritten(name, data):  # an audit row's action changed, the file's hash not recomputed
        return data.replace(b"test.v1_fixture_step2", b"test.v1_fixture_stepX") if name == "audit_log.json" else data

    altered = rezip(V1, tmp_path / "altered.zip", rewritten)
    checked = bundle.verify(altered, V1_PUBLIC_KEY)
    assert not checked.ok and checked.problems == ["audit_log.json: SHA-256 does not match the manifest (altered)"]
    code, out = offline("export", str(altered))
    assert code == 1 and [line for line in out.splitlines() if line.startswith("FAIL")] == [
        "FAIL audit_log.json: SHA-256 does not match the manifest (altered)"]

    def relisted(name, data):  # the manifest made to match the altered file: the signature no longer holds
        if name != "manifest.json":
            return rewritten(name, data)
        manifest = json.loads(data)
        changed = rewritten("audit_log.json", zipfile.ZipFile(V1).read("audit_log.json"))
        entry = next(f for f in manifest["files"] if f["name"] == "audit_log.json")
        entry["sha256"], entry["bytes"] = hashlib.sha256(changed).hexdigest(), len(changed)
        return bundle.canonical_json(manifest)

    forged = rezip(V1, tmp_path / "forged.zip", relisted)
    checked = bundle.verify(forged, V1_PUBLIC_KEY)
    assert not checked.ok and checked.signature == "invalid" and checked.files["audit_log.json"] == "ok"
    assert offline("export", str(forged))[0] == 1


def test_a_format_1_bundle_verifies_with_the_command_and_says_its_format(db, tmp_path, capsys):
    key = tmp_path / "v1.pem"
    key.write_text(V1_PUBLIC_KEY)
    call_command("verify_export", str(V1), "--public-key", str(key))
    out = capsys.readouterr().out
    assert out.startswith("OK: 31 files verified; format cardroom-audit-bundle/1; manifest signed by SHA256:")


def test_format_2_reads_audit_rows_from_csv_as_format_1_held_them_in_json():
    """The fixture's audit_log.csv read as format 2 reads a CSV (columns.json's types) gives its audit_log.json."""
    columns = bundle_read.columns_of(json.dumps(build.columns_document()), "audit_log")
    with zipfile.ZipFile(V1) as archive:
        from_csv = bundle_read.records("audit_log.csv", archive.read("audit_log.csv").decode(), columns)
        from_json = json.loads(archive.read("audit_log.json"))
    assert len(from_json) == 3 and from_csv == from_json
    assert from_csv[0]["data"]["note"] == 'naïve "quoted", 1,5\nsecond line' and from_csv[0]["sequence"] == 19


# -- format 2 ---------------------------------------------------------------------------------------------------------


def test_format_2_holds_each_kind_once_with_typed_columns(people, month, tmp_path):  # noqa: F811
    scope = collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31))
    reports = []
    build.build(scope, tmp_path / "b.zip", requested_by="test", on_progress=lambda *r: reports.append(r))
    checked = bundle.verify(tmp_path / "b.zip", keys.public_key())
    assert checked.ok and checked.format == bundle.FORMAT_2 == "cardroom-audit-bundle/2"
    # The progress counts each file once: every kind's CSV, the pricings, columns.json, the report.
    assert reports[-1][:2] == (len(collect.KINDS) + 3,) * 2 and reports[-1][2] == "report.pdf"
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        names = set(zf.namelist())
        data = [n for n in names if not n.startswith("checkpoints/") and n not in bundle.RESERVED]
        assert sorted(data) == sorted([f"{k.name}.csv" for k in collect.KINDS]
                                      + ["round_pricings.json", "columns.json", "report.pdf"])
        columns = json.loads(zf.read("columns.json"))
        assert set(columns) == {k.name for k in collect.KINDS} | {"round_pricings"}
        for kind in collect.KINDS:
            described = columns[kind.name]["columns"]
            assert columns[kind.name]["files"] == [f"{kind.name}.csv"]
            assert [c["name"] for c in described] == kind.column_names and all(c["type"] in TYPES for c in described)
            for column in described:
                if column["type"] == "timestamp":
                    assert column["time_zone"] == "UTC"
                if column["type"] == "date":
                    assert column["time_zone"].startswith("local")
                if column.get("unit") == "money":  # the currency column it names is in its file, or in rounds.csv
                    file, _, name = column["currency"].rpartition(".")
                    assert name in [c["name"] for c in columns[file or kind.name]["columns"]]
            # Every cell holds what its column says.
            rows = bundle_read.records(f"{kind.name}.csv", zf.read(f"{kind.name}.csv").decode(), described)
            for row in rows:
                for column in described:
                    value = row[column["name"]]
                    if value is None:
                        continue
                    if column["type"] == "timestamp":
                        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", value), (kind.name, column)
                    elif column["type"] == "date":
                        datetime.date.fromisoformat(value)
                    elif column["type"] == "decimal":
                        Decimal(value)
        described = {c["name"]: c for c in columns["ledger_entries"]["columns"]}
        assert described["amount"] == {"name": "amount", "description": "Amount collected", "type": "decimal",
                                       "unit": "money", "currency": "currency"}
        assert "gaming day" in described["gaming_day"]["time_zone"]
        assert columns["audit_log"]["columns"][9]["type"] == "json"
        assert columns["round_fee_lines"]["columns"][8]["currency"] == "rounds.currency"
        assert [f["name"] for f in columns["round_pricings"]["fields"]] == ["id", "schedule", "version", "option",
                                                                           "digest", "body"]
        pricings = json.loads(zf.read("round_pricings.json"))
    for pricing in pricings:  # a reader can check each body against its digest, as columns.json says how
        text = json.dumps(pricing["body"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert hashlib.sha256(text.encode()).hexdigest() == pricing["digest"]
    assert checked.manifest["rows"]["round_fee_lines"] == len(bundle_read.records(
        "round_fee_lines.csv", zipfile.ZipFile(tmp_path / "b.zip").read("round_fee_lines.csv").decode(),
        columns["round_fee_lines"]["columns"])) > 0


# -- the same audit check, whichever format holds the rows ---------------------------------------------------------


@pytest.fixture
def room(people):
    room = Establishment.objects.create(slug="test-formats-room", name="Test Formats Room",
                                        jurisdiction=people.washington, kind="card_room", is_demo=True)
    # Labels a spreadsheet would run, or that begin with the escape itself: the CSV escapes them, and the audit
    # check must read back the exact text the entry's hash covers.
    for n, label in enumerate(["t-compliance-wa", "=cmd|' /C calc'!A0", "'quoted", "-dash", "@at", "plain"], 1):
        log_action(f"test.format{n}", actor=people.compliance_wa, actor_label=label, establishment=room,
                   jurisdiction=room.jurisdiction, data={"n": n, "note": "naïve \"quoted\",\nnew line", "x": "-1"})
    return room


def both_formats(room, tmp_path):
    """The room's export as format 2 (the exporter) and as format 1 (the same files, the audit rows also as
    audit_log.json as format 1 held them, signed by the installation's key as format 1)."""
    from cardroom.transparency import current_key

    today = datetime.date.today()
    scope = collect.ExportScope(establishments=[room], start=today - datetime.timedelta(days=1), end=today)
    two = tmp_path / "two.zip"
    manifest = build.build(scope, two, requested_by="test")
    kind = next(k for k in collect.KINDS if k.name == "audit_log")
    rows = [dict(zip(kind.column_names, row)) for row in kind.rows(scope)]
    one = tmp_path / "one.zip"
    with zipfile.ZipFile(two) as source, pytest.MonkeyPatch.context() as patch:
        patch.setattr(bundle_write, "FORMAT", bundle.FORMAT_1)
        with bundle.BundleWriter(one) as writer:
            for name in source.namelist():
                if name not in bundle.RESERVED:
                    writer.add_bytes(name, source.read(name))
            writer.add_bytes("audit_log.json", ("[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
                                                + "\n]\n").encode(), rows=len(rows))
            writer.finish({k: v for k, v in manifest.items() if k not in ("format", "files")}, current_key()[0])
    assert manifest["format"] == bundle.FORMAT_2 and bundle.verify(one, keys.public_key()).format == bundle.FORMAT_1
    assert bundle.verify(two, keys.public_key()).format == bundle.FORMAT_2
    return one, two


def keys_file(api, tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(api.get("/api/v1/audit/keys").json()))
    return path


def results(api, room, tmp_path):
    """The offline check's lines for each format, but the count of files (format 1 holds one more)."""
    one, two = both_formats(room, tmp_path)
    path = keys_file(api, tmp_path)
    found = []
    for bundle_path in (one, two):
        code, out = offline("export", str(bundle_path), keys_file=path, trust=installation_root(),
                            origin=settings.AUDIT_LOG_ORIGIN)
        found.append((code, [line for line in out.splitlines() if "the manifest and its" not in line]))
    return found


def test_the_audit_check_gives_the_same_results_for_both_formats(api, room, tmp_path):
    one, two = results(api, room, tmp_path)
    assert one == two and one[0] == 0, one
    said = "\n".join(one[1])
    assert f"{chain_name(room)}: the bundle's 6 audit rows (positions 1 to 6) are the log's entries" in said


def test_a_changed_audit_row_fails_the_same_way_in_both_formats(api, room, tmp_path):
    # The log changed behind the service (by its database's owner) before the export: the rows no longer hash.
    tamper("UPDATE {table} SET actor_label = %s WHERE chain = %s AND sequence = 3", ["'quietly", chain_name(room)])
    one, two = results(api, room, tmp_path)
    assert one == two and one[0] == 1, one
    assert [line for line in one[1] if line.startswith("FAIL")] == [
        f"FAIL {chain_name(room)}: the row at position 3 was changed (its content does not hash to its entry_hash)."]


def test_a_format_2_bundle_whose_audit_csv_cannot_be_read_says_so(api, room, tmp_path, monkeypatch):
    """A signed bundle whose audit_log.csv does not have the columns its columns.json describes (an exporter's
    bug, not a tampering: that fails the hashes) is a failure that names the file."""
    from cardroom.transparency import current_key

    _, two = both_formats(room, tmp_path)
    with zipfile.ZipFile(two) as source:
        files = {n: source.read(n) for n in source.namelist() if n not in bundle.RESERVED}
        manifest = json.loads(source.read("manifest.json"))
    files["audit_log.csv"] = files["audit_log.csv"].replace(b"chain,sequence,", b"chain,position,", 1)
    broken = tmp_path / "broken.zip"
    with bundle.BundleWriter(broken) as writer:
        for name, data in files.items():
            writer.add_bytes(name, data)
        writer.finish({k: v for k, v in manifest.items() if k not in ("format", "files")}, current_key()[0])
    code, out = offline("export", str(broken), keys_file=keys_file(api, tmp_path), trust=installation_root(),
                        origin=settings.AUDIT_LOG_ORIGIN)
    assert code == 1 and "FAIL audit_log.csv: its columns (chain, position," in out, out
