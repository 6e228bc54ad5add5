"""The witness over HTTP (C2SP tlog-witness): every status add-checkpoint answers, through the endpoint; the
monitoring read; the key; and the state kept in the database, not in the process."""

import hashlib
import time

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client

from cardroom import bundle, checkpoint, keys, merkle
from cardroom.models import AuditLogEntry, WitnessedLog
from cardroom.tlog import cosignature
from cardroom.witness import keys as witness_keys

from .conftest import ORIGIN, WITNESS_NAME, Log, witness_public_key

pytestmark = pytest.mark.django_db

ADD = "/witness/add-checkpoint"


def post(client, body):
    return client.post(ADD, data=body, content_type="text/plain")


def stored(origin=ORIGIN):
    return WitnessedLog.objects.get(origin=origin)


def test_a_first_checkpoint_is_cosigned_and_the_cosignature_verifies(client, witness, log):
    before = int(time.time())
    response = post(client, log.request(0, 5))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    text = response.content.decode()
    assert cosignature.response_lines(text) == [text[:-1]]  # one signature line, ending in a newline
    found = cosignature.cosignature_of(log.note(5) + text, WITNESS_NAME, witness_public_key())
    assert found is not None and before <= found.timestamp <= int(time.time())
    row = stored()
    assert (row.size, row.root_hash) == (5, log.root(5).hex())


def test_a_consistent_larger_checkpoint_is_cosigned_from_the_size_held(client, witness, log):
    assert post(client, log.request(0, 5)).status_code == 200
    assert post(client, log.request(5, 8)).status_code == 200
    assert post(client, log.request(8, 8)).status_code == 200  # the same checkpoint again: cosigned again
    assert stored().size == 8


def test_400_for_a_request_that_cannot_be_read(client, witness, log):
    assert post(client, b"old 5\n").status_code == 400
    assert post(client, b"\xff\xfeold 0\n\n").status_code == 400  # not UTF-8
    unreadable = post(client, log.request(0, 5, note="cardroom/audit/x\nfive\nroot\n\n\u2014 cardroom AAAA\n"))
    assert unreadable.status_code == 400 and b"origin, tree size and root hash" in unreadable.content
    # A signed checkpoint whose old size is above its own size: 400, whatever size the witness holds.
    assert post(client, log.request(9, 8, proof=[])).status_code == 400
    assert not WitnessedLog.objects.exists()


def test_404_for_an_origin_this_witness_does_not_witness(client, witness):
    other = Log(origin="example.org/another-log")
    response = post(client, other.request(0, 5))
    assert response.status_code == 404 and b"example.org/another-log" in response.content
    assert not WitnessedLog.objects.exists()


def test_a_forked_history_under_a_new_origin_of_the_log_is_refused_404(client, witness, log):
    """Issue 41, through the door the log's owner used: the witness cosigned the genuine log; the owner, who holds
    the log's key, rewrites it and signs the forged tree under an origin of its own making that starts as the
    log's does (or spells one of its chains another way). Each is another log to a witness, which must not cosign
    a second history of the chain: 404, and no state is kept for it."""
    assert post(client, log.request(0, 5)).status_code == 200
    for forged_origin in ("cardroom/audit/fork2/installation", "cardroom/audit/fork2/establishment:1",
                          "cardroom/audit/installation/fork2", "cardroom/audit/establishment:01",
                          "cardroom/audit/", "cardroom/auditfork/installation", "other.example/audit/installation"):
        forged = Log(origin=forged_origin)  # the same key: the owner's
        forged.leaves = [b"rewritten by the owner", *log.leaves[1:]]
        response = post(client, forged.request(0, 5))
        assert response.status_code == 404, (forged_origin, response.content)
        assert forged_origin.encode() in response.content
    assert list(WitnessedLog.objects.values_list("origin", "size")) == [(ORIGIN, 5)]


def test_403_without_a_signature_of_a_trusted_key_or_with_one_that_does_not_verify(client, witness, log):
    stranger = Log(key=Ed25519PrivateKey.generate())
    assert post(client, stranger.request(0, 5)).status_code == 403
    # The trusted key's name with another key: not the trusted key's line (another key id), so no signature of it.
    assert post(client, Log(key=Ed25519PrivateKey.generate(), name="cardroom").request(0, 5)).status_code == 403
    altered = log.note(5).replace("\n5\n", "\n6\n")
    response = post(client, log.request(0, 6, note=altered))
    assert response.status_code == 403 and b"does not verify" in response.content
    assert not WitnessedLog.objects.exists()


def test_409_names_the_size_last_cosigned(client, witness, log):
    response = post(client, log.request(3, 5))
    assert (response.status_code, response.content) == (409, b"0\n")
    assert response["Content-Type"] == "text/x.tlog.size"
    assert post(client, log.request(0, 8)).status_code == 200
    for old in (0, 5):  # a client that does not know, or lags behind
        response = post(client, log.request(old, 10))
        assert (response.status_code, response.content, response["Content-Type"]) == (409, b"8\n",
                                                                                      "text/x.tlog.size")
    assert stored().size == 8


def test_422_for_an_inconsistent_checkpoint_and_a_fork_is_kept_as_evidence(client, witness, log):
    assert post(client, log.request(0, 0, note=log.note(0, root=bytes(32)))).status_code == 422  # size 0, not SHA-256()
    assert post(client, log.request(0, 5, proof=[bytes(32)])).status_code == 422  # a proof from size 0
    assert post(client, log.request(0, 5)).status_code == 200
    bad_proof = [bytes(32), *log.proof(5, 8)[1:]]
    assert post(client, log.request(5, 8, proof=bad_proof)).status_code == 422
    assert not AuditLogEntry.objects.filter(action="witness.conflicting_checkpoint").exists()  # a proof proves nothing
    forked = log.note(5, root=merkle.root([b"another history"] * 5))
    response = post(client, log.request(5, 5, note=forked))
    assert response.status_code == 422 and b"another root" in response.content
    entry = AuditLogEntry.objects.get(action="witness.conflicting_checkpoint")
    assert entry.data["origin"] == ORIGIN and entry.data["size"] == 5
    # Both checkpoints the log signed are kept, each verifying with the log's key: the fork proves itself.
    for note in (entry.data["cosigned"], entry.data["submitted"]):
        assert checkpoint.verify(note, "cardroom", log.key.public_key())[1] == 5
    assert entry.data["cosigned"] != entry.data["submitted"]
    row = stored()
    assert (row.size, row.root_hash) == (5, log.root(5).hex())  # nothing refused moved the witness


def test_an_empty_tree_is_cosigned_and_then_any_tree(client, witness, log):
    assert post(client, log.request(0, 0)).status_code == 200
    assert post(client, log.request(0, 4)).status_code == 200
    assert stored().size == 4


def test_413_for_a_body_over_the_limit_and_405_for_another_method(client, witness, log):
    response = post(client, log.request(0, 5) + b"x" * (128 * 1024))
    assert response.status_code == 413
    assert client.get(ADD).status_code == 405


def test_state_is_per_origin(client, witness, log):
    other = Log(origin="cardroom/audit/establishment:7")
    assert post(client, log.request(0, 8)).status_code == 200
    assert post(client, other.request(0, 3)).status_code == 200
    assert (stored().size, stored(other.origin).size) == (8, 3)


def test_the_state_is_read_from_the_database_after_a_restart(witness, log):
    assert post(Client(), log.request(0, 8)).status_code == 200
    keys._cache.clear()  # what a new process starts without; the rows are all it has
    restarted = Client()
    response = post(restarted, log.request(0, 12))
    assert (response.status_code, response.content) == (409, b"8\n")
    assert post(restarted, log.request(8, 12)).status_code == 200
    assert stored().size == 12


def test_the_monitoring_read_serves_the_latest_cosigned_checkpoint(client, witness, log):
    address = f"/witness/{hashlib.sha256(ORIGIN.encode()).hexdigest()}/checkpoint"
    assert client.get(address).status_code == 404
    assert post(client, log.request(2, 3)).status_code == 409  # the log's row is made (at size 0), nothing cosigned
    assert client.get(address).status_code == 404
    assert post(client, log.request(0, 3)).status_code == 200
    line = post(client, log.request(3, 7)).content.decode()
    response = client.get(address)
    assert response.status_code == 200
    note = response.content.decode()
    assert note.endswith(line)
    assert checkpoint.verify(note, "cardroom", log.key.public_key()) == (ORIGIN, 7, log.root(7))
    assert cosignature.cosignature_of(note, WITNESS_NAME, witness_public_key()) is not None
    assert client.get("/witness/NOT-A-HASH/checkpoint").status_code == 404
    assert client.get(f"/witness/{'0' * 64}/checkpoint").status_code == 404


def test_the_key_is_served_and_printed(client, witness, capsys):
    response = client.get("/witness/key")
    assert response.status_code == 200
    name, public = cosignature.read_verifier_key(response.content.decode())
    assert name == WITNESS_NAME
    assert checkpoint.raw_public_key(public) == checkpoint.raw_public_key(witness_public_key())
    call_command("witness_key")
    assert capsys.readouterr().out == response.content.decode()


def test_no_witness_answers_404_everywhere(client, settings, log):
    settings.WITNESS_NAME = ""
    assert post(client, log.request(0, 5)).status_code == 404
    assert client.get("/witness/key").status_code == 404
    assert client.get(f"/witness/{hashlib.sha256(ORIGIN.encode()).hexdigest()}/checkpoint").status_code == 404
    assert not WitnessedLog.objects.exists()


def test_the_witness_key_must_not_be_the_signing_key(witness, settings):
    settings.WITNESS_KEY = bundle.private_key_pem(keys.installation_key())
    with pytest.raises(ImproperlyConfigured, match="is the signing key"):
        witness_keys.witness_key()


def test_the_system_checks_say_what_is_wrong_with_the_witness_key_before_a_submission_does(witness, settings):
    from django.core.checks import run_checks

    assert not [m for m in run_checks() if m.id == "cardroom.E002"]
    settings.WITNESS_KEY = "not a key"
    said = [m for m in run_checks() if m.id == "cardroom.E002"]
    assert len(said) == 1 and "WITNESS_KEY is not an Ed25519 private key" in said[0].msg


def test_without_witness_key_the_key_file_is_made_once_and_kept(witness, settings, tmp_path):
    settings.WITNESS_KEY, settings.WITNESS_KEY_FILE = "", tmp_path / "witness" / "key.pem"
    made = witness_keys.witness_key()
    assert settings.WITNESS_KEY_FILE.stat().st_mode & 0o777 == 0o600
    keys._cache.clear()
    again = witness_keys.witness_key()
    assert checkpoint.raw_public_key(again.public_key()) == checkpoint.raw_public_key(made.public_key())
