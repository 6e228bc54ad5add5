"""The verifier's witness check (cardroom.tlog.witnessed), plain Python: the quorum counted over good
cosignatures of the witnesses named, a bad line a failure, the command line's --witness and --quorum read."""

import io
import json
import zipfile

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardroom import checkpoint
from cardroom.tlog import Result, Unreadable, cosignature, witnessed

LOG_KEY = Ed25519PrivateKey.generate()
NOTE = checkpoint.sign("cardroom/audit/installation", 3, b"\x01" * 32, "cardroom", LOG_KEY)
BODY = cosignature.note_parts(NOTE)[0]


def witness(name):
    key = Ed25519PrivateKey.generate()
    return key, witnessed.witness(name, cosignature.verifier_key(name, key.public_key()))


W1, W2, W3 = witness("w.example/1"), witness("w.example/2"), witness("w.example/3")
NAMED = [W1[1], W2[1], W3[1]]


def cosigned_by(*signers, note=NOTE):
    return cosignature.with_cosignatures(note, [cosignature.cosign(w.name, key, BODY, 1_780_000_000)
                                                for key, w in signers])


@pytest.mark.parametrize("quorum, holds", [(1, True), (2, True), (3, False)])
def test_the_quorum_counts_the_good_cosignatures_of_the_witnesses_named(quorum, holds):
    result = witnessed.check(Result(), [("installation checkpoint", cosigned_by(W1, W3))], NAMED, quorum)
    assert result.ok is holds
    [line] = result.lines
    assert "cosigned by 2 of the 3 witnesses named" in line
    assert ("no good cosignature of w.example/2" in line) is not holds
    # The log's own signature still verifies with the cosignatures appended.
    assert checkpoint.verify(cosigned_by(W1, W3), "cardroom", LOG_KEY.public_key())[1] == 3


def test_a_witness_not_named_does_not_count_and_each_checkpoint_must_reach_the_quorum():
    other = witness("w.example/other")
    result = witnessed.check(Result(), [("a", cosigned_by(W1, W2)), ("b", cosigned_by(W1, other))], NAMED, 2)
    assert not result.ok
    assert [line[:6] for line in result.lines] == ["OK   a", "FAIL b"]


def test_a_cosignature_altered_or_of_another_key_of_the_same_name():
    note = cosigned_by(W1, W2)
    line = next(line for line in note.splitlines() if line.startswith("\u2014 w.example/1 "))
    blob = line.split(" ")[2]
    altered = note.replace(blob, blob[:40] + ("A" if blob[40] != "A" else "B") + blob[41:])
    result = witnessed.check(Result(), [("cp", altered)], NAMED[:2], 1)
    assert not result.ok and "a bad cosignature line of the witness w.example/1" in result.lines[0]
    impostor = (Ed25519PrivateKey.generate(), W2[1])  # signs as w.example/2 with its own key
    result = witnessed.check(Result(), [("cp", cosigned_by(W1, impostor))], NAMED[:2], 2)
    assert not result.ok and "no good cosignature of w.example/2" in result.lines[0]


def test_the_command_lines_witnesses_and_quorum():
    assert witnessed.quorum_of(NAMED, None) == 3 and witnessed.quorum_of(NAMED, 2) == 2
    assert witnessed.quorum_of([], None) == 0
    for bad in (0, 4):
        with pytest.raises(Unreadable, match="between 1 and the 3"):
            witnessed.quorum_of(NAMED, bad)
    with pytest.raises(Unreadable, match="needs the witnesses"):
        witnessed.quorum_of([], 1)
    with pytest.raises(Unreadable, match="is of the witness w.example/1"):
        witnessed.witness("w.example/2", W1[1].verifier_key)
    with pytest.raises(Unreadable, match="not a witness's verifier key"):
        witnessed.witness("cardroom", checkpoint.verifier_key("cardroom", LOG_KEY.public_key()))


def test_no_checkpoint_found_fails_when_witnesses_are_required():
    assert not witnessed.check(Result(), [], NAMED, 1).ok
    assert witnessed.check(Result(), [], [], 0).ok


def _zip(files):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, json.dumps(content) if isinstance(content, dict) else content)
    return data.getvalue()


def test_a_bundle_of_bundles_is_witnessed_through_its_last_inner_bundles_checkpoints(tmp_path):
    def inner(note):
        return _zip({"manifest.json": {"audit_chains": [{"chain": "installation"}]},
                     "checkpoints/installation.txt": note})

    first, last = "bundles/audit-2026-09.zip", "bundles/audit-2026-10-01-to-2026-10-05.zip"
    path = tmp_path / "quarter.zip"
    path.write_bytes(_zip({"manifest.json": {"bundles": [{"name": first}, {"name": last}]},
                           first: inner(NOTE), last: inner(cosigned_by(W1))}))
    [(what, note)] = witnessed.bundle_checkpoints(path)
    assert what == f"{last}: installation"
    assert witnessed.check(Result(), [(what, note)], NAMED[:1], 1).ok
    # The earlier month's, not cosigned, is not what is counted: the outer check links it to the last.
    path.write_bytes(_zip({"manifest.json": {"bundles": [{"name": last}, {"name": first}]},
                           first: inner(NOTE), last: inner(cosigned_by(W1))}))
    assert not witnessed.check(Result(), witnessed.bundle_checkpoints(path), NAMED[:1], 1).ok
