"""Signed checkpoints of the audit chains, and the proofs that let outsiders check them (docs/audit.md).

Each chain is also a Merkle tree over its entries' hashes (``cardroom.merkle``). ``sign`` signs a checkpoint of a
chain (C2SP signed note, ``cardroom.checkpoint``) and stores it; it refuses when the chain no longer holds, unchanged,
the tree of the largest checkpoint already signed, so the service never signs two inconsistent checkpoints. Proofs
(``inclusion``, ``consistency``, ``export_files``) come in the text formats of ``cardroom.tlog``, which checks them
with no Django and no access to the service.

Someone with the database owner's rights can still rewrite a chain and delete the stored checkpoints; then the
service signs again. What it cannot undo is a checkpoint already handed out: whoever kept one catches the rewrite.
"""

import base64
import logging

from django.conf import settings
from django.db import IntegrityError, ProgrammingError, transaction
from django.db.models import Max, Min
from django.utils import timezone

from . import chain as hashchain
from . import bundle, checkpoint, keys, merkle, tlog, witnessing
from .exceptions import StateConflict
from .models import AuditChainHead, AuditCheckpoint, AuditLogEntry, SigningKey

logger = logging.getLogger(__name__)

KEY_NAME = "cardroom"


class ChainRewritten(StateConflict):
    """The chain no longer holds the tree a signed checkpoint covers: it was rewritten after it was handed out."""


class UnknownChain(ValueError):
    pass


def origin(chain):
    return tlog.origins.origin(settings.AUDIT_LOG_ORIGIN, chain)


def origin_problem():
    """Why this installation must not sign under the configured ``AUDIT_LOG_ORIGIN``: its last checkpoint was signed
    under another name. None when it was not (or nothing was signed yet). Regulators keep the log's name with the
    root of trust and witnesses know the log by it, so a checkpoint under a new name would be another log's, which a
    regulator's verifier refuses and its witnesses never saw: changing it on a running installation is a mistake
    (or a fork). Checked at start-up (``project.wsgi``), by ``manage.py check --database default``
    (``cardroom.checks``, bin/migrate) and before every signature."""
    last = AuditCheckpoint.objects.order_by("-id").values_list("chain", "size", "signed_at", "note").first()
    if last is None:
        return None
    chain, size, signed_at, note = last
    named = note.split("\n", 1)[0]
    if named == origin(chain):
        return None
    base = named.removesuffix(f"/{chain}")
    return (f"AUDIT_LOG_ORIGIN is {settings.AUDIT_LOG_ORIGIN!r}, but this installation's checkpoints are signed as "
            f"{base!r} (the last, of {chain} at {size} entries, on {signed_at:%Y-%m-%d %H:%M} UTC): regulators keep "
            "that name with the root of trust and its witnesses know the log by it, so a checkpoint signed under "
            f"another would be another log's. Set AUDIT_LOG_ORIGIN back to {base!r}.")


def root_fingerprint():
    """The root of trust: ``SIGNING_ROOT``, the fingerprint the installation keeps in its configuration, or, unset,
    the configured signing key's own. Never read from the database: whoever can write a row there (the owner, by
    hand) cannot make it the root; a key is trusted only when its endorsements lead back to this one."""
    return settings.SIGNING_ROOT or keys.key_fingerprint()


def current_key():
    """(private key, SigningKey) of the configured key, which must be the recorded key in use and trusted from the
    root (``root_fingerprint``). Keys are recorded by the database owner (``record_key``, ``manage.py
    record_signing_key``); only the root itself, on a database that has not recorded it, is recorded here the first
    time it signs (the embedded default has one role)."""
    private = keys.installation_key()
    fingerprint = _fingerprint(private)
    row = SigningKey.objects.filter(fingerprint=fingerprint).first()
    if row is None and fingerprint == root_fingerprint():
        try:
            row, _ = record_key(private)
        except ProgrammingError:  # permission denied: the service's role reads keys only
            raise StateConflict("No signing key is recorded yet, and this database role may not record one: run "
                                "'manage.py record_signing_key' as the database owner (bin/migrate does).") from None
        except IntegrityError:  # another process recorded it first (no row to lock on an empty table)
            row = None
    if row is None:
        # Looked again: a concurrent first signing may have recorded this very key since the first look.
        row = SigningKey.objects.filter(fingerprint=fingerprint).first()
        if row is None:
            raise StateConflict(
                f"The configured signing key {fingerprint} is not recorded: a new key is recorded, endorsed "
                "by the key in use, with 'manage.py record_signing_key --previous-key-file <that key>' run as the "
                "database owner (docs/audit.md, 'Keys').")
    if row.valid_until is not None:
        raise StateConflict(f"The configured signing key {row.key_id} was replaced on {row.valid_until:%Y-%m-%d}; "
                            "configure the key in use or a new one (docs/audit.md, 'Keys').")
    if trusted_keys().by_fingerprint(fingerprint) is None:
        raise StateConflict(f"The configured signing key {fingerprint} is recorded but not trusted: no chain of "
                            f"endorsements leads to it from the root of trust, {root_fingerprint()} (SIGNING_ROOT). "
                            "Nothing is signed with it (docs/audit.md, 'Keys').")
    return private, row


def _fingerprint(private):
    return bundle.fingerprint(private)


def record_key(private, previous=None):
    """Record ``private``'s public half: the root of trust (``root_fingerprint``) as it is; any other key endorsed
    by ``previous``, the private key of the trusted key in use, which it replaces from now on. Returns (SigningKey,
    created). Run by the database owner; the service's role may not write keys."""
    fingerprint = _fingerprint(private)
    root = root_fingerprint()
    with transaction.atomic():
        recorded = list(SigningKey.objects.select_for_update().order_by("id"))
        row = next((k for k in recorded if k.fingerprint == fingerprint), None)
        if row is not None:
            return row, False
        now = timezone.now()
        fields = {"name": KEY_NAME, "key_id": checkpoint.key_id(KEY_NAME, private.public_key()).hex(),
                  "public_key": bundle.public_key_base64(private), "fingerprint": fingerprint, "valid_from": now}
        if fingerprint == root and not settings.SIGNING_ROOT and (previous is not None or recorded):
            # Unset, the root is the configured key: a second key configured so would be a second root.
            raise StateConflict(
                f"Keys are recorded already ({', '.join(k.fingerprint for k in recorded)}), and SIGNING_ROOT is not "
                f"set, so the configured key {fingerprint} would be a root of its own. A new key keeps the root of "
                "trust: set SIGNING_ROOT to this installation's first key (GET /api/v1/audit/keys names it), then "
                "record the new key with --previous-key-file <the key in use> (docs/audit.md, 'Keys').")
        if fingerprint != root:
            # The key in use is the last of the chain from the root, whatever else a row says.
            in_use = next((k for k in recorded if k.valid_until is None and k.fingerprint ==
                           trusted_keys().keys[-1].fingerprint), None)
            if in_use is None:
                raise StateConflict(f"No recorded key trusted from the root of trust, {root}, is in use, so none can "
                                    "endorse a new one.")
            if previous is None or _fingerprint(previous) != in_use.fingerprint:
                raise StateConflict(f"A new key is endorsed by the key in use, {in_use.fingerprint}: give its "
                                    "private key." if previous is None else
                                    f"The key given is {_fingerprint(previous)}, not the key in use, "
                                    f"{in_use.fingerprint}, which must endorse the new one.")
            statement = tlog.endorsement_statement(KEY_NAME, private.public_key(), now, in_use.fingerprint)
            fields.update(endorsed_by=in_use.fingerprint,
                          endorsement=base64.b64encode(previous.sign(statement)).decode())
            in_use.valid_until = now
            in_use.save(update_fields=["valid_until"])
        row = SigningKey.objects.create(**fields)
    logger.warning("Recorded the signing key %s (%s) from %s on%s.", row.key_id, fingerprint, now.isoformat(),
                   f", endorsed by {row.endorsed_by}" if row.endorsed_by else ": the root of trust")
    return row, True


def trusted_keys():
    """The keys this installation trusts (a ``tlog.Keyring``): the root of trust (``root_fingerprint``, from the
    configuration) and each recorded key endorsed by the one before, valid from its endorsed start until the next
    one's. Every other recorded key is left out (``untrusted``, with why), whatever its id or dates. Its checkpoints
    are those of this installation's log (``AUDIT_LOG_ORIGIN``): a checkpoint of any other origin is refused, however
    well signed. Raises StateConflict when the root is neither recorded nor the configured key."""
    root = root_fingerprint()
    listed = [tlog.Key(k.name, _public(k), k.valid_from, k.valid_until, k.endorsed_by or None,
                       base64.b64decode(k.endorsement) if k.endorsement else None)
              for k in SigningKey.objects.order_by("valid_from", "id")]
    if not any(k.fingerprint == root for k in listed):
        configured = tlog.Key(KEY_NAME, keys.public_key())
        if configured.fingerprint != root:
            raise StateConflict(f"The root of trust {root} (SIGNING_ROOT) is not among the recorded signing keys: "
                                "nothing can be verified against it. Set SIGNING_ROOT to the fingerprint of this "
                                "installation's first key (docs/audit.md, 'Keys').")
        listed.insert(0, configured)  # the root before it signs for the first time (the embedded default)
    return tlog.Keyring(listed, (root,), origin=settings.AUDIT_LOG_ORIGIN).trusted()


def root_problems():
    """What is wrong between the root of trust in the configuration and the keys recorded in the database:
    (errors, warnings), sentences, both empty when nothing is. Checked at start-up (``cardroom.checks``) and by
    ``bin/migrate``. An error stops signing; a warning is a key recorded by hand that verifies nothing."""
    try:
        ring = trusted_keys()
    except StateConflict as error:
        return [str(error)], []
    problems, planted = [], []
    configured = keys.key_fingerprint()
    trusted = ring.by_fingerprint(configured)
    if trusted is None:
        problems.append(f"The configured signing key {configured} is not trusted from the root of trust, "
                        f"{ring.roots[0]}: {ring.untrusted.get(configured, 'it is not recorded')}. Record it "
                        "endorsed by the key in use (manage.py record_signing_key --previous-key-file), or set "
                        "SIGNING_ROOT to this installation's first key.")
    elif trusted.valid_until is not None:
        problems.append(f"The configured signing key {configured} was replaced on {trusted.valid_until:%Y-%m-%d}: "
                        "configure the key in use.")
    for fingerprint, why in sorted(ring.untrusted.items()):
        planted.append(f"The signing key {fingerprint} is recorded but not trusted ({why}): a key written into "
                        "the database by hand verifies nothing; find out who recorded it.")
    return problems, planted


def keys_file():
    """The keys file (``GET /api/v1/audit/keys``, what ``cardroom.tlog`` reads): the root of trust, the log's origin
    (both for the regulator to keep: ``--trust``, ``--origin``) and every trusted key, the rotated ones too, with its
    validity and endorsement."""
    if not SigningKey.objects.filter(fingerprint=root_fingerprint()).exists():
        current_key()  # the embedded default records its first key, the root
    ring = trusted_keys()
    return {"root": ring.roots[0], "origin": settings.AUDIT_LOG_ORIGIN, "keys": [{
        "name": k.name, "key_id": k.id, "algorithm": "Ed25519",
        "public_key": bundle.public_key_base64(k.public_key),
        "verifier_key": checkpoint.verifier_key(k.name, k.public_key), "fingerprint": k.fingerprint,
        "valid_from": k.valid_from.isoformat(), "valid_until": k.valid_until.isoformat() if k.valid_until else None,
        "endorsement": ({"by": k.endorsed_by, "signature": base64.b64encode(k.endorsement).decode()}
                        if k.endorsement else None),
    } for k in ring.keys]}


def keyring():
    """Every trusted key, for ``GET /api/v1/audit/keys`` and ``cardroom.tlog``."""
    return keys_file()["keys"]


def _public(key):
    return bundle.load_public_key(key.public_key)


def tree_leaves(chain, size):
    """The first ``size`` entries of ``chain`` as Merkle leaves (their entry hashes), as the database holds them."""
    return [bytes.fromhex(h) for h in AuditLogEntry.objects.filter(chain=chain, sequence__lte=size)
            .order_by("sequence").values_list("entry_hash", flat=True).iterator(chunk_size=5000)]


def latest(chain):
    return AuditCheckpoint.objects.filter(chain=chain).order_by("-size", "-signed_at").first()


def disagreement(chain, leaves):
    """What is wrong when the chain's leaves no longer hold the largest checkpoint signed; None when they do."""
    last = latest(chain)
    if last is None:
        return None
    if len(leaves) < last.size:
        return (f"the chain {chain} has {len(leaves)} entries; a checkpoint of {last.size} was signed on "
                f"{last.signed_at:%Y-%m-%d %H:%M} UTC: entries were removed after it.")
    if merkle.root(leaves[:last.size]).hex() != last.root_hash:
        return (f"the first {last.size} entries of the chain {chain} are not those of the checkpoint signed on "
                f"{last.signed_at:%Y-%m-%d %H:%M} UTC: the chain was rewritten after it.")
    return None


def sign(chain, *, size=None, purpose=AuditCheckpoint.Purpose.REQUEST):
    """The stored, signed checkpoint of ``chain``'s first ``size`` entries (its head when None). Raises
    ChainRewritten when the chain disagrees with a checkpoint already signed (and says so in the log), and
    StateConflict when the configured origin is not the one the last checkpoint was signed under."""
    private, key = current_key()
    renamed = origin_problem()
    if renamed:
        raise StateConflict(f"Refused to sign a checkpoint: {renamed}")
    with transaction.atomic():
        # The head stays locked while the tree is read: the chain cannot grow under the check.
        head = AuditChainHead.objects.select_for_update().filter(chain=chain).first()
        if head is None:
            raise UnknownChain(f"There is no audit chain {chain!r}.")
        size = head.sequence if size is None else size
        if not 0 <= size <= head.sequence:
            raise UnknownChain(f"The chain {chain} has {head.sequence} entries, not {size}.")
        leaves = tree_leaves(chain, head.sequence)
        problem = disagreement(chain, leaves)
        if problem is None:
            root = merkle.root(leaves[:size]).hex()
            stored = AuditCheckpoint.objects.filter(chain=chain, size=size, signing_key=key, purpose=purpose).first()
            if stored is not None:
                return stored
            note = checkpoint.sign(origin(chain), size, bytes.fromhex(root), key.name, private)
            return AuditCheckpoint.objects.create(chain=chain, size=size, root_hash=root, note=note, signing_key=key,
                                                  purpose=purpose, signed_at=timezone.now())
    _alarm(chain, problem)
    raise ChainRewritten(f"Refused to sign a checkpoint: {problem}")


def _alarm(chain, problem):
    from .audit import log_action

    logger.error("Audit chain %s disagrees with its signed checkpoints: %s", chain, problem)
    log_action("audit.checkpoint_refused", actor_label="checkpoints", data={"chain": chain, "problem": problem})


def sign_moved_chains():
    """The beat: a checkpoint of every chain that grew since its last one, and a check that every other chain
    with checkpoints still agrees with them. Returns (signed, refused) chains."""
    signed, refused = [], []
    last = dict(AuditCheckpoint.objects.values_list("chain").annotate(size=Max("size")))
    for chain, sequence in AuditChainHead.objects.order_by("chain").values_list("chain", "sequence"):
        try:
            if sequence and sequence > last.get(chain, 0):
                sign(chain, purpose=AuditCheckpoint.Purpose.SCHEDULE)
                signed.append(chain)
            elif chain in last:
                problem = disagreement(chain, tree_leaves(chain, sequence))
                if problem is not None:
                    _alarm(chain, problem)
                    raise ChainRewritten(problem)
        except ChainRewritten:
            refused.append(chain)
    return signed, refused


def inclusion(chain, sequence, size=None):
    """The C2SP tlog-proof of entry ``sequence`` of ``chain`` under a checkpoint of ``size`` (the head)."""
    entry = AuditLogEntry.objects.filter(chain=chain, sequence=sequence).values(*hashchain.FIELDS).first()
    if entry is None:
        raise UnknownChain(f"The chain {chain} has no entry at position {sequence}.")
    signed = sign(chain, size=size)
    if sequence > signed.size:
        raise UnknownChain(f"Entry {sequence} is not among the {signed.size} entries of that checkpoint.")
    path = merkle.inclusion_proof(tree_leaves(chain, signed.size), sequence - 1)
    return tlog.inclusion_text(sequence - 1, path, signed.note, hashchain.canonical(entry))


def consistency(chain, old_size, new_size=None):
    """The proof that the chain's tree of ``new_size`` (the head) holds the one of ``old_size`` unchanged."""
    signed = sign(chain, size=new_size)
    if not 0 < old_size <= signed.size:
        raise UnknownChain(f"A consistency proof runs from 1 to {signed.size} entries here, not from {old_size}.")
    proof = merkle.consistency_proof(tree_leaves(chain, signed.size), old_size)
    return tlog.consistency_text(old_size, proof, signed.note)


def export_files(chain_heads, start_moment, end_moment):
    """The files an audit export carries per chain it covers (docs/exports.md): the checkpoint of the chain as the
    export covers it, the range proof of the period's entries, and a consistency proof from every checkpoint handed
    out before (by an earlier export or the API), each note with the witnesses' cosignatures of it appended
    (``cardroom.witnessing``: submitted first). ``chain_heads``: chain -> (sequence, entry_hash) as frozen by the
    export."""
    files, down = {}, set()
    for chain, (size, _) in sorted(chain_heads.items()):
        if not size:
            continue
        signed = sign(chain, size=size, purpose=AuditCheckpoint.Purpose.EXPORT)
        leaves = tree_leaves(chain, size)
        # Submitted before the files are written, so they carry its cosignatures; a witness down or refusing does
        # not stop the export (the file goes without its cosignature; the inbox says why: cardroom.witnessing).
        witnessing.witness(signed, leaves, down=down)
        note = witnessing.cosigned(signed)
        period = AuditLogEntry.objects.filter(chain=chain, sequence__lte=size, created_at__gte=start_moment,
                                              created_at__lt=end_moment).aggregate(first=Min("sequence"),
                                                                                   last=Max("sequence"))
        start, end = (period["first"] - 1, period["last"]) if period["first"] else (size, size)
        stem = f"checkpoints/{chain.replace(':', '-')}"
        files[f"{stem}.txt"] = note
        files[f"{stem}.range.txt"] = tlog.range_text(start, end, merkle.range_proof(leaves, start, end), note)
        # From every size handed out (exports, the API); the hourly ones stay in the service.
        earlier = (AuditCheckpoint.objects.filter(chain=chain, size__lt=size, size__gt=0)
                   .exclude(purpose=AuditCheckpoint.Purpose.SCHEDULE).values_list("size", flat=True).distinct())
        for old in sorted(set(earlier)):
            files[f"{stem}.from-{old}.txt"] = tlog.consistency_text(
                old, merkle.consistency_proof(leaves, old), note)
    return files


def witness_pending():
    """The beat's submissions, after signing: each chain's newest checkpoint to the witnesses that have not
    cosigned it (``cardroom.witnessing``). {chain: [Outcome]}."""
    done, down = {}, set()
    for signed in witnessing.pending():
        done[signed.chain] = witnessing.witness(signed, tree_leaves(signed.chain, signed.size), down=down)
    return done


def status(chain):
    """What a page shows of a chain's checkpoints: the latest signed, how many, and whether the chain as it now
    stands still agrees with them (the problem when it does not)."""
    head = AuditChainHead.objects.filter(chain=chain).values_list("sequence", flat=True).first() or 0
    stored = AuditCheckpoint.objects.filter(chain=chain)
    return {"latest": latest(chain), "count": stored.count(),
            "problem": disagreement(chain, tree_leaves(chain, head)) if stored.exists() else None}


def holds(note):
    """Whether the chain in the database still has, as its first entries, the tree a checkpoint signed (by any key
    the installation trusts)."""
    ring = trusted_keys()
    chain_origin, size, root, _ = ring.checkpoint(note)
    leaves = tree_leaves(tlog.chain_of(chain_origin), size)
    return len(leaves) == size and merkle.root(leaves) == root
