"""A closed month is exported once (issue 35, ``exports.closed``): three months of a room closed, the quarter exported
is their own bundles (not rebuilt) under one signed manifest, and the offline verifier says it HOLDS; it says DOES
NOT HOLD, naming the cause, when an inner bundle, the outer manifest or a month's checkpoint is changed."""

import base64
import contextlib
import datetime
import hashlib
import html
import io
import json
import re
import subprocess
import sys
import zipfile

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from cardroom import bundle, checkpoint, tlog, transparency
from cardroom.access import Scope
from cardroom.exceptions import StateConflict
from exports import closed as closed_export
from exports import installation
from exports.collect import ExportScope
from exports.verification import check
from fees import ledger
from fees.models import ClosedMonth
from fees.months import partitions
from fees.months import services as months
from tests.cardroom.test_witnessing import witnesses  # noqa: F401  (the fixture)
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db
postgresql = pytest.mark.services  # closing a month detaches PostgreSQL's partitions

JULY, AUGUST, SEPTEMBER, OCTOBER = (datetime.date(2024, m, 1) for m in (7, 8, 9, 10))
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25"}]}
LONG_AGO = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
SLUG = "casino-marysville"


@pytest.fixture(autouse=True)
def jobs_here(settings):
    """The bundles are built in-process (a services test would otherwise queue them for a worker)."""
    from project.celery import app

    before = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def quarter(people, tmp_path):
    """A round and its collection on a day of each month from July to October 2024; July, August and September
    closed, each into its own archive folder."""
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    partitions.ensure_months(JULY, OCTOBER)
    table = make_posted_table(people.marysville, label="Q-1", effective_from=LONG_AGO)
    for number, month in enumerate((JULY, AUGUST, SEPTEMBER, OCTOBER), start=1):
        day = month.replace(day=10)
        played = datetime.datetime.combine(day, datetime.time(14), tzinfo=table.establishment.zone)
        ledger.record_round(table=table, reference=f"Q-{number}", played_at=played, facts=ROUND)
        ledger.record_entry({"idempotency_key": f"Q-{number}:1", "table": table.pk, "reference": f"Q-{number}",
                             "collected_at": played.isoformat(), "payer": "player", "seat": 1, "fee_kind": "player",
                             "amount": "1.00"}, scope=Scope(people.floor), user=people.floor)
    for month in (JULY, AUGUST, SEPTEMBER):
        months.close(month, [SLUG], archive_dir=tmp_path / f"{month:%Y-%m}")
    return {month: ClosedMonth.objects.get(month=month, reopened_at__isnull=True)
            for month in (JULY, AUGUST, SEPTEMBER)}


def export(tmp_path, start, end, name="quarter.zip"):
    path = tmp_path / name
    installation.export_to_file({"establishment": SLUG, "from": start, "to": end}, path, say=lambda line: None)
    return path


def keys_file(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(transparency.keys_file()))
    return path


def offline(keys, path):
    """``python -m cardroom.tlog --keys ... --trust ... export BUNDLE``: (exit code, output)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = tlog.main(["--keys", str(keys), "--trust", transparency.root_fingerprint(), "--origin",
                          django_settings.AUDIT_LOG_ORIGIN, "export", str(path)])
    return code, out.getvalue()


def rewritten(zip_bytes, changes, key, manifest_change=lambda manifest: None):
    """A bundle with ``changes`` ({name: bytes}) made, its manifest listing them again and signed by ``key``: what
    whoever holds the key could write."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as source:
        manifest = json.loads(source.read("manifest.json"))
        for entry in manifest["files"]:
            if entry["name"] in changes:
                entry.update(sha256=hashlib.sha256(changes[entry["name"]]).hexdigest(),
                             bytes=len(changes[entry["name"]]))
        manifest_change(manifest)
        data = bundle.canonical_json(manifest)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                content = {"manifest.json": data, "manifest.sig": base64.b64encode(key.sign(data)) + b"\n"}.get(
                    info.filename, changes.get(info.filename))
                target.writestr(info, content if content is not None else source.read(info))
    return out.getvalue()


@postgresql
def test_a_quarter_of_closed_months_is_their_bundles_under_one_signed_manifest(quarter, tmp_path):
    path = export(tmp_path, "2024-07-01", "2024-09-30")
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        inner = {entry["name"]: archive.read(entry["name"]) for entry in manifest["bundles"]}
    assert manifest["format"] == bundle.FORMAT_3 and manifest["period"] == {"from": "2024-07-01", "to": "2024-09-30"}
    # The closed months' own bundles, byte for byte as their closings recorded them: none was rebuilt.
    recorded = [closed.bundles[0] for closed in quarter.values()]
    assert [(e["name"], e["sha256"], e["closed_month"]) for e in manifest["bundles"]] == [
        (f"bundles/{b['file']}", b["sha256"], month) for b, month in zip(recorded, ("2024-07", "2024-08", "2024-09"))]
    for b, closed in zip(recorded, quarter.values()):
        assert inner[f"bundles/{b['file']}"] == (tmp_path / f"{closed.month:%Y-%m}" / b["file"]).read_bytes()
    assert manifest["rows"]["rounds"] == 3 and manifest["rows"]["ledger_entries"] == 3
    assert "report.pdf" in {f["name"] for f in manifest["files"]}
    # Each later month carries the proof from the one before (its export came after): no link file is needed.
    assert manifest["links"] == []

    keys = keys_file(tmp_path)
    # Offline, as a regulator runs it: python -m cardroom.tlog, where Django cannot be imported.
    script = ("import runpy, sys; sys.modules['django'] = None; sys.modules['rest_framework'] = None; "
              "runpy.run_module('cardroom.tlog', run_name='__main__', alter_sys=True)")
    done = subprocess.run([sys.executable, "-c", script, "--keys", str(keys), "--trust",
                           transparency.root_fingerprint(), "--origin", django_settings.AUDIT_LOG_ORIGIN, "export",
                           str(path)],
                          cwd=django_settings.BASE_DIR, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "HOLDS"
    names = list(inner)
    for earlier, later in zip(names, names[1:]):  # one log across the quarter, month to month
        assert any(line.startswith(f"OK   link {earlier} -> {later}, ") and "unchanged" in line for line in lines)
    for name in names:  # and each month checked as an export of its own: its audit rows against its checkpoint
        assert any(line.startswith(f"OK   {name}: ") and ("audit rows" in line or "no audit entries in this range" in line) for line in lines), done.stdout
    # The service's check (the verify page, the API) agrees.
    with path.open("rb") as f:
        checked = check(f)
    assert checked.ok, checked.verification.problems
    assert checked.as_dict()["format"] == bundle.FORMAT_3

    key = transparency.current_key()[0]
    data = path.read_bytes()
    july, august = names[0], names[1]

    # (a) One inner bundle changed: its rows.
    with zipfile.ZipFile(io.BytesIO(inner[july])) as month:
        rounds = month.read("rounds.csv")
    changed = tmp_path / "a.zip"
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(changed, "w") as target:
        for info in source.infolist():
            content = source.read(info)
            if info.filename == july:
                content = rewritten(content, {"rounds.csv": rounds.replace(b",1.00,", b",0.10,")},
                                    bundle.generate_private_key())
            target.writestr(info, content)
    code, out = offline(keys, changed)
    assert code == 1 and out.strip().endswith("DOES NOT HOLD")
    # The quarter's manifest no longer vouches for July's bundle, and July's own check says what changed in it.
    assert [line for line in out.splitlines() if line.startswith(f"FAIL {july}: ") and line.endswith(
        "manifest (altered)") or line.startswith(f"FAIL {july}: ") and "bytes, the manifest lists" in line]
    assert f"FAIL {july}: manifest.json has been altered or was not signed by this key" in out, out

    # (b) The outer manifest changed: another period claimed.
    changed = tmp_path / "b.zip"
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(changed, "w") as target:
        for info in source.infolist():
            content = source.read(info)
            target.writestr(info, content.replace(b'"to": "2024-09-30"', b'"to": "2024-12-31"')
                            if info.filename == "manifest.json" else content)
    code, out = offline(keys, changed)
    assert code == 1 and "FAIL manifest.json has been altered or was not signed by this key" in out, out

    # (c) August's checkpoint changed: a checkpoint of another log, its bundle and the quarter's signed again with the
    # installation's own key. Every signature and hash holds; the log does not run unbroken through August.
    with zipfile.ZipFile(io.BytesIO(inner[august])) as month:
        chain = json.loads(month.read("manifest.json"))["audit_chains"][0]
        name = f"checkpoints/{chain['chain'].replace(':', '-')}.txt"
        origin, size, _ = checkpoint.read_body(month.read(name).decode())
    forged = checkpoint.sign(origin, size, hashlib.sha256(b"another log").digest(), transparency.KEY_NAME, key)
    august_bytes = rewritten(inner[august], {name: forged.encode()}, key)

    def listed_again(manifest):
        for entry in manifest["bundles"]:
            if entry["name"] == august:
                entry.update(sha256=hashlib.sha256(august_bytes).hexdigest(), bytes=len(august_bytes))

    changed = tmp_path / "c.zip"
    changed.write_bytes(rewritten(data, {august: august_bytes}, key, listed_again))
    code, out = offline(keys, changed)
    assert code == 1 and out.strip().endswith("DOES NOT HOLD")
    assert f"FAIL link {july} -> {august}, {chain['chain']}: the log of " in out, out
    assert "does NOT hold the" in out
    assert f"FAIL {august}: {chain['chain']}: the bundle's audit rows do not give back the checkpoint's root" in out
    with changed.open("rb") as f:
        checked = check(f)
    assert not checked.ok and any(p.startswith(f"link {july} -> {august}") for p in checked.verification.problems)


@postgresql
def test_closed_months_and_open_days_are_one_bundle(quarter, tmp_path):
    path = export(tmp_path, "2024-09-15", "2024-10-20", name="mixed.zip")
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        # Each inner bundle is put in as it is, stored: a zip deflated again only costs time (issue 43).
        assert {archive.getinfo(e["name"]).compress_type for e in manifest["bundles"]} == {zipfile.ZIP_STORED}
        assert archive.getinfo("report.pdf").compress_type == zipfile.ZIP_DEFLATED
    # September whole (a closed month's bundle is never cut), then the open days of October, built now.
    assert [(e["period"], e.get("closed_month")) for e in manifest["bundles"]] == [
        ({"from": "2024-09-01", "to": "2024-09-30"}, "2024-09"), ({"from": "2024-10-01", "to": "2024-10-20"}, None)]
    assert manifest["rows"]["rounds"] == 2
    code, out = offline(keys_file(tmp_path), path)
    assert code == 0, out


@postgresql
def test_an_export_cut_inside_a_closed_month_says_why_the_whole_month_is_carried(quarter, tmp_path):
    """Issue 42: an export of 10-20 August carried all of closed August with no word why (its report said 11 gaming
    days beside the whole month's entries). The manifest and page 1 of the report say it."""
    from tests.exports.report.test_report import pages

    path = export(tmp_path, "2024-08-10", "2024-08-20", name="cut.zip")
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        summary = pages(archive.read("report.pdf"))[0]
    why = ("August 2024 is closed: its sealed bundle is carried whole, 31 gaming days, 1 entry and 1 round; the "
           "period asked for was 10-20 August (11 gaming days of it).")
    (carried,) = manifest["closed_months"]
    assert carried["why"].startswith(why) and "never cut (closed on " in carried["why"]
    assert (carried["month"], carried["carried"], carried["asked"], carried["gaming_days"]) == (
        "2024-08", {"from": "2024-08-01", "to": "2024-08-31"}, {"from": "2024-08-10", "to": "2024-08-20"}, 31)
    assert carried["rows"]["ledger_entries"] == 1 and carried["bundles"] == [manifest["bundles"][0]["name"]]
    flat = re.sub(r"\s+", " ", summary)
    assert "2024-08-10 to 2024-08-20 (11 gaming days)" in flat and "Closed months " + why in flat
    code, out = offline(keys_file(tmp_path), path)
    assert code == 0, out


def recorded(people, month, tmp_path, data=b"not the bundle"):
    """A closing record of ``month`` naming Casino Marysville's bundle, with ``data`` in its place (SQLite too: the
    record is a row; only closing itself needs PostgreSQL)."""
    folder = tmp_path / f"{month:%Y-%m}"
    folder.mkdir()
    (folder / "month.zip").write_bytes(data)
    row = ClosedMonth.objects.create(month=month, archive_dir=str(folder), closed_at=timezone.now(), closed_by="t",
                                     bundles=[{"establishment": SLUG, "file": "month.zip", "bytes": 2,
                                               "sha256": hashlib.sha256(b"closed").hexdigest()}])
    row.establishments.set([people.marysville])
    return row


def test_a_period_is_cut_where_its_months_are_closed(people, tmp_path):
    recorded(people, AUGUST, tmp_path)
    recorded(people, OCTOBER, tmp_path)
    scope = ExportScope(establishments=[people.marysville], start=datetime.date(2024, 7, 20), end=OCTOBER.replace(
        day=5))
    assert [(first, last, c.month if c else None) for first, last, c, _, _ in closed_export.segments(scope)] == [
        (datetime.date(2024, 7, 20), datetime.date(2024, 7, 31), None),
        (AUGUST, datetime.date(2024, 8, 31), AUGUST),
        (SEPTEMBER, datetime.date(2024, 9, 30), None),
        (OCTOBER, datetime.date(2024, 10, 31), OCTOBER)]  # a closed month is whole, past the period's end
    # Another room's export: those months are not closed for it (the closings did not name it).
    other = ExportScope(establishments=[people.wa_room], start=AUGUST, end=OCTOBER)
    assert closed_export.segments(other) == []


def test_a_closed_months_bundle_not_as_its_closing_recorded_is_not_exported(people, tmp_path):
    row = recorded(people, AUGUST, tmp_path)
    scope = ExportScope(establishments=[people.marysville], start=AUGUST, end=datetime.date(2024, 8, 31))
    with pytest.raises(StateConflict, match="not the .* its closing recorded: it is not the bundle of 2024-08"):
        closed_export.write(scope, tmp_path / "out.zip")
    (tmp_path / "2024-08" / "month.zip").unlink()
    with pytest.raises(StateConflict, match=r"The bundle of 2024-08 for casino-marysville, .*month.zip, is not there"):
        closed_export.write(scope, tmp_path / "again.zip")
    row.reopened_at = timezone.now()  # reopened: its rows are back in the database, exported as any day's
    row.save()
    assert closed_export.segments(scope) == []


@postgresql
def test_the_verify_api_and_page_show_a_bundle_of_bundles_month_by_month_and_who_cosigned_each(
        witnesses, quarter, tmp_path, api, client, people, django_capture_on_commit_callbacks):
    """Issue 41: the service's check of a bundle of bundles says, as the offline verifier does, each inner bundle with
    its period and verdict, the links between the months, and which witness cosigned which checkpoint (each month's
    was submitted when the month was closed). It said "cosigned none" of a genuine one: the names it looked the
    checkpoints up by never matched format 3's."""
    w1, w2 = witnesses
    path = export(tmp_path, "2024-07-01", "2024-09-30")
    with zipfile.ZipFile(path) as archive:
        names = [entry["name"] for entry in json.loads(archive.read("manifest.json"))["bundles"]]
    chain = f"establishment:{people.marysville.pk}"

    api.force_login(people.regulator_ca)
    with path.open("rb") as handle, django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/exports/verify", {"bundle": handle}, format="multipart")
    job = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()
    result = job["result"]
    assert result["ok"] is True and result["format"] == bundle.FORMAT_3, result["problems"]
    for w, line in zip(witnesses, result["witnesses"]):
        assert line.startswith(f"{w.name}: cosigned {names[0]}: {chain} at "), line
        assert all(f"{name}: {chain} at " in line for name in names) and "; not" not in line, line
    assert {name: (inner["ok"], inner["problems"], inner["signature"], inner["period"], inner["closed_month"])
            for name, inner in result["inner"].items()} == {
        name: (True, 0, "valid", {"from": f"2024-{m:02d}-01", "to": f"2024-{m:02d}-{d}"}, f"2024-{m:02d}")
        for name, (m, d) in zip(names, ((7, 31), (8, 31), (9, 30)))}
    assert len(result["links"]) == 2 and all(line.startswith(f"link {a} -> {b}, {chain}: the log of ") for line, (a, b)
                                             in zip(result["links"], zip(names, names[1:]))), result["links"]

    client.force_login(people.regulator_ca)
    page = html.unescape(client.get(f"/regulator/verify/?job={job['uuid']}").content.decode())
    assert "The bundles inside" in page and "Links between months" in page
    for name, month in zip(names, ("07", "08", "09")):
        assert f"<code>{name}</code>" in page and f"(closed month 2024-{month})" in page
    # The page names the log in words (console's log_words), where the API and the verifier give its chain.
    said = f"the audit log of {people.marysville.name}"
    assert f"<li>link {names[0]} -> {names[1]}, {said}: the log of " in page
    assert f"{w1.name}: cosigned {names[0]}: {said} at " in page and "cosigned none" not in page

    # The offline verifier says the same of the witnesses: the newest month's checkpoint carries both cosignatures.
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = tlog.main(["--keys", str(keys_file(tmp_path)), "--trust", transparency.root_fingerprint(), "--origin",
                          django_settings.AUDIT_LOG_ORIGIN, "--witness", w1.name, w1.verifier_key, "--witness",
                          w2.name, w2.verifier_key, "export", str(path)])
    assert code == 0, out.getvalue()
    assert f"OK   {names[-1]}: {chain} checkpoint: cosigned by 2 of the 2 witnesses named (quorum 2): " \
        in out.getvalue()
