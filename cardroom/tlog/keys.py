"""The verifier's keys (``cardroom.tlog``): a key with its validity, the endorsement each key gives the next, and the
``Keyring`` read from the keys file, trusting only the keys that lead back to the root of trust and only checkpoints
of the log's origin (``cardroom.tlog.origins``). Plain Python."""

import datetime
import hashlib
import json
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .. import checkpoint
from . import origins
from .proofs import Unreadable, b64, unb64

@dataclass(frozen=True)
class Key:
    name: str
    public_key: Ed25519PublicKey
    valid_from: datetime.datetime | None = None
    valid_until: datetime.datetime | None = None  # None: still the key in use
    endorsed_by: str | None = None  # the fingerprint of the key before it, which signed ``endorsement``
    endorsement: bytes | None = None  # that key's Ed25519 signature over ``endorsement_statement``

    @property
    def fingerprint(self):
        return "SHA256:" + sha256(checkpoint.raw_public_key(self.public_key)).hex()

    @property
    def id(self):
        return checkpoint.key_id(self.name, self.public_key).hex()

    def valid_at(self, moment):
        """Whether the key was in use at ``moment``; a key with a validity needs a moment to be checked against."""
        if moment is None:
            return self.valid_from is None and self.valid_until is None
        return ((self.valid_from is None or self.valid_from <= moment)
                and (self.valid_until is None or moment < self.valid_until))

    def describe(self):
        until = self.valid_until.isoformat() if self.valid_until else "now"
        since = self.valid_from.isoformat() if self.valid_from else "the start"
        return f"key {self.name} {self.id} (valid from {since} to {until})"


ENDORSEMENT = "cardroom/signing-key@v1"


def endorsement_statement(name, public_key, valid_from, endorsed_by):
    """The bytes the key in use signs to endorse the key that replaces it from ``valid_from`` on."""
    raw = checkpoint.raw_public_key(public_key)
    moment = valid_from.astimezone(datetime.timezone.utc).isoformat(timespec="microseconds")
    return (f"{ENDORSEMENT}\nname {name}\nkey SHA256:{sha256(raw).hex()}\npublic_key {b64(raw)}\n"
            f"valid_from {moment}\nendorsed_by {endorsed_by}\n").encode()


class OtherLog(checkpoint.CheckpointError):
    """A checkpoint signed by a trusted key, of another log than the one the keyring checks (its origin)."""


def _endorsed(key, by):
    """Whether ``by`` (a trusted key) signed ``key``'s endorsement."""
    if key.endorsed_by != by.fingerprint or key.endorsement is None or key.valid_from is None:
        return False
    try:
        by.public_key.verify(key.endorsement, endorsement_statement(key.name, key.public_key, key.valid_from,
                                                                    by.fingerprint))
    except InvalidSignature:
        return False
    return by.valid_from is None or by.valid_from < key.valid_from


def sha256(data):
    return hashlib.sha256(data).digest()


def read_moment(text):
    if text in (None, ""):
        return None
    try:
        value = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        raise Unreadable(f"{text!r} is not a date and time (ISO 8601).") from None
    if value.tzinfo is None:
        raise Unreadable(f"{text!r} names no time zone.")
    return value


@dataclass
class Keyring:
    """Keys with their validity. ``roots``: the fingerprints the keys file names as its root of trust (the first
    key); ``untrusted``: after ``trusted``, fingerprint -> why a key listed was left out. ``origin``: the log's base
    origin (``cardroom.tlog.origins``): the keys file's own until ``trusted`` is given the one the verifier kept;
    ``checkpoint`` refuses a checkpoint of any other log (None: of any cardroom log, when nobody names one)."""

    keys: list = field(default_factory=list)
    roots: tuple = ()
    untrusted: dict = field(default_factory=dict)
    origin: str | None = None

    @classmethod
    def parse(cls, text):
        """The keys file ``GET /api/v1/audit/keys`` answers (JSON), or verifier keys one a line (each one trusted
        as written down)."""
        text = text.strip()
        keys, roots, origin = [], (), None
        if text.startswith("{") or text.startswith("["):
            try:
                document = json.loads(text)
            except ValueError as error:
                raise Unreadable(f"the keys file is not JSON: {error}") from None
            items = document.get("keys") if isinstance(document, dict) else document
            if not isinstance(items, list):
                raise Unreadable("the keys file has no list of keys ('keys').")
            if isinstance(document, dict) and isinstance(document.get("root"), str):
                roots = (document["root"],)
            if isinstance(document, dict) and document.get("origin") is not None:
                origin = document["origin"]
                if origins.base_problem(origin):
                    raise Unreadable(f"the keys file's origin: {origins.base_problem(origin)}.")
            for item in items:
                if not isinstance(item, dict) or not isinstance(item.get("verifier_key"), str):
                    raise Unreadable("each key in the keys file needs its 'verifier_key'.")
                name, public = _verifier_key(item["verifier_key"])
                endorsement = item.get("endorsement") or {}
                if not isinstance(endorsement, dict):
                    raise Unreadable("a key's 'endorsement' is an object with 'by' and 'signature'.")
                signature = endorsement.get("signature")
                keys.append(Key(name, public, read_moment(item.get("valid_from")),
                                read_moment(item.get("valid_until")), endorsement.get("by"),
                                unb64(signature, "an endorsement") if isinstance(signature, str) else None))
        else:
            keys = [Key(*_verifier_key(line)) for line in text.splitlines() if line.strip()]
            roots = tuple(k.fingerprint for k in keys)
        if not keys:
            raise Unreadable("the keys file holds no key.")
        return cls(keys, roots, origin=origin)

    def trusted(self, roots=(), origin=None):
        """The keys to trust: each root (``roots`` as the verifier kept them, else the keys file's own), then each
        key endorsed by the last one trusted, valid from its endorsed ``valid_from`` until the next one's. Every
        other key is left out, in ``untrusted`` with the reason. The checkpoints to trust: of ``origin`` (the log's
        base origin as the verifier kept it), else of the keys file's own."""
        roots = tuple(roots) or self.roots
        if not roots:
            raise Unreadable("the keys file names no root of trust: give the root key's fingerprint with --trust.")
        trusted = []
        for root in roots:
            chain = [k for k in self.keys if k.fingerprint == root][:1]
            if not chain:
                raise Unreadable(f"the root of trust {root} is not in the keys file.")
            while True:
                nexts = [k for k in self.keys if k not in chain and _endorsed(k, chain[-1])]
                if not nexts:
                    break
                chain.append(min(nexts, key=lambda k: k.valid_from))
            for key, successor in zip(chain, chain[1:] + [None]):
                trusted.append(Key(key.name, key.public_key, key.valid_from,
                                   successor.valid_from if successor else None, key.endorsed_by, key.endorsement))
        known = {k.fingerprint for k in trusted}
        untrusted = {k.fingerprint: (f"its endorsement by {k.endorsed_by} does not verify, or that key is not "
                                     "trusted" if k.endorsed_by else "no trusted key endorsed it")
                     for k in self.keys if k.fingerprint not in known}
        return Keyring(trusted, roots, untrusted, origin or self.origin)

    def by_fingerprint(self, fingerprint):
        return next((k for k in self.keys if k.fingerprint == fingerprint), None)

    def checkpoint(self, note):
        """(origin, size, root, key) of a checkpoint of the log ``origin`` names, signed by one of the keys;
        CheckpointError otherwise. A checkpoint of another origin is refused however well it is signed: the key
        that signs this log could sign any other name, and a witness keeps one history per name."""
        problem = None
        for key in self.keys:
            try:
                found = checkpoint.verify(note, key.name, key.public_key)
            except checkpoint.CheckpointError as error:
                if "altered" in str(error) or problem is None:
                    problem = error
                continue
            wrong = origins.problem(found[0], self.origin)
            if wrong:
                raise OtherLog(f"the checkpoint is signed by {key.name} {key.id}, but {wrong}.")
            return (*found, key)
        if problem is not None and "altered" in str(problem):
            raise problem
        raise checkpoint.CheckpointError("the checkpoint carries no signature of any key in the keyring.")


def _verifier_key(text):
    try:
        return checkpoint.read_verifier_key(text)
    except checkpoint.CheckpointError as error:
        raise Unreadable(str(error)) from None
