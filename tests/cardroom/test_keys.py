"""Signing keys nobody can plant (issue 23): a key verifies only when its endorsements lead back to the first key,
the root of trust, and only what it signed while it was in use; on the service, over the API and offline.

The attacker records a key of their own beside the installation's (as the database owner could, by hand), changes
amounts in an export and re-signs its manifest with that key."""

import base64
import datetime
import io
import json
import os
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.core.management.base import SystemCheckError

from cardroom import bundle, checkpoint, keys, tlog, transparency
from cardroom.exceptions import StateConflict
from cardroom.models import SigningKey
from exports import verification
from tests.cardroom.test_transparency import check, export, keys_file, regulator, room, rotate  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def resign(source, private_key, path, **manifest):
    """``source`` with 50 forged amounts in its ledger and its manifest re-signed by ``private_key``, which it names;
    ``manifest``: fields to change as well."""
    with zipfile.ZipFile(source) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    signed = json.loads(files.pop(bundle.MANIFEST))
    files.pop(bundle.SIGNATURE)
    lines = files["ledger_entries.csv"].decode().splitlines(keepends=True)
    files["ledger_entries.csv"] = "".join(lines[:1] + [f"forged,{n},999.00\n" for n in range(50)] + lines[1:]).encode()
    with bundle.BundleWriter(path) as writer:
        for listed in signed["files"]:
            writer.add_bytes(listed["name"], files[listed["name"]], rows=listed.get("rows"))
        kept = {k: v for k, v in signed.items() if k not in ("format", "files")}
        writer.finish({**kept, "signing_key": bundle.fingerprint(private_key), **manifest}, private_key)
    return path


def plant(private_key, *, endorse_with=None, valid_from=None):
    """Record a key behind the application's back, as the owner could by hand: no endorsement, or one signed by
    ``endorse_with`` (itself, say) naming the key in use."""
    public = private_key.public_key()
    valid_from = valid_from or transparency.current_key()[1].valid_from - datetime.timedelta(days=1)
    in_use = SigningKey.objects.get(valid_until__isnull=True)
    endorsement = ""
    if endorse_with is not None:
        statement = tlog.endorsement_statement("cardroom", public, valid_from, in_use.fingerprint)
        endorsement = base64.b64encode(endorse_with.sign(statement)).decode()
    return SigningKey.objects.create(
        name="cardroom", key_id=checkpoint.key_id("cardroom", public).hex(), public_key=bundle.public_key_base64(public),
        fingerprint=bundle.fingerprint(public), valid_from=valid_from, endorsed_by=in_use.fingerprint if endorsement
        else "", endorsement=endorsement)


def on_service(path):
    return verification.verify_upload(SimpleUploadedFile(path.name, path.read_bytes()))


def on_api(api, people, path, capture):
    """The API's verification of the bundle (a job, checked in the background): its result."""
    api.force_authenticate(people.regulator_wa)
    with open(path, "rb") as handle, capture(execute=True):
        response = api.post("/api/v1/exports/verify", {"bundle": handle}, format="multipart")
    assert response.status_code == 202, response.content
    job = api.get(f"/api/v1/jobs/{response.json()['uuid']}/").json()
    api.force_authenticate(None)
    assert job["status"] == "done", job
    return job["result"]


def attackers_keys_file(api, tmp_path, *planted):
    """The keys file as served, with planted keys added (a keys file fetched from a compromised service)."""
    document = api.get("/api/v1/audit/keys").json()
    for key in planted:
        public = bundle.load_public_key(key.public_key)
        document["keys"].append({
            "name": key.name, "key_id": key.key_id, "algorithm": "Ed25519", "public_key": key.public_key,
            "verifier_key": checkpoint.verifier_key(key.name, public), "fingerprint": key.fingerprint,
            "valid_from": key.valid_from.isoformat(), "valid_until": None,
            "endorsement": {"by": key.endorsed_by, "signature": key.endorsement} if key.endorsement else None})
    path = tmp_path / "served-keys.json"
    path.write_text(json.dumps(document))
    return path, document["root"]


@pytest.mark.parametrize("endorsed", [False, True], ids=["no endorsement", "endorsed by itself"])
def test_a_planted_key_verifies_nothing(api, people, room, tmp_path, endorsed,
                                        django_capture_on_commit_callbacks):
    genuine = export(room, tmp_path / "genuine.zip")
    attacker = bundle.generate_private_key()
    planted = plant(attacker, endorse_with=attacker if endorsed else None)
    forged = resign(genuine, attacker, tmp_path / "forged.zip")
    assert bundle.verify(forged, attacker.public_key()).ok  # a well-made forgery, signed by the planted key

    served = api.get("/api/v1/audit/keys").json()
    assert planted.fingerprint not in [k["fingerprint"] for k in served["keys"]]
    assert verification.installation_fingerprints() == {served["root"]}

    checked = on_service(forged)
    assert not checked.ok
    assert any(f"names the signing key {planted.fingerprint}, which this installation does not trust" in p
               for p in checked.verification.problems), checked.verification.problems
    answer = on_api(api, people, forged, django_capture_on_commit_callbacks)
    assert answer["ok"] is False and any("does not trust" in p for p in answer["problems"])
    assert on_service(genuine).ok and on_api(api, people, genuine, django_capture_on_commit_callbacks)["ok"] is True
    with pytest.raises(CommandError, match="which this installation does not trust"):
        call_command("verify_export", str(forged))  # the owner's command trusts what the service trusts
    call_command("verify_export", str(genuine), stdout=io.StringIO())

    keys_path, root = attackers_keys_file(api, tmp_path, planted)
    code, out = check(keys_path, "export", str(forged), trust=root)
    assert code == 1 and f"signed by {planted.fingerprint}, which is not a trusted key" in out, out
    assert check(keys_path, "export", str(genuine), trust=root)[0] == 0


def resign_checkpoints(source, private_key, path):
    """``source`` with its checkpoints (and the proofs that end with them) signed by ``private_key`` instead: the
    manifest no longer matches them until it is signed again (``resign``)."""
    with zipfile.ZipFile(source) as archive:
        files = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w") as out:
        for name, data in files:
            if name.startswith("checkpoints/") and name.endswith(".txt") and data.count(b"\n") <= 5:  # a note
                note = data.decode()
                origin, size, root = checkpoint.verify(note, "cardroom", keys.installation_key().public_key())
                forged = checkpoint.sign(origin, size, root, "cardroom", private_key)
                files = [(other, body.replace(data, forged.encode())) for other, body in files]
        for name, data in files:
            out.writestr(name, data)
    return path


def test_a_keys_file_that_names_a_planted_root_is_caught_with_the_root_the_regulator_kept(api, room, tmp_path):
    kept_root = api.get("/api/v1/audit/keys").json()["root"]
    genuine = export(room, tmp_path / "genuine.zip")
    attacker = bundle.generate_private_key()
    planted = plant(attacker)
    # A whole forgery: the amounts changed, the manifest and every checkpoint signed by the planted key.
    forged = resign(resign_checkpoints(genuine, attacker, tmp_path / "checkpoints.zip"), attacker,
                    tmp_path / "forged.zip")
    keys_path, _ = attackers_keys_file(api, tmp_path, planted)
    document = json.loads(keys_path.read_text())
    keys_path.write_text(json.dumps({**document, "root": planted.fingerprint}))

    # Without --trust the forgery checks out against the file's own root, and the verifier will not say it holds.
    code, out = check(keys_path, "export", str(forged), trust=None)
    assert code == tlog.EXIT["NOT CHECKED"] == 3, out
    assert f"NOTE no root of trust given (--trust): checked against the keys file's own root, {planted.fingerprint}" \
        in out
    assert "HOLDS" not in out.replace("DOES NOT HOLD", "") and "NOT CHECKED: no root of trust given (--trust" in out
    # With the root the regulator kept, the planted root is not taken: the forgery is signed by no trusted key.
    code, out = check(keys_path, "export", str(forged), trust=kept_root)
    assert code == 1 and "which is not a trusted key" in out and out.rstrip().endswith("DOES NOT HOLD"), out
    assert check(keys_path, "export", str(genuine), trust=kept_root)[0] == 0


def test_a_properly_rotated_key_verifies_and_carries_its_endorsement(api, people, room, settings, tmp_path,
                                                                   django_capture_on_commit_callbacks):
    before = export(room, tmp_path / "before.zip")
    root = api.get("/api/v1/audit/keys").json()["root"]
    rotate(settings, tmp_path)
    after = export(room, tmp_path / "after.zip")

    served = api.get("/api/v1/audit/keys").json()
    old, new = served["keys"]
    assert served["root"] == root == old["fingerprint"] and old["endorsement"] is None
    assert new["endorsement"]["by"] == old["fingerprint"] and old["valid_until"] == new["valid_from"]
    for path in (before, after):
        assert on_service(path).ok and on_api(api, people, path, django_capture_on_commit_callbacks)["ok"] is True
        code, out = check(keys_file(api, tmp_path), "export", str(path), trust=root)
        assert code == 0 and "NOTE" not in out, out


def test_a_bundle_signed_outside_its_keys_validity_fails(api, people, room, settings, tmp_path,
                                                         django_capture_on_commit_callbacks):
    genuine = export(room, tmp_path / "genuine.zip")
    old_key = keys.installation_key()
    root = api.get("/api/v1/audit/keys").json()["root"]
    rotate(settings, tmp_path)
    new_key = keys.installation_key()
    retired = SigningKey.objects.get(fingerprint=root).valid_until
    late = (retired + datetime.timedelta(minutes=5)).isoformat()
    early = (retired - datetime.timedelta(days=2)).isoformat()
    cases = {
        "old key, after it was replaced": resign(genuine, old_key, tmp_path / "late.zip", generated_at=late),
        "new key, before it was in use": resign(genuine, new_key, tmp_path / "early.zip", generated_at=early),
    }
    keys_path = keys_file(api, tmp_path)
    for case, path in cases.items():
        checked = on_service(path)
        assert not checked.ok and any("outside the validity of its key" in p for p in checked.verification.problems), case
        assert on_api(api, people, path, django_capture_on_commit_callbacks)["ok"] is False, case
        code, out = check(keys_path, "export", str(path), trust=root)
        assert code == 1 and "outside the validity of its key" in out, (case, out)


def test_the_service_signs_with_no_key_nobody_recorded(room, settings, regulator):
    root = transparency.current_key()[1].fingerprint
    settings.SIGNING_KEY = bundle.private_key_pem(bundle.generate_private_key())  # configured, not recorded
    with pytest.raises(StateConflict, match="SIGNING_ROOT is not set, so the configured key .* would be a root"):
        transparency.current_key()
    settings.SIGNING_ROOT = root
    with pytest.raises(StateConflict, match="is not recorded"):
        transparency.current_key()
    assert regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).status_code == 409
    assert SigningKey.objects.count() == 1


def test_a_new_key_is_recorded_only_with_the_endorsement_of_the_key_in_use(room, settings, tmp_path):
    settings.SIGNING_ROOT = transparency.current_key()[1].fingerprint
    stranger = tmp_path / "stranger.pem"
    stranger.write_text(bundle.private_key_pem(bundle.generate_private_key()))
    settings.SIGNING_KEY = bundle.private_key_pem(bundle.generate_private_key())
    with pytest.raises(CommandError, match="endorsed by the key in use"):
        call_command("record_signing_key", verbosity=0)
    with pytest.raises(CommandError, match="not the key in use"):
        call_command("record_signing_key", "--previous-key-file", str(stranger), verbosity=0)
    assert SigningKey.objects.count() == 1


# -- the root of trust is configuration (issue 32) ------------------------------------------------------------------


def insert_key(private_key, **fields):
    """A key row written straight into the table, as the owner (or anyone who may INSERT) could, with its id and
    dates chosen to look first."""
    public = private_key.public_key()
    return SigningKey.objects.create(**{
        "name": "cardroom", "key_id": checkpoint.key_id("cardroom", public).hex(),
        "public_key": bundle.public_key_base64(public), "fingerprint": bundle.fingerprint(public),
        "valid_from": datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc), **fields})


def test_a_key_inserted_with_a_low_id_does_not_become_the_root(api, people, room, tmp_path, client,
                                                                django_capture_on_commit_callbacks):
    genuine = export(room, tmp_path / "genuine.zip")
    root = keys.key_fingerprint()
    attacker = bundle.generate_private_key()
    planted = insert_key(attacker, id=0)
    assert list(SigningKey.objects.order_by("id").values_list("fingerprint", flat=True))[0] == planted.fingerprint
    forged = resign(genuine, attacker, tmp_path / "forged.zip")

    served = api.get("/api/v1/audit/keys").json()
    assert served["root"] == root and [k["fingerprint"] for k in served["keys"]] == [root]
    assert verification.installation_fingerprints() == {root}
    checked = on_service(forged)
    assert not checked.ok and any("does not trust" in p for p in checked.verification.problems)
    assert on_api(api, people, forged, django_capture_on_commit_callbacks)["ok"] is False
    assert on_service(genuine).ok
    assert on_api(api, people, genuine, django_capture_on_commit_callbacks)["ok"] is True
    # The verify page: the planted bundle fails, the genuine one holds under the configured root.
    client.force_login(people.regulator_wa)
    for path, holds in ((forged, False), (genuine, True)):
        with open(path, "rb") as handle, django_capture_on_commit_callbacks(execute=True):
            answer = client.post("/regulator/verify/", {"bundle": handle})
        page = client.get(answer["Location"]).content.decode()
        assert ("Verified: every file is as signed" in page) is holds, page
        assert f"This installation's public key, <code>{root}</code>" in page
    # The database check names the planted key; the service still signs with its own.
    errors, warnings = transparency.root_problems()
    assert errors == [] and any(planted.fingerprint in w and "not trusted" in w for w in warnings)
    out = io.StringIO()
    call_command("check", "--database", "default", stdout=out, stderr=out)
    assert "cardroom.W001" in out.getvalue() and planted.fingerprint in out.getvalue()
    assert transparency.current_key()[1].fingerprint == root


def test_the_configured_root_decides_and_a_wrong_one_stops_the_service(room, settings):
    root = transparency.current_key()[1].fingerprint
    stranger = bundle.fingerprint(bundle.generate_private_key())
    settings.SIGNING_ROOT = stranger
    errors, _ = transparency.root_problems()
    assert errors and f"The root of trust {stranger} (SIGNING_ROOT) is not among the recorded signing keys" in errors[0]
    with pytest.raises(SystemCheckError, match="cardroom.E001"):
        call_command("check", "--database", "default", stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(StateConflict, match="not among the recorded signing keys"):
        transparency.current_key()
    settings.SIGNING_ROOT = root
    assert transparency.root_problems() == ([], [])


def test_a_malformed_root_stops_start_up():
    import subprocess
    import sys

    answer = subprocess.run([sys.executable, "-c", "import django; django.setup()"], capture_output=True, text=True,
                            env={**os.environ, "DJANGO_SETTINGS_MODULE": "project.settings",
                                 "SIGNING_ROOT": "SHA256:not-hex"})
    assert answer.returncode != 0 and "SIGNING_ROOT must be a key's fingerprint" in answer.stderr


def test_the_first_key_is_recorded_by_the_command_as_the_root(tmp_path):
    out = io.StringIO()
    call_command("record_signing_key", stdout=out)
    assert f"Recorded the signing key {keys.key_fingerprint()}, the root of trust" in out.getvalue()
    call_command("record_signing_key", stdout=out)
    assert "Already recorded" in out.getvalue() and SigningKey.objects.count() == 1


@pytest.mark.services
def test_postgresql_keeps_a_signing_key_as_recorded(room):
    from django.db import DatabaseError, connection, transaction

    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    _, key = transparency.current_key()
    table = SigningKey._meta.db_table
    refused = {
        f"UPDATE {table} SET public_key = 'AAAA' WHERE id = %s": "kept as recorded",
        f"UPDATE {table} SET valid_from = valid_from - interval '1 day' WHERE id = %s": "kept as recorded",
        f"DELETE FROM {table} WHERE id = %s": "Signing keys are kept",
    }
    with connection.cursor() as cursor:
        for sql, message in refused.items():
            with pytest.raises(DatabaseError, match=message), transaction.atomic():
                cursor.execute(sql, [key.pk])
        cursor.execute(f"UPDATE {table} SET valid_until = now() WHERE id = %s", [key.pk])  # the key in use ends
        with pytest.raises(DatabaseError, match="kept as recorded"), transaction.atomic():
            cursor.execute(f"UPDATE {table} SET valid_until = NULL WHERE id = %s", [key.pk])  # and stays ended


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_first_signings_record_the_key_once(reseed):
    """On a new database the first signings race to record the root: one records it, the others read it (no
    empty table row to lock, so the unique fingerprint decides)."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    from django.db import connection, connections

    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    assert not SigningKey.objects.exists()
    barrier = Barrier(6)

    def first_signing(_):
        try:
            barrier.wait()
            return transparency.current_key()[1].pk
        finally:
            connections.close_all()

    with ThreadPoolExecutor(6) as pool:
        recorded = set(pool.map(first_signing, range(6)))
    assert len(recorded) == 1 and SigningKey.objects.count() == 1
