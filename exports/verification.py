"""Checking an uploaded audit export bundle: the one service behind the API (``POST /api/v1/exports/verify``)
and the verify page, and the check a background job runs (queued by ``exports.tasks.start_check``).
The check itself is ``bundle.verify``, within the installation's limits (docs/exports.md); checked against this
installation's own keys, every checkpoint the bundle carries must also be of this installation's log
(``AUDIT_LOG_ORIGIN``, ``origin_problems``), as the offline verifier given ``--origin`` requires."""

import json
import zipfile
from dataclasses import dataclass, field

from cardroom import bundle, checkpoint, keys
from cardroom.bundle.nesting import checkpoint_stem
from cardroom.bundle.verification import members, shown
from cardroom.exceptions import BadInput

MAX_PUBLIC_KEY_BYTES = 16 * 1024
# What a check's job keeps (its result, which every GET of the job answers with): the limits bound a bundle's problems
# and files, not to a few; the first are enough to say what is wrong, and the result says how many were left out.
STORED_PROBLEMS = 100
STORED_FILES = 200  # a bundle holds ~20 (format 1: ~30)
STORED_CHARACTERS = 500  # of a problem, or of a file's name
STORED_MANIFEST_BYTES = 256 * 1024  # as JSON; a bundle's is a few kB (1,000 files: ~150 kB)


def public_key_from(upload=None, text=None):
    """The key to verify against: the one uploaded (a file) or given as text; None for the installation's key that
    signed the bundle (``signer_of``)."""
    if upload is not None:
        if upload.size > MAX_PUBLIC_KEY_BYTES:
            raise BadInput("This is far too large to be a public key.", field="public_key")
        text = upload.read()
    if text in (None, "", b""):
        return None
    try:
        return bundle.load_public_key(text)
    except (ValueError, TypeError) as error:
        raise BadInput(f"Not an Ed25519 public key (PEM, or base64 of the raw 32 bytes): {error}.",
                       field="public_key") from None


def _manifest_of(fileobj):
    try:
        with zipfile.ZipFile(fileobj) as archive:
            info = members(archive)[bundle.MANIFEST]  # a bundle zipped again: perhaps in a top folder
            manifest = json.loads(archive.read(info)) if info.file_size < (1 << 20) else None
    except Exception:  # an unreadable bundle: bundle.verify says what is wrong with it
        manifest = None
    finally:
        if hasattr(fileobj, "seek"):
            fileobj.seek(0)
    return manifest if isinstance(manifest, dict) else {}


def _trusted(ring):
    from cardroom.transparency import trusted_keys

    return ring if ring is not None else trusted_keys()


def signer_of(fileobj, ring=None):
    """The installation's trusted key, current or rotated (``cardroom.transparency.trusted_keys``, or ``ring``),
    that the bundle's manifest names; the key in use when it names an untrusted one (so the signature does not
    hold); the configured key when it names none (``trust_problem`` says whether that one is trusted)."""
    named = _manifest_of(fileobj).get("signing_key")
    if not isinstance(named, str):
        return keys.public_key()
    ring = _trusted(ring)
    return (ring.by_fingerprint(named) or ring.keys[-1]).public_key


def trust_problem(manifest, ring=None):
    """Why the installation's keys do not vouch for a bundle with this manifest, checked against them
    (``signer_of``): its key is not one the installation trusts (recorded without the endorsement of the key before
    it), or the bundle's time is outside the key's validity. None when they do."""
    from cardroom import tlog

    if not manifest:
        return None  # bundle.verify already says the manifest cannot be read
    ring = _trusted(ring)
    named = manifest.get("signing_key")
    said = f"{bundle.MANIFEST} names the signing key" if isinstance(named, str) else "it was checked against the key"
    named = named if isinstance(named, str) else keys.key_fingerprint()  # signer_of's choice: the configured key
    key = ring.by_fingerprint(named)
    if key is None:
        why = ring.untrusted.get(named, "it is not one of this installation's keys")
        return f"{said} {named}, which this installation does not trust: {why}."
    return tlog.validity_problem(key, manifest.get("generated_at"))


def installation_fingerprints(ring=None):
    return {key.fingerprint for key in _trusted(ring).keys}


@dataclass
class Checked:
    """A bundle's verification (``bundle.Verification``) and the key it was checked against."""

    verification: bundle.Verification
    public_key_fingerprint: str
    installation_key: bool  # checked against one of this installation's own keys (current or rotated)
    kept: list = field(default_factory=list)  # what held of the kept checkpoints checked against it, in sentences
    witnesses: list = field(default_factory=list)  # a line per configured witness: what of the bundle it cosigned
    origin: str | None = None  # the log its checkpoints must be of (AUDIT_LOG_ORIGIN); None: against a key given

    @property
    def ok(self):
        return self.verification.ok

    def as_dict(self):
        """What a verification job's ``result`` holds (the API's and the page's answer), kept small: the first
        ``STORED_PROBLEMS`` problems and ``STORED_FILES`` files (those not ok first), each cut at
        ``STORED_CHARACTERS``, and how many were left out; the manifest when it is at most ``STORED_MANIFEST_BYTES``.
        Names are shown as ``shown`` shows them."""
        found = self.verification
        problems = found.problems
        files = sorted(found.files.items(), key=lambda item: (item[1] == "ok", item[0]))
        manifest = found.manifest
        manifest_bytes = len(json.dumps(manifest, ensure_ascii=False)) if manifest is not None else 0
        return {"ok": found.ok, "problems": [_cut(shown(p)) for p in problems[:STORED_PROBLEMS]],
                "problems_left_out": max(0, len(problems) - STORED_PROBLEMS),
                "format": found.format,
                "manifest": manifest if manifest_bytes <= STORED_MANIFEST_BYTES else None,
                "manifest_left_out": manifest_bytes > STORED_MANIFEST_BYTES,
                "public_key_fingerprint": self.public_key_fingerprint, "installation_key": self.installation_key,
                "origin": self.origin,
                "signature": found.signature, "files": {_cut(shown(n)): state for n, state in files[:STORED_FILES]},
                "files_left_out": max(0, len(files) - STORED_FILES),
                "folder": _cut(shown(found.folder)) if found.folder is not None else None,
                "kept": [_cut(shown(line)) for line in self.kept[:STORED_PROBLEMS]],
                # Only for a bundle of bundles: each inner bundle's period (as the outer manifest lists it) and
                # verdict (its problems are among the problems, named by it), and the links between their
                # checkpoints that hold.
                **({"inner": {_cut(shown(name)): {"ok": inner.ok, "format": inner.format,
                                                  "signature": inner.signature, "problems": len(inner.problems),
                                                  **_listed_period(manifest, name)}
                              for name, inner in list(found.inner.items())[:STORED_FILES]},
                    "links": [_cut(shown(line)) for line in found.links[:STORED_PROBLEMS]]} if found.inner else {}),
                # Only where witnesses are configured (WITNESSES): what each cosigned of the bundle.
                **({"witnesses": [_cut(shown(line)) for line in self.witnesses[:STORED_PROBLEMS]]}
                   if self.witnesses else {})}


def _listed_period(manifest, name):
    """An inner bundle's period ("from" and "to", or "as_of") and closed month (``YYYY-MM``, a closed month's own
    bundle) as the outer manifest lists them; {} when it lists neither."""
    entry = next((e for e in (manifest or {}).get("bundles") or [] if isinstance(e, dict) and e.get("name") == name),
                 {})
    period = entry.get("period") if isinstance(entry.get("period"), dict) else {}
    said = {key: _cut(shown(str(period[key]))) for key in ("from", "to", "as_of") if period.get(key) is not None}
    closed = entry.get("closed_month")
    return {**({"period": said} if said else {}),
            **({"closed_month": _cut(shown(closed))} if isinstance(closed, str) else {})}


def _cut(text):
    """A stored text at most ``STORED_CHARACTERS`` long, saying so when cut."""
    if len(text) <= STORED_CHARACTERS:
        return text
    left = len(text) - STORED_CHARACTERS
    return f"{text[:STORED_CHARACTERS]}… ({left:,} more characters)"


def limits():
    from django.conf import settings

    return bundle.Limits(max_members=settings.EXPORT_VERIFY_MAX_MEMBERS,
                         max_total_bytes=settings.EXPORT_VERIFY_MAX_TOTAL_BYTES,
                         max_ratio=settings.EXPORT_VERIFY_MAX_RATIO)


def check(fileobj, public_key=None, on_progress=None, kept=()):
    """Check a bundle (a seekable binary file) within the installation's ``limits``, and each checkpoint the
    regulator ``kept`` (its text) against it.

    ``public_key``: a key from ``public_key_from``; None for the installation's key that signed it."""
    own = public_key is None
    ring = _trusted(None)  # built once: each key's endorsement is checked in building it
    if own and bundle.directory_problem(fileobj, limits()):
        public_key = keys.public_key()  # refused unread: signer_of would read the whole zip directory
    elif own:
        public_key = signer_of(fileobj, ring)
    # A bundle of bundles' inner ones: each checked against the trusted key its manifest names.
    result = bundle.verify(fileobj, public_key, limits(), on_progress,
                           keys={key.fingerprint: key.public_key for key in ring.keys})
    problem = trust_problem(result.manifest, ring) if own else None
    if problem:  # the installation's keys vouch only for what a trusted key signed while in use
        result.problems.append(shown(problem))  # it quotes the manifest
        result.ok = False
    # This installation's log only: its key signs any origin it is given (issue 41). Another installation's bundle
    # (checked against a key given) names a log this one does not know.
    renamed = origin_problems(result, ring.origin) if own else []
    if renamed:
        result.problems.extend(shown(line) for line in renamed)
        result.ok = False
    held = kept_against(fileobj, result, kept, ring) if kept else None
    if held is not None and not held.ok:
        result.problems.extend(shown(line.removeprefix("FAIL ")) for line in held.lines if line.startswith("FAIL "))
        result.ok = False
    fingerprint = bundle.fingerprint(public_key)
    return Checked(result, fingerprint, fingerprint in installation_fingerprints(ring),
                   [line.removeprefix("OK   ") for line in held.lines if line.startswith("OK ")] if held else [],
                   witnessed_lines(result), ring.origin if own else None)


def carried_checkpoints(verified):
    """[(name, chain, note)] of every checkpoint a bundle that verified carries (``name``: ``checkpoints/<chain>.txt``,
    in a bundle of bundles ``bundles/<inner>.zip: checkpoints/<chain>.txt``), in the order of its inner bundles."""
    holders = ([(f"{name}: ", inner) for name, inner in verified.inner.items()] if verified.inner
               else [("", verified)])
    return [(f"{where}{checkpoint_stem(chain)}.txt", chain, note)
            for where, holder in holders for chain, note in holder.checkpoints.items()]


def origin_problems(verified, base):
    """A sentence for each checkpoint the bundle carries that is not of the log ``base`` names (``<base>/<chain>``,
    the chain its file is of): signed by the right key, it is still another log's, which the regulators who keep
    ``base`` and its witnesses never saw (docs/audit.md, "The log's name")."""
    from cardroom.tlog import origins

    found = []
    for name, chain, note in carried_checkpoints(verified):
        try:
            named = checkpoint.read_body(note)[0]
        except checkpoint.CheckpointError as error:
            found.append(f"{name}: {error}")
            continue
        if origins.chain_of(named, base) != chain:
            found.append(f"{name}: the checkpoint is of the log {named}, not of this installation's "
                         f"{origins.origin(base, chain)} (AUDIT_LOG_ORIGIN {base}): another log, or this one under "
                         "another name, which its regulators and witnesses do not know.")
    return found


def witnessed_lines(verified):
    """A line per configured witness (``settings.WITNESSES``): which of the bundle's checkpoints it cosigned and
    when (in a bundle of bundles, each inner bundle's, named by it), read from the checkpoint files that verified
    (docs/audit.md, "Verifying with witnesses")."""
    import datetime

    from django.conf import settings

    from cardroom.tlog import witnessed

    if not settings.WITNESSES or not verified.manifest:
        return []
    notes = [(name.removesuffix(f"{checkpoint_stem(chain)}.txt") + chain, note)
             for name, chain, note in carried_checkpoints(verified)]
    lines = []
    for w in settings.WITNESSES:
        named = witnessed.witness(w["name"], w["verifier_key"])
        said, missing = [], []
        for chain, note in notes:
            good, bad = witnessed.cosigners(note, [named])
            if w["name"] in good:
                moment = datetime.datetime.fromtimestamp(good[w["name"]].timestamp, datetime.UTC)
                said.append(f"{chain} at {moment:%Y-%m-%d %H:%M} UTC")
            else:
                missing.append(f"{chain} (its cosignature does not verify)" if w["name"] in bad else chain)
        lines.append(f"{w['name']}: " + (f"cosigned {', '.join(said)}" if said else "cosigned none of its checkpoints")
                     + (f"; not {', '.join(missing)}" if said and missing else "") + ".")
    return lines


def kept_against(fileobj, verified, notes, ring):
    """Each checkpoint the regulator kept, before the export or after it, against the bundle's checkpoint of its
    log, as the offline verifier compares them (``tlog.compare_kept``): here the service computes the consistency
    proof between the two from its own log. A ``tlog.Result``; a bundle file that did not verify is not read (its
    problem is already said)."""
    from cardroom import merkle, tlog, transparency

    result = tlog.Result()
    for note in notes:
        try:
            origin, size, root, _ = ring.checkpoint(note)
        except checkpoint.CheckpointError as error:
            result.fails(f"Your kept checkpoint cannot be used: {error}")
            continue
        chain = tlog.chain_of(origin)
        name = f"{checkpoint_stem(chain)}.txt"
        # A bundle of bundles: against its last inner bundle, the newest (as the offline verifier does).
        inner = [e["name"] for e in (verified.manifest or {}).get("bundles", []) if e.get("name") in verified.inner]
        holder = verified.inner[inner[-1]] if inner else verified
        text = holder.checkpoints.get(chain)
        if text is None:
            if name not in holder.files:
                result.fails(f"Your kept checkpoint is of the log {origin}, which this bundle does not cover: it "
                             "cannot be checked against it.")
            continue  # a checkpoint file that did not verify: said already
        try:
            bundled = ring.checkpoint(text)[:3]
        except checkpoint.CheckpointError as error:
            result.fails(f"{name}: {error}")
            continue
        small, large = sorted((bundled[1], size))
        leaves = transparency.tree_leaves(chain, large)
        if len(leaves) < large:
            result.fails(f"{chain}: the log here has {len(leaves)} entries, fewer than the {large} of your "
                         "checkpoint or the bundle's: entries were removed, the two cannot be compared here.")
            continue
        hashes = merkle.consistency_proof(leaves, small) if 0 < small < large else []
        tlog.compare_kept(result, chain, bundled, (origin, size, root), hashes)
    fileobj.seek(0)
    return result


def verify_upload(upload, public_key=None):
    """Check an uploaded bundle here and now (a Django ``UploadedFile``) and close it. The API and the page check
    in the background instead (``start``)."""
    try:
        upload.seek(0)
        return check(upload.file, public_key)
    finally:
        upload.close()


def check_job(job, on_progress=None):
    """The check a bundle_verify job asked for, on the file it keeps."""
    pem = job.params.get("public_key")
    with job.file.open("rb") as fileobj:
        return check(fileobj, bundle.load_public_key(pem) if pem else None, on_progress, job.params.get("kept") or ())
