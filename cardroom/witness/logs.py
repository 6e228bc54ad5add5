"""The logs a witness trusts: settings.WITNESS_LOGS read and asked. Plain Python (the settings module parses with it).

The environment's format: entries separated by ``;`` or newlines, each a cardroom installation's log named by its
exact base origin (its ``AUDIT_LOG_ORIGIN``) and one or more of the verifier keys that sign it
(``cardroom.checkpoint.verifier_key``: ``<name>+<hex key id>+<base64 of 0x01 and the Ed25519 public key>``),
separated by spaces:

    WITNESS_LOGS="marysville.example.com/audit cardroom+1a2b3c4d+AT...=; evergreen.example.org/audit cardroom+..."

The witness accepts exactly the origins ``<base>/<chain>`` of the bases listed, ``<chain>`` a chain name of that
log (``installation``, ``establishment:<id>``: ``cardroom.tlog.origins``), and nothing else. Never a prefix: the key
that signs a log signs any origin, so a prefix would let the log's owner mint a new log under it
(``<base>/fork2/installation``) and have a history cosigned that this witness never saw of the real one. State is
kept per full origin: tlog-witness identifies a log by its origin line.
"""

from .. import checkpoint
from ..tlog import origins


def parse(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """((base origin, (verifier key, ...)), ...) of ``text``; ValueError naming the bad entry otherwise."""
    entries, seen = [], set()
    for number, entry in enumerate(text.replace("\n", ";").split(";"), start=1):
        fields = entry.split()
        if not fields:
            continue  # an empty entry (a trailing ';'): nothing to trust
        base, vkeys = fields[0], tuple(fields[1:])
        problem = origins.base_problem(base)
        if problem:
            raise ValueError(f"entry {number} ({base!r}) does not name a log: {problem}.")
        if not vkeys:
            raise ValueError(f"entry {number} ({base!r}) names no verifier key: expected '<base origin> "
                             "<name>+<hex key id>+<base64 key> ...'.")
        if base in seen:
            raise ValueError(f"the origin {base!r} is given twice: give all its keys in one entry.")
        seen.add(base)
        for vkey in vkeys:
            try:
                checkpoint.read_verifier_key(vkey)
            except checkpoint.CheckpointError as error:
                raise ValueError(f"entry {number} ({base!r}), key {vkey!r}: {error}") from None
        entries.append((base, vkeys))
    return tuple(entries)


def trusted_keys(origin: str, logs) -> list[tuple[str, object]] | None:
    """[(name, public key), ...] trusted for ``origin`` when it is ``<base>/<chain>`` of a base in ``logs`` and a
    well-formed chain name; None otherwise (tlog-witness: an unknown origin)."""
    parts = origins.split(origin)
    vkeys = dict(logs).get(parts[0]) if parts is not None else None
    if vkeys is None:
        return None
    return [checkpoint.read_verifier_key(vkey) for vkey in vkeys]
