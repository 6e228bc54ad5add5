"""Checking the audit log from outside, offline: proofs' text formats and the verifier. Plain Python, no Django.

Whoever holds the installation's public keys (``GET /api/v1/audit/keys``, saved as a file) checks with this module
and ``cryptography`` alone, with no access to the service (docs/audit.md, "Checking the log from outside"):

    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT entry ENTRY.tlog-proof [--entry ROW.json]
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT consistency KEPT-CHECKPOINT.txt PROOF.txt
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT export BUNDLE.zip [--kept CHECKPOINT.txt ...]
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT checkpoint CHECKPOINT.txt

Only keys that lead back to the root of trust (``--trust``: the first key's fingerprint, kept when the installation
was set up) are trusted: each later key carries the key before it's signature over ``endorsement_statement``, and
is valid from its endorsed ``valid_from`` until the next key's.

Each prints what it checked, one line per finding, and exits 0 when everything holds, 1 when something does not,
2 when an input cannot be read. The formats:

- an inclusion proof is C2SP ``tlog-proof@v1``: the first line ``c2sp.org/tlog-proof@v1``, then ``extra <base64>``
  (here: the entry's canonical bytes, ``cardroom.chain.canonical``, from which its hash is recomputed), ``index <n>``
  (0-based: the entry at position n + 1 of its chain), the audit path one base64 hash a line, a blank line and the
  checkpoint the path leads to;
- a consistency proof has the same shape: ``cardroom/tlog-consistency@v1``, ``old <size>``, the proof's hashes
  (RFC 9162 §2.1.4), a blank line and the newer checkpoint;
- an export's range proof (``checkpoints/<chain>.range.txt``): ``cardroom/tlog-range@v1``, ``start <index>``,
  ``end <index>``, the heads of the subtrees outside the run (``cardroom.merkle.range_proof``), a blank line and
  the checkpoint: with the export's audit rows of positions start + 1 to end, it gives back the checkpoint's root.
"""

import argparse
import base64
import binascii
import datetime
import hashlib
import json
import sys
import zipfile
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from . import chain as hashchain
from . import bundle, checkpoint, merkle

INCLUSION = "c2sp.org/tlog-proof@v1"
CONSISTENCY = "cardroom/tlog-consistency@v1"
RANGE = "cardroom/tlog-range@v1"
ORIGIN_PREFIX = "cardroom/audit/"


class Unreadable(ValueError):
    """An input that is not what it should be (exit 2); the message says which and why."""


# -- keys ------------------------------------------------------------------------------------------------------------


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
        return "SHA256:" + _sha256(checkpoint._raw(self.public_key)).hex()

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
    raw = checkpoint._raw(public_key)
    moment = valid_from.astimezone(datetime.timezone.utc).isoformat(timespec="microseconds")
    return (f"{ENDORSEMENT}\nname {name}\nkey SHA256:{_sha256(raw).hex()}\npublic_key {_b64(raw)}\n"
            f"valid_from {moment}\nendorsed_by {endorsed_by}\n").encode()


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


def _sha256(data):
    return hashlib.sha256(data).digest()


def _moment(text):
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
    key); ``untrusted``: after ``trusted``, fingerprint -> why a key listed was left out."""

    keys: list = field(default_factory=list)
    roots: tuple = ()
    untrusted: dict = field(default_factory=dict)

    @classmethod
    def parse(cls, text):
        """The keys file ``GET /api/v1/audit/keys`` answers (JSON), or verifier keys one a line (each one trusted
        as written down)."""
        text = text.strip()
        keys, roots = [], ()
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
            for item in items:
                if not isinstance(item, dict) or not isinstance(item.get("verifier_key"), str):
                    raise Unreadable("each key in the keys file needs its 'verifier_key'.")
                name, public = _verifier_key(item["verifier_key"])
                endorsement = item.get("endorsement") or {}
                if not isinstance(endorsement, dict):
                    raise Unreadable("a key's 'endorsement' is an object with 'by' and 'signature'.")
                signature = endorsement.get("signature")
                keys.append(Key(name, public, _moment(item.get("valid_from")), _moment(item.get("valid_until")),
                                endorsement.get("by"),
                                _unb64(signature, "an endorsement") if isinstance(signature, str) else None))
        else:
            keys = [Key(*_verifier_key(line)) for line in text.splitlines() if line.strip()]
            roots = tuple(k.fingerprint for k in keys)
        if not keys:
            raise Unreadable("the keys file holds no key.")
        return cls(keys, roots)

    def trusted(self, roots=()):
        """The keys to trust: each root (``roots`` as the verifier kept them, else the keys file's own), then each
        key endorsed by the last one trusted, valid from its endorsed ``valid_from`` until the next one's. Every
        other key is left out, in ``untrusted`` with the reason."""
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
        return Keyring(trusted, roots, untrusted)

    def by_fingerprint(self, fingerprint):
        return next((k for k in self.keys if k.fingerprint == fingerprint), None)

    def checkpoint(self, note):
        """(origin, size, root, key) of a checkpoint signed by one of the keys; CheckpointError otherwise."""
        problem = None
        for key in self.keys:
            try:
                return (*checkpoint.verify(note, key.name, key.public_key), key)
            except checkpoint.CheckpointError as error:
                if "altered" in str(error) or problem is None:
                    problem = error
        if problem is not None and "altered" in str(problem):
            raise problem
        raise checkpoint.CheckpointError("the checkpoint carries no signature of any key in the keyring.")


def _verifier_key(text):
    try:
        return checkpoint.read_verifier_key(text)
    except checkpoint.CheckpointError as error:
        raise Unreadable(str(error)) from None


# -- the text formats ------------------------------------------------------------------------------------------------


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _unb64(text, what):
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Unreadable(f"{what} is not base64: {text[:40]!r}.") from None


def _proof_text(header, fields, hashes, note):
    lines = [header, *(f"{name} {value}" for name, value in fields), *(_b64(h) for h in hashes)]
    return "\n".join(lines) + "\n\n" + note


def inclusion_text(index, path, note, entry_bytes=None):
    fields = ([("extra", _b64(entry_bytes))] if entry_bytes is not None else []) + [("index", index)]
    return _proof_text(INCLUSION, fields, path, note)


def consistency_text(old_size, proof, note):
    return _proof_text(CONSISTENCY, [("old", old_size)], proof, note)


def range_text(start, end, proof, note):
    return _proof_text(RANGE, [("start", start), ("end", end)], proof, note)


@dataclass
class Proof:
    kind: str
    fields: dict  # name -> text
    hashes: list  # bytes
    note: str  # the checkpoint that follows

    def number(self, name):
        value = self.fields.get(name, "")
        if not value.isdigit() or (value != "0" and value.startswith("0")):
            raise Unreadable(f"the proof's '{name}' line is missing or not a number.")
        return int(value)


def parse_proof(text, kind):
    """A proof of ``kind`` (its first line) read from its text."""
    head, blank, note = text.partition("\n\n")
    lines = head.split("\n")
    if lines[0] != kind:
        raise Unreadable(f"not a proof of the kind {kind!r}: its first line is {lines[0][:60]!r}.")
    if not blank or not note:
        raise Unreadable("the proof has no checkpoint after its blank line.")
    fields, hashes = {}, []
    for line in lines[1:]:
        name, space, value = line.partition(" ")
        if space and not hashes and name.isalpha():
            fields[name] = value
        else:
            digest = _unb64(line, "a proof hash")
            if len(digest) != 32:
                raise Unreadable("a proof hash is not 32 bytes.")
            hashes.append(digest)
    return Proof(kind, fields, hashes, note)


# -- checks ----------------------------------------------------------------------------------------------------------


@dataclass
class Result:
    """What a check found: ``ok`` when everything holds; ``lines`` says what was checked and what did not hold."""

    ok: bool = True
    lines: list = field(default_factory=list)

    def holds(self, text):
        self.lines.append(f"OK   {text}")

    def fails(self, text):
        self.ok = False
        self.lines.append(f"FAIL {text}")


def _signed(keyring, note, result, what):
    """(origin, size, root) of a checkpoint, after saying whether its signature holds; None when it does not."""
    try:
        origin, size, root, key = keyring.checkpoint(note)
    except checkpoint.CheckpointError as error:
        result.fails(f"{what}: {error}")
        return None
    result.holds(f"{what}: {origin}, {size} entries, root {root.hex()[:16]}…, signed by {key.describe()}")
    return origin, size, root


def entry_from_row(row):
    """The hashed fields of an audit entry as an export's audit_log row (or the proof's decoded entry) has them."""
    try:
        data = row["data"]
        entry = {
            "chain": row["chain"], "sequence": int(row["sequence"]),
            "created_at": _moment(row["created_at"]),
            "actor_id": _number_or_none(row.get("actor_id")),
            "actor_label": row.get("actor_label", row.get("actor")),
            "action": row["action"], "object_type": row["object_type"], "object_id": row["object_id"],
            "object_repr": row.get("object_repr", row.get("object")),
            "establishment_id": _number_or_none(row.get("establishment_id")),
            "jurisdiction_id": _number_or_none(row.get("jurisdiction_id")),
            "data": json.loads(data) if isinstance(data, str) else data,
            "prev_hash": row["prev_hash"],
        }
    except (KeyError, TypeError, ValueError) as error:
        raise Unreadable(f"not an audit entry with every hashed field ({', '.join(hashchain.FIELDS)}): {error}.") \
            from None
    if entry["data"] is None:
        entry["data"] = {}
    return entry


def _number_or_none(value):
    return None if value in (None, "") else int(value)


def check_entry(keyring, proof_text, row=None):
    """Whether an entry is in the log at its position, under a checkpoint signed by a trusted key. The entry is
    the proof's own (its ``extra`` line) or ``row`` (an export's audit_log row, say), whose content is rehashed."""
    result = Result()
    proof = parse_proof(proof_text, INCLUSION)
    index = proof.number("index")
    if row is not None:
        entry = entry_from_row(row)
        entry_bytes = hashchain.canonical(entry)
        if row.get("entry_hash") and row["entry_hash"] != _sha256(entry_bytes).hex():
            result.fails(f"the entry's content hashes to {_sha256(entry_bytes).hex()[:16]}…, not to the "
                         f"entry_hash it carries ({row['entry_hash'][:16]}…): it was changed.")
    elif "extra" in proof.fields:
        entry_bytes = _unb64(proof.fields["extra"], "the proof's extra line")
        try:
            entry = json.loads(entry_bytes)
        except ValueError:
            raise Unreadable("the proof's extra line is not an audit entry's canonical JSON.") from None
    else:
        raise Unreadable("the proof carries no entry (no 'extra' line): give the entry with --entry.")
    signed = _signed(keyring, proof.note, result, "checkpoint")
    if signed is None:
        return result
    origin, size, root = signed
    chain, sequence = entry.get("chain"), entry.get("sequence")
    if origin != ORIGIN_PREFIX + str(chain):
        result.fails(f"the entry belongs to chain {chain}, the checkpoint to the log {origin}.")
    if sequence != index + 1:
        result.fails(f"the entry says it is at position {sequence}; the proof is for position {index + 1}.")
    if merkle.verify_inclusion(_sha256(entry_bytes), index, size, proof.hashes, root):
        result.holds(f"entry {sequence} of {chain} ({entry.get('action')}, {entry.get('created_at')}) is in the "
                     f"log of {size} entries with that root.")
    else:
        result.fails(f"entry {sequence} of {chain} as given is not in the log under that checkpoint: its content or "
                     "the proof was changed.")
    return result


def check_consistency(keyring, kept_note, proof_text):
    """Whether the log under a newer checkpoint still holds, unchanged, the log a kept checkpoint signed."""
    result = Result()
    proof = parse_proof(proof_text, CONSISTENCY)
    old = _signed(keyring, kept_note, result, "kept checkpoint")
    new = _signed(keyring, proof.note, result, "newer checkpoint")
    if old is None or new is None:
        return result
    _consistent(result, old, new, proof.number("old"), proof.hashes)
    return result


def _consistent(result, old, new, proof_old_size, hashes):
    (old_origin, old_size, old_root), (origin, size, root) = old, new
    if old_origin != origin:
        result.fails(f"the checkpoints are of different logs ({old_origin}, {origin}).")
    elif proof_old_size != old_size:
        result.fails(f"the proof runs from {proof_old_size} entries; the kept checkpoint has {old_size}.")
    elif merkle.verify_consistency(old_size, size, old_root, root, hashes):
        result.holds(f"{origin}: the log of {size} entries still holds the {old_size} entries of the kept checkpoint, "
                     "unchanged.")
    else:
        result.fails(f"{origin}: the log of {size} entries does NOT hold the {old_size} entries of the kept checkpoint "
                     "as they were: it was rewritten after that checkpoint was handed out.")


def check_export(keyring, path, kept_notes=()):
    """An audit export bundle: its signed manifest, each chain's checkpoint, the audit rows it holds against that
    checkpoint (rehashed, linked, and giving back its root), and each kept earlier checkpoint against it."""
    result = Result()
    try:
        archive = zipfile.ZipFile(path)
        manifest = json.loads(archive.read(bundle.MANIFEST))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as error:
        raise Unreadable(f"{path} is not an audit export bundle: {error}.") from None
    with archive:
        key = keyring.by_fingerprint(manifest.get("signing_key"))
        if key is None:
            why = keyring.untrusted.get(manifest.get("signing_key"))
            result.fails(f"the bundle was signed by {manifest.get('signing_key')}, which is "
                         + (f"not a trusted key: {why}." if why else "not in the keyring."))
            return result
        checked = bundle.verify(path, key.public_key)
        for problem in checked.problems:
            result.fails(problem)
        if checked.ok:
            result.holds(f"the manifest and its {len(checked.manifest['files'])} files, signed by {key.describe()}")
        problem = validity_problem(key, manifest.get("generated_at"))
        if problem:
            result.fails(problem)
        kept = [_signed(keyring, note, result, "kept checkpoint") for note in kept_notes]
        rows = _audit_rows(archive)
        for head in manifest.get("audit_chains", []):
            _check_chain(result, keyring, archive, head, rows.get(head["chain"], []),
                         [k for k in kept if k is not None and k[0] == ORIGIN_PREFIX + head["chain"]])
    return result


def validity_problem(key, generated_at):
    """Why a bundle whose manifest says it was made at ``generated_at`` cannot have been signed by ``key`` (a
    trusted key) then; None when it was made while the key was in use."""
    try:
        moment = _moment(generated_at) if isinstance(generated_at, str) or generated_at is None else None
    except Unreadable:
        moment = None
    if key.valid_at(moment):
        return None
    if moment is None:
        return "the manifest carries no time it was made at (generated_at) to check against its key's validity."
    return (f"the bundle says it was made at {moment.isoformat()}, outside the validity of its {key.describe()}: "
            "the key did not sign bundles then.")


def _audit_rows(archive):
    try:
        rows = json.loads(archive.read("audit_log.json"))
    except (KeyError, ValueError):
        return {}
    by_chain = {}
    for row in rows:
        by_chain.setdefault(row.get("chain"), []).append(row)
    return by_chain


def _read(archive, name):
    try:
        return archive.read(name).decode()
    except KeyError:
        return None


def _check_chain(result, keyring, archive, head, rows, kept):
    chain, sequence = head["chain"], head["sequence"]
    stem = f"checkpoints/{chain.replace(':', '-')}"
    note = _read(archive, f"{stem}.txt")
    if note is None:
        result.fails(f"{chain}: the bundle carries no checkpoint ({stem}.txt).")
        return
    signed = _signed(keyring, note, result, f"{chain} checkpoint")
    if signed is None:
        return
    origin, size, root = signed
    if origin != ORIGIN_PREFIX + chain or size != sequence:
        result.fails(f"{chain}: the checkpoint is of {origin} at {size} entries; the manifest says {chain} at "
                     f"{sequence}.")
        return
    range_proof = _read(archive, f"{stem}.range.txt")
    if range_proof is not None and size:
        _check_rows(result, chain, size, root, rows, parse_proof(range_proof, RANGE))
    for old in kept:
        if old[1] == size:
            (result.holds if old[2] == root else result.fails)(
                f"{chain}: the kept checkpoint of {size} entries {'is' if old[2] == root else 'is NOT'} this one.")
            continue
        proof = _read(archive, f"{stem}.from-{old[1]}.txt")
        if proof is None:
            result.fails(f"{chain}: the bundle carries no consistency proof from {old[1]} entries; ask the service "
                         f"for one (GET /api/v1/audit/consistency?chain={chain}&from={old[1]}&to={size}).")
            continue
        parsed = parse_proof(proof, CONSISTENCY)
        if parsed.note != note:
            result.fails(f"{chain}: the consistency proof leads to another checkpoint than the bundle's.")
            continue
        _consistent(result, old, signed, parsed.number("old"), parsed.hashes)


def _check_rows(result, chain, size, root, rows, proof):
    start, end = proof.number("start"), proof.number("end")
    rows = sorted(rows, key=lambda r: int(r["sequence"]))
    positions = [int(r["sequence"]) for r in rows]
    if positions != list(range(start + 1, end + 1)):
        result.fails(f"{chain}: the bundle's audit rows are not exactly positions {start + 1} to {end}.")
        return
    leaves, previous = [], None
    for row in rows:
        entry_bytes = hashchain.canonical(entry_from_row(row))
        leaf = _sha256(entry_bytes)
        if leaf.hex() != row["entry_hash"]:
            result.fails(f"{chain}: the row at position {row['sequence']} was changed (its content does not hash to "
                         "its entry_hash).")
            return
        if previous is not None and row["prev_hash"] != previous:
            result.fails(f"{chain}: the row at position {row['sequence']} does not link to the one before it.")
            return
        leaves.append(leaf)
        previous = row["entry_hash"]
    if merkle.root_from_range(leaves, start, size, proof.hashes) == root:
        result.holds(f"{chain}: the bundle's {len(rows)} audit rows (positions {start + 1} to {end}) are the log's "
                     "entries at those positions under the checkpoint.")
    else:
        result.fails(f"{chain}: the bundle's audit rows do not give back the checkpoint's root: they are not what "
                     "the log held.")


def check_checkpoint(keyring, note):
    result = Result()
    _signed(keyring, note, result, "checkpoint")
    return result


# -- the command -----------------------------------------------------------------------------------------------------


def _text(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise Unreadable(f"cannot read {path}: {error}.") from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m cardroom.tlog", description=(
        "Check cardroom's audit log offline against the installation's public keys (GET /api/v1/audit/keys)."))
    parser.add_argument("--keys", required=True, action="append",
                        help="The keys file (the JSON of GET /api/v1/audit/keys, or verifier keys one a line).")
    parser.add_argument("--trust", action="append", default=[], metavar="SHA256:...",
                        help="The fingerprint of the installation's first key (the keys file's 'root'), as you kept "
                             "it: only keys it endorsed, one after another, are trusted. Without it, the keys "
                             "file's own root is taken on its word.")
    commands = parser.add_subparsers(dest="command", required=True)
    entry = commands.add_parser("entry", help="An entry's inclusion proof (GET /api/v1/audit/proof).")
    entry.add_argument("proof")
    entry.add_argument("--entry", help="The entry as you hold it (a JSON object: a row of an export's "
                                       "audit_log.json); without it, the entry the proof carries.")
    consistency = commands.add_parser("consistency", help="A kept checkpoint against a newer one "
                                                          "(GET /api/v1/audit/consistency).")
    consistency.add_argument("kept")
    consistency.add_argument("proof")
    export = commands.add_parser("export", help="An audit export bundle, and kept earlier checkpoints against it.")
    export.add_argument("bundle")
    export.add_argument("--kept", action="append", default=[], help="A checkpoint kept from earlier (repeatable).")
    note = commands.add_parser("checkpoint", help="A checkpoint's signature.")
    note.add_argument("checkpoint")
    args = parser.parse_args(argv)
    try:
        files = [Keyring.parse(_text(path)) for path in args.keys]
        given = Keyring([k for ring in files for k in ring.keys], tuple(r for ring in files for r in ring.roots))
        keyring = given.trusted(args.trust)
        if not args.trust:
            print(f"NOTE no root of trust given (--trust): trusting the keys file's own root, "
                  f"{', '.join(keyring.roots)}. Compare it with the fingerprint you kept.")
        for fingerprint, why in keyring.untrusted.items():
            print(f"NOTE the keys file lists {fingerprint}, which is not trusted: {why}.")
        if args.command == "entry":
            row = json.loads(_text(args.entry)) if args.entry else None
            if row is not None and not isinstance(row, dict):
                raise Unreadable("the entry is not a JSON object.")
            result = check_entry(keyring, _text(args.proof), row)
        elif args.command == "consistency":
            result = check_consistency(keyring, _text(args.kept), _text(args.proof))
        elif args.command == "export":
            result = check_export(keyring, args.bundle, [_text(path) for path in args.kept])
        else:
            result = check_checkpoint(keyring, _text(args.checkpoint))
    except (Unreadable, ValueError) as error:
        print(f"UNREADABLE {error}", file=sys.stderr)
        return 2
    for line in result.lines:
        print(line)
    print("HOLDS" if result.ok else "DOES NOT HOLD")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
