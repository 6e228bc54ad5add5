"""Checkpoints of an audit chain's Merkle tree in the C2SP formats (tlog-checkpoint in a signed note). Plain Python.

A checkpoint says "the log <origin> had <size> entries and this tree head" and is signed, so whoever keeps it can
later check entries (inclusion proofs) and later checkpoints (consistency proofs) against it (``cardroom.merkle``).

    <origin>\\n<tree size>\\n<base64 root hash>\\n          the body (c2sp.org/tlog-checkpoint)
    \\n
    — <key name> <base64(key id || Ed25519 signature of the body)>\\n     (c2sp.org/signed-note)

The key id is the first 4 bytes of SHA-256(key name || 0x0A || 0x01 || the 32-byte Ed25519 public key). A
verifier trusts only the key it is given by name; signature lines of other keys are ignored.
"""

import base64
import binascii
import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519 = b"\x01"  # the signed-note signature type of Ed25519
DASH = "\u2014"  # signature lines start with an em dash


class CheckpointError(ValueError):
    """Not a checkpoint signed by the key given; the message says what is wrong."""


def raw_public_key(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)


# ``kind``: the signed-note signature type, ED25519 for a log's own key (0x01), 0x04 for a witness's cosignature key
# (cardroom.tlog.cosignature): the same key id and verifier key formats, each type its own ids.

def key_id(name: str, public_key: Ed25519PublicKey, kind: bytes = ED25519) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + kind + raw_public_key(public_key)).digest()[:4]


def verifier_key(name: str, public_key: Ed25519PublicKey, kind: bytes = ED25519) -> str:
    """The key as a verifier writes it down: ``<name>+<hex key id>+<base64(kind || public key)>``."""
    encoded = base64.b64encode(kind + raw_public_key(public_key)).decode()
    return f"{name}+{key_id(name, public_key, kind).hex()}+{encoded}"


def read_verifier_key(text: str, kind: bytes = ED25519, what: str = "verifier key") -> tuple[str, Ed25519PublicKey]:
    """(name, public key) of a verifier key written as ``verifier_key`` writes it; its key id must match. ``what``
    names it in the error."""
    name, _, rest = text.strip().partition("+")
    hex_id, _, encoded = rest.partition("+")
    try:
        blob = base64.b64decode(encoded, validate=True)
        public_key = Ed25519PublicKey.from_public_bytes(blob[1:]) if blob[:1] == kind and len(blob) == 33 else None
    except (binascii.Error, ValueError):
        public_key = None
    if not name or public_key is None:
        raise CheckpointError(f"not a {what}: expected <name>+<hex key id>+<base64 of 0x{kind.hex()} and the "
                              "Ed25519 public key>.")
    if key_id(name, public_key, kind).hex() != hex_id.lower():
        raise CheckpointError(f"the {what}'s id {hex_id} does not match its name and public key.")
    return name, public_key


def body(origin: str, size: int, root: bytes) -> str:
    if not origin or "\n" in origin:
        raise CheckpointError("the origin must be one non-empty line.")
    if size < 0 or len(root) != 32:
        raise CheckpointError("a checkpoint needs a size of 0 or more and a 32-byte root hash.")
    return f"{origin}\n{size}\n{base64.b64encode(root).decode()}\n"


def sign(origin: str, size: int, root: bytes, name: str, private_key: Ed25519PrivateKey) -> str:
    """The signed note of the checkpoint."""
    if not name or any(c.isspace() or c == "+" for c in name):
        raise CheckpointError("a key name has no spaces and no '+'.")
    text = body(origin, size, root)
    signature = private_key.sign(text.encode())
    line = base64.b64encode(key_id(name, private_key.public_key()) + signature).decode()
    return f"{text}\n{DASH} {name} {line}\n"


def signed_by(lines, name: str, wanted: bytes):
    """(line, decoded signature) of each signature line of ``name`` whose key id is ``wanted``; signed-note: lines of
    other names or key ids (another key, another signature type) are ignored."""
    for line in lines:
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != DASH or parts[1] != name:
            continue
        try:
            blob = base64.b64decode(parts[2], validate=True)
        except (binascii.Error, ValueError):
            continue
        if blob[:4] == wanted:
            yield line, blob


def verify(note: str, name: str, public_key: Ed25519PublicKey) -> tuple[str, int, bytes]:
    """(origin, size, root) of a checkpoint signed by ``name``'s ``public_key``; CheckpointError otherwise."""
    text, blank, signatures = note.partition("\n\n")
    if not blank or not signatures.endswith("\n"):
        raise CheckpointError("not a signed note: a body, a blank line, then signature lines.")
    text += "\n"
    for _, blob in signed_by(signatures[:-1].split("\n"), name, key_id(name, public_key)):
        try:
            public_key.verify(blob[4:], text.encode())
        except InvalidSignature:
            raise CheckpointError(f"the signature of {name} does not match the checkpoint: it was altered.") from None
        return read_body(text)
    raise CheckpointError(f"the checkpoint carries no signature of {name} with this key.")


def read_body(text: str) -> tuple[str, int, bytes]:
    """(origin, size, root) of a checkpoint's body, signature unchecked; CheckpointError when it is not one."""
    lines = text.split("\n")
    if len(lines) < 4 or not lines[1].isdigit() or (lines[1] != "0" and lines[1].startswith("0")):
        raise CheckpointError("the body is not origin, tree size and root hash, one per line.")
    try:
        root = base64.b64decode(lines[2], validate=True)
    except (binascii.Error, ValueError):
        raise CheckpointError("the root hash is not base64.") from None
    if len(root) != 32:
        raise CheckpointError("the root hash is not 32 bytes.")
    return lines[0], int(lines[1]), root
