"""RFC 9162 Merkle trees over the audit chain (cardroom.merkle): hashing as defined, proofs that verify, and proofs
that fail once the log is rewritten (issue 14, part)."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cardroom import checkpoint, merkle
from cardroom.models import AuditLogEntry

# Certificate Transparency's test leaves and the head of the tree over all eight (RFC 6962's reference tests).
CT_LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                                        "606162636465666768696a6b6c6d6e6f")]
CT_ROOT_8 = "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"


def sha(data):
    return hashlib.sha256(data).digest()


def test_the_tree_head_is_as_rfc_9162_defines_it():
    a, b, c = b"a", b"b", b"c"
    assert merkle.root([]) == sha(b"")
    assert merkle.root([a]) == sha(b"\x00a")
    ab = sha(b"\x01" + sha(b"\x00a") + sha(b"\x00b"))
    assert merkle.root([a, b]) == ab
    # Three leaves split at two: the left subtree is full, the lone right leaf is not hashed again.
    assert merkle.root([a, b, c]) == sha(b"\x01" + ab + sha(b"\x00c"))
    assert merkle.root(CT_LEAVES).hex() == CT_ROOT_8


@pytest.mark.parametrize("size", range(1, 18))
def test_every_inclusion_proof_verifies_and_a_changed_entry_fails(size):
    leaves = [f"entry {i}".encode() for i in range(size)]
    head = merkle.root(leaves)
    for index in range(size):
        proof = merkle.inclusion_proof(leaves, index)
        assert merkle.verify_inclusion(leaves[index], index, size, proof, head)
        assert not merkle.verify_inclusion(b"rewritten", index, size, proof, head)
        assert not merkle.verify_inclusion(leaves[index], index, size, proof[:-1] or [b"x" * 32], head)
        if size > 1:
            assert not merkle.verify_inclusion(leaves[index], (index + 1) % size, size, proof, head)


@pytest.mark.parametrize("size", range(1, 18))
def test_every_consistency_proof_verifies_and_a_rewritten_past_fails(size):
    leaves = [f"entry {i}".encode() for i in range(size)]
    for old in range(1, size + 1):
        old_head, new_head = merkle.root(leaves[:old]), merkle.root(leaves)
        proof = merkle.consistency_proof(leaves, old)
        assert merkle.verify_consistency(old, size, old_head, new_head, proof)
        # The log rewritten after the old checkpoint was handed out: the old head no longer fits.
        rewritten = [b"forged"] + leaves[1:]
        forged_proof = merkle.consistency_proof(rewritten, old)
        assert not merkle.verify_consistency(old, size, old_head, merkle.root(rewritten), forged_proof)


def test_bad_sizes_are_refused():
    with pytest.raises(merkle.ProofError):
        merkle.inclusion_proof([b"a"], 1)
    with pytest.raises(merkle.ProofError):
        merkle.consistency_proof([b"a", b"b"], 3)
    with pytest.raises(merkle.ProofError):
        merkle.consistency_proof([b"a"], 0)
    assert not merkle.verify_consistency(3, 2, b"", b"", [])


@pytest.mark.django_db
def test_the_seed_audit_chain_as_a_tree():
    """The leaves are the chain's entry hashes: a proof of one seed entry verifies against the chain's tree head."""
    entries = list(AuditLogEntry.objects.filter(chain=AuditLogEntry.objects.values("chain").first()["chain"])
                   .order_by("sequence").values_list("entry_hash", flat=True))
    leaves = [bytes.fromhex(h) for h in entries]
    head = merkle.root(leaves)
    last = len(leaves) - 1
    assert merkle.verify_inclusion(leaves[last], last, len(leaves), merkle.inclusion_proof(leaves, last), head)


# -- checkpoints (cardroom.checkpoint): C2SP tlog-checkpoint in a signed note ---------------------------------------


def test_a_checkpoint_is_signed_as_c2sp_signed_note_says():
    key = Ed25519PrivateKey.generate()
    head = merkle.root([b"a", b"b", b"c"])
    note = checkpoint.sign("cardroom.example/audit/establishment:1", 3, head, "cardroom.example", key)
    body, signature = note.split("\n\n")
    assert body.split("\n") == ["cardroom.example/audit/establishment:1", "3", base64.b64encode(head).decode()]
    dash, name, blob = signature.rstrip("\n").split(" ")
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    expected_id = sha(b"cardroom.example\n\x01" + raw)[:4]  # the key id, from the spec's definition
    assert (dash, name) == ("\u2014", "cardroom.example") and base64.b64decode(blob)[:4] == expected_id
    key.public_key().verify(base64.b64decode(blob)[4:], (body + "\n").encode())  # Ed25519 over the body
    assert checkpoint.verify(note, "cardroom.example", key.public_key()) == (
        "cardroom.example/audit/establishment:1", 3, head)
    assert checkpoint.verifier_key("cardroom.example", key.public_key()).startswith(
        f"cardroom.example+{expected_id.hex()}+")


def test_an_altered_or_foreign_checkpoint_is_refused():
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    note = checkpoint.sign("origin", 7, sha(b"x"), "k", key)
    with pytest.raises(checkpoint.CheckpointError, match="altered"):
        checkpoint.verify(note.replace("\n7\n", "\n8\n"), "k", key.public_key())
    with pytest.raises(checkpoint.CheckpointError, match="no signature"):
        checkpoint.verify(note, "k", other.public_key())
    with pytest.raises(checkpoint.CheckpointError):
        checkpoint.verify("origin\n7\n", "k", key.public_key())


def test_a_range_proof_gives_back_the_root_only_for_the_run_it_was_made_for():
    leaves = [bytes([n]) * 32 for n in range(13)]
    head = merkle.root(leaves)
    for start in range(14):
        for end in range(start, 14):
            proof = merkle.range_proof(leaves, start, end)
            assert merkle.root_from_range(leaves[start:end], start, 13, proof) == head
            if end > start:
                changed = [*leaves[start:end - 1], b"\xff" * 32]
                assert merkle.root_from_range(changed, start, 13, proof) != head
                assert merkle.root_from_range(leaves[start:end - 1], start, 13, proof) != head  # a row left out
    assert merkle.root_from_range(leaves[2:5], 2, 13, merkle.range_proof(leaves, 2, 5)[:-1]) is None
    with pytest.raises(merkle.ProofError):
        merkle.range_proof(leaves, 5, 14)
