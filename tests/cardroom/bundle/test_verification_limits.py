"""Checking a bundle cannot take the service down (issue 23): a bundle past the limits (files, zip directory,
sizes against the manifest and in all, compression ratio) is refused with the reason before it is unpacked, and
the service checks uploads in the background, for those whose job it is."""

import base64
import io
import json
import os
import random
import struct
import time
import tracemalloc
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase

from cardroom import bundle, keys
from cardroom.models import Job
from exports import verification

GIB = 1 << 30


@pytest.fixture
def key():
    return bundle.generate_private_key()


def _signed(archive, key, files):
    """Write manifest.json listing ``files`` ({name: (sha256, bytes)}) and its signature into an open zip."""
    manifest = bundle.canonical_json({"format": bundle.FORMAT, "files": [
        {"name": name, "sha256": sha, "bytes": size} for name, (sha, size) in sorted(files.items())]})
    archive.writestr("manifest.json", manifest)
    archive.writestr("manifest.sig", base64.b64encode(key.sign(manifest)) + b"\n")


def _claiming(key, *, claimed, listed, real=64 << 20, compress_size=None, fill=bytes(1 << 20)):
    """A small zip whose rounds.csv really unzips to ``real`` bytes (``fill`` repeated: zeros) while its zip directory
    claims ``claimed`` (and ``compress_size`` zipped bytes when given), and whose signed manifest lists ``listed``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo("rounds.csv")
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as stream:
            for _ in range(real >> 20):
                stream.write(fill)
        written = archive.filelist[-1]
        written.file_size = claimed  # the central directory, which readers go by, says so
        if compress_size is not None:
            written.compress_size = compress_size
        _signed(archive, key, {"rounds.csv": ("0" * 64, listed)})
    return out.getvalue()


@pytest.fixture
def unpacked(monkeypatch):
    """How many bytes were unzipped from the bundle's members (all of them, manifest included)."""
    seen = {"bytes": 0}
    read = zipfile.ZipExtFile.read

    def counting(self, n=-1):
        data = read(self, n)
        seen["bytes"] += len(data)
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting)
    return seen


def test_a_small_zip_naming_a_10_gib_member_is_refused_without_unzipping_it(key, unpacked):
    data = _claiming(key, claimed=10 * GIB, listed=10 * GIB)
    assert len(data) < 1 << 20  # 64 MiB of zeros, and a header that says 10 GiB
    result = bundle.verify(io.BytesIO(data), key)
    assert not result.ok and result.signature == "valid" and result.files == {"rounds.csv": "unchecked"}
    assert len(result.problems) == 1
    assert result.problems[0].startswith("rounds.csv: ") and "unzip to 10,737,418,240" in result.problems[0]
    assert "zip bomb" in result.problems[0]
    assert unpacked["bytes"] < 1 << 20  # the manifest and its signature; not a byte of rounds.csv


@pytest.mark.parametrize("claimed, listed, problem", [
    (10 * GIB, 100, "rounds.csv: more than the 100 bytes the manifest lists (altered)"),
    (100, 10 * GIB, "rounds.csv: 100 bytes, the manifest lists 10,737,418,240 (altered)"),
])
def test_a_member_whose_zip_header_and_manifest_disagree_is_altered_unread(key, unpacked, claimed, listed, problem):
    result = bundle.verify(io.BytesIO(_claiming(key, claimed=claimed, listed=listed)), key)
    assert result.problems == [problem] and result.files == {"rounds.csv": "altered"}
    assert unpacked["bytes"] < 1 << 20


def test_members_claiming_more_zipped_bytes_than_the_bundle_has_are_not_unzipped(key, unpacked):
    """Overlapping members (each pointing at the same compressed bytes) multiply what a small zip unzips to."""
    data = _claiming(key, claimed=64 << 20, listed=64 << 20, compress_size=50 << 20)
    result = bundle.verify(io.BytesIO(data), key)
    assert not result.ok and result.files == {"rounds.csv": "unchecked"}
    zipped, _ = _declared(data)
    assert zipped > 50 << 20 > len(data)
    assert result.problems == [f"the bundle's files claim {zipped:,} zipped bytes, more than the bundle's "
                               f"{len(data):,} (overlapping or altered zip entries: not checked)"]
    assert unpacked["bytes"] < 1 << 20


def test_a_bundle_unzipping_past_the_total_cap_is_not_unzipped(key, unpacked):
    data = _claiming(key, claimed=4 << 20, listed=4 << 20, real=4 << 20, fill=random.Random(23).randbytes(1 << 20))
    result = bundle.verify(io.BytesIO(data), key, bundle.Limits(max_total_bytes=1 << 20))
    assert result.files == {"rounds.csv": "unchecked"}
    assert result.problems == [f"the bundle's files unzip to {_declared(data)[1]:,} bytes, more than the "
                               f"1,048,576 of the largest export (not checked)"]
    assert unpacked["bytes"] < 1 << 20
    # Within the cap it is checked (and its made-up SHA-256 does not match).
    result = bundle.verify(io.BytesIO(data), key, bundle.Limits(max_total_bytes=8 << 20))
    assert result.problems == ["rounds.csv: SHA-256 does not match the manifest (altered)"]


def _declared(data):
    """(zipped, unzipped) bytes of all the members, as the zip directory declares them."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
    return sum(i.compress_size for i in infos), sum(i.file_size for i in infos)


def _empty_members(count):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for index in range(count):
            archive.writestr(f"f{index}", b"")
    return out.getvalue()


@pytest.fixture(scope="module")
def hundred_thousand():
    return _empty_members(100_000)  # 8.8 MB; zipfile makes a ~500-byte record of each member it lists


def test_a_zip_of_100_000_empty_members_is_refused_before_they_are_listed(key, hundred_thousand, db):
    tracemalloc.start()
    try:
        result = bundle.verify(io.BytesIO(hundred_thousand), key)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        # The service's path too: the key that signed it is not looked for in the bundle first.
        checked = verification.verify_upload(SimpleUploadedFile("many.zip", hundred_thousand))
        _, service_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    problem = "the bundle holds 100,000 files, more than the 1,000 a bundle may hold (not checked)"
    assert result.problems == [problem] and result.files == {} and result.manifest is None
    assert checked.verification.problems == [problem]
    assert checked.public_key_fingerprint == keys.key_fingerprint()
    assert peak < 1 << 20 and service_peak < 4 << 20, (peak, service_peak)


def test_a_zip_directory_larger_than_its_members_need_is_refused(key):
    """An end record that understates the members: the directory's size still gives them away, or their count once
    listed (within a directory small enough to list)."""
    data = bytearray(_empty_members(1500))
    end = data.rfind(b"PK\x05\x06")
    data[end + 8:end + 12] = (3).to_bytes(2, "little") * 2  # entries on this disk, and in all: 3
    result = bundle.verify(io.BytesIO(bytes(data)), key)
    assert result.problems[0] == "the bundle holds 1,500 files, more than the 1,000 a bundle may hold (not checked)"
    small = bundle.Limits(max_members=20)
    refused = bundle.verify(io.BytesIO(bytes(data)), key, small)
    assert refused.problems == [f"the bundle's zip directory is {_directory_size(data):,} bytes, more than the "
                                f"20,480 of 20 files (not checked)"]


def _directory_size(data):
    end = data.rfind(b"PK\x05\x06")
    return int.from_bytes(data[end + 12:end + 16], "little")


# --- the service: in the background, within its settings -------------------------------------------------------


def _check(api, data, name="bundle.zip"):
    upload = SimpleUploadedFile(name, data, content_type="application/zip")
    with TestCase.captureOnCommitCallbacks(execute=True):
        answer = api.post("/api/v1/exports/verify", {"bundle": upload}, format="multipart")
    assert answer.status_code == 202, answer.content
    return Job.objects.get(uuid=answer.json()["uuid"])


def test_the_service_refuses_a_zip_bomb_in_the_job_and_removes_the_upload(api, people, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    api.force_login(people.regulator_ca)
    job = _check(api, _claiming(keys.installation_key(), claimed=10 * GIB, listed=10 * GIB))
    assert job.status == Job.Status.DONE and not job.file
    assert job.result["ok"] is False and "zip bomb" in job.result["problems"][0]
    assert job.result["files"] == {"rounds.csv": "unchecked"}
    assert not any(p.is_file() for p in (tmp_path / "media").rglob("*"))


def test_the_services_limits_are_its_settings(api, people, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    out = io.BytesIO()
    with bundle.BundleWriter(out) as writer:
        for name in ("a.csv", "b.csv", "c.csv"):
            writer.add_bytes(name, b"id\n1\n")
        writer.finish({}, keys.installation_key())
    api.force_login(people.compliance)
    assert _check(api, out.getvalue()).result["ok"] is True
    settings.EXPORT_VERIFY_MAX_MEMBERS = 4
    assert _check(api, out.getvalue()).result["problems"] == [
        "the bundle holds 5 files, more than the 4 a bundle may hold (not checked)"]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_checks_an_upload_and_removes_it(reseed, api, people, key):
    """With a broker the API answers at once (queued) and a worker, another process, checks the kept upload."""
    from tests.cardroom.test_celery_worker import start_worker, stop

    out = io.BytesIO()
    with bundle.BundleWriter(out) as writer:
        writer.add_bytes("ledger_entries.csv", b"id,amount\n1,1.00\n")
        writer.finish({}, key)
    queue = f"cardroom-test-verify-{time.monotonic_ns()}"
    process = start_worker(queue)
    try:
        from exports import tasks

        tasks.verify_bundle.delay = lambda job_id: tasks.verify_bundle.apply_async((job_id,), queue=queue)
        api.force_login(people.regulator_ca)
        # Against the key given: the worker's own installation key is not this test's.
        answer = api.post("/api/v1/exports/verify", {"bundle": SimpleUploadedFile("w.zip", out.getvalue()),
                                                     "public_key": bundle.public_key_pem(key)}, format="multipart")
        assert answer.status_code == 202 and answer.json()["status"] == "queued"
        job = Job.objects.get(uuid=answer.json()["uuid"])
        kept = job.file.path
        deadline = time.monotonic() + 90
        while job.status not in (Job.Status.DONE, Job.Status.FAILED) and time.monotonic() < deadline:
            time.sleep(0.1)
            job.refresh_from_db()
    finally:
        del tasks.verify_bundle.delay
        stop(process)
    assert job.status == Job.Status.DONE and job.result["ok"] is True, (job.error, job.result)
    assert not job.file and not os.path.exists(kept)


# --- the end record, read strictly (issue 32) ---------------------------------------------------------------------


def _end_of(data):
    """Where a zip's end record starts (a zip this test wrote: no comment)."""
    assert data[-22:-18] == b"PK\x05\x06"
    return len(data) - 22


def _with_counts_spelling_the_signature(data):
    """The probe's zip: the end record's two member counts overwritten with "PK\\x05\\x06", so the last copy of the
    signature sits inside the real record, too close to the end to be read as one."""
    data = bytearray(data)
    end = _end_of(data)
    data[end + 8:end + 12] = b"PK\x05\x06"
    return bytes(data)


def _zip64_saying_otherwise(data):
    """The zip with a zip64 end record and locator put before its end record, giving the true figures, while the end
    record itself says 3 members in a 100-byte directory: zipfile goes by the zip64 one."""
    end = _end_of(data)
    _, _, _, members, _, directory, offset, _ = struct.unpack("<4s4H2LH", data[end:])
    record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, members, members, directory, offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end, 1)
    small = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 3, 3, 100, offset, 0)
    return data[:end] + record + locator + small


def _comment_holding_an_end_record(data):
    """A comment that holds a second end record (zipfile takes the last signature it finds)."""
    end = _end_of(data)
    fake = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 3, 3, 100, 0, 0)
    return data[:end + 20] + struct.pack("<H", len(fake)) + fake


@pytest.mark.parametrize("altered, problem", [
    (_with_counts_spelling_the_signature, "the bundle's zip end record is ambiguous: its signature appears again "
                                          "after it or within it (altered: not checked)"),
    (_zip64_saying_otherwise, "the bundle's zip end record and its zip64 end record disagree (altered: not checked)"),
    (_comment_holding_an_end_record, "the bundle's zip end record is ambiguous: its signature appears again after it "
                                     "or within it (altered: not checked)"),
    (lambda data: data + b"\0" * 100, "the bundle's zip end record does not end the file (bytes were added after it, "
                                      "or it was altered: not checked)"),
], ids=["counts spell the signature", "zip64 record says otherwise", "comment holds an end record", "bytes after"])
def test_a_zip_whose_end_records_read_two_ways_is_refused_before_its_directory_is_listed(key, hundred_thousand,
                                                                                        monkeypatch, altered, problem):
    """Today's guard found the end record as zipfile does, by the last copy of its signature, and let these through:
    zipfile then listed 100,000 members (a million: 36 s and 752 MB a worker)."""
    data = altered(hundred_thousand)

    def listing(*args, **kwargs):
        raise AssertionError("zipfile was asked to list the directory")

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", listing)
    result = bundle.verify(io.BytesIO(data), key)
    assert result.problems == [problem] and result.files == {} and not result.ok


def test_the_counts_trick_is_refused_on_the_service_with_a_small_result(api, people, settings, tmp_path,
                                                                         hundred_thousand):
    settings.MEDIA_ROOT = tmp_path / "media"
    api.force_login(people.regulator_ca)
    job = _check(api, _with_counts_spelling_the_signature(hundred_thousand))
    assert job.status == Job.Status.DONE and job.result["ok"] is False
    assert job.result["problems"] == ["the bundle's zip end record is ambiguous: its signature appears again after "
                                      "it or within it (altered: not checked)"]
    assert len(json.dumps(job.result)) < 2000


def test_an_end_record_that_undercounts_the_directory_is_refused(key):
    """Within the limits, an end record and a directory that disagree on the count are read differently by readers
    that go by the count and by zipfile, which goes by the directory's size."""
    data = bytearray(_empty_members(10))
    end = _end_of(data)
    data[end + 8:end + 12] = (3).to_bytes(2, "little") * 2
    result = bundle.verify(io.BytesIO(bytes(data)), key)
    assert result.problems == ["the bundle's zip end record counts 3 files, its directory holds 10 (altered: not "
                               "checked)"]


def test_a_bundle_with_a_zip_comment_or_zip64_records_still_verifies(key):
    out = io.BytesIO()
    with bundle.BundleWriter(out) as writer:
        writer.add_bytes("ledger_entries.csv", b"id,amount\n1,1.00\n")
        writer.finish({}, key)
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as source:
        files = [(info, source.read(info)) for info in source.infolist()]
    for comment, zip64 in ((b"checked by hand PK\x05 2026", False), (b"", True)):
        again = io.BytesIO()
        with zipfile.ZipFile(again, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.comment = comment
            for info, data in files:
                with archive.open(info.filename, "w", force_zip64=zip64) as stream:
                    stream.write(data)
        data = again.getvalue()
        if zip64:  # zipfile writes zip64 end records only past 65,535 members: write them as other tools may
            data = _zip64_saying_otherwise(data)
            end = _end_of(data)
            data = data[:end + 8] + struct.pack("<2H2L", 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF) + data[end + 20:]
        result = bundle.verify(io.BytesIO(data), key)
        assert result.ok, (comment, zip64, result.problems)


# --- what a check's job keeps --------------------------------------------------------------------------------------


def test_a_checks_job_keeps_the_first_problems_and_says_how_many_were_left_out(api, people, settings, tmp_path):
    """A manifest (up to 1 MiB) can list thousands of files missing from the bundle, each a problem; a name can be
    64 kB long. The job's result, answered by every GET of it, keeps the first problems and files, each cut."""
    settings.MEDIA_ROOT = tmp_path / "media"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a" * 60_000 + ".csv", b"added")  # sorted first among the files
        _signed(archive, keys.installation_key(),
                {f"missing-{n:05}.csv": ("0" * 64, 1) for n in range(3000)})
    api.force_login(people.regulator_ca)
    job = _check(api, out.getvalue())
    result = job.result
    assert result["ok"] is False
    assert len(result["problems"]) == verification.STORED_PROBLEMS == 100
    assert result["problems_left_out"] == 3001 - 100
    assert result["problems"][0] == "missing-00000.csv: listed in the manifest but missing from the bundle"
    assert len(result["files"]) == verification.STORED_FILES and result["files_left_out"] == 3001 - 200
    assert all(len(p) < 600 for p in result["problems"]) and all(len(n) < 600 for n in result["files"])
    long_name = next(n for n in result["files"] if n.startswith("aaa"))
    assert long_name.endswith("… (59,504 more characters)") and result["files"][long_name] == "added"
    assert len(json.dumps(result)) < 400_000
    page = api.get(f"/regulator/verify/?job={job.uuid}")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Not verified: 3001 problems" in text and "And 2901 more problems, not kept with the check" in text
