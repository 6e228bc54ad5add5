"""The audit log's hash chain: canonical bytes of an entry, its hash, and the walk that verifies a chain.

Plain Python, no Django: the models, the service (``cardroom.audit``), the command and the migration that
backfilled existing entries all hash through this module, so there is exactly one definition of what an
entry's hash covers. **Changing anything here changes every hash**: entries already written would no longer
verify. Keep it backward compatible (a new canonical form would need a version number in the entries).

An entry is a mapping with (at least) the keys in ``FIELDS``; ``verify`` also reads ``id`` (to name the
entry in a report) and ``entry_hash`` (the hash stored beside it). One chain per establishment
(``establishment:<id>``) plus one for entries with no establishment (``installation``); each entry names
its chain, its 1-based position in it (``sequence``) and the hash of the entry before it (``prev_hash``,
``GENESIS`` for the first).
"""

import datetime
import hashlib
import json
from dataclasses import dataclass

GENESIS = "0" * 64
INSTALLATION = "installation"

# What an entry's hash covers, in the names of the database columns (``values()`` rows work as they are).
FIELDS = (
    "chain",
    "sequence",
    "created_at",
    "actor_id",
    "actor_label",
    "action",
    "object_type",
    "object_id",
    "object_repr",
    "establishment_id",
    "jurisdiction_id",
    "data",
    "prev_hash",
)

# Kinds of break, as ``Break.kind``.
CONTENT = "content altered"
LINK = "previous-hash link broken"
POSITION = "position missing or out of order"
HEAD = "chain does not end at the recorded head"


def chain_name(establishment_id):
    """The chain an entry belongs to: its establishment's, or the installation's when it has none."""
    return INSTALLATION if establishment_id is None else f"establishment:{establishment_id}"


def timestamp(value):
    """``created_at`` as hashed: ISO-8601 in UTC with microseconds, e.g. 2026-01-02T03:04:05.000006+00:00."""
    if not isinstance(value, datetime.datetime) or value.tzinfo is None:
        raise ValueError(f"created_at must be a timezone-aware datetime, not {value!r}")
    return value.astimezone(datetime.UTC).isoformat(timespec="microseconds")


def _normalised(value):
    # A float with an integral value is written as an integer: PostgreSQL's jsonb keeps numbers as numeric
    # and gives 1e+16 back as 10000000000000000, which Python then reads as an int. Non-integral floats
    # round-trip exactly (shortest repr both ways).
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _normalised(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normalised(item) for item in value]
    return value


def canonical(entry):
    """The bytes an entry's hash covers: sorted-key, compact JSON (UTF-8) of the fields in ``FIELDS``."""
    fields = {name: entry[name] for name in FIELDS}
    fields["created_at"] = timestamp(fields["created_at"])
    fields["data"] = _normalised(fields["data"])
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def entry_hash(entry):
    """Hex SHA-256 of the entry's canonical bytes (which include ``prev_hash``: the link to the one before)."""
    return hashlib.sha256(canonical(entry)).hexdigest()


@dataclass(frozen=True)
class Break:
    """Where a chain first goes wrong."""

    kind: str  # CONTENT, LINK, POSITION or HEAD
    position: int  # the position where the walk found the problem
    entry_id: object = None  # the database id of the entry at fault (None when an entry is missing at the end)
    detail: str = ""
    entry: dict | None = None  # the entry as read (for a closer diagnosis), when there is one

    def describe(self, chain=""):
        where = f"chain {chain}: " if chain else ""
        entry = f"entry {self.entry_id} at position {self.position}" if self.entry_id is not None \
            else f"position {self.position}"
        return f"{where}{entry}: {self.kind}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class Walk:
    """What a walk saw: how many entries, where the chain ends, and the first break (None when intact)."""

    entries: int
    sequence: int
    head_hash: str
    broken: Break | None


def walk(entries, head=None, start=(0, GENESIS)):
    """Walk one chain's entries in position order and stop at the first break.

    ``entries`` is any iterable of mappings, read once (stream it from the database); ``head`` is the
    recorded ``(sequence, entry_hash)`` of the chain's last entry, or None to skip that comparison.
    Per entry, in this order: its position follows the previous one (a gap is a missing entry, a repeat or
    step back is an entry out of order), its stored hash matches its content, and its ``prev_hash`` is the
    previous entry's hash. At the end, the last entry must be the recorded head: fewer entries means some
    were removed from the end, more means entries were added behind the application's back. ``start``: the
    ``(sequence, entry_hash)`` of an entry already verified, the entries given being those after it (a walk
    that takes up where an earlier one stopped).
    """
    count, (sequence, previous) = 0, start
    for entry in entries:
        expected = sequence + 1
        position = entry["sequence"]
        if position != expected:
            if position == expected + 1:
                detail = f"position {expected} is missing before it"
            elif position > expected:
                detail = f"positions {expected} to {position - 1} are missing before it"
            else:
                detail = f"expected position {expected}, found {position}: a repeated or out-of-order position"
            return Walk(count, sequence, previous, Break(POSITION, position, entry.get("id"), detail, dict(entry)))
        stored = entry["entry_hash"]
        computed = entry_hash(entry)
        if computed != stored:
            return Walk(count, sequence, previous, Break(
                CONTENT, position, entry.get("id"),
                f"stored hash {stored[:12]}… does not match its content, which hashes to {computed[:12]}…",
                dict(entry)))
        if entry["prev_hash"] != previous:
            return Walk(count, sequence, previous, Break(
                LINK, position, entry.get("id"),
                f"it names {entry['prev_hash'][:12]}… as the previous hash; the previous entry's hash is "
                f"{previous[:12]}…", dict(entry)))
        count, sequence, previous = count + 1, position, stored
    if head is not None:
        head_sequence, head_hash = head
        if sequence < head_sequence:
            return Walk(count, sequence, previous, Break(
                HEAD, sequence + 1, None,
                f"entries missing at the end: the chain ends at position {sequence} but its recorded head is "
                f"position {head_sequence}"))
        if sequence > head_sequence:
            return Walk(count, sequence, previous, Break(
                HEAD, head_sequence + 1, None,
                f"entries beyond the recorded head: the chain runs to position {sequence} but its recorded "
                f"head is position {head_sequence}"))
        if previous != head_hash:
            return Walk(count, sequence, previous, Break(
                HEAD, sequence, None,
                f"the last entry's hash {previous[:12]}… is not the recorded head's {head_hash[:12]}…"))
    return Walk(count, sequence, previous, None)


def verify(entries, head=None):
    """The first break in a chain, or None when it is intact (see ``walk``)."""
    return walk(entries, head).broken


def recorded_position(entry, candidates):
    """Which of ``candidates`` positions the entry's stored hash was computed for, if any: an entry whose
    content is intact but which has been moved shows up as a content break at its new position."""
    for candidate in candidates:
        if candidate != entry["sequence"] and entry_hash({**entry, "sequence": candidate}) == entry["entry_hash"]:
            return candidate
    return None
