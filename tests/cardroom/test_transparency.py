"""Outsiders check the audit log: signed checkpoints, inclusion and consistency proofs, exports, key rotation.

The verifier is ``cardroom.tlog`` run as a regulator would, from files, against the keys file the service publishes;
the attacker has the database owner's rights (``tests.cardroom.test_audit_chain.tamper``) and, where said, deletes the
service's stored checkpoints too.
"""

import datetime
import json
import subprocess
import sys
import zipfile

import pytest
from django.conf import settings as django_settings

from cardroom import bundle, chain, merkle, tlog, transparency
from cardroom.audit import chain_name, log_action
from cardroom.models import AuditChainHead, AuditCheckpoint, AuditLogEntry, SigningKey
from cardroom.tasks import sign_checkpoints
from exports.build import build
from exports.collect import ExportScope
from tests.cardroom.test_audit_chain import fields_of, raw_sql, tamper

pytestmark = pytest.mark.django_db

TODAY = datetime.date.today()


@pytest.fixture
def room(people):
    from cardroom.models import Establishment

    room = Establishment.objects.create(slug="test-tlog-room", name="Test Tlog Room", jurisdiction=people.washington,
                                        kind="card_room", is_demo=True)
    room.chain = chain_name(room)
    for n in range(1, 8):
        log_action(f"test.step{n}", actor=people.compliance_wa, establishment=room, jurisdiction=room.jurisdiction,
                   data={"n": n, "note": "näive \"quoted\""})
    return room


@pytest.fixture
def regulator(api, people):
    api.force_login(people.regulator_wa)
    return api


def keys_file(api, tmp_path, name="keys.json"):
    response = api.get("/api/v1/audit/keys")
    assert response.status_code == 200, response.content
    path = tmp_path / name
    path.write_text(json.dumps(response.json()))
    return path


def save(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def installation_root():
    """The installation's root of trust, its first recorded key: the fingerprint a regulator kept when they first
    received its keys file."""
    first = SigningKey.objects.order_by("id").values_list("fingerprint", flat=True).first()
    return first or transparency.keys_file()["root"]


INSTALLATION = object()


def check(keys, *args, trust=INSTALLATION, origin=INSTALLATION):
    """The verifier's exit code and output, as a regulator runs it: with ``--trust`` the installation's root and
    ``--origin`` its log's origin (as they kept them), or ``trust`` (a fingerprint; None: no --trust) and ``origin``
    (a base origin; None: no --origin)."""
    import contextlib
    import io

    trust = installation_root() if trust is INSTALLATION else trust
    origin = django_settings.AUDIT_LOG_ORIGIN if origin is INSTALLATION else origin
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = tlog.main(["--keys", str(keys), *(["--trust", trust] if trust else []),
                          *(["--origin", origin] if origin else []), *args])
    return code, out.getvalue()


def rewrite_tail(room, from_position):
    """Change the entry at ``from_position`` and rechain everything after it, head included: verify_audit_log
    then finds nothing wrong."""
    entries = list(AuditLogEntry.objects.filter(chain=room.chain).order_by("sequence"))
    previous = entries[from_position - 2].entry_hash
    for entry in entries[from_position - 1:]:
        action = "test.rewritten" if entry.sequence == from_position else entry.action
        rehashed = chain.entry_hash(fields_of(entry, action=action, prev_hash=previous))
        tamper("UPDATE {table} SET action = %s, prev_hash = %s, entry_hash = %s WHERE id = %s",
               [action, previous, rehashed, entry.pk])
        previous = rehashed
    with raw_sql() as cursor:
        cursor.execute(f"UPDATE {AuditChainHead._meta.db_table} SET entry_hash = %s WHERE chain = %s",
                       [previous, room.chain])


def forget_checkpoints():
    """The attacker also removes what the service signed, so it will sign again."""
    with raw_sql() as cursor:
        cursor.execute(f"DELETE FROM {AuditCheckpoint._meta.db_table}")


# -- keys --------------------------------------------------------------------------------------------------------------


def test_the_keys_are_public_with_their_ids_and_validity(api, room):
    body = api.get("/api/v1/audit/keys").json()
    [key] = body["keys"]
    assert key["valid_until"] is None and key["algorithm"] == "Ed25519"
    assert key["verifier_key"].startswith(f"cardroom+{key['key_id']}+")
    assert key["fingerprint"] == transparency.current_key()[1].fingerprint


def rotate(settings, tmp_path):
    """The owner rotates the key as docs/audit.md says: configures a new one and records it, endorsed by the old."""
    from django.core.management import call_command

    from cardroom import keys

    old = tmp_path / "old-key.pem"
    old.write_text(bundle.private_key_pem(keys.installation_key()))
    settings.SIGNING_ROOT = transparency.root_fingerprint()  # the root stays: in the configuration from now on
    settings.SIGNING_KEY = bundle.private_key_pem(bundle.generate_private_key())
    call_command("record_signing_key", "--previous-key-file", str(old), verbosity=0)


def test_a_rotated_key_still_verifies_what_it_signed(api, regulator, room, settings, tmp_path):
    old_note = regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode()
    rotate(settings, tmp_path)
    log_action("test.after-rotation", establishment=room)
    new_note = regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode()
    keys = api.get("/api/v1/audit/keys").json()["keys"]
    assert len(keys) == 2 and keys[0]["valid_until"] == keys[1]["valid_from"] and keys[1]["valid_until"] is None
    assert old_note.split("\n\n")[1].split()[2] != new_note.split("\n\n")[1].split()[2]  # different signatures
    path = keys_file(api, tmp_path)
    assert check(path, "checkpoint", save(tmp_path, "old.txt", old_note))[0] == 0
    assert check(path, "checkpoint", save(tmp_path, "new.txt", new_note))[0] == 0
    # A consistency proof signed by the new key, from the checkpoint the old key signed.
    size = int(old_note.split("\n")[1])
    proof = regulator.get("/api/v1/audit/consistency", {"chain": room.chain, "from": size}).content.decode()
    assert check(path, "consistency", save(tmp_path, "kept.txt", old_note), save(tmp_path, "p.txt", proof))[0] == 0
    # Only the old key in the keyring: the new checkpoint is not trusted.
    only_old = tmp_path / "old-keys.json"
    only_old.write_text(json.dumps({"root": keys[0]["fingerprint"], "keys": keys[:1]}))
    code, out = check(only_old, "checkpoint", str(tmp_path / "new.txt"))
    assert code == 1 and "no signature of any key in the keyring" in out


# -- checkpoints -------------------------------------------------------------------------------------------------------


def test_checkpoint_api_signs_the_head_and_keeps_it(regulator, room):
    response = regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    origin, size, root = response.content.decode().split("\n")[:3]
    assert (origin, size) == (f"cardroom/audit/{room.chain}", "7")
    stored = AuditCheckpoint.objects.get(chain=room.chain, size=7)
    assert stored.note == response.content.decode() and stored.purpose == "request"
    assert regulator.get("/api/v1/audit/checkpoint", {"chain": room.chain}).content == response.content
    assert AuditCheckpoint.objects.filter(chain=room.chain).count() == 1
    smaller = regulator.get("/api/v1/audit/checkpoint", {"chain": room.chain, "size": 3}).content.decode()
    assert smaller.split("\n")[1] == "3"


@pytest.mark.parametrize("params, status, field", [
    ({}, 400, "chain"),
    ({"chain": "test-tlog-room", "size": "-1"}, 400, "size"),
    ({"chain": "room; DROP"}, 400, "chain"),
    ({"chain": "test-tlog-room", "size": "lots"}, 400, "size"),
    ({"chain": "test-tlog-room", "size": "99"}, 404, None),
    ({"chain": "establishment:999999"}, 404, None),
    ({"chain": "casino-marysville"}, 404, None),  # California: not this regulator's
])
def test_checkpoint_api_says_what_is_wrong(regulator, room, params, status, field):
    response = regulator.get("/api/v1/audit/checkpoint", params)
    assert response.status_code == status, response.content
    if field:
        assert field in response.json()["error"]["details"]


def test_proofs_need_a_user_who_may_read_the_chain(api, people, room):
    assert api.get("/api/v1/audit/checkpoint", {"chain": room.slug}).status_code == 401
    api.force_login(people.compliance)  # California room's officer
    assert api.get("/api/v1/audit/proof", {"chain": room.slug, "sequence": 1}).status_code == 404
    api.force_login(people.compliance_wa)  # an officer of another room: not the installation's chain either
    assert api.get("/api/v1/audit/checkpoint", {"chain": "installation"}).status_code == 404
    api.force_login(people.admin)
    assert api.get("/api/v1/audit/checkpoint", {"chain": "installation"}).status_code == 200


def test_the_beat_signs_chains_that_grew_and_every_two_checkpoints_agree(room):
    sign_checkpoints()
    assert AuditCheckpoint.objects.filter(chain=room.chain, purpose="schedule").count() == 1
    sign_checkpoints()  # nothing grew
    assert AuditCheckpoint.objects.filter(chain=room.chain, purpose="schedule").count() == 1
    for n in range(3):
        log_action("test.more", establishment=room)
        sign_checkpoints()
    stored = list(AuditCheckpoint.objects.filter(chain=room.chain).order_by("size"))
    assert [c.size for c in stored] == [7, 8, 9, 10]
    leaves = transparency.tree_leaves(room.chain, 10)
    for old in stored:
        for new in stored:
            if old.size <= new.size:
                proof = merkle.consistency_proof(leaves[:new.size], old.size)
                assert merkle.verify_consistency(old.size, new.size, bytes.fromhex(old.root_hash),
                                                 bytes.fromhex(new.root_hash), proof)


def test_the_service_refuses_to_sign_a_checkpoint_inconsistent_with_one_it_signed(regulator, room):
    regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug})
    rewrite_tail(room, 5)
    response = regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug})
    assert response.status_code == 409 and "rewritten" in response.json()["error"]["message"]
    with pytest.raises(transparency.ChainRewritten):
        sign_checkpoints()
    assert AuditCheckpoint.objects.filter(chain=room.chain).count() == 1
    alarms = AuditLogEntry.objects.filter(action="audit.checkpoint_refused")
    assert [a.data["chain"] for a in alarms] == [room.chain, room.chain]


# -- an entry's inclusion proof ----------------------------------------------------------------------------------------


def test_an_inclusion_proof_verifies_offline_and_fails_for_a_changed_entry(api, regulator, room, tmp_path):
    keys = keys_file(api, tmp_path)
    text = regulator.get("/api/v1/audit/proof", {"chain": room.slug, "sequence": 4}).content.decode()
    assert text.startswith("c2sp.org/tlog-proof@v1\nextra ") and "\nindex 3\n" in text
    code, out = check(keys, "entry", save(tmp_path, "entry.tlog-proof", text))
    assert code == 0 and "entry 4 of" in out and "test.step4" in out

    # The entry as the proof carries it, changed: it is no longer the one in the log.
    proof = tlog.parse_proof(text, tlog.INCLUSION)
    entry = json.loads(tlog.unb64(proof.fields["extra"], "extra"))
    entry["action"] = "test.innocent"
    forged = text.replace(proof.fields["extra"], tlog.b64(json.dumps(
        entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()))
    code, out = check(keys, "entry", save(tmp_path, "forged.tlog-proof", forged))
    assert code == 1 and "is not in the log" in out

    # The entry as an export row holds it: verifies; with a field changed, it does not.
    row = {**entry, "action": "test.step4", "actor": entry["actor_label"], "object": entry["object_repr"],
           "created_at": entry["created_at"].replace("+00:00", "Z"),
           "entry_hash": AuditLogEntry.objects.get(chain=room.chain, sequence=4).entry_hash}
    assert check(keys, "entry", str(tmp_path / "entry.tlog-proof"), "--entry",
                 save(tmp_path, "row.json", json.dumps(row)))[0] == 0
    row["data"] = {**row["data"], "n": 40}
    code, out = check(keys, "entry", str(tmp_path / "entry.tlog-proof"), "--entry",
                      save(tmp_path, "row2.json", json.dumps(row)))
    assert code == 1 and "it was changed" in out

    # An altered checkpoint: the signature no longer matches.
    altered = text.replace("\n7\n", "\n8\n")
    code, out = check(keys, "entry", save(tmp_path, "altered.tlog-proof", altered))
    assert code == 1 and "altered" in out


def test_an_unreadable_proof_exits_2(api, room, tmp_path):
    keys = keys_file(api, tmp_path)
    code, out = check(keys, "entry", save(tmp_path, "junk", "hello\n"))
    assert code == 2 and "UNREADABLE" in out
    code, out = check(save(tmp_path, "k", "not-a-key\n"), "checkpoint", save(tmp_path, "j2", "x"))
    assert code == 2


# -- consistency: a rewrite after a checkpoint was handed out ----------------------------------------------------------


def test_a_rewrite_after_a_kept_checkpoint_is_caught_by_whoever_kept_it(api, regulator, room, tmp_path):
    keys = keys_file(api, tmp_path)
    kept = save(tmp_path, "kept.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode())
    log_action("test.later", establishment=room)
    proof = regulator.get("/api/v1/audit/consistency", {"chain": room.slug, "from": 7}).content.decode()
    code, out = check(keys, "consistency", kept, save(tmp_path, "good.txt", proof))
    assert code == 0 and "still holds the 7 entries" in out

    rewrite_tail(room, 6)
    forget_checkpoints()
    assert regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).status_code == 200  # signs again
    proof = regulator.get("/api/v1/audit/consistency", {"chain": room.slug, "from": 7}).content.decode()
    code, out = check(keys, "consistency", kept, save(tmp_path, "bad.txt", proof))
    assert code == 1 and "rewritten after that checkpoint was handed out" in out


def test_consistency_api_says_what_is_wrong(regulator, room):
    assert regulator.get("/api/v1/audit/consistency", {"chain": room.slug}).json()["error"]["details"] == {
        "from": ["This parameter is required."]}
    assert regulator.get("/api/v1/audit/consistency", {"chain": room.slug, "from": 0}).status_code == 400
    assert regulator.get("/api/v1/audit/consistency", {"chain": room.slug, "from": 8}).status_code == 404
    assert regulator.get("/api/v1/audit/proof", {"chain": room.slug}).status_code == 400
    assert regulator.get("/api/v1/audit/proof", {"chain": room.slug, "sequence": 8}).status_code == 404


# -- exports -----------------------------------------------------------------------------------------------------------


def export(room, path):
    build(ExportScope(establishments=[room], start=TODAY - datetime.timedelta(days=1), end=TODAY), path,
          requested_by="test")
    return path


def test_an_export_verifies_offline_and_a_rewrite_after_it_is_caught_with_its_checkpoint(api, regulator, room,
                                                                                          tmp_path):
    keys = keys_file(api, tmp_path)
    first = export(room, tmp_path / "first.zip")
    code, out = check(keys, "export", str(first))
    assert code == 0, out
    assert f"{room.chain}: the bundle's 7 audit rows (positions 1 to 7)" in out
    with zipfile.ZipFile(first) as archive:
        kept = save(tmp_path, "kept.txt", archive.read(f"checkpoints/establishment-{room.pk}.txt").decode())

    log_action("test.later", establishment=room)
    second = export(room, tmp_path / "second.zip")
    with zipfile.ZipFile(second) as archive:
        assert f"checkpoints/establishment-{room.pk}.from-7.txt" in archive.namelist()
    code, out = check(keys, "export", str(second), "--kept", kept)
    assert code == 0 and "still holds the 7 entries of the kept checkpoint" in out, out

    # Rewritten after the first export; the service's own checkpoints deleted so that it signs again.
    rewrite_tail(room, 3)
    forget_checkpoints()
    third = export(room, tmp_path / "third.zip")
    assert check(keys, "export", str(third))[0] == 0  # alone, the rewritten log looks whole
    code, out = check(keys, "export", str(third), "--kept", kept)
    # The service no longer knows it handed out the checkpoint of 7, so the bundle cannot prove it holds it ...
    assert code == 1 and "carries no consistency proof from 7 entries. Fetch the proof" in out, out
    # ... and the proof the service gives shows the rewrite.
    proof = regulator.get("/api/v1/audit/consistency", {"chain": room.chain, "from": 7, "to": 8}).content.decode()
    with zipfile.ZipFile(third) as archive:
        assert proof.endswith(archive.read(f"checkpoints/establishment-{room.pk}.txt").decode())
    code, out = check(keys, "consistency", kept, save(tmp_path, "proof.txt", proof))
    assert code == 1 and "rewritten after that checkpoint was handed out" in out, out
    # The proof fetched as the verifier says, given to it, tells the same.
    code, out = check(keys, "export", str(third), "--kept", kept, "--proof", save(tmp_path, "proof.txt", proof))
    assert code == 1 and out.count("FAIL") == 1 and "rewritten after that checkpoint was handed out" in out, out


def test_an_export_of_a_log_changed_behind_the_service_shows_the_changed_row(api, room, tmp_path):
    keys = keys_file(api, tmp_path)
    tamper("UPDATE {table} SET action = %s WHERE chain = %s AND sequence = 2", ["test.quietly", room.chain])
    code, out = check(keys, "export", str(export(room, tmp_path / "b.zip")))
    assert code == 1 and "the row at position 2 was changed" in out


def test_an_export_while_the_chain_disagrees_with_its_checkpoints_is_refused(room, tmp_path):
    transparency.sign(room.chain)
    rewrite_tail(room, 4)
    with pytest.raises(transparency.ChainRewritten):
        export(room, tmp_path / "b.zip")


def test_the_verifier_needs_no_django(api, room, tmp_path):
    keys = keys_file(api, tmp_path)
    bundle_path = export(room, tmp_path / "b.zip")
    # As `python -m cardroom.tlog` runs it (its __main__.py), with Django made unimportable.
    script = ("import runpy, sys; sys.modules['django'] = None; sys.modules['rest_framework'] = None; "
              "runpy.run_module('cardroom.tlog', run_name='__main__', alter_sys=True)")
    done = subprocess.run([sys.executable, "-c", script, "--keys", str(keys), "--trust", installation_root(),
                           "--origin", django_settings.AUDIT_LOG_ORIGIN, "export", str(bundle_path)],
                          cwd=django_settings.BASE_DIR, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("HOLDS")


def test_signing_keys_are_recorded_once(room):
    transparency.sign(room.chain)
    transparency.sign(room.chain, size=2)
    assert SigningKey.objects.count() == 1


@pytest.mark.services
def test_postgresql_keeps_signed_checkpoints_as_signed(room):
    from django.db import DatabaseError, connection, transaction

    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    signed = transparency.sign(room.chain)
    table = AuditCheckpoint._meta.db_table
    with connection.cursor() as cursor:
        for sql in (f"UPDATE {table} SET size = 3 WHERE id = %s", f"DELETE FROM {table} WHERE id = %s"):
            with pytest.raises(DatabaseError, match="kept as signed"), transaction.atomic():
                cursor.execute(sql, [signed.pk])
    assert AuditCheckpoint.objects.get(pk=signed.pk).note == signed.note


def test_a_bundle_signed_before_a_key_rotation_still_verifies_on_the_service(api, people, room, settings, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from exports import verification

    path = export(room, tmp_path / "before.zip")
    rotate(settings, tmp_path)  # the new key signs from now on
    checked = verification.verify_upload(SimpleUploadedFile("before.zip", path.read_bytes()))
    assert checked.ok and checked.installation_key
    assert checked.public_key_fingerprint == SigningKey.objects.order_by("valid_from").first().fingerprint
    code, out = check(keys_file(api, tmp_path), "export", str(path))
    assert code == 0, out


def test_a_bundle_carries_a_proof_from_a_checkpoint_asked_for_over_the_api(api, regulator, room, tmp_path):
    kept = save(tmp_path, "kept.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode())
    sign_checkpoints()  # hourly ones are not handed out: no proof from them is needed
    log_action("test.later", establishment=room)
    sign_checkpoints()
    path = export(room, tmp_path / "b.zip")
    with zipfile.ZipFile(path) as archive:
        assert sorted(n for n in archive.namelist() if n.startswith("checkpoints/")) == [
            f"checkpoints/establishment-{room.pk}.from-7.txt", f"checkpoints/establishment-{room.pk}.range.txt",
            f"checkpoints/establishment-{room.pk}.txt"]
    code, out = check(keys_file(api, tmp_path), "export", str(path), "--kept", kept)
    assert code == 0 and "still holds the 7 entries of the kept checkpoint" in out, out


def test_a_checkpoint_asked_for_again_is_the_one_stored_not_a_new_row(regulator, room):
    """Issue 23: 100 GETs must not leave 100 undeletable rows. The same chain and size answer the stored note."""
    ask = lambda **size: regulator.get("/api/v1/audit/checkpoint", {"chain": room.chain, **size})  # noqa: E731
    first, again = ask(size=5), ask(size=5)
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert AuditCheckpoint.objects.filter(chain=room.chain, size=5).count() == 1
    assert ask(size=6).content.decode().split("\n")[1] == "6"
    assert sorted(AuditCheckpoint.objects.filter(chain=room.chain).values_list("size", flat=True)) == [5, 6]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_checkpoint_requests_store_one(reseed, people):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection, connections

    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    for n in range(1, 5):
        log_action(f"test.step{n}", actor=people.compliance, establishment=people.marysville, data={"n": n})
    chain = chain_name(people.marysville)
    transparency.current_key()  # the key recorded first: this test is about the checkpoints

    def ask(_):
        try:
            return transparency.sign(chain, size=3).note
        finally:
            connections.close_all()

    with ThreadPoolExecutor(4) as pool:
        notes = set(pool.map(ask, range(8)))
    assert len(notes) == 1 and AuditCheckpoint.objects.filter(chain=chain, size=3).count() == 1


# -- a checkpoint kept after the export; a bundle zipped again ----------------------------------------------------------


def suggested_url(out):
    """The proof the verifier says to fetch: its URL, as printed."""
    line = next(line for line in out.splitlines() if "GET /api/v1/audit/consistency" in line)
    return line.split("GET ", 1)[1].split(" ", 1)[0]


def test_a_checkpoint_kept_after_the_export_holds_the_bundle_with_the_proof_the_verifier_names(api, regulator, room,
                                                                                              tmp_path):
    keys = keys_file(api, tmp_path)
    bundle_path = export(room, tmp_path / "b.zip")
    log_action("test.later", establishment=room)
    log_action("test.later", establishment=room)
    kept = save(tmp_path, "kept.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode())

    code, out = check(keys, "export", str(bundle_path), "--kept", kept)
    assert code == 1, out
    url = suggested_url(out)
    assert url == f"/api/v1/audit/consistency?chain={room.chain}&from=7&to=9"
    assert f"your kept checkpoint covers 9 entries, after the bundle's 7. Fetch the proof" in out
    response = regulator.get(url)
    assert response.status_code == 200, response.content
    proof = save(tmp_path, "proof.txt", response.content.decode())

    code, out = check(keys, "export", str(bundle_path), "--kept", kept, "--proof", proof)
    assert code == 0, out
    assert f"{room.chain}: your kept checkpoint of 9 entries holds the bundle's 7 entries unchanged" in out
    # The key is described in full once, then named.
    assert out.count("valid from") == 1, out


def test_a_checkpoint_kept_after_a_rewrite_does_not_hold_the_bundle(api, regulator, room, tmp_path):
    keys = keys_file(api, tmp_path)
    bundle_path = export(room, tmp_path / "b.zip")
    rewrite_tail(room, 5)
    forget_checkpoints()
    log_action("test.later", establishment=room)
    kept = save(tmp_path, "kept.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode())
    code, out = check(keys, "export", str(bundle_path), "--kept", kept)
    response = regulator.get(suggested_url(out))
    assert response.status_code == 200, response.content

    code, out = check(keys, "export", str(bundle_path), "--kept", kept,
                      "--proof", save(tmp_path, "proof.txt", response.content.decode()))
    assert code == 1
    assert [line for line in out.splitlines() if line.startswith("FAIL")] == [
        f"FAIL {room.chain}: your kept checkpoint of 8 entries does NOT hold the bundle's 7 entries as the bundle has "
        "them: the log was rewritten between the export and your checkpoint."]


def test_a_proof_that_leads_elsewhere_is_not_used_and_a_kept_checkpoint_of_another_log_is_named(api, regulator, room,
                                                                                              people, tmp_path):
    keys = keys_file(api, tmp_path)
    bundle_path = export(room, tmp_path / "b.zip")
    log_action("test.later", establishment=room)
    kept = save(tmp_path, "kept.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode())
    other = regulator.get("/api/v1/audit/consistency", {"chain": room.slug, "from": 3}).content.decode()
    code, out = check(keys, "export", str(bundle_path), "--kept", kept, "--proof", save(tmp_path, "p.txt", other))
    assert code == 1
    assert "NOTE a consistency proof given (from 3 entries) is not one any kept checkpoint needed" in out
    assert f"from=7&to=8" in out

    installation = save(tmp_path, "i.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": "installation"})
                        .content.decode())
    code, out = check(keys, "export", str(bundle_path), "--kept", installation)
    assert code == 1 and "is of the log cardroom/audit/installation, which this bundle does not cover" in out, out


def test_a_changed_file_is_said_once(api, room, tmp_path):
    keys = keys_file(api, tmp_path)
    source = export(room, tmp_path / "b.zip")
    name = f"checkpoints/establishment-{room.pk}.txt"
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(tmp_path / "t.zip", "w") as out:
        for info in archive.infolist():
            data = archive.read(info)
            out.writestr(info.filename, data.replace(b"\n7\n", b"\n6\n") if info.filename == name else data)
    code, out = check(keys, "export", str(tmp_path / "t.zip"))
    assert code == 1
    assert [line for line in out.splitlines() if line.startswith("FAIL")] == [
        f"FAIL {name}: SHA-256 does not match the manifest (altered)"]


def rezip(source, target, folder=""):
    """The bundle as another tool zips it again: every file's bytes unchanged, in reverse order, stored rather than
    deflated, new timestamps, each folder's own entry, all under ``folder``."""
    with zipfile.ZipFile(source) as archive:
        files = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as out:
        if folder:
            out.writestr(zipfile.ZipInfo(f"{folder}/", (2030, 1, 2, 3, 4, 6)), b"")
        out.writestr(zipfile.ZipInfo(f"{folder}/checkpoints/".lstrip("/"), (2030, 1, 2, 3, 4, 6)), b"")
        for name, data in reversed(files):
            out.writestr(zipfile.ZipInfo(f"{folder}/{name}".lstrip("/"), (2030, 1, 2, 3, 4, 6)), data)
    return target


@pytest.mark.parametrize("folder", ["", "audit-export"])
def test_a_bundle_zipped_again_verifies_offline_with_a_later_kept_checkpoint(api, regulator, room, tmp_path, folder):
    keys = keys_file(api, tmp_path)
    again = rezip(export(room, tmp_path / "b.zip"), tmp_path / "again.zip", folder)
    log_action("test.later", establishment=room)
    kept = save(tmp_path, "kept.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode())
    proof = save(tmp_path, "proof.txt", regulator.get("/api/v1/audit/consistency",
                                                      {"chain": room.chain, "from": 7, "to": 8}).content.decode())
    code, out = check(keys, "export", str(again), "--kept", kept, "--proof", proof)
    assert code == 0, out
    assert f"the bundle's 7 audit rows (positions 1 to 7)" in out
    assert ("(in the folder audit-export/)" in out) == bool(folder)


# -- the verifier's word (issue 32) ------------------------------------------------------------------------------------


def test_without_a_root_of_trust_the_verifier_checks_but_never_says_it_holds(api, room, tmp_path):
    keys = keys_file(api, tmp_path)
    bundle_path = export(room, tmp_path / "b.zip")
    code, out = check(keys, "export", str(bundle_path), trust=None)
    lines = out.splitlines()
    assert code == tlog.EXIT["NOT CHECKED"] == 3 and code not in (0, 1, 2), out
    assert lines[0].startswith("NOTE no root of trust given (--trust): checked against the keys file's own root")
    assert f"OK   {room.chain}: the bundle's 7 audit rows (positions 1 to 7)" in out  # everything else is checked
    assert lines[-1].startswith("NOT CHECKED: no root of trust given (--trust SHA256:...)")
    assert "HOLDS" not in lines
    # A failure is still a failure.
    tamper("UPDATE {table} SET action = %s WHERE chain = %s AND sequence = 2", ["test.quietly", room.chain])
    code, out = check(keys, "export", str(export(room, tmp_path / "c.zip")), trust=None)
    assert code == 1 and out.splitlines()[-1] == "DOES NOT HOLD", out
    # --help says what each exit code means.
    import contextlib
    import io

    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        tlog.main(["--help"])
    assert "3  NOT CHECKED" in help_text.getvalue() and "1  DOES NOT HOLD" in help_text.getvalue()


def test_a_file_that_is_not_utf_8_is_named(api, regulator, room, tmp_path):
    keys = keys_file(api, tmp_path)
    latin = tmp_path / "keys-latin1.json"
    latin.write_bytes(keys.read_text().replace('"cardroom"', '"cardroom é"').encode("latin-1"))
    code, out = check(latin, "checkpoint", str(latin))
    assert code == 2 and out.startswith(f"UNREADABLE the keys file {latin} is not UTF-8 text (its byte 0xe9 at "
                                        "position "), out
    assert "codec" not in out
    note = regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content
    kept = tmp_path / "kept.txt"
    kept.write_bytes(note.replace(b"\n", b"\n\xe9", 1))
    code, out = check(keys, "checkpoint", str(kept))
    assert code == 2 and f"UNREADABLE the checkpoint {kept} is not UTF-8 text" in out and "codec" not in out, out


def test_a_members_name_cannot_split_a_line_or_turn_it_around(api, people, room, tmp_path,
                                                             django_capture_on_commit_callbacks):
    """A member added under a name holding a newline and U+202E (right-to-left override): every message shows the
    name escaped, on the command line, in bundle.verify's problems, over the API and on the page."""
    keys = keys_file(api, tmp_path)
    source = export(room, tmp_path / "b.zip")
    name = "notes\nOK   everything holds\u202ecsv.exe"
    shown = "notes\\nOK   everything holds\\u202ecsv.exe"
    added = tmp_path / "added.zip"
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(added, "w") as out:
        for info in archive.infolist():
            out.writestr(info, archive.read(info))
        out.writestr(name, b"hello")
    code, out = check(keys, "export", str(added))
    assert code == 1
    assert f"FAIL {shown}: in the bundle but not listed in the manifest" in out.splitlines(), out
    assert "\u202e" not in out and "OK   everything holds" not in out.splitlines()
    checked = bundle.verify(added, transparency.current_key()[0])
    assert checked.problems == [f"{shown}: in the bundle but not listed in the manifest"]
    assert checked.files[name] == "added"  # the name as it is, for who reads it as data

    api.force_login(people.regulator_wa)
    with open(added, "rb") as handle, django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/exports/verify", {"bundle": handle}, format="multipart")
    job = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()
    assert job["result"]["problems"] == [f"{shown}: in the bundle but not listed in the manifest"]
    assert job["result"]["files"][shown] == "added" and name not in job["result"]["files"]
    page = api.get(f"/regulator/verify/?job={job['uuid']}").content.decode()
    assert "\u202e" not in page and "holds\\u202ecsv.exe" in page


# -- the log's name (issue 41) -----------------------------------------------------------------------------------------


def test_the_installation_names_its_log_and_the_verifier_holds_it_to_the_name_kept(api, regulator, room, settings,
                                                                                   tmp_path):
    settings.AUDIT_LOG_ORIGIN = "marysville.example.com/audit"
    keys = keys_file(api, tmp_path)
    assert json.loads(keys.read_text())["origin"] == "marysville.example.com/audit"  # kept with the root
    text = regulator.get("/api/v1/audit/proof", {"chain": room.slug, "sequence": 4}).content.decode()
    proof = save(tmp_path, "entry.tlog-proof", text)
    note = tlog.parse_proof(text, tlog.INCLUSION).note
    assert note.startswith(f"marysville.example.com/audit/{room.chain}\n")
    code, out = check(keys, "entry", proof)
    assert code == 0 and "entry 4 of" in out
    assert transparency.holds(note)
    # Given another origin (another installation's, or a log the key was made to sign under a new name), the same
    # well-signed checkpoint is refused, naming the two.
    code, out = check(keys, "entry", proof, origin="cardroom/audit")
    key_id = transparency.current_key()[1].key_id
    assert code == 1 and (f"FAIL checkpoint: the checkpoint is signed by cardroom {key_id}, but it is of the log "
                          f"marysville.example.com/audit/{room.chain}, not of cardroom/audit") in out, out
    code, out = check(keys, "checkpoint", save(tmp_path, "cp.txt", note), origin="marysville.example.com")
    assert code == 1 and f"of the log marysville.example.com/audit/{room.chain}, not of marysville.example.com" in out
    # Not given, the keys file's own is used, which vouches for nothing: never HOLDS.
    code, out = check(keys, "entry", proof, origin=None)
    lines = out.splitlines()
    assert code == tlog.EXIT["NOT CHECKED"] == 3, out
    assert lines[0] == ("NOTE no log origin given (--origin <base>): checked against the keys file's own origin, "
                        "marysville.example.com/audit, which vouches for nothing by itself.")
    assert lines[-1] == ("NOT CHECKED: no log origin given (--origin <base>): nothing failed, but only against the "
                         "keys file's own origin. Give the installation's log origin you kept with --origin.")
    code, out = check(keys, "entry", proof, origin=None, trust=None)
    assert code == 3 and out.splitlines()[-1].startswith(
        "NOT CHECKED: no root of trust given (--trust SHA256:...) and no log origin given (--origin <base>): nothing "
        "failed, but only against the keys file's own root and origin. Give the installation's fingerprint you kept "
        "with --trust and the installation's log origin you kept with --origin."), out
    code, out = check(keys, "entry", proof, origin="marysville.example.com/audit/")
    assert code == 2 and "UNREADABLE --origin: 'marysville.example.com/audit/' ends in '/'" in out, out


def test_the_origin_of_a_checkpoint_kept_is_the_one_checked(api, regulator, room, tmp_path):
    """A regulator who kept a checkpoint kept the log's name with it: without --origin, it is the one checked."""
    keys = keys_file(api, tmp_path)
    kept = save(tmp_path, "kept.txt", regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).content.decode())
    code, out = check(keys, "export", str(export(room, tmp_path / "b.zip")), "--kept", kept, origin=None)
    assert code == 0 and out.splitlines()[-1] == "HOLDS", out
    assert (f"NOTE the log's origin, {django_settings.AUDIT_LOG_ORIGIN}, is the one of the checkpoint you kept "
            "(--origin not given).") in out.splitlines()
    proof = save(tmp_path, "p.txt", regulator.get("/api/v1/audit/consistency", {"chain": room.slug, "from": 3})
                 .content.decode())
    assert check(keys, "consistency", save(tmp_path, "k3.txt", regulator.get(
        "/api/v1/audit/checkpoint", {"chain": room.slug, "size": 3}).content.decode()), proof, origin=None)[0] == 0


def test_the_log_keeps_its_name_once_a_checkpoint_is_signed(api, regulator, room, settings):
    """AUDIT_LOG_ORIGIN changed on a running installation: the system checks (start-up, bin/migrate) say so, and
    nothing is signed under the new name, which regulators and witnesses do not know."""
    from django.core.checks import run_checks

    settings.AUDIT_LOG_ORIGIN = "room.example/audit"
    assert transparency.origin_problem() is None  # nothing signed yet: any name
    assert regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug}).status_code == 200
    assert not [m for m in run_checks(databases=["default"]) if m.id == "cardroom.E003"]
    settings.AUDIT_LOG_ORIGIN = "room.example/audit/fork2"
    [error] = [m for m in run_checks(databases=["default"]) if m.id == "cardroom.E003"]
    assert error.msg.startswith("AUDIT_LOG_ORIGIN is 'room.example/audit/fork2', but this installation's checkpoints "
                                f"are signed as 'room.example/audit' (the last, of {room.chain} at 7 entries, on ")
    assert error.msg.endswith("Set AUDIT_LOG_ORIGIN back to 'room.example/audit'.")
    with pytest.raises(transparency.StateConflict, match="Refused to sign a checkpoint: AUDIT_LOG_ORIGIN is"):
        transparency.sign(room.chain)
    answer = regulator.get("/api/v1/audit/checkpoint", {"chain": room.slug})
    assert answer.status_code == 409 and "room.example/audit/fork2" in answer.content.decode()
    assert not AuditCheckpoint.objects.filter(note__startswith="room.example/audit/fork2/").exists()
    # bin/migrate's check stops the deploy.
    import io

    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    with pytest.raises(SystemCheckError, match="cardroom.E003"):
        call_command("check", "--database", "default", stdout=io.StringIO(), stderr=io.StringIO())
    settings.AUDIT_LOG_ORIGIN = "room.example/audit"
    assert transparency.origin_problem() is None and transparency.sign(room.chain).size == 7
