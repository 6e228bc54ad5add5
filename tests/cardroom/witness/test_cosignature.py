"""cardroom.tlog.cosignature against what it must agree with, not against itself: the C2SP spec's own example, an
independent Ed25519 (RFC 8032's reference code, ``ed25519_reference``), Certificate Transparency's consistency-proof
vectors, and tlog-witness's statuses in its order."""

import base64
import hashlib
import struct

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardroom import checkpoint, merkle
from cardroom.tlog import cosignature
from cardroom.tlog.cosignature import Request, judge
from tests.cardroom.test_merkle import CT_LEAVES

from . import ed25519_reference as reference

# -- the spec's own example (C2SP tlog-cosignature.md at cosignature.SPEC_COMMIT, "Transparency Log Cosignatures"
# and "Ed25519 signed message"), copied byte for byte.
SPEC_NOTE = (
    "example.com/behind-the-sofa\n"
    "20852163\n"
    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    "\n"
    "\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+"
    "zyWE+xeMcTOAYQ8=\n"
    "\u2014 witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5n"
    "No0xUe+mbIUBkBIfZ+qnA==\n"
)
SPEC_MESSAGE = (b"cosignature/v1\n"
                b"time 1679315147\n"
                b"example.com/behind-the-sofa\n"
                b"20852163\n"
                b"CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n")

# RFC 8032 section 7.1, TEST 1 (the empty message).
RFC_8032_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_8032_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC_8032_SIGNATURE = bytes.fromhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc6"
                                   "1e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")

# certificate-transparency's merkle_tree_test.cc, the consistency proofs over its 8 leaves (CT_LEAVES).
CT_CONSISTENCY = [
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]

NAME = "witness.example.org/regulator"
SECRET = hashlib.sha256(b"a fixed witness key for the tests").digest()
BODY = checkpoint.body("cardroom/audit/installation", 8, merkle.root(CT_LEAVES))


def test_the_spec_example_cosignature_parses_and_our_message_is_the_spec_example():
    body, lines = cosignature.note_parts(SPEC_NOTE)
    name, key_id, timestamp, signature = cosignature.read_line(lines[1])
    assert (name, key_id.hex(), len(signature)) == ("witness.example.com/w1", "8d66cf3f", 64)
    time_line = SPEC_MESSAGE.split(b"\n")[1]
    assert time_line == b"time 1679315147" and timestamp == int(time_line.split()[1])
    assert cosignature.signed_message(body, timestamp) == SPEC_MESSAGE
    # The log's own line is a signed-note Ed25519 signature (4 + 64 bytes), not a cosignature.
    with pytest.raises(cosignature.CosignatureError, match="not an Ed25519 cosignature line"):
        cosignature.read_line(lines[0])


def test_the_reference_ed25519_reproduces_rfc_8032_test_1():
    assert reference.secret_to_public(RFC_8032_SECRET) == RFC_8032_PUBLIC
    assert reference.sign(RFC_8032_SECRET, b"") == RFC_8032_SIGNATURE
    assert reference.verify(RFC_8032_PUBLIC, b"", RFC_8032_SIGNATURE)
    assert not reference.verify(RFC_8032_PUBLIC, b"x", RFC_8032_SIGNATURE)


def test_our_cosignature_verifies_with_the_reference_ed25519():
    key = Ed25519PrivateKey.from_private_bytes(SECRET)
    public = reference.secret_to_public(SECRET)
    assert checkpoint.raw_public_key(key.public_key()) == public
    line = cosignature.cosign(NAME, key, BODY, 1700000000)
    name, key_id, timestamp, signature = cosignature.read_line(line)
    # The key id as tlog-cosignature defines it, computed here from its words.
    assert key_id == hashlib.sha256(NAME.encode() + b"\n" + b"\x04" + public).digest()[:4]
    assert (name, timestamp) == (NAME, 1700000000)
    message = b"cosignature/v1\ntime 1700000000\n" + BODY.encode()
    assert reference.verify(public, message, signature)
    assert not reference.verify(public, message.replace(b"time 1700000000", b"time 1700000001"), signature)
    vkey_blob = base64.b64encode(b"\x04" + public).decode()
    assert cosignature.verifier_key(NAME, key.public_key()) == f"{NAME}+{key_id.hex()}+{vkey_blob}"


def test_a_cosignature_made_by_the_reference_ed25519_verifies_with_ours():
    public = reference.secret_to_public(SECRET)
    key_id = hashlib.sha256(NAME.encode() + b"\n\x04" + public).digest()[:4]
    signature = reference.sign(SECRET, b"cosignature/v1\ntime 1700000000\n" + BODY.encode())
    line = f"\u2014 {NAME} {base64.b64encode(key_id + struct.pack('>Q', 1700000000) + signature).decode()}\n"
    note = BODY + "\n" + line
    own_key = Ed25519PrivateKey.from_private_bytes(SECRET)
    found = cosignature.cosignature_of(note, NAME, own_key.public_key())
    assert found is not None and found.timestamp == 1700000000
    # Ed25519 is deterministic: the same key signs the same bytes the same way, whichever code signs.
    assert cosignature.cosign(NAME, own_key, BODY, 1700000000) == line
    with pytest.raises(cosignature.CosignatureError, match="altered"):
        cosignature.cosignature_of(note.replace("\n8\n", "\n9\n"), NAME, own_key.public_key())


@pytest.mark.parametrize(("old", "new", "expected"), CT_CONSISTENCY)
def test_certificate_transparencys_consistency_vectors_are_ours_and_the_witness_accepts_them(old, new, expected):
    leaves = CT_LEAVES[:new]
    proof = merkle.consistency_proof(leaves, old)
    assert [h.hex() for h in proof] == expected
    old_root, new_root = merkle.root(CT_LEAVES[:old]), merkle.root(leaves)
    assert judge(old, old_root, Request(old, proof, ""), new, new_root).status == 200
    # One hash changed, one missing, or the old tree not the one cosigned: 422.
    changed = [proof[0], bytes(32), *proof[2:]]
    assert judge(old, old_root, Request(old, changed, ""), new, new_root).status == 422
    assert judge(old, old_root, Request(old, proof[:-1], ""), new, new_root).status == 422
    assert judge(old, merkle.root(CT_LEAVES[1:old + 1]), Request(old, proof, ""), new, new_root).status == 422


def test_judge_answers_in_the_specs_order():
    root5, root8 = merkle.root(CT_LEAVES[:5]), merkle.root(CT_LEAVES)
    proof = merkle.consistency_proof(CT_LEAVES, 5)
    # old size above the checkpoint's: 400, before the size the witness holds is even compared.
    assert judge(5, root5, Request(9, [], ""), 8, root8).status == 400
    assert judge(5, root5, Request(3, proof, ""), 8, root8).status == 409
    assert judge(0, None, Request(5, proof, ""), 8, root8).status == 409
    assert judge(5, root5, Request(0, [], ""), 8, root8).status == 409  # asking for the size held
    assert judge(0, None, Request(0, [], ""), 0, bytes(32)).status == 422  # size 0 with another root than SHA-256()
    assert judge(0, None, Request(0, [], ""), 0, merkle.EMPTY_ROOT).status == 200
    assert judge(0, None, Request(0, proof, ""), 8, root8).status == 422  # a proof from size 0
    assert judge(0, None, Request(0, [], ""), 8, root8).status == 200
    assert judge(8, root8, Request(8, [], ""), 8, root8).status == 200  # the same checkpoint again
    assert judge(8, root8, Request(8, [], ""), 8, root5).status == 422  # the same size, another root
    assert judge(8, root8, Request(8, [root8], ""), 8, root8).status == 422  # no proof between equal sizes
    assert judge(5, root5, Request(5, proof, ""), 8, root8).status == 200


SIGNED = checkpoint.sign("cardroom/audit/installation", 8, merkle.root(CT_LEAVES), "cardroom",
                         Ed25519PrivateKey.from_private_bytes(bytes(32)))


def test_a_request_reads_back_as_written():
    proof = merkle.consistency_proof(CT_LEAVES, 5)
    request = cosignature.read_request(cosignature.request_text(5, proof, SIGNED))
    assert (request.old_size, request.proof, request.note) == (5, proof, SIGNED)
    assert cosignature.read_request(cosignature.request_text(0, [], SIGNED)) == Request(0, [], SIGNED)


@pytest.mark.parametrize(("text", "match"), [
    ("old 5\n", "no blank line or no checkpoint"),
    ("old 5\n\n", "no blank line or no checkpoint"),
    ("old 5\n" + SIGNED, "not a base64 SHA-256 hash: 'cardroom/audit"),  # the blank line read is the note's own
    ("old 05\n\n" + SIGNED, "leading zeroes"),
    ("old -1\n\n" + SIGNED, "'old <size>'"),
    ("old \u00b2\n\n" + SIGNED, "'old <size>'"),  # a digit to str.isdigit, not to int()
    ("old 9223372036854775808\n\n" + SIGNED, "below 2\\^63"),
    ("new 5\n\n" + SIGNED, "'old <size>'"),
    ("old 5\nnot base64\n\n" + SIGNED, "not a base64 SHA-256 hash"),
    ("old 5\n" + base64.b64encode(bytes(31)).decode() + "\n\n" + SIGNED, "not a base64 SHA-256 hash"),
    ("old 5\n" + (base64.b64encode(bytes(32)).decode() + "\n") * 64 + "\n" + SIGNED, "at most 63"),
    ("old 5\r\n\n" + SIGNED, "control character"),
])
def test_an_unreadable_request_says_why(text, match):
    with pytest.raises(cosignature.CosignatureError, match=match):
        cosignature.read_request(text)


def test_the_logs_signatures_are_checked_by_trusted_key_only():
    log_key, other = Ed25519PrivateKey.from_private_bytes(bytes(32)), Ed25519PrivateKey.generate()
    trusted = [("cardroom", log_key.public_key())]
    assert cosignature.log_signatures(SIGNED, trusted) == [SIGNED.split("\n")[-2]]
    # Another key's line is ignored, even under the same name; with no trusted line left the note is refused.
    foreign = checkpoint.sign("cardroom/audit/installation", 8, merkle.root(CT_LEAVES), "cardroom", other)
    with pytest.raises(cosignature.NotSigned, match="no signature of a key trusted"):
        cosignature.log_signatures(foreign, trusted)
    both = SIGNED + foreign.split("\n\n")[1]
    assert len(cosignature.log_signatures(both, trusted)) == 1
    # A trusted key's line that does not verify refuses the note, whatever else verifies.
    tampered = SIGNED.replace("\n8\n", "\n9\n")
    with pytest.raises(cosignature.NotSigned, match="does not verify"):
        cosignature.log_signatures(tampered, trusted)
    with pytest.raises(cosignature.NotSigned, match="does not verify"):
        cosignature.log_signatures(tampered, trusted + [("cardroom", other.public_key())])
