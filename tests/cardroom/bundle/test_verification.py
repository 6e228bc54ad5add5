"""The audit export bundle: writing, signing, and verification that names every altered, missing or added file."""

import base64
import hashlib
import io
import json
import os
import random
import stat
import struct
import threading
import zipfile

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.test import TestCase

from cardroom import bundle, keys

PERIOD = {"from": "2026-10-01", "to": "2026-10-31"}
CHAINS = [{"chain": "establishment:casino-marysville", "sequence": 41, "entry_hash": "ab" * 32},
          {"chain": "installation", "sequence": 7, "entry_hash": "cd" * 32}]


@pytest.fixture(autouse=True)
def signing_key_file(settings, tmp_path):
    """Every test signs with a key of its own, kept in a temporary directory (never var/)."""
    settings.SIGNING_KEY = ""
    settings.SIGNING_KEY_FILE = tmp_path / "keys" / "signing-key.pem"
    return settings.SIGNING_KEY_FILE


def streamed_data():
    """A few MiB of incompressible-ish bytes (deterministic), written in many chunks."""
    generator = random.Random(20261031)
    return [generator.randbytes(250_000) + b"row,%d\n" % i * 1000 for i in range(12)]


def contents():
    return {
        "report.pdf": b"%PDF-1.4\n" + bytes(range(256)) * 40 + b"\n%%EOF\n",
        "ledger_entries.csv": b"id,amount,currency\n" + b"".join(b"%d,%d.25,USD\n" % (i, i) for i in range(5000)),
        "ledger_entries.json": json.dumps([{"id": i, "amount": f"{i}.25"} for i in range(500)]).encode(),
        "sub/columns.json": "{\"caf\u00e9\": \"\u20ac\"}".encode(),
    }


def write_bundle(path, key, *, extra_manifest=None):
    """A bundle of several files, one of them streamed in many chunks; returns (manifest, {name: data})."""
    data = contents()
    chunks = streamed_data()
    with bundle.BundleWriter(path) as writer:
        with writer.open("rounds.csv") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.rows = 12_000
        for name, content in data.items():
            writer.add_bytes(name, content, rows=3 if name.endswith(".csv") else None)
        manifest = writer.finish({"period": PERIOD, "audit_chains": CHAINS, "generator": {"name": "cardroom",
                                  "version": "9.9"}, "generated_by": "Zo\u00eb", **(extra_manifest or {})}, key)
    data["rounds.csv"] = b"".join(chunks)
    return manifest, data


@pytest.fixture
def key():
    return bundle.generate_private_key()


@pytest.fixture
def good(tmp_path, key):
    path = tmp_path / "bundle.zip"
    manifest, data = write_bundle(path, key)
    return path, manifest, data


ALL_FILES = ["ledger_entries.csv", "ledger_entries.json", "manifest.json", "manifest.sig", "report.pdf",
             "rounds.csv", "sub/columns.json"]


def rebuild(source, target, *, alter=None, drop=None, add=None, duplicate=None):
    """Copy a zip entry by entry: ``alter`` flips one byte in that entry's content, ``drop`` leaves it out,
    ``add`` = (name, data) appends a file, ``duplicate`` adds a second entry of that name."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename == drop:
                continue
            data = old.read(info)
            if info.filename == alter:
                changed = bytearray(data)
                changed[len(changed) // 2] ^= 0x01
                data = bytes(changed)
            new.writestr(info, data)
        if add:
            new.writestr(*add)
        if duplicate:
            new.writestr(duplicate, b"forged")
    return target


def flip_raw_byte(path, name):
    """Flip one bit of the stored (compressed) data of entry ``name`` in the zip file on disk."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    raw = bytearray(path.read_bytes())
    name_length, extra_length = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_length + extra_length
    raw[start + info.compress_size // 2] ^= 0x01
    path.write_bytes(bytes(raw))


# --- writing and reading back -----------------------------------------------------------------------------------


def test_round_trip_verifies_and_the_manifest_lists_every_file_with_its_hash(good, key):
    path, written, data = good
    result = bundle.verify(path, key.public_key())
    assert result.ok, result.problems
    assert result.problems == []
    manifest = result.manifest
    assert manifest == written
    assert manifest["format"] == "cardroom-audit-bundle/2" and result.format == manifest["format"]
    assert manifest["period"] == PERIOD and manifest["audit_chains"] == CHAINS
    assert [f["name"] for f in manifest["files"]] == sorted(data)
    for entry in manifest["files"]:
        assert entry["sha256"] == hashlib.sha256(data[entry["name"]]).hexdigest()
        assert entry["bytes"] == len(data[entry["name"]])
    rows = {f["name"]: f.get("rows") for f in manifest["files"]}
    assert rows == {"ledger_entries.csv": 3, "ledger_entries.json": None, "report.pdf": None, "rounds.csv": 12_000,
                    "sub/columns.json": None}
    assert "rows" not in next(f for f in manifest["files"] if f["name"] == "report.pdf")
    assert len(data["rounds.csv"]) > 2 * bundle.CHUNK  # hashed in several chunks when verified

    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == sorted(ALL_FILES)
        for name, content in data.items():
            assert archive.read(name) == content
            assert archive.getinfo(name).compress_type == zipfile.ZIP_DEFLATED
        manifest_bytes = archive.read("manifest.json")
        signature = archive.read("manifest.sig")
    # manifest.json is the canonical serialization; manifest.sig is base64 of its Ed25519 signature, one line.
    assert manifest_bytes == json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False).encode()
    assert "Zo\u00eb" in manifest_bytes.decode("utf-8")  # UTF-8, not \u escapes
    assert signature.endswith(b"\n") and signature.count(b"\n") == 1
    key.public_key().verify(base64.b64decode(signature), manifest_bytes)  # raises if it does not verify


def test_verify_accepts_the_public_key_as_pem_base64_or_a_file_object(good, key):
    path, _, _ = good
    assert bundle.verify(path, bundle.public_key_pem(key)).ok
    assert bundle.verify(path, bundle.public_key_base64(key).encode()).ok
    assert bundle.verify(io.BytesIO(path.read_bytes()), key).ok


def test_writer_streams_into_a_file_object_and_leaves_it_open(key):
    target = io.BytesIO()
    with bundle.BundleWriter(target) as writer:
        writer.add_bytes("a.csv", b"a\n1\n", rows=1)
        writer.finish({}, key)
    assert not target.closed
    target.seek(0)
    result = bundle.verify(target, key.public_key())
    assert result.ok and result.manifest["files"] == [
        {"name": "a.csv", "sha256": hashlib.sha256(b"a\n1\n").hexdigest(), "bytes": 4, "rows": 1}]


REFUSED_NAMES = {"manifest.json": "the bundle's own file", "manifest.sig": "the bundle's own file",
                 "": "needs a non-empty name", "/etc/passwd": "not a usable file name",
                 "a/../b": "not a usable file name", "a\\b": "not a usable file name", "dir/": "not a usable file name"}


@pytest.mark.parametrize("name", list(REFUSED_NAMES))
def test_writer_refuses_reserved_and_unusable_names(tmp_path, name):
    with bundle.BundleWriter(tmp_path / "b.zip") as writer:
        with pytest.raises(ValueError, match=REFUSED_NAMES[name]):
            writer.add_bytes(name, b"x")
        writer.close()


def test_writer_refuses_a_name_twice_and_manifest_keys_it_writes_itself(tmp_path, key):
    writer = bundle.BundleWriter(tmp_path / "b.zip")
    writer.add_bytes("a.csv", b"1")
    with pytest.raises(ValueError, match="already"):
        writer.add_bytes("a.csv", b"2")
    with pytest.raises(ValueError, match="files"):
        writer.finish({"files": []}, key)
    with pytest.raises(TypeError, match="signed with an Ed25519 private key"):
        writer.finish({}, key.public_key())
    writer.finish({}, key)
    assert bundle.verify(tmp_path / "b.zip", key).ok
    with pytest.raises(RuntimeError, match="the bundle is finished"):
        writer.add_bytes("late.csv", b"1")


def test_a_failed_file_or_a_missing_finish_never_yields_a_signed_bundle(tmp_path, key):
    with pytest.raises(ZeroDivisionError):
        with bundle.BundleWriter(tmp_path / "failed.zip") as writer:
            with writer.open("a.csv") as handle:
                handle.write(b"partial")
                1 / 0
    with pytest.raises(RuntimeError, match="finish"):
        with bundle.BundleWriter(tmp_path / "unfinished.zip") as writer:
            writer.add_bytes("a.csv", b"1")
    for name in ("failed.zip", "unfinished.zip"):
        result = bundle.verify(tmp_path / name, key)
        assert not result.ok
        assert any("manifest.json: missing" in p for p in result.problems)

    writer = bundle.BundleWriter(tmp_path / "broken.zip")
    with pytest.raises(ValueError, match="the data could not be read"):  # the writer's caller's own error
        with writer.open("a.csv") as handle:
            raise ValueError("the data could not be read")
    with pytest.raises(RuntimeError, match="failed"):
        writer.finish({}, key)
    writer.close()


# --- tampering ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FILES)
def test_one_byte_changed_in_any_file_fails_and_names_it(good, key, tmp_path, name):
    path, _, _ = good
    altered = rebuild(path, tmp_path / "altered.zip", alter=name)
    result = bundle.verify(altered, key.public_key())
    assert not result.ok
    assert any(problem.startswith(name) or f"{name} " in problem for problem in result.problems), result.problems
    if name not in ("manifest.json", "manifest.sig"):
        # The manifest and its signature are intact: only the altered file is named.
        assert result.problems == [f"{name}: SHA-256 does not match the manifest (altered)"]


@pytest.mark.parametrize("name", ALL_FILES)
def test_one_raw_byte_flipped_on_disk_fails_and_names_the_file(good, key, name):
    path, _, _ = good
    flip_raw_byte(path, name)
    result = bundle.verify(path, key.public_key())  # must not raise (CRC or deflate errors are reported)
    assert not result.ok
    assert any(problem.startswith(f"{name}:") for problem in result.problems), result.problems
    assert any("altered" in problem for problem in result.problems)


@pytest.mark.parametrize("name", ALL_FILES)
def test_a_removed_file_fails_and_is_named(good, key, tmp_path, name):
    path, _, _ = good
    result = bundle.verify(rebuild(path, tmp_path / "removed.zip", drop=name), key.public_key())
    assert not result.ok
    if name == "manifest.json":
        assert "manifest.json: missing from the bundle" in result.problems
    elif name == "manifest.sig":
        assert any(p.startswith("manifest.sig: missing from the bundle") for p in result.problems)
    else:
        assert result.problems == [f"{name}: listed in the manifest but missing from the bundle"]


def test_an_added_file_fails_and_is_named(good, key, tmp_path):
    path, _, _ = good
    result = bundle.verify(rebuild(path, tmp_path / "added.zip", add=("extra.txt", b"hello")), key)
    assert result.problems == ["extra.txt: in the bundle but not listed in the manifest"]
    assert not result.ok


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_a_second_entry_under_a_listed_name_fails_and_is_named(good, key, tmp_path):
    path, _, _ = good
    result = bundle.verify(rebuild(path, tmp_path / "twice.zip", duplicate="report.pdf"), key)
    assert not result.ok
    assert any(p.startswith("report.pdf: in the bundle 2 times") for p in result.problems), result.problems


def test_another_key_is_a_signature_problem(good):
    path, _, _ = good
    other = bundle.generate_private_key().public_key()
    result = bundle.verify(path, other)
    assert not result.ok
    assert len(result.problems) == 1
    assert "manifest.json has been altered or was not signed by this key" in result.problems[0]
    assert bundle.fingerprint(other) in result.problems[0]


def test_a_manifest_re_signed_by_another_key_does_not_verify(good, key, tmp_path):
    """Someone who alters a file and rewrites the manifest to match cannot sign it with this key."""
    path, manifest, data = good
    forger = bundle.generate_private_key()
    data["report.pdf"] = b"%PDF forged"
    with bundle.BundleWriter(tmp_path / "forged.zip") as writer:
        for name, content in data.items():
            writer.add_bytes(name, content)
        writer.finish({k: v for k, v in manifest.items() if k not in ("files", "format")}, forger)
    assert bundle.verify(tmp_path / "forged.zip", forger).ok
    result = bundle.verify(tmp_path / "forged.zip", key)
    assert not result.ok and "not signed by this key" in result.problems[0]


@pytest.mark.parametrize("content", [b"", b"not a zip at all", b"PK\x03\x04" + b"\x00" * 100])
def test_not_a_zip_is_a_problem_not_an_exception(tmp_path, key, content):
    path = tmp_path / "junk.zip"
    path.write_bytes(content)
    result = bundle.verify(path, key)
    assert not result.ok and result.manifest is None
    assert "zip" in result.problems[0]


def test_a_truncated_or_missing_bundle_is_a_problem(good, key, tmp_path):
    path, _, _ = good
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert not bundle.verify(truncated, key).ok
    result = bundle.verify(tmp_path / "nowhere.zip", key)
    assert not result.ok and "no such file" in result.problems[0]


def _signed_zip(path, key, manifest_bytes, files=()):
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in files:
            archive.writestr(name, content)
        archive.writestr("manifest.json", manifest_bytes)
        archive.writestr("manifest.sig", base64.b64encode(key.sign(manifest_bytes)) + b"\n")
    return path


def test_a_signed_manifest_of_the_wrong_format_is_reported(tmp_path, key):
    not_json = bundle.verify(_signed_zip(tmp_path / "a.zip", key, b"{not json"), key)
    assert not not_json.ok and not_json.problems[0].startswith("manifest.json: not valid JSON")
    wrong = bundle.verify(_signed_zip(tmp_path / "b.zip", key, b'{"format": "other/2", "files": []}'), key)
    assert wrong.problems == ["manifest.json: format is 'other/2', expected 'cardroom-audit-bundle/1' or "
                              "'cardroom-audit-bundle/2' or 'cardroom-audit-bundle/3'"]
    later = bundle.verify(_signed_zip(tmp_path / "d.zip", key, b'{"format": "cardroom-audit-bundle/4", "files": []}'),
                          key)
    assert later.problems == ["manifest.json: format is 'cardroom-audit-bundle/4', expected "
                              "'cardroom-audit-bundle/1' or 'cardroom-audit-bundle/2' or 'cardroom-audit-bundle/3'"]
    assert not later.ok
    bad_entry = json.dumps({"format": bundle.FORMAT, "files": [{"name": "a.csv", "sha256": "zz", "bytes": 1}]})
    result = bundle.verify(_signed_zip(tmp_path / "c.zip", key, bad_entry.encode(), [("a.csv", b"1")]), key)
    assert "manifest.json: the entry for a.csv has no valid SHA-256 (wrong format)" in result.problems
    assert "a.csv: in the bundle but not listed in the manifest" in result.problems


def test_a_longer_file_than_listed_is_named(tmp_path, key):
    listed = {"format": bundle.FORMAT, "files": [{"name": "a.csv", "sha256": hashlib.sha256(b"12").hexdigest(),
                                                  "bytes": 2}]}
    path = _signed_zip(tmp_path / "a.zip", key, bundle.canonical_json(listed), [("a.csv", b"123")])
    assert bundle.verify(path, key).problems == ["a.csv: more than the 2 bytes the manifest lists (altered)"]


# --- keys -----------------------------------------------------------------------------------------------------


def test_key_helpers_round_trip_and_fingerprint(key):
    pem = bundle.private_key_pem(key)
    assert pem.startswith("-----BEGIN PRIVATE KEY-----")
    assert bundle.public_key_raw(bundle.load_private_key(pem)) == bundle.public_key_raw(key)
    assert bundle.public_key_raw(bundle.load_private_key(pem.encode())) == bundle.public_key_raw(key)
    raw_private = key.private_bytes_raw()
    assert bundle.public_key_raw(bundle.load_private_key(base64.b64encode(raw_private))) == bundle.public_key_raw(key)

    public_pem = bundle.public_key_pem(key)
    assert public_pem.startswith("-----BEGIN PUBLIC KEY-----") and public_pem == bundle.public_key_pem(key.public_key())
    raw = bundle.public_key_raw(key)
    assert len(raw) == 32
    for form in (public_pem, public_pem.encode(), base64.b64encode(raw).decode(), bundle.public_key_base64(key)):
        assert bundle.public_key_raw(bundle.load_public_key(form)) == raw
    expected = "SHA256:" + hashlib.sha256(raw).hexdigest()
    assert bundle.fingerprint(key) == bundle.fingerprint(key.public_key()) == expected


@pytest.mark.parametrize("text", ["", "hello", base64.b64encode(b"short").decode(), "-----BEGIN PUBLIC KEY-----\nxx"])
def test_unusable_keys_are_value_errors(text):
    with pytest.raises(ValueError, match="public key"):
        bundle.load_public_key(text)
    with pytest.raises(ValueError, match="private key"):
        bundle.load_private_key(text)


def test_a_key_of_another_algorithm_is_refused():
    from cryptography.hazmat.primitives import serialization

    other = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    public = other.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)
    with pytest.raises(ValueError, match="not an Ed25519"):
        bundle.load_public_key(public)


def test_installation_key_is_created_once_0600_and_reused(signing_key_file):
    assert not signing_key_file.exists()
    key = keys.installation_key()
    assert signing_key_file.exists()
    assert stat.S_IMODE(signing_key_file.stat().st_mode) == 0o600
    assert keys.installation_key() is key  # cached
    from_file = bundle.load_private_key(signing_key_file.read_bytes())
    assert bundle.fingerprint(from_file) == keys.key_fingerprint() == bundle.fingerprint(key)
    assert keys.public_key_pem() == bundle.public_key_pem(key)
    assert [p.name for p in signing_key_file.parent.iterdir()] == ["signing-key.pem"]  # no temporary file left


def test_an_existing_key_file_is_used(settings, tmp_path):
    existing = bundle.generate_private_key()
    path = tmp_path / "given.pem"
    path.write_text(bundle.private_key_pem(existing))
    settings.SIGNING_KEY_FILE = path
    assert keys.key_fingerprint() == bundle.fingerprint(existing)


@pytest.mark.parametrize("form", ["pem", "base64"])
def test_signing_key_setting_wins_over_the_file(settings, signing_key_file, form):
    given = bundle.generate_private_key()
    settings.SIGNING_KEY = (bundle.private_key_pem(given) if form == "pem"
                            else base64.b64encode(given.private_bytes_raw()).decode())
    assert keys.key_fingerprint() == bundle.fingerprint(given)
    assert not signing_key_file.exists()


def test_an_unusable_signing_key_is_a_configuration_error(settings, tmp_path):
    settings.SIGNING_KEY = "not a key"
    with pytest.raises(ImproperlyConfigured, match="SIGNING_KEY"):
        keys.installation_key()
    settings.SIGNING_KEY = ""
    settings.SIGNING_KEY_FILE = tmp_path / "bad.pem"
    settings.SIGNING_KEY_FILE.write_text("garbage")
    with pytest.raises(ImproperlyConfigured, match="bad.pem"):
        keys.installation_key()


def test_a_process_that_loses_the_race_signs_with_the_winners_key(tmp_path, monkeypatch):
    """Another process writes the file between our look and our write: we use its key, not ours."""
    path = tmp_path / "race" / "signing-key.pem"
    winner = bundle.generate_private_key()
    generate = bundle.generate_private_key

    def generate_while_another_process_wins():
        path.write_text(bundle.private_key_pem(winner))
        return generate()

    monkeypatch.setattr(keys.bundle, "generate_private_key", generate_while_another_process_wins)
    assert bundle.fingerprint(keys.load_or_create(path)) == bundle.fingerprint(winner)
    assert bundle.load_private_key(path.read_bytes()).private_bytes_raw() == winner.private_bytes_raw()


def test_concurrent_first_uses_agree_on_one_key(tmp_path):
    path = tmp_path / "concurrent" / "signing-key.pem"
    barrier, found = threading.Barrier(8), []

    def first_use():
        barrier.wait()
        found.append(bundle.fingerprint(keys.load_or_create(path)))

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8 and len(set(found)) == 1
    assert found[0] == bundle.fingerprint(bundle.load_private_key(path.read_bytes()))
    assert os.listdir(path.parent) == ["signing-key.pem"]


# --- the command ----------------------------------------------------------------------------------------------


@pytest.fixture
def installation_bundle(tmp_path, db):
    path = tmp_path / "installation.zip"
    manifest, data = write_bundle(path, keys.installation_key())
    return path, manifest, data


def test_verify_export_succeeds_on_a_good_bundle(installation_bundle, capsys):
    path, _, data = installation_bundle
    call_command("verify_export", str(path))
    out = capsys.readouterr().out
    assert out.startswith(f"OK: {len(data)} files verified; format cardroom-audit-bundle/2; manifest signed by "
                          f"{keys.key_fingerprint()}")
    assert "period 2026-10-01 to 2026-10-31" in out
    assert "establishment:casino-marysville #41" in out and "installation #7" in out


def test_verify_export_fails_naming_the_altered_file(installation_bundle, tmp_path):
    path, _, _ = installation_bundle
    altered = rebuild(path, tmp_path / "altered.zip", alter="ledger_entries.csv", add=("extra.txt", b"x"))
    with pytest.raises(CommandError) as failure:
        call_command("verify_export", str(altered))
    message = str(failure.value)
    assert "ledger_entries.csv: SHA-256 does not match the manifest (altered)" in message
    assert "extra.txt: in the bundle but not listed in the manifest" in message
    assert "2 problems" in message


def test_verify_export_with_another_public_key(installation_bundle, tmp_path):
    path, _, _ = installation_bundle
    right = tmp_path / "right.pub"
    right.write_text(bundle.public_key_base64(keys.installation_key()) + "\n")
    call_command("verify_export", str(path), "--public-key", str(right))
    wrong = tmp_path / "wrong.pem"
    wrong.write_text(bundle.public_key_pem(bundle.generate_private_key()))
    with pytest.raises(CommandError, match="not signed by this key"):
        call_command("verify_export", str(path), "--public-key", str(wrong))
    with pytest.raises(CommandError, match="nowhere.pem"):
        call_command("verify_export", str(path), "--public-key", str(tmp_path / "nowhere.pem"))


def test_verify_export_on_a_missing_file(tmp_path):
    with pytest.raises(CommandError, match="missing.zip: no such file"):
        call_command("verify_export", str(tmp_path / "missing.zip"))


# --- the API --------------------------------------------------------------------------------------------------


def test_public_key_endpoint_is_public_and_matches_the_installation_key(api, db):
    response = api.get("/api/v1/exports/public-key")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["algorithm"] == "Ed25519"
    assert body["public_key_pem"] == keys.public_key_pem()
    assert body["fingerprint"] == keys.key_fingerprint()
    assert bundle.fingerprint(bundle.load_public_key(body["public_key"])) == keys.key_fingerprint()


def _upload(api, path, **fields):
    """Post a bundle to check and read the check's job once it ran (in-process, once the request commits)."""
    with open(path, "rb") as handle:
        return _post(api, {"bundle": handle, **fields})


def _post(api, form):
    with TestCase.captureOnCommitCallbacks(execute=True):
        answer = api.post("/api/v1/exports/verify", form, format="multipart")
    if answer.status_code != 202:
        return answer
    job = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/")
    assert job.status_code == 200, job.content
    return job


def test_verify_endpoint_needs_a_login(api, installation_bundle, db):
    path, _, _ = installation_bundle
    response = _upload(api, path)
    assert response.status_code == 401
    assert "error" in response.json()


def test_verify_endpoint_checks_a_bundle_in_a_job_of_who_asked(api, people, installation_bundle, tmp_path,
                                                               settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    path, manifest, _ = installation_bundle
    api.force_login(people.regulator_ca)
    with open(path, "rb") as handle, TestCase.captureOnCommitCallbacks(execute=True):
        answer = api.post("/api/v1/exports/verify", {"bundle": handle}, format="multipart")
    assert answer.status_code == 202, answer.content
    assert answer.json()["kind"] == "bundle_verify" and answer.json()["params"]["bundle"] == "installation.zip"
    job = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()
    assert job["status"] == "done" and job["download"] is None
    assert job["result"] == {"ok": True, "problems": [], "problems_left_out": 0, "format": "cardroom-audit-bundle/2",
                             "manifest": manifest, "manifest_left_out": False,
                             "public_key_fingerprint": keys.key_fingerprint(), "installation_key": True,
                             "origin": settings.AUDIT_LOG_ORIGIN, "signature": "valid",
                             "files": {name: "ok" for name in contents()} | {"rounds.csv": "ok"},
                             "files_left_out": 0,
                             "folder": None, "kept": []}  # zipped as made (no top folder), no kept checkpoint given
    assert not any(p.is_file() for p in (tmp_path / "media").rglob("*"))  # the upload is removed once checked

    altered = rebuild(path, tmp_path / "altered.zip", alter="report.pdf")
    body = _upload(api, altered).json()["result"]
    assert body["ok"] is False
    assert body["problems"] == ["report.pdf: SHA-256 does not match the manifest (altered)"]

    flip_raw_byte(path, "rounds.csv")
    body = _upload(api, path).json()["result"]
    assert body["ok"] is False and body["problems"][0].startswith("rounds.csv:")

    # Seen by who asked and administrators alone: not another regulator, nor a compliance officer of the room.
    for other in (people.regulator_wa, people.compliance):
        api.force_login(other)
        assert api.get(f"/api/v1/jobs/{job['uuid']}/").status_code == 404
        assert job["uuid"] not in api.get("/api/v1/jobs/?kind=bundle_verify").content.decode()
    api.force_login(people.admin)
    assert api.get(f"/api/v1/jobs/{job['uuid']}/").status_code == 200


def test_verify_endpoint_is_for_regulators_compliance_officers_and_administrators(api, people, installation_bundle):
    from cardroom.models import Job

    path, _, _ = installation_bundle
    for user in (people.floor, people.outsider):
        api.force_login(user)
        response = _upload(api, path)
        assert response.status_code == 403
        assert response.json()["error"]["message"] == ("Bundles are verified by regulators, compliance officers "
                                                       "and administrators.")
    assert not Job.objects.exists()
    for user in (people.regulator_ca, people.compliance, people.admin):
        api.force_login(user)
        assert _upload(api, path).json()["result"]["ok"] is True


def test_verify_endpoint_against_another_public_key(api, people, tmp_path):
    other = bundle.generate_private_key()
    path = tmp_path / "other.zip"
    write_bundle(path, other)
    api.force_login(people.compliance)
    assert _upload(api, path).json()["result"]["ok"] is False
    body = _upload(api, path, public_key=bundle.public_key_pem(other)).json()["result"]
    assert body["ok"] is True and body["public_key_fingerprint"] == bundle.fingerprint(other)
    as_file = _upload(api, path, public_key=io.BytesIO(bundle.public_key_base64(other).encode())).json()["result"]
    assert as_file["ok"] is True and as_file["public_key_fingerprint"] == bundle.fingerprint(other)
    response = _upload(api, path, public_key="not a key")
    assert response.status_code == 400
    assert response.json()["error"]["status"] == 400 and "public_key" in response.json()["error"]["message"]


def test_verify_endpoint_without_a_file_is_a_400(api, people):
    api.force_login(people.compliance)
    response = api.post("/api/v1/exports/verify", {}, format="multipart")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["status"] == 400 and "bundle" in error["message"]
    not_zip = _post(api, {"bundle": io.BytesIO(b"hello")})
    assert not_zip.status_code == 200 and not_zip.json()["result"]["ok"] is False


# --- a bundle unzipped and zipped again by the regulator's own tools (docs/exports.md, "A bundle zipped again") ------


def _zip_again(source, target, *, folder="", order=reversed, compression=zipfile.ZIP_BZIP2, extra=()):
    """The files' bytes, unchanged, zipped again: in another order, compressed otherwise, dated otherwise, with each
    folder's own entry, under ``folder`` when given; ``extra``: (name, data) pairs added."""
    with zipfile.ZipFile(source) as old:
        files = [(info.filename, old.read(info)) for info in old.infolist()]
    moment = (2031, 7, 8, 9, 10, 12)
    prefix = f"{folder}/" if folder else ""
    with zipfile.ZipFile(target, "w", compression) as new:
        for directory in ([prefix] if folder else []) + [f"{prefix}sub/"]:
            new.writestr(zipfile.ZipInfo(directory, moment), b"")
        for name, data in order(files):
            new.writestr(zipfile.ZipInfo(prefix + name, moment), data, compress_type=compression)
        for name, data in extra:
            new.writestr(name, data)
    return target


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_bundle_zipped_again_in_another_order_and_compression_with_folder_entries_verifies(good, key, tmp_path,
                                                                                            compression):
    path, _, _ = good
    result = bundle.verify(_zip_again(path, tmp_path / "again.zip", compression=compression), key.public_key())
    assert result.ok, result.problems
    assert result.folder is None
    assert sorted(result.files) == [n for n in ALL_FILES if n not in bundle.RESERVED]
    assert set(result.files.values()) == {"ok"}


def test_a_bundle_zipped_again_inside_one_top_folder_verifies_and_says_the_folder(good, key, tmp_path):
    path, _, _ = good
    result = bundle.verify(_zip_again(path, tmp_path / "again.zip", folder="audit-2026-10"), key.public_key())
    assert result.ok, result.problems
    assert result.folder == "audit-2026-10"
    assert set(result.files.values()) == {"ok"}


def test_a_file_added_beside_the_top_folder_or_into_it_is_still_named(good, key, tmp_path):
    path, _, _ = good
    beside = bundle.verify(_zip_again(path, tmp_path / "a.zip", folder="audit", extra=[("notes.txt", b"x")]),
                           key.public_key())
    # Not every file is in the one folder: no folder is taken off, and every file is named as it is.
    assert not beside.ok and beside.folder is None
    assert "manifest.json: missing from the bundle" in beside.problems
    assert beside.files["notes.txt"] == beside.files["audit/report.pdf"] == "unchecked"
    inside = bundle.verify(_zip_again(path, tmp_path / "b.zip", folder="audit", extra=[("audit/notes.txt", b"x")]),
                           key.public_key())
    assert inside.problems == ["notes.txt: in the bundle but not listed in the manifest"]
    assert inside.folder == "audit"


def test_a_folder_entry_with_content_is_a_file_added(good, key, tmp_path):
    path, _, _ = good
    result = bundle.verify(_zip_again(path, tmp_path / "a.zip", extra=[("sub2/", b"hidden")]), key.public_key())
    assert result.problems == ["sub2/: in the bundle but not listed in the manifest"]


def test_folder_entries_count_against_the_member_limit(good, key, tmp_path):
    path, _, _ = good
    again = _zip_again(path, tmp_path / "again.zip", folder="audit")  # 7 files and 2 folders' entries
    assert bundle.verify(again, key.public_key(), bundle.Limits(max_members=8)).problems == [
        "the bundle holds 9 files, more than the 8 a bundle may hold (not checked)"]


def test_a_bundle_unzipped_and_zipped_again_with_zip_r_verifies(good, key, tmp_path):
    import shutil
    import subprocess

    if shutil.which("zip") is None:
        pytest.skip("the zip command is not installed")
    path, _, _ = good
    unpacked = tmp_path / "audit-2026-10"
    with zipfile.ZipFile(path) as archive:
        archive.extractall(unpacked)
    os.utime(unpacked / "report.pdf", (0, 0))
    subprocess.run(["zip", "-q", "-r", "-9", str(tmp_path / "top.zip"), "audit-2026-10"], cwd=tmp_path, check=True)
    subprocess.run(["zip", "-q", "-r", "-0", str(tmp_path / "flat.zip"), "."], cwd=unpacked, check=True)
    top = bundle.verify(tmp_path / "top.zip", key.public_key())
    assert top.ok and top.folder == "audit-2026-10", top.problems
    flat = bundle.verify(tmp_path / "flat.zip", key.public_key())
    assert flat.ok and flat.folder is None, flat.problems
