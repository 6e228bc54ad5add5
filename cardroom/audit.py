"""The one way to write to the audit log, and the check that nobody has changed it since.

Entries are hash-chained (``cardroom.chain``): one chain per establishment and one for the installation
(entries with no establishment). ``log_action`` appends to the entry's chain under a lock on the chain's
head; ``verify_chains`` walks the chains whole (the hourly beat, ``verify_audit_log``) and
``verify_new_entries`` only the entries written since the last verified one (the audit log page); ``chain_head``
says where a chain ends, for anything (an audit export) that needs to record which part of the log it covers.
"""

import json
from dataclasses import dataclass, replace

from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone

from . import bulk
from . import chain as hashchain
from .models import AuditChainHead, AuditChainVerified, AuditLogEntry, Establishment


def chain_name(establishment):
    """The name of the chain an establishment's entries go to (``None``: the installation's chain)."""
    return hashchain.chain_name(establishment.pk if establishment is not None else None)


def chain_head(establishment):
    """``(sequence, entry_hash)`` of the last entry of the establishment's chain (``None``: the installation's),
    as recorded when it was appended; ``(0, GENESIS)`` for a chain with no entries yet."""
    head = AuditChainHead.objects.filter(chain=chain_name(establishment)).values_list("sequence", "entry_hash").first()
    return tuple(head) if head else (0, hashchain.GENESIS)


def chain_entries(establishment):
    """The entries of the establishment's chain (``None``: the installation's) in chain order."""
    return AuditLogEntry.objects.filter(chain=chain_name(establishment)).order_by("sequence", "id")


def _entry(action, *, actor=None, actor_label="", obj=None, establishment=None, jurisdiction=None, data=None):
    """An entry not yet chained: what log_action and log_actions append."""
    if actor is not None and not getattr(actor, "is_authenticated", False):
        actor = None
    label = actor_label or (actor.get_username() if actor else "system")
    return AuditLogEntry(
        action=action,
        actor=actor,
        actor_label=label,
        object_type=obj._meta.label if obj is not None else "",
        object_id=str(obj.pk) if obj is not None else "",
        object_repr=str(obj)[:300] if obj is not None else "",
        establishment=establishment,
        jurisdiction=jurisdiction,
        # What is stored is what is hashed: dates, decimals and UUIDs become the strings the database keeps.
        data=json.loads(json.dumps(data or {}, cls=DjangoJSONEncoder)),
        chain=chain_name(establishment),
    )


def _locked_head(chain):
    # One writer per chain at a time: the head row stays locked until the surrounding transaction ends.
    # A chain's first entry creates its head; two first writers race on its unique chain, and the loser
    # waits for the winner's commit and then reads (and locks) the head it made.
    head, _ = AuditChainHead.objects.select_for_update().get_or_create(
        chain=chain, defaults={"sequence": 0, "entry_hash": hashchain.GENESIS}
    )
    return head


def _chain_onto(head, entry, moment):
    entry.sequence = head.sequence + 1
    entry.prev_hash = head.entry_hash
    entry.created_at = moment
    entry.entry_hash = hashchain.entry_hash(_fields(entry))
    head.sequence, head.entry_hash = entry.sequence, entry.entry_hash


def log_action(action, **details):
    """Append one entry to its chain (``details``: actor, actor_label, obj, establishment, jurisdiction, data)."""
    entry = _entry(action, **details)
    # No savepoint inside a caller's transaction: an entry that cannot be written fails the caller's action.
    with transaction.atomic(savepoint=False):
        head = _locked_head(entry.chain)
        _chain_onto(head, entry, timezone.now())
        entry.save(force_insert=True)
        head.save(update_fields=["sequence", "entry_hash", "updated_at"])
    return entry


def log_actions(actions):
    """Append many entries at once: ``actions`` is a list of (action, details) as log_action takes them. Each chain
    is locked once and its entries inserted in one statement: the same entries, positions and hashes as one
    log_action call each, in the order given, at a fraction of the cost (a year's reconciliations log 18,000)."""
    entries = [_entry(action, **details) for action, details in actions]
    by_chain = {}
    for entry in entries:
        by_chain.setdefault(entry.chain, []).append(entry)
    moment = timezone.now()
    with transaction.atomic(savepoint=False):
        for chain in sorted(by_chain):  # always in the same order: two batches never wait on each other
            head = _locked_head(chain)
            for entry in by_chain[chain]:
                _chain_onto(head, entry, moment)
            # The model's queryset refuses bulk_create so that nothing writes around the chain; this is the chain.
            bulk.insert(AuditLogEntry, by_chain[chain], batch_size=2000)
            head.save(update_fields=["sequence", "entry_hash", "updated_at"])
    return entries


def _fields(entry):
    return {name: getattr(entry, name) for name in hashchain.FIELDS}


@dataclass(frozen=True)
class ChainReport:
    """The outcome of walking one chain."""

    chain: str
    establishment: Establishment | None
    entries: int  # entries walked (up to the first break)
    sequence: int  # position of the last good entry
    head_hash: str  # hash of the last good entry
    recorded_head: tuple | None  # (sequence, entry_hash) from AuditChainHead, None when there is none
    broken: hashchain.Break | None
    # A walk of the new entries only (verify_new_entries): the position it took up from, when the entries up to it
    # were verified, and when the whole chain was last walked (None: a whole walk, or never).
    walked_after: int = 0
    verified_at: object = None
    walked_at: object = None

    @property
    def ok(self):
        return self.broken is None

    @property
    def label(self):
        return f"{self.chain} ({self.establishment.name})" if self.establishment is not None else self.chain

    def describe(self):
        if self.broken is not None:
            return f"BROKEN {self.broken.describe(self.label)}"
        return f"OK {self.label}: {self.entries} entries, head {self.head_hash}"


def verify_chains(establishment=None):
    """Walk the audit log's chains and say, per chain, whether it is intact and where it first breaks.

    With an establishment, only its chain; without, every chain that has entries or a recorded head
    (the installation's first, then by establishment). Streams the entries: memory does not grow with the log.
    """
    if establishment is not None:
        names = [chain_name(establishment)]
        places = {establishment.pk: establishment}
    else:
        names = set(AuditChainHead.objects.values_list("chain", flat=True))
        names |= set(AuditLogEntry.objects.order_by().values_list("chain", flat=True).distinct())
        names = sorted(names, key=_chain_order)
        places = Establishment.objects.in_bulk([_establishment_id(name) for name in names if _establishment_id(name)])
    reports = [_verify_chain(name, places.get(_establishment_id(name))) for name in names]
    for report in reports:
        _record_verified(report)
    return reports


def verify_new_entries(establishment):
    """The establishment's chain checked from its last verified entry on (``AuditChainVerified``): only the entries
    written since are read and hashed, so a look at the log does not grow with it. An entry changed before that
    point is not seen here but by the whole walk (``verify_chains``, hourly), which then sets the verified point
    back to the last good entry, so the next look names the break. Returns a ``ChainReport`` whose ``entries``
    are the entries walked after ``walked_after``."""
    name = chain_name(establishment)
    point = AuditChainVerified.objects.filter(chain=name).first()
    read = (point.sequence, point.entry_hash) if point else (0, hashchain.GENESIS)
    start = read
    if read[0] and not AuditLogEntry.objects.filter(chain=name, sequence=read[0], entry_hash=read[1]).exists():
        start = (0, hashchain.GENESIS)  # the entry verified through is no longer as verified: walk it all again
    report = _verify_chain(name, establishment, start)
    _record_verified(report, read)
    if not start[0]:
        return report
    return replace(report, walked_after=start[0], verified_at=point.verified_at, walked_at=point.walked_at)


def _establishment_id(name):
    prefix, _, rest = name.partition(":")
    return int(rest) if prefix == "establishment" and rest.isdigit() else None


def _chain_order(name):
    if name == hashchain.INSTALLATION:
        return (0, 0, name)
    number = _establishment_id(name)
    return (1, number, name) if number is not None else (2, 0, name)


def _rows(name, after=0):
    return (AuditLogEntry.objects.filter(chain=name, sequence__gt=after).order_by("sequence", "id")
            .values("id", "entry_hash", *hashchain.FIELDS).iterator(chunk_size=2000))


def _verify_chain(name, establishment, start=(0, hashchain.GENESIS)):
    recorded = AuditChainHead.objects.filter(chain=name).values_list("sequence", "entry_hash").first()
    recorded = tuple(recorded) if recorded else None
    walked = hashchain.walk(_rows(name, start[0]), recorded, start)
    broken = walked.broken
    if broken is None and recorded is None and (walked.entries or start[0]):
        broken = hashchain.Break(hashchain.HEAD, walked.sequence, None, "the chain has entries but no recorded head")
    if broken is not None and broken.kind == hashchain.CONTENT:
        broken = _moved(name, broken, recorded)
    return ChainReport(name, establishment, walked.entries, walked.sequence, walked.head_hash, recorded, broken)


def _record_verified(report, read=None):
    """Keep how far the chain is known intact. A whole walk (``read`` None) moves the point to where it ended,
    back to the last good entry when it found a break. A look (``read``: the point as it read it) moves it on when
    it verified something new, unless the point moved meanwhile (a whole walk's break stands)."""
    now = timezone.now()
    point = {"sequence": report.sequence, "entry_hash": report.head_hash, "verified_at": now}
    rows = AuditChainVerified.objects.filter(chain=report.chain)
    if read is None:
        point["walked_at"] = now
        if report.ok:
            rows = rows.filter(sequence__lte=report.sequence)  # a look may have gone further meanwhile
    elif report.ok and (report.sequence, report.head_hash) != read:
        rows = rows.filter(sequence=read[0], entry_hash=read[1])
    else:
        return  # nothing new verified
    try:
        with transaction.atomic():
            if not rows.update(**point) and not AuditChainVerified.objects.filter(chain=report.chain).exists():
                AuditChainVerified.objects.create(chain=report.chain, **point)
    except IntegrityError:  # another look recorded the chain's first point at the same moment: theirs stands
        pass


def _moved(name, broken, recorded):
    """A content break may be an intact entry at the wrong position (two entries swapped, say): look for the
    position its hash was made for, from its neighbours as they were when it was written."""
    entry = broken.entry
    chain = AuditLogEntry.objects.filter(chain=name)
    candidates = []
    follower = chain.filter(prev_hash=entry["entry_hash"]).values_list("sequence", flat=True).first()
    if follower is not None:
        candidates.append(follower - 1)
    predecessor = chain.filter(entry_hash=entry["prev_hash"]).values_list("sequence", flat=True).first()
    if predecessor is not None:
        candidates.append(predecessor + 1)
    if entry["prev_hash"] == hashchain.GENESIS:
        candidates.append(1)
    if recorded is not None and recorded[1] == entry["entry_hash"]:
        candidates.append(recorded[0])
    original = hashchain.recorded_position(entry, candidates)
    if original is None:
        return broken
    return hashchain.Break(
        hashchain.POSITION, broken.position, broken.entry_id,
        f"the entry was written at position {original} and moved here; its content is otherwise intact",
        entry,
    )
