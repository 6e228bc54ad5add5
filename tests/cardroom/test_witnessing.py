"""The room submits its checkpoints to witnesses (cardroom.witnessing): against fake witnesses that judge each
add-checkpoint request as C2SP tlog-witness says (``cardroom.tlog.cosignature.judge``) and cosign with a test key,
called in-process and, once, over HTTP. A refusal is an error in the inbox, a witness down too long a warning, both
cleared when it cosigns again; the exports carry the cosignatures and the offline verifier requires them."""

import datetime
import html
import http.server
import threading
import zipfile

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from cardroom import checkpoint, keys, merkle, transparency, witnessing
from cardroom.audit import log_action
from cardroom.inbox import awaiting
from cardroom.models import AuditCheckpoint, AuditLogEntry, CheckpointCosignature, WitnessState
from project.settings import _witnesses
from cardroom.tasks import sign_checkpoints
from cardroom.tlog import cosignature
from tests.cardroom.test_transparency import check, export, keys_file, save

pytestmark = pytest.mark.django_db


class FakeWitness:
    """A witness: what it last cosigned of each origin, judged and cosigned as tlog-witness says. ``status``: an
    answer it gives instead (a 5xx, a 403...); ``down``: it does not answer at all."""

    def __init__(self, name):
        self.name, self.key = name, Ed25519PrivateKey.generate()
        self.verifier_key = cosignature.verifier_key(name, self.key.public_key())
        self.url = f"https://{name}"
        self.held, self.requests = {}, []
        self.status = self.down = None

    def config(self):
        return {"name": self.name, "verifier_key": self.verifier_key, "url": self.url}

    def __call__(self, url, body, timeout):
        assert url == f"{self.url}/add-checkpoint"
        if self.down:
            raise witnessing.Unanswered("connection refused")
        request = cosignature.read_request(body)
        self.requests.append(request)
        if self.status:
            return witnessing.Answer(self.status, "text/plain", "not today\n")
        origin, size, root = checkpoint.verify(request.note, transparency.KEY_NAME, keys.public_key())
        known_size, known_root = self.held.get(origin, (0, None))
        judged = cosignature.judge(known_size, known_root, request, size, root)
        if judged.status == 409:
            return witnessing.Answer(409, cosignature.SIZE_CONTENT_TYPE, f"{known_size}\n")
        if not judged.cosign:
            return witnessing.Answer(judged.status, "text/plain", judged.reason + "\n")
        self.held[origin] = (size, root)
        body_text, _ = cosignature.note_parts(request.note)
        return witnessing.Answer(200, "text/plain", cosignature.cosign(self.name, self.key, body_text,
                                                                        int(timezone.now().timestamp())))


@pytest.fixture
def room(people):
    from cardroom.models import Establishment

    from cardroom.audit import chain_name

    room = Establishment.objects.create(slug="test-witness-room", name="Test Witness Room",
                                        jurisdiction=people.washington, kind="card_room", is_demo=True)
    room.chain = chain_name(room)
    for n in range(1, 6):
        log_action(f"test.step{n}", establishment=room, data={"n": n})
    return room


@pytest.fixture
def witnesses(settings, monkeypatch):
    """Two fake witnesses, configured; every request goes to the one its URL names."""
    fakes = [FakeWitness("witness.example/w1"), FakeWitness("witness.example/w2")]
    settings.WITNESSES = [w.config() for w in fakes]
    settings.WITNESS_DOWN_WARNING_AFTER = 6
    by_url = {f"{w.url}/add-checkpoint": w for w in fakes}
    monkeypatch.setattr(witnessing, "post", lambda url, body, timeout: by_url[url](url, body, timeout))
    return fakes


def signed(room, size=None):
    return transparency.sign(room.chain, size=size, purpose=AuditCheckpoint.Purpose.SCHEDULE)


def submit(room, signed_checkpoint):
    return {o.witness: o for o in witnessing.witness(signed_checkpoint,
                                                     transparency.tree_leaves(room.chain, signed_checkpoint.size))}


def kinds(user):
    return {(a.kind, a.asked_by) for a in awaiting(user) if a.kind.startswith("witness")}


def test_the_first_submission_is_from_0_and_the_next_carries_a_proof_from_the_size_cosigned(room, witnesses):
    w1, w2 = witnesses
    first = signed(room)
    outcomes = submit(room, first)
    assert {o.result for o in outcomes.values()} == {witnessing.COSIGNED}
    assert (w1.requests[0].old_size, w1.requests[0].proof) == (0, [])
    stored = CheckpointCosignature.objects.get(checkpoint=first, witness=w1.name)
    assert cosignature.cosignature_of(witnessing.cosigned(first), w1.name, w1.key.public_key()).line == stored.line

    log_action("test.later", establishment=room)
    log_action("test.later", establishment=room)
    second = signed(room)
    submit(room, second)
    request = w1.requests[-1]
    leaves = transparency.tree_leaves(room.chain, 7)
    assert (request.old_size, request.proof) == (5, merkle.consistency_proof(leaves, 5)) and request.proof
    assert CheckpointCosignature.objects.filter(checkpoint=second).count() == 2
    # Asked again, a checkpoint already cosigned is not sent again.
    submit(room, second)
    assert len(w1.requests) == 2


def test_on_409_it_asks_again_from_the_size_the_witness_holds(room, witnesses):
    w1, _ = witnesses
    first = signed(room)
    submit(room, first)
    CheckpointCosignature.objects.all().delete()  # the room forgot; the witness did not
    log_action("test.later", establishment=room)
    outcomes = submit(room, signed(room))
    assert outcomes[w1.name].result == witnessing.COSIGNED, outcomes[w1.name].detail
    assert [r.old_size for r in w1.requests] == [0, 0, 5]
    assert w1.requests[-1].proof == merkle.consistency_proof(transparency.tree_leaves(room.chain, 6), 5)


def test_a_witness_holding_a_size_this_log_never_signed_is_an_error_in_the_inbox(room, witnesses, people):
    w1, _ = witnesses
    w1.held[transparency.origin(room.chain)] = (40, b"\x00" * 32)
    outcomes = submit(room, signed(room))
    assert outcomes[w1.name].result == witnessing.REFUSED
    assert "holds 40 entries" in outcomes[w1.name].detail and len(w1.requests) == 1  # not asked again
    for user in (people.compliance_wa, people.admin):
        assert kinds(user) == {(witnessing.REFUSED_KIND, w1.name)}
    assert kinds(people.regulator_wa) == set()  # not a compliance officer nor an administrator
    entry = AuditLogEntry.objects.get(action="audit.witness_refused")
    assert entry.data["witness"] == w1.name and "40 entries" in entry.data["refusal"]


def test_the_compliance_home_shows_a_refusal(client, room, witnesses, people):
    from django.urls import reverse

    witnesses[0].status = 422
    submit(room, signed(room))
    client.force_login(people.compliance_wa)
    page = client.get(reverse("console:compliance", args=[people.wa_room.slug])).content.decode()
    assert "Error: a witness refused: the witness witness.example/w1 refused to cosign: it answered 422" in page
    # A matter standing since then, not an approval someone asked for.
    item = page[page.index("Error: a witness refused"):]
    assert "since" in item[:item.index("</li>")] and "asked by" not in item[:item.index("</li>")]


@pytest.mark.parametrize("status", [422, 403, 404])
def test_a_refusal_stands_in_the_inbox_until_the_witness_cosigns_again(room, witnesses, people, status):
    w1, w2 = witnesses
    w1.status = status
    first = signed(room)
    submit(room, first)
    submit(room, first)  # asked again the next hour: still refused, said once in the audit log
    assert kinds(people.compliance_wa) == {(witnessing.REFUSED_KIND, w1.name)}
    item = next(a for a in awaiting(people.admin) if a.kind == witnessing.REFUSED_KIND)
    assert f"answered {status}" in item.what and "not today" in item.what
    assert AuditLogEntry.objects.filter(action="audit.witness_refused").count() == 1
    assert not CheckpointCosignature.objects.filter(witness=w1.name).exists()

    w1.status = None
    assert submit(room, first)[w1.name].result == witnessing.COSIGNED
    assert kinds(people.compliance_wa) == set()
    assert AuditLogEntry.objects.get(action="audit.witness_back").data["was"] == "refusing"


def test_an_answer_that_is_not_the_configured_witness_cosignature_is_a_refusal(room, witnesses, people):
    w1, _ = witnesses
    w1.key = Ed25519PrivateKey.generate()  # it cosigns with another key than the one configured
    outcome = submit(room, signed(room))[w1.name]
    assert outcome.result == witnessing.REFUSED and "no cosignature of its configured key" in outcome.detail
    assert not CheckpointCosignature.objects.filter(witness=w1.name).exists()


def test_a_witness_down_is_a_warning_only_after_the_period_and_cleared_when_it_cosigns(room, witnesses, people):
    w1, _ = witnesses
    w1.down = True
    first = signed(room)
    assert submit(room, first)[w1.name].result == witnessing.DOWN
    assert kinds(people.compliance_wa) == set()  # not yet: it may be a short outage
    assert not AuditLogEntry.objects.filter(action="audit.witness_down").exists()

    WitnessState.objects.filter(witness=w1.name).update(down_since=timezone.now() - datetime.timedelta(hours=7))
    submit(room, first)
    assert kinds(people.compliance_wa) == {(witnessing.DOWN_KIND, w1.name)}
    assert kinds(people.admin) == {(witnessing.DOWN_KIND, w1.name)}
    assert AuditLogEntry.objects.filter(action="audit.witness_down").count() == 1

    w1.down = False
    assert submit(room, first)[w1.name].result == witnessing.COSIGNED
    assert kinds(people.admin) == set()
    assert AuditLogEntry.objects.get(action="audit.witness_back").data["was"] == "down"


def test_a_5xx_is_down_not_a_refusal(room, witnesses, people):
    w1, _ = witnesses
    w1.status = 503
    assert submit(room, signed(room))[w1.name].result == witnessing.DOWN
    assert WitnessState.objects.get(witness=w1.name).refused_at is None


def test_the_hourly_beat_submits_each_chains_newest_checkpoint(room, witnesses):
    w1, w2 = witnesses
    result = sign_checkpoints()
    assert result["witnessed"][room.chain] == {w1.name: "cosigned", w2.name: "cosigned"}
    assert sign_checkpoints()["witnessed"] == {}  # nothing new: nobody is asked
    w2.down = True
    log_action("test.later", establishment=room)
    result = sign_checkpoints()  # a witness down does not fail the beat, and is asked once, not once a chain
    assert result["witnessed"][room.chain][w1.name] == "cosigned"
    assert [o for chain in result["witnessed"].values() for o in chain.values()].count("down") == 1
    assert witnessing.pending()[0].chain == room.chain  # w2 is asked again next hour


def test_an_export_carries_the_cosignatures_and_the_verifier_requires_them(api, room, witnesses, tmp_path):
    w1, w2 = witnesses
    keyfile = keys_file(api, tmp_path)
    w2.down = True  # the export goes on without it
    bundle = export(room, tmp_path / "bundle.zip")
    stem = f"checkpoints/establishment-{room.pk}"
    with zipfile.ZipFile(bundle) as archive:
        note = archive.read(f"{stem}.txt").decode()
        assert w1.name in note and w2.name not in note
        assert note in archive.read(f"{stem}.range.txt").decode()
    one = ["--witness", w1.name, w1.verifier_key]
    two = one + ["--witness", w2.name, w2.verifier_key]

    code, out = check(keyfile, *one, "export", str(bundle))
    assert code == 0 and f"{room.chain} checkpoint: cosigned by 1 of the 1 witnesses named (quorum 1)" in out, out
    code, out = check(keyfile, *two, "export", str(bundle))
    assert code == 1 and "DOES NOT HOLD" in out
    fail = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert fail == [f"FAIL {room.chain} checkpoint: cosigned by 1 of the 2 witnesses named, fewer than the quorum of "
                    f"2; no good cosignature of {w2.name} (cosigned: {w1.name} at {fail[0].split(' at ')[1]}"], out
    assert check(keyfile, *two, "--quorum", "1", "export", str(bundle))[0] == 0

    # The checkpoint alone: an altered cosignature, and one checked with another witness key of the same name.
    line = next(line for line in note.splitlines() if line.startswith(f"\u2014 {w1.name} "))
    blob = line.split(" ")[2]
    altered = note.replace(line, line.replace(blob, blob[:30] + ("A" if blob[30] != "A" else "B") + blob[31:]))
    code, out = check(keyfile, *one, "checkpoint", save(tmp_path, "altered.txt", altered))
    assert code == 1 and "a bad cosignature line of the witness" in out and "altered" in out, out
    other = cosignature.verifier_key(w1.name, Ed25519PrivateKey.generate().public_key())
    code, out = check(keyfile, "--witness", w1.name, other, "checkpoint", save(tmp_path, "cp.txt", note))
    assert code == 1 and f"no good cosignature of {w1.name}" in out, out
    assert check(keyfile, *one, "checkpoint", save(tmp_path, "cp.txt", note))[0] == 0


def test_a_consistency_proof_from_a_bundle_is_checked_for_cosignatures_of_its_newer_checkpoint(api, room, witnesses,
                                                                                               tmp_path):
    w1, _ = witnesses
    keyfile = keys_file(api, tmp_path)
    first = export(room, tmp_path / "first.zip")
    with zipfile.ZipFile(first) as archive:
        kept = save(tmp_path, "kept.txt", archive.read(f"checkpoints/establishment-{room.pk}.txt").decode())
    log_action("test.later", establishment=room)
    second = export(room, tmp_path / "second.zip")
    with zipfile.ZipFile(second) as archive:
        proof = save(tmp_path, "proof.txt", archive.read(f"checkpoints/establishment-{room.pk}.from-5.txt").decode())
    code, out = check(keyfile, "--witness", w1.name, w1.verifier_key, "consistency", kept, proof)
    assert code == 0 and "newer checkpoint: cosigned by 1" in out, out
    witnesses[1].held.clear()
    code, out = check(keyfile, "--witness", w1.name, w1.verifier_key, "--witness", witnesses[1].name,
                      witnesses[1].verifier_key, "--quorum", "2", "consistency", kept, proof)
    assert code == 0, out  # both cosigned the second export's checkpoint


def test_the_configuration_is_read_at_start_up():
    w = FakeWitness("witness.example/w1")
    assert _witnesses(f"{w.verifier_key} https://witness.example/w1/\n# a comment\n") == [
        {"name": w.name, "verifier_key": w.verifier_key, "url": "https://witness.example/w1"}]
    assert _witnesses("") == []
    for bad, said in [(w.verifier_key, "is not '<verifier key>"), (f"{w.verifier_key} ftp://x", r"an http\(s\) URL"),
                      (f"{w.verifier_key[:-4]}AAA= https://x", "witness 1"),
                      (f"{w.verifier_key} https://a; {w.verifier_key} https://b", "listed twice"),
                      (f"{checkpoint.verifier_key('cardroom', keys.public_key())} https://x", "witness 1")]:
        with pytest.raises(ImproperlyConfigured, match=said):
            _witnesses(bad)


class _Handler(http.server.BaseHTTPRequestHandler):
    witness = None

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        if self.path == "/broken/add-checkpoint":
            answer = witnessing.Answer(502, "text/plain", "bad gateway\n")
        else:
            answer = self.witness(self.witness.url + "/add-checkpoint", body, 5)
        data = answer.text.encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_over_http_a_cosignature_a_409_and_a_server_error(room, settings):
    fake = FakeWitness("witness.example/http")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("H", (_Handler,), {"witness": fake}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        fake.url = base
        settings.WITNESSES = [{**fake.config(), "url": base}]
        first = signed(room)
        assert submit(room, first)[fake.name].result == witnessing.COSIGNED
        CheckpointCosignature.objects.all().delete()
        log_action("test.later", establishment=room)
        assert submit(room, signed(room))[fake.name].result == witnessing.COSIGNED  # after a 409 from 5
        assert [r.old_size for r in fake.requests] == [0, 0, 5]
        settings.WITNESSES = [{**fake.config(), "url": base + "/broken"}]
        log_action("test.later", establishment=room)
        assert submit(room, signed(room))[fake.name].result == witnessing.DOWN
    finally:
        server.shutdown()
        server.server_close()
    settings.WITNESSES = [{**fake.config(), "url": base}]  # nobody listens there now
    assert submit(room, signed(room))[fake.name].result == witnessing.DOWN


def test_the_verify_check_and_the_regulators_audit_log_say_who_cosigned(client, people, room, witnesses, tmp_path):
    from django.urls import reverse

    from exports import verification

    w1, w2 = witnesses
    w2.down = True
    bundle = export(room, tmp_path / "bundle.zip")
    with open(bundle, "rb") as handle:
        checked = verification.check(handle)
    assert checked.ok
    [first, second] = checked.as_dict()["witnesses"]
    assert first.startswith(f"{w1.name}: cosigned {room.chain} at ") and first.endswith(" UTC.")
    assert second == f"{w2.name}: cosigned none of its checkpoints."

    client.force_login(people.regulator_wa)
    page = client.get(reverse("console:regulator-audit-log", args=[room.slug])).content.decode()
    assert f"Witness <code>{w1.name}</code>: cosigned the checkpoint of 5 entries at " in page
    assert f"Witness <code>{w2.name}</code>: has cosigned no checkpoint of this chain." in page


# -- a forked history under a new origin (issue 41) --------------------------------------------------------------------

BASE = "room.example/audit"


@pytest.fixture
def forked(api, room, witnesses, settings, tmp_path):
    """Issue 41's attack as filed: the witnesses cosigned the genuine log (an export of it); then the owner, who
    holds the database and the signing key, changes entry 2, recomputes every hash after it and the chain head,
    deletes the stored checkpoints (and their cosignatures) and exports with AUDIT_LOG_ORIGIN=<base>/fork2. A
    witness that trusts a prefix sees a new log and cosigns it (these fakes cosign whatever the key signed). Returns
    (the keys file as published before, the genuine bundle, the forged one)."""
    from tests.cardroom.test_audit_chain import raw_sql
    from tests.cardroom.test_transparency import rewrite_tail

    settings.AUDIT_LOG_ORIGIN = BASE
    keyfile = keys_file(api, tmp_path)
    genuine = export(room, tmp_path / "genuine.zip")
    rewrite_tail(room, 2)
    with raw_sql() as cursor:
        cursor.execute(f"DELETE FROM {CheckpointCosignature._meta.db_table}")
        cursor.execute(f"DELETE FROM {AuditCheckpoint._meta.db_table}")
    settings.AUDIT_LOG_ORIGIN = f"{BASE}/fork2"
    forged = export(room, tmp_path / "forged.zip")
    settings.AUDIT_LOG_ORIGIN = BASE  # the installation as its regulators know it
    with zipfile.ZipFile(forged) as archive:
        note = archive.read(f"checkpoints/establishment-{room.pk}.txt").decode()
    assert note.startswith(f"{BASE}/fork2/{room.chain}\n") and f"\u2014 {witnesses[0].name} " in note
    assert checkpoint.verify(note, transparency.KEY_NAME, keys.public_key())  # signed with the real key
    return keyfile, genuine, forged


def test_a_forked_origin_export_signed_and_cosigned_does_not_hold_offline(forked, room, witnesses):
    keyfile, genuine, forged = forked
    w1 = witnesses[0]
    one = ["--witness", w1.name, w1.verifier_key, "--quorum", "1"]
    forged_origin = f"{BASE}/fork2/{room.chain}"
    # No --origin: checked against the keys file's, which names the log's own; the forgery fails there too.
    code, out = check(keyfile, *one, "export", str(forged), origin=None)
    assert code == 1 and out.splitlines()[-1] == "DOES NOT HOLD" and forged_origin in out, out
    # As a regulator runs it, with the root and the origin they kept.
    code, out = check(keyfile, *one, "export", str(forged))
    assert code == 1 and out.splitlines()[-1] == "DOES NOT HOLD", out
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert fails[0].startswith(f"FAIL {room.chain} checkpoint: the checkpoint is signed by cardroom ")
    assert f"but it is of the log {forged_origin}, not of {BASE} " in fails[0], out
    assert f"FAIL {room.chain} checkpoint: its cosignatures count for nothing here: it is of the log {forged_origin}" \
        in out, out
    assert check(keyfile, *one, "export", str(genuine))[0] == 0  # the genuine log, cosigned, holds


def test_a_forked_origin_export_fails_the_services_verify_api_and_page(forked, room, api, client, people,
                                                                      django_capture_on_commit_callbacks):
    keyfile, genuine, forged = forked
    said = (f"checkpoints/establishment-{room.pk}.txt: the checkpoint is of the log {BASE}/fork2/{room.chain}, not "
            f"of this installation's {BASE}/{room.chain} (AUDIT_LOG_ORIGIN {BASE})")
    api.force_login(people.regulator_wa)
    client.force_login(people.regulator_wa)
    for path, holds in ((forged, False), (genuine, True)):
        with open(path, "rb") as handle, django_capture_on_commit_callbacks(execute=True):
            answer = api.post("/api/v1/exports/verify", {"bundle": handle}, format="multipart")
        result = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()["result"]
        assert result["ok"] is holds, result
        assert any(p.startswith(said) for p in result["problems"]) is not holds, result["problems"]
        assert result["origin"] == BASE
        with open(path, "rb") as handle, django_capture_on_commit_callbacks(execute=True):
            answer = client.post("/regulator/verify/", {"bundle": handle})
        page = html.unescape(client.get(answer["Location"]).content.decode())
        assert ("Verified: every file is as signed" in page) is holds
        assert (said in page) is not holds, page
        assert f'and its log <code id="log-origin">{BASE}</code>' in page
