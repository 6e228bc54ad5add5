"""The room's audit log witnessed by a second installation (bin/test-live starts it: its own database and key).

The flow of issue 36: the beat task submits the room's checkpoints to the witness, which cosigns them; an export
carries the cosignatures and the offline verifier, told the witness, says HOLDS. Then the database owner rewrites
the log's tail (hashes, chain head and stored checkpoints put right, as only the owner can) and the room signs
again: the witness refuses the rewritten checkpoint, the room's compliance officer sees the refusal in the inbox,
and the rewritten log's bundle fails the verifier with the witness, while the honest bundle, kept, still passes. The
witness is restarted in between: what it refuses, it refuses from the state it keeps in its database.

Then issue 41: the owner signs the rewritten history under a new origin, as a new log (<origin>/fork2), with the
room's own key file: the witness refuses it (404), the room refuses to sign under a name its checkpoints were not
signed under until the owner deletes them all, and the bundle it then exports fails the verifier given the origin
the regulator kept, and the service's own check."""

import datetime
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest

from cardroom import chain as hashchain

from .test_page_fuzz import Session
from .test_service import fetch

ROOM = "casino-marysville"
TABLES = ("cardroom_auditlogentry", "cardroom_auditchainhead", "cardroom_auditcheckpoint")
ROOT = Path(__file__).resolve().parents[2]


def witness_name():
    return os.environ["LIVE_WITNESS_KEY"].split("+", 1)[0]


def sign_checkpoints():
    """The hourly beat task, run now by the live worker."""
    from cardroom.tasks import sign_checkpoints as task

    return task.delay().get(timeout=120)


def room_chain(service):
    (pk,) = service.execute("SELECT id FROM cardroom_establishment WHERE slug = %s", [ROOM]).fetchone()
    return hashchain.chain_name(pk)


def export(path):
    """The room's audit export up to today, by the command line (the same job as the API and the pages)."""
    subprocess.run([sys.executable, "manage.py", "export_audit", "--establishment", ROOM, "--as-of",
                    datetime.date.today().isoformat(), "-o", str(path)], cwd=ROOT, check=True, capture_output=True)


def verify(bundle, keys, root, *witness, kept=None, origin=None):
    """The offline verifier's exit code and output, as a regulator runs it: with the root and the log's origin they
    kept (``origin``: the room's AUDIT_LOG_ORIGIN unless given), ``--witness`` and ``--quorum 1`` when a witness is
    given, and a kept checkpoint when one is."""
    extra = ["--witness", *witness, "--quorum", "1"] if witness else []
    run = subprocess.run([sys.executable, "-m", "cardroom.tlog", "--keys", str(keys), "--trust", root, "--origin",
                          origin or os.environ["AUDIT_LOG_ORIGIN"], *extra, "export", str(bundle),
                          *(["--kept", str(kept)] if kept else [])], cwd=ROOT, capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def restart_the_witness(witness_url):
    """gunicorn's HUP: its worker processes replaced by new ones, which know only what the database keeps."""
    os.kill(int(os.environ["LIVE_WITNESS_PID"]), signal.SIGHUP)
    time.sleep(1)  # the old worker finishes; the new one is booting
    for _ in range(60):
        if fetch(f"{witness_url}/key")[0] == 200:
            return
        time.sleep(0.5)
    pytest.fail("the witness did not answer again within 30 s of its restart")


def rewrite_tail(owner_url, chain, start):
    """What a database owner can do: the chain's entry at position ``start`` changed and every hash from it on
    recomputed (each entry's link to the one before too), the chain head moved to match, the stored checkpoints and
    their cosignatures deleted: the log holds no trace of the rewrite, and the room signs again, unaware."""
    columns = ", ".join(hashchain.FIELDS)
    with psycopg.connect(owner_url) as owner, owner.transaction():
        owner.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no key check left pending when the triggers go back on
        for table in TABLES:
            owner.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        cursor = owner.cursor(row_factory=psycopg.rows.dict_row)
        (previous,) = owner.execute("SELECT entry_hash FROM cardroom_auditlogentry WHERE chain = %s AND sequence = %s",
                                    [chain, start - 1]).fetchone() or (hashchain.GENESIS,)
        for entry in cursor.execute(f"SELECT id, {columns} FROM cardroom_auditlogentry WHERE chain = %s AND "
                                    "sequence >= %s ORDER BY sequence", [chain, start]).fetchall():
            if entry["sequence"] == start:
                entry["object_repr"] = "rewritten by the owner"
            entry["prev_hash"] = previous
            previous = hashchain.entry_hash(entry)
            owner.execute("UPDATE cardroom_auditlogentry SET object_repr = %s, prev_hash = %s, entry_hash = %s "
                          "WHERE id = %s", [entry["object_repr"], entry["prev_hash"], previous, entry["id"]])
        owner.execute("UPDATE cardroom_auditchainhead SET entry_hash = %s WHERE chain = %s", [previous, chain])
        owner.execute("DELETE FROM cardroom_checkpointcosignature WHERE checkpoint_id IN "
                      "(SELECT id FROM cardroom_auditcheckpoint WHERE chain = %s)", [chain])
        owner.execute("DELETE FROM cardroom_auditcheckpoint WHERE chain = %s", [chain])
        for table in TABLES:
            owner.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")


@pytest.mark.services  # the beat task runs on the live worker
def test_a_rewritten_log_is_refused_by_its_witness_and_fails_the_verifier(
        live_url, demo_users, service_database_url, owner_database_url, tmp_path):
    witness_url, witness_key = os.environ["LIVE_WITNESS_URL"], os.environ["LIVE_WITNESS_KEY"]
    with psycopg.connect(service_database_url, autocommit=True) as service:
        chain = room_chain(service)

        # Honest: the beat's checkpoint is cosigned, and the witness says so too.
        sign_checkpoints()
        cosigned = service.execute(
            "SELECT count(*) FROM cardroom_checkpointcosignature s JOIN cardroom_auditcheckpoint c "
            "ON c.id = s.checkpoint_id WHERE c.chain = %s AND s.witness = %s", [chain, witness_name()]).fetchone()[0]
        assert cosigned >= 1
        origin_hash = hashlib.sha256(f"{os.environ['AUDIT_LOG_ORIGIN']}/{chain}".encode()).hexdigest()
        status, _, seen = fetch(f"{witness_url}/{origin_hash}/checkpoint")
        assert status == 200 and f"\u2014 {witness_name()} " in seen.decode()

        status, _, keys = fetch(f"{live_url}/api/v1/audit/keys", ("floor", demo_users["floor"]))
        assert status == 200
        (tmp_path / "keys.json").write_bytes(keys)
        root = json.loads(keys)["root"]
        export(tmp_path / "honest.zip")
        code, said = verify(tmp_path / "honest.zip", tmp_path / "keys.json", root, witness_name(), witness_key)
        assert code == 0, said

        # The witness restarted remembers what it cosigned; the owner rewrites the tail from an entry it cosigned,
        # the room signs again and submits: the witness refuses it.
        restart_the_witness(witness_url)
        status, _, seen = fetch(f"{witness_url}/{origin_hash}/checkpoint")
        witnessed_size = int(seen.decode().split("\n")[1])
        (tmp_path / "witnessed.txt").write_bytes(seen)  # the witness keeps it: the regulator needs to keep nothing
        rewrite_tail(owner_database_url, chain, witnessed_size)  # an entry the witness has cosigned
        sign_checkpoints()
        refusal = service.execute("SELECT refusal FROM cardroom_witnessstate WHERE witness = %s",
                                  [witness_name()]).fetchone()
        assert refusal and "422" in refusal[0], refusal

    # The room's compliance officers see it in the inbox (the second one: the page fuzzer logs the first in later,
    # and the demo's authenticator app takes each code once).
    officer = Session(live_url)
    officer.log_in("compliance-2", demo_users["compliance-2"])
    status, _, page = officer.request("GET", f"/compliance/{ROOM}/")
    assert status == 200 and witness_name() in page.decode()

    # The rewritten log's bundle fails with the witness named; without it, it would pass: the keys sign it all.
    export(tmp_path / "rewritten.zip")
    code, said = verify(tmp_path / "rewritten.zip", tmp_path / "keys.json", root, witness_name(), witness_key)
    assert code == 1 and witness_name() in said, said
    assert verify(tmp_path / "rewritten.zip", tmp_path / "keys.json", root)[0] == 0
    # The checkpoint the witness cosigned (its monitoring read) is not a prefix of the rewritten log.
    code, said = verify(tmp_path / "rewritten.zip", tmp_path / "keys.json", root, kept=tmp_path / "witnessed.txt")
    assert code == 1, said
    # The honest bundle, kept, still holds.
    assert verify(tmp_path / "honest.zip", tmp_path / "keys.json", root, witness_name(), witness_key)[0] == 0


def manage(*args, owner_url=None, **env):
    """A management command run as the room's processes are (the live stage's environment), with ``env`` changed,
    as the database owner when ``owner_url`` is given."""
    changed = {**os.environ, **env, **({"DATABASE_URL": owner_url} if owner_url else {})}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True, env=changed,
                          timeout=300)


def forget_checkpoints(owner_url, like="%"):
    """The owner deletes the stored checkpoints whose note starts as ``like`` says, and their cosignatures."""
    with psycopg.connect(owner_url) as owner, owner.transaction():
        owner.execute("SET CONSTRAINTS ALL IMMEDIATE")
        owner.execute("ALTER TABLE cardroom_auditcheckpoint DISABLE TRIGGER USER")
        owner.execute("DELETE FROM cardroom_checkpointcosignature WHERE checkpoint_id IN "
                      "(SELECT id FROM cardroom_auditcheckpoint WHERE note LIKE %s)", [like])
        owner.execute("DELETE FROM cardroom_auditcheckpoint WHERE note LIKE %s", [like])
        owner.execute("ALTER TABLE cardroom_auditcheckpoint ENABLE TRIGGER USER")


def forged_checkpoint(owner_url, chain, origin):
    """What the owner signs with the room's key file, in a process of its own: the chain's tree as the database now
    holds it, under ``origin``."""
    from cardroom import bundle, checkpoint, merkle

    key = bundle.load_private_key(Path(os.environ["SIGNING_KEY_FILE"]).read_bytes())
    with psycopg.connect(owner_url) as owner:
        leaves = [bytes.fromhex(h) for (h,) in owner.execute(
            "SELECT entry_hash FROM cardroom_auditlogentry WHERE chain = %s ORDER BY sequence", [chain])]
    return checkpoint.sign(origin, len(leaves), merkle.root(leaves), "cardroom", key), leaves


def post(url, body):
    """(status, body) of a POST of text."""
    request = urllib.request.Request(url, data=body.encode(), method="POST",
                                     headers={"Content-Type": "text/plain; charset=utf-8"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.services
def test_a_forked_history_under_a_new_origin_is_refused_by_the_witness_and_fails_the_verifier(
        live_url, demo_users, service_database_url, owner_database_url, tmp_path):
    from cardroom.tlog import cosignature

    witness_url, witness_key = os.environ["LIVE_WITNESS_URL"], os.environ["LIVE_WITNESS_KEY"]
    base = os.environ["AUDIT_LOG_ORIGIN"]
    with psycopg.connect(service_database_url, autocommit=True) as service:
        chain = room_chain(service)
        sign_checkpoints()  # the genuine log (or, after the test above, the log as rewritten under its own name)
    genuine_hash = hashlib.sha256(f"{base}/{chain}".encode()).hexdigest()
    status, _, held = fetch(f"{witness_url}/{genuine_hash}/checkpoint")
    assert status == 200

    # The owner rewrites entry 2 of the chain, every hash after it and the head, and signs the forged tree with the
    # room's key file as a "new log": the witness witnesses exactly the room's own origins, so it never cosigns it.
    rewrite_tail(owner_database_url, chain, 2)
    try:
        for origin in (f"{base}/fork2/{chain}", f"{base}/fork2/installation", f"other.live.test/audit/{chain}"):
            note, _ = forged_checkpoint(owner_database_url, chain, origin)
            status, said = post(f"{witness_url}/add-checkpoint", cosignature.request_text(0, [], note))
            assert status == 404 and origin in said, (origin, status, said)
            assert fetch(f"{witness_url}/{hashlib.sha256(origin.encode()).hexdigest()}/checkpoint")[0] == 404
        assert fetch(f"{witness_url}/{genuine_hash}/checkpoint")[2] == held  # what it cosigned stands
        status, _, keys = fetch(f"{live_url}/api/v1/audit/keys")
        assert status == 200 and json.loads(keys)["origin"] == base  # what the regulator keeps with the root
        (tmp_path / "keys.json").write_bytes(keys)
        root = json.loads(keys)["root"]

        # A room process started under the new name refuses: bin/migrate's check stops, and nothing is signed.
        # (CELERY_BROKER_URL empty: the export runs in this process, not on the live worker, which keeps its name.)
        forked = {"AUDIT_LOG_ORIGIN": f"{base}/fork2", "CELERY_BROKER_URL": ""}
        checked = manage("check", "--database", "default", **forked)
        assert checked.returncode != 0 and "cardroom.E003" in checked.stderr + checked.stdout, checked
        refused = manage("export_audit", "--establishment", ROOM, "--as-of", datetime.date.today().isoformat(), "-o",
                         str(tmp_path / "refused.zip"), owner_url=owner_database_url, **forked)
        assert refused.returncode != 0 and f"AUDIT_LOG_ORIGIN is '{base}/fork2'" in refused.stdout + refused.stderr, \
            refused

        # Unless the owner deletes every checkpoint first: then it exports the forged history under the new name,
        # signed with the room's key. The witness refused to cosign it (404), and the verifier, given the origin
        # the regulator kept, fails it, naming it; so does the service's own check.
        forget_checkpoints(owner_database_url)
        made = manage("export_audit", "--establishment", ROOM, "--as-of", datetime.date.today().isoformat(), "-o",
                      str(tmp_path / "forged.zip"), owner_url=owner_database_url, **forked)
        assert made.returncode == 0, made
        with psycopg.connect(service_database_url, autocommit=True) as service:
            refusal = service.execute("SELECT refusal FROM cardroom_witnessstate WHERE witness = %s",
                                      [witness_name()]).fetchone()
        assert refusal and "404" in refusal[0], refusal
        code, said = verify(tmp_path / "forged.zip", tmp_path / "keys.json", root, witness_name(), witness_key)
        assert code == 1 and f"it is of the log {base}/fork2/{chain}, not of {base} " in said, said
        code, said = verify(tmp_path / "forged.zip", tmp_path / "keys.json", root)  # the origin alone catches it
        assert code == 1 and said.strip().endswith("DOES NOT HOLD"), said
        checked = manage("verify_export", str(tmp_path / "forged.zip"))
        assert checked.returncode != 0 and f"{base}/fork2/{chain}" in checked.stdout + checked.stderr, checked
    finally:
        # The room goes on under its own name: the forged checkpoints go (the owner could keep them; the live
        # service would then refuse to sign, as it should, and the tests after this one need it to sign).
        forget_checkpoints(owner_database_url, f"{base}/fork2/%")
