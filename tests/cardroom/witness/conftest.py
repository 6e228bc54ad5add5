"""A witness configured for the tests, and a log that submits to it: a Merkle tree over made-up entries whose
checkpoints its own key signs, as a cardroom installation's chain would be."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardroom import checkpoint, merkle
from cardroom.tlog import cosignature
from cardroom.witness import logs

WITNESS_NAME = "witness.example.org/regulator"
WITNESS_SECRET = hashlib.sha256(b"the test witness").digest()
LOG_KEY = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"the test log").digest())
ORIGIN = "cardroom/audit/installation"


class Log:
    """A log's side of add-checkpoint: its entries, signed checkpoints and request bodies."""

    def __init__(self, origin=ORIGIN, key=LOG_KEY, name="cardroom"):
        self.origin, self.key, self.name = origin, key, name
        self.leaves = [f"{origin} entry {i}".encode() for i in range(64)]

    def root(self, size):
        return merkle.root(self.leaves[:size])

    def note(self, size, root=None):
        return checkpoint.sign(self.origin, size, self.root(size) if root is None else root, self.name, self.key)

    def proof(self, old, size):
        return merkle.consistency_proof(self.leaves[:size], old) if 0 < old < size else []

    def request(self, old, size, *, proof=None, note=None):
        return cosignature.request_text(old, self.proof(old, size) if proof is None else proof,
                                        self.note(size) if note is None else note).encode()


def witness_public_key():
    return Ed25519PrivateKey.from_private_bytes(WITNESS_SECRET).public_key()


@pytest.fixture
def witness(settings):
    """This installation as a witness of every chain of the test log's installation (its base origin
    "cardroom/audit")."""
    settings.WITNESS_NAME = WITNESS_NAME
    settings.WITNESS_KEY = base64.b64encode(WITNESS_SECRET).decode()
    settings.WITNESS_LOGS = logs.parse(f"cardroom/audit {checkpoint.verifier_key('cardroom', LOG_KEY.public_key())}")
    return settings


@pytest.fixture
def log():
    return Log()
