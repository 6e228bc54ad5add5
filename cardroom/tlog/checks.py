"""The verifier's checks (``cardroom.tlog``): an entry's inclusion, a kept checkpoint's consistency with a newer one,
an export bundle with its audit rows and checkpoints (a bundle of bundles: each inner one so, and their checkpoints
one log), a checkpoint's signature; each gives a ``Result``. No Django."""

import json
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field

from .. import chain as hashchain
from .. import bundle, checkpoint, merkle
from ..bundle import reading as bundle_read
from ..bundle.verification import members
from .keys import read_moment, sha256
from .origins import chain_of
from .proofs import CONSISTENCY, INCLUSION, RANGE, Unreadable, parse_proof, unb64

@dataclass
class Result:
    """What a check found: ``ok`` when everything holds; ``lines`` says what was checked and what did not hold."""

    ok: bool = True
    lines: list = field(default_factory=list)
    described: set = field(default_factory=set)  # keys already described in full: later lines name them only

    def holds(self, text):
        self.lines.append(f"OK   {text}")

    def fails(self, text):
        self.ok = False
        self.lines.append(f"FAIL {text}")

    def note(self, text):
        self.lines.append(f"NOTE {text}")

    def key(self, key):
        if key.fingerprint in self.described:
            return f"key {key.name} {key.id}"
        self.described.add(key.fingerprint)
        return key.describe()


def _signed(keyring, note, result, what):
    """(origin, size, root) of a checkpoint, after saying whether its signature holds; None when it does not."""
    try:
        origin, size, root, key = keyring.checkpoint(note)
    except checkpoint.CheckpointError as error:
        result.fails(f"{what}: {error}")
        return None
    result.holds(f"{what}: {origin}, {size} entries, root {root.hex()[:16]}…, signed by {result.key(key)}")
    return origin, size, root


def entry_from_row(row):
    """The hashed fields of an audit entry as an export's audit_log row (or the proof's decoded entry) has them."""
    try:
        data = row["data"]
        entry = {
            "chain": row["chain"], "sequence": int(row["sequence"]),
            "created_at": read_moment(row["created_at"]),
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
        if row.get("entry_hash") and row["entry_hash"] != sha256(entry_bytes).hex():
            result.fails(f"the entry's content hashes to {sha256(entry_bytes).hex()[:16]}…, not to the "
                         f"entry_hash it carries ({row['entry_hash'][:16]}…): it was changed.")
    elif "extra" in proof.fields:
        entry_bytes = unb64(proof.fields["extra"], "the proof's extra line")
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
    if chain_of(origin) != str(chain):
        result.fails(f"the entry belongs to chain {chain}, the checkpoint to the log {origin}.")
    if sequence != index + 1:
        result.fails(f"the entry says it is at position {sequence}; the proof is for position {index + 1}.")
    if merkle.verify_inclusion(sha256(entry_bytes), index, size, proof.hashes, root):
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


def check_export(keyring, path, kept_notes=(), proof_texts=()):
    """An audit export bundle: its signed manifest, each chain's checkpoint, the audit rows it holds against that
    checkpoint (rehashed, linked, and giving back its root), and each kept checkpoint against it: one kept before
    the export with the consistency proof the bundle carries, one kept after it with the proof the service gives
    (``proof_texts``: consistency proofs fetched, as ``compare_kept`` says)."""
    result = Result()
    proofs = [parse_proof(text, CONSISTENCY) for text in proof_texts]
    try:
        with open(path, "rb") as handle:  # the zip-bomb bounds hold before zipfile lists a member
            refused = bundle.directory_problem(handle, bundle.Limits())
        if refused:
            raise Unreadable(refused)
        archive = zipfile.ZipFile(path)
        names = members(archive)
        if names[bundle.MANIFEST].file_size > bundle.MAX_MANIFEST_BYTES:
            raise ValueError("its manifest is far too large")
        manifest = json.loads(archive.read(names[bundle.MANIFEST]))
        if not isinstance(manifest, dict):
            raise ValueError("its manifest is not a JSON object")
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as error:
        raise Unreadable(f"{path} is not an audit export bundle: {error}.") from None
    with archive:
        key = keyring.by_fingerprint(manifest.get("signing_key"))
        if key is None:
            why = keyring.untrusted.get(manifest.get("signing_key"))
            result.fails(f"the bundle was signed by {manifest.get('signing_key')}, which is "
                         + (f"not a trusted key: {why}." if why else "not in the keyring."))
            return result
        checked = bundle.verify(path, key.public_key, keys={k.fingerprint: k.public_key for k in keyring.keys})
        for problem in checked.problems:
            result.fails(problem)
        if checked.ok:
            folder = f" (in the folder {checked.folder}/)" if checked.folder else ""
            result.holds(f"the manifest and its {len(checked.manifest['files'])} files{folder}, signed by "
                         f"{result.key(key)}")
        problem = validity_problem(key, manifest.get("generated_at"))
        if problem:
            result.fails(problem)
        if manifest.get("format") == bundle.FORMAT_3:
            _check_inner(result, keyring, archive, names, checked, kept_notes, proof_texts)
            return result
        kept = [_signed(keyring, note, result, "kept checkpoint") for note in kept_notes]
        kept = [k for k in kept if k is not None]
        read = _Reader(archive, names, checked)
        rows = _audit_rows(result, read, manifest.get("format"))
        chains = [head["chain"] for head in manifest.get("audit_chains", [])]
        for head in manifest.get("audit_chains", []):
            _check_chain(result, keyring, read, head, rows,
                         [k for k in kept if chain_of(k[0]) == head["chain"]], proofs)
        for origin, size, _ in kept:
            if chain_of(origin) not in chains:
                result.fails(f"the kept checkpoint of {size} entries is of the log {origin}, which this bundle does "
                             "not cover: it cannot be checked against it.")
        for proof in proofs:
            if not proof.used:
                result.note(f"a consistency proof given (from {proof.fields.get('old')} entries) is not one any "
                            "kept checkpoint needed against this bundle: it was not used.")
    return result


def _check_inner(result, keyring, archive, names, checked, kept_notes, proof_texts):
    """A bundle of bundles (``cardroom.bundle.nesting``): the links ``bundle.verify`` found holding between its inner
    bundles' checkpoints, then each inner bundle that verified as a bundle checked as an export of its own (its
    checkpoints' signatures, its audit rows against them), its lines named by it; the checkpoints you kept are
    checked against the last one, the newest."""
    for line in checked.links:
        result.holds(line)
    inner = [entry["name"] for entry in checked.manifest.get("bundles", []) if entry["name"] in checked.inner]
    for name in inner:
        if not checked.inner[name].ok:
            continue  # its problems are said, under its name
        handle, copy = tempfile.mkstemp(suffix=".zip")
        try:
            with os.fdopen(handle, "wb") as target, archive.open(names[name]) as source:
                shutil.copyfileobj(source, target, 1 << 20)
            last = name == inner[-1]
            found = check_export(keyring, copy, kept_notes if last else (), proof_texts if last else ())
        finally:
            os.unlink(copy)
        result.ok = result.ok and found.ok
        result.lines += [f"{line[:5]}{name}: {line[5:]}" for line in found.lines]


class _Reader:
    """The text of a bundle file the bundle check found as signed; None when the bundle has no such file, False
    when it has one that did not verify (the bundle check has said so: it is not read, nor said again)."""

    def __init__(self, archive, names, checked):
        self.archive, self.names, self.checked = archive, names, checked

    def __call__(self, name):
        if name not in self.names:
            return None
        if self.checked.files.get(name) != "ok":
            return False
        data = self.archive.read(self.names[name])
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise Unreadable(f"{name} in the bundle is not UTF-8 text (its byte 0x{data[error.start]:02x} at "
                             f"position {error.start:,} cannot be read as UTF-8).") from None


def validity_problem(key, generated_at):
    """Why a bundle whose manifest says it was made at ``generated_at`` cannot have been signed by ``key`` (a
    trusted key) then; None when it was made while the key was in use."""
    try:
        moment = read_moment(generated_at) if isinstance(generated_at, str) or generated_at is None else None
    except Unreadable:
        moment = None
    if key.valid_at(moment):
        return None
    if moment is None:
        return "the manifest carries no time it was made at (generated_at) to check against its key's validity."
    return (f"the bundle says it was made at {moment.isoformat()}, outside the validity of its {key.describe()}: "
            "the key did not sign bundles then.")


def _audit_rows(result, read, format_):
    """The bundle's audit rows by chain, as its format holds them: format 1 in audit_log.json, format 2 in
    audit_log.csv read with the column types columns.json gives (the same rows). None when a file they are read from
    did not verify (it is not checked again) or cannot be read (said here)."""
    if format_ == bundle.FORMAT_1:
        text = read("audit_log.json")
        if text is False:
            return None
        try:
            rows = json.loads(text) if text else []
        except ValueError:
            return {}
    else:
        text, columns = read("audit_log.csv"), read("columns.json")
        if text is False or columns is False:
            return None
        try:
            rows = bundle_read.records("audit_log.csv", text, bundle_read.columns_of(columns, "audit_log")) \
                if text else []
        except bundle_read.BadFile as error:
            result.fails(str(error))
            return None
    by_chain = {}
    for row in rows if isinstance(rows, list) else []:
        by_chain.setdefault(row.get("chain"), []).append(row)
    return by_chain


def _check_chain(result, keyring, read, head, rows, kept, proofs):
    chain, sequence = head["chain"], head["sequence"]
    stem = f"checkpoints/{chain.replace(':', '-')}"
    note = read(f"{stem}.txt")
    if note is None:
        result.fails(f"{chain}: the bundle carries no checkpoint ({stem}.txt).")
    if not note:
        return
    signed = _signed(keyring, note, result, f"{chain} checkpoint")
    if signed is None:
        return
    origin, size, root = signed
    if chain_of(origin) != chain or size != sequence:
        result.fails(f"{chain}: the checkpoint is of {origin} at {size} entries; the manifest says {chain} at "
                     f"{sequence}.")
        return
    range_proof = read(f"{stem}.range.txt")
    if range_proof and size and rows is not None:
        _check_rows(result, chain, size, root, rows.get(chain, []), parse_proof(range_proof, RANGE))
    for old in kept:
        small, large = sorted((old, signed), key=lambda checkpoint_: checkpoint_[1])
        carried = read(f"{stem}.from-{old[1]}.txt") if old[1] < size else None
        found = [parse_proof(carried, CONSISTENCY)] if carried else []
        found += [p for p in proofs if p.fields.get("old") == str(small[1])]
        proof = next((p for p in found if _leads_to(keyring, p, large)), None)
        if proof is not None:
            proof.used = True
        if proof is None and old[1] != size:
            wanted = (f"the bundle carries no consistency proof from {old[1]} entries" if old[1] < size else
                      f"your kept checkpoint covers {old[1]} entries, after the bundle's {size}")
            result.fails(f"{chain}: {wanted}. Fetch the proof from the installation that made the bundle, signed "
                         f"in: GET /api/v1/audit/consistency?chain={chain}&from={small[1]}&to={large[1]} ; save it "
                         "and give it with --proof FILE.")
            continue
        compare_kept(result, chain, signed, old, proof.hashes if proof is not None else [])


def _leads_to(keyring, proof, target):
    """Whether a consistency proof ends at the checkpoint ``target`` (origin, size, root), signed by a trusted key."""
    try:
        return tuple(keyring.checkpoint(proof.note)[:3]) == tuple(target)
    except checkpoint.CheckpointError:
        return False


def compare_kept(result, chain, bundled, kept, hashes):
    """A checkpoint the regulator kept against the bundle's, (origin, size, root) both, with ``hashes``, the
    consistency proof (RFC 9162) from the smaller of the two to the larger: kept before the export, the bundle's log
    must hold it; kept after, it must hold the bundle's log. One sentence either way."""
    (_, size, root), (_, kept_size, kept_root) = bundled, kept
    if kept_size == 0:  # an empty log is a prefix of any log
        result.holds(f"{chain}: your kept checkpoint is of the log when it was empty: every log holds it.")
    elif kept_size == size:
        if kept_root == root:
            result.holds(f"{chain}: your kept checkpoint is the bundle's own ({size} entries, the same root).")
        else:
            result.fails(f"{chain}: your kept checkpoint and the bundle's both cover {size} entries but their roots "
                         "differ: the log was rewritten between the two.")
    elif kept_size < size:
        _consistent(result, kept, bundled, kept_size, hashes)
    elif merkle.verify_consistency(size, kept_size, root, kept_root, hashes):
        result.holds(f"{chain}: your kept checkpoint of {kept_size} entries holds the bundle's {size} entries "
                     "unchanged: the log was only appended to after the export.")
    else:
        result.fails(f"{chain}: your kept checkpoint of {kept_size} entries does NOT hold the bundle's {size} entries "
                     "as the bundle has them: the log was rewritten between the export and your checkpoint.")


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
        leaf = sha256(entry_bytes)
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
        if rows:
            result.holds(f"{chain}: the bundle's {len(rows)} audit rows (positions {start + 1} to {end}) are the "
                         "log's entries at those positions under the checkpoint.")
        else:  # a period with nothing logged: the checkpoint still ties the bundle to the log
            result.holds(f"{chain}: no audit entries in this range (the log held {end} at its start and at its end, "
                         "as the checkpoint says).")
    else:
        result.fails(f"{chain}: the bundle's audit rows do not give back the checkpoint's root: they are not what "
                     "the log held.")


def check_checkpoint(keyring, note):
    result = Result()
    _signed(keyring, note, result, "checkpoint")
    return result
