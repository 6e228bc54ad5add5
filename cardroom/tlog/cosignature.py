"""Witnesses' cosignatures and the add-checkpoint exchange, as C2SP writes them. Plain Python, no Django.

Followed (docs/audit.md, "Witnesses"): C2SP ``tlog-cosignature`` (the Ed25519 type, ``cosignature/v1``),
``tlog-witness`` (``add-checkpoint``) and ``signed-note``, as of C2SP/C2SP commit ``SPEC_COMMIT``.

A cosignature is one more signature line on a checkpoint's signed note:

    — <witness name> base64(key id || u64 timestamp, big-endian || Ed25519 signature)

where the key id is SHA-256(<name> || 0x0A || 0x04 || the 32-byte public key)[:4] and the signature is over

    cosignature/v1\\n
    time <timestamp>\\n
    <the checkpoint's body: origin, size, root hash, each line ending in \\n>

It says: at that time, this was the largest consistent tree the witness had seen of the log named by the origin.
It says nothing of what the entries mean, nor that anyone else saw the same tree.

An add-checkpoint request is ``old <size>``, up to 63 consistency proof hashes (base64, one a line), a blank line
and the signed checkpoint. ``judge`` is the witness's decision on one, given what it last cosigned of that log.
"""

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .. import checkpoint, merkle

# The C2SP text followed: github.com/C2SP/C2SP at this commit (2026-07-22; tlog-witness and tlog-cosignature last
# changed in 95978ca, 2026-07-06). Only the Ed25519 cosignature type is made and read.
SPEC_COMMIT = "5ba5ee830903e91240fc6f9f3a7a9293d49e69c9"
COSIGNATURE_V1 = b"\x04"  # the signed-note signature type of an Ed25519 cosignature
HEADER = "cosignature/v1"
MAX_PROOF_LINES = 63  # tlog-witness: "The client MUST NOT send more than 63 consistency proof lines."
MAX_SIZE = 2 ** 63 - 1  # the largest tree size a witness stores (a signed 64-bit integer, as databases keep one)
EMPTY_ROOT = hashlib.sha256(b"").digest()  # RFC 6962 §2.1: the root of the empty tree
SIZE_CONTENT_TYPE = "text/x.tlog.size"  # the 409 answer's body: the size the witness holds


class CosignatureError(ValueError):
    """Not a cosignature, or a request that cannot be read; the message says what is wrong."""


class NotSigned(Exception):
    """A checkpoint without a verifying signature of a key trusted for its origin (tlog-witness: 403)."""


# -- keys -------------------------------------------------------------------------------------------------------------

def key_id(name: str, public_key: Ed25519PublicKey) -> bytes:
    return checkpoint.key_id(name, public_key, COSIGNATURE_V1)


def verifier_key(name: str, public_key: Ed25519PublicKey) -> str:
    """The witness's key as verifiers write it (a signed-note vkey of type 0x04): ``name+hexid+base64``."""
    return checkpoint.verifier_key(name, public_key, COSIGNATURE_V1)


def read_verifier_key(text: str) -> tuple[str, Ed25519PublicKey]:
    """(name, public key) of a witness's verifier key; its key id must match its name and key."""
    try:
        return checkpoint.read_verifier_key(text, COSIGNATURE_V1, "witness's verifier key")
    except checkpoint.CheckpointError as error:
        raise CosignatureError(str(error)) from None


# -- cosignatures -----------------------------------------------------------------------------------------------------

def signed_message(body: str, timestamp: int) -> bytes:
    """What an Ed25519 cosignature signs: the header, the time line, then the checkpoint's body."""
    if not 0 < timestamp < 2 ** 63:
        raise CosignatureError("a cosignature's timestamp is a POSIX time above 0 and below 2^63.")
    return f"{HEADER}\ntime {timestamp}\n{body}".encode()


def cosign(name: str, private_key: Ed25519PrivateKey, body: str, timestamp: int) -> str:
    """The cosignature line (ending in a newline) of ``name`` on a checkpoint's ``body``."""
    signature = private_key.sign(signed_message(body, timestamp))
    blob = key_id(name, private_key.public_key()) + struct.pack(">Q", timestamp) + signature
    return f"{checkpoint.DASH} {name} {base64.b64encode(blob).decode()}\n"


@dataclass(frozen=True)
class Cosigned:
    name: str
    timestamp: int
    line: str  # the signature line as it stood, without its newline


def read_line(line: str) -> tuple[str, bytes, int, bytes]:
    """(witness name, key id, timestamp, Ed25519 signature) of a cosignature line, unverified; CosignatureError when
    the line is not shaped as one (a signature line whose blob is 4 + 8 + 64 bytes)."""
    parts = line.rstrip("\n").split(" ")
    try:
        blob = base64.b64decode(parts[2], validate=True) if len(parts) == 3 else b""
    except (binascii.Error, ValueError):
        blob = b""
    if parts[0] != checkpoint.DASH or len(blob) != 4 + 8 + 64:
        raise CosignatureError("not an Ed25519 cosignature line: '\u2014 <name> base64(key id, timestamp, "
                               "signature)'.")
    return parts[1], blob[:4], struct.unpack(">Q", blob[4:12])[0], blob[12:]


def note_parts(note: str) -> tuple[str, list[str]]:
    """(body, signature lines) of a signed note."""
    text, blank, signatures = note.partition("\n\n")
    if not blank or not signatures.endswith("\n"):
        raise CosignatureError("not a signed note: a body, a blank line, then signature lines.")
    return text + "\n", signatures[:-1].split("\n")


def cosignature_of(note: str, name: str, public_key: Ed25519PublicKey) -> Cosigned | None:
    """The cosignature of the witness ``name`` with ``public_key`` on the note; None when it carries none. Raises
    CosignatureError when a line with this witness's name and key id does not verify (the note was altered)."""
    body, lines = note_parts(note)
    for line, blob in checkpoint.signed_by(lines, name, key_id(name, public_key)):
        # signed-note: "If the key name and ID match a known key, verifiers MUST verify the signature."
        try:
            if len(blob) != 4 + 8 + 64:
                raise CosignatureError("a cosignature is 4 + 8 + 64 bytes.")
            (timestamp,) = struct.unpack(">Q", blob[4:12])
            public_key.verify(blob[12:], signed_message(body, timestamp))
        except (InvalidSignature, CosignatureError):
            raise CosignatureError(f"the cosignature of {name} does not match the checkpoint: it was altered.") \
                from None
        return Cosigned(name, timestamp, line)
    return None


def log_signatures(note: str, trusted) -> list[str]:
    """The signature lines on ``note`` of the log keys ``trusted`` ((name, Ed25519 public key) pairs), each
    verified. NotSigned when none is there, or when one of them does not verify (tlog-witness: "a signature line's
    key name and ID match a trusted key but the signature itself fails to verify"); lines of other keys are ignored
    (signed-note). CosignatureError when the note is not a signed note at all."""
    body, lines = note_parts(note)
    ids = {(name, checkpoint.key_id(name, key)): key for name, key in trusted}
    verified = []
    for line in lines:
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != checkpoint.DASH:
            continue
        try:
            blob = base64.b64decode(parts[2], validate=True)
        except (binascii.Error, ValueError):
            continue
        key = ids.get((parts[1], blob[:4]))
        if key is None:
            continue
        try:
            key.verify(blob[4:], body.encode())
        except InvalidSignature:
            raise NotSigned(f"the signature of {parts[1]} ({blob[:4].hex()}), a key trusted for this log, does not "
                            "verify: the checkpoint was altered.") from None
        verified.append(line)
    if not verified:
        raise NotSigned("the checkpoint carries no signature of a key trusted for its origin.")
    return verified


def with_cosignatures(note: str, lines) -> str:
    """The note with the cosignature ``lines`` added (each once, in the order given)."""
    _, present = note_parts(note)
    added = [line.rstrip("\n") for line in lines if line.rstrip("\n") not in present]
    return note + "".join(f"{line}\n" for line in added)


def response_lines(text: str) -> list[str]:
    """The signature lines of a witness's 200 answer (one or more, each starting with the em dash)."""
    lines = text.split("\n")
    if not text.endswith("\n") or not lines[:-1] or any(not line.startswith(checkpoint.DASH + " ")
                                                         for line in lines[:-1]):
        raise CosignatureError("the witness's answer is not signature lines, each starting with '\u2014 '.")
    return lines[:-1]


# -- the add-checkpoint request ---------------------------------------------------------------------------------------

def request_text(old_size: int, proof, note: str) -> str:
    if len(proof) > MAX_PROOF_LINES:
        raise CosignatureError(f"a consistency proof of {len(proof)} hashes; a request carries at most 63.")
    return "".join([f"old {old_size}\n", *(base64.b64encode(h).decode() + "\n" for h in proof), "\n", note])


@dataclass(frozen=True)
class Request:
    old_size: int
    proof: list
    note: str


def read_request(text: str) -> Request:
    """An add-checkpoint request; CosignatureError (answered 400) when it is not one."""
    head, blank, note = text.partition("\n\n")
    if not blank or not note:
        raise CosignatureError("the request is an 'old <size>' line, the proof's lines, a blank line and the "
                               "checkpoint; no blank line or no checkpoint was found.")
    if any(c < " " and c != "\n" for c in text):
        # signed-note: a note holds no control characters but newlines; none of the other lines may either.
        raise CosignatureError("the request holds a control character other than newline.")
    lines = head.split("\n")
    word, _, size = lines[0].partition(" ")
    if (word != "old" or not (size.isascii() and size.isdigit()) or (size != "0" and size.startswith("0"))
            or int(size) > MAX_SIZE):
        raise CosignatureError("the request's first line must be 'old <size>' (a decimal without leading zeroes, "
                               "below 2^63).")
    proof = []
    for line in lines[1:]:
        try:
            digest = base64.b64decode(line, validate=True)
        except (binascii.Error, ValueError):
            digest = b""
        if len(digest) != 32:
            raise CosignatureError(f"a consistency proof line is not a base64 SHA-256 hash: {line[:48]!r}.")
        proof.append(digest)
    if len(proof) > MAX_PROOF_LINES:
        raise CosignatureError(f"the request carries {len(proof)} proof lines; at most 63 are allowed.")
    return Request(int(size), proof, note)


# -- the witness's decision -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Judgement:
    status: int  # 200, 400, 409 or 422, as tlog-witness answers
    reason: str

    @property
    def cosign(self):
        return self.status == 200


def judge(known_size: int, known_root: bytes | None, request: Request, size: int, root: bytes) -> Judgement:
    """Whether a witness that last cosigned ``known_size`` entries with ``known_root`` (0 and None: never) may
    cosign the checkpoint of ``size`` and ``root`` that ``request`` brings, its signature already checked
    (tlog-witness, add-checkpoint, in the order the spec gives)."""
    if request.old_size > size:
        return Judgement(400, f"the old size {request.old_size} is larger than the checkpoint's, {size}.")
    if request.old_size != known_size:
        return Judgement(409, f"the old size {request.old_size} is not the size last cosigned, {known_size}.")
    if size == 0 and root != EMPTY_ROOT:
        return Judgement(422, "a checkpoint of size 0 must carry the root of the empty tree.")
    if request.old_size == 0:
        if request.proof:
            return Judgement(422, "a request from size 0 carries no proof: the empty tree is consistent with any.")
        return Judgement(200, "the first checkpoint seen of this log.")
    if request.old_size == size:
        if request.proof:
            # RFC 9162 §2.1.4: the consistency proof between a tree and itself is empty.
            return Judgement(422, "a request from a size to the same size carries no proof.")
        if root != known_root:
            return Judgement(422, f"a checkpoint of {size} entries with another root than the one cosigned: two "
                                  "views of the log.")
        return Judgement(200, "the checkpoint cosigned already.")
    if not merkle.verify_consistency(request.old_size, size, known_root, root, request.proof):
        return Judgement(422, f"the consistency proof from {request.old_size} to {size} entries does not verify: "
                              f"the log does not hold the tree of {request.old_size} cosigned before.")
    return Judgement(200, f"consistent with the {known_size} entries cosigned before.")
