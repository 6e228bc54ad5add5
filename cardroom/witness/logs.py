"""The logs a witness trusts: settings.WITNESS_LOGS read and asked. Plain Python (the settings module parses with it).

The environment's format: entries separated by ``;`` or newlines, each an origin prefix and one or more of the log's
verifier keys (``cardroom.checkpoint.verifier_key``: ``<name>+<hex key id>+<base64 of 0x01 and the Ed25519 public
key>``), separated by spaces:

    WITNESS_LOGS="cardroom/audit/ cardroom+1a2b3c4d+AT...=; example.org/log example.org/log+5e6f7a8b+AX...="

A checkpoint's origin is trusted with the keys of the longest prefix it starts with ("cardroom/audit/" covers every
chain of one cardroom installation, "cardroom/audit/installation" only that one). State is kept per full origin,
never per prefix: tlog-witness identifies a log by its origin line.
"""

from .. import checkpoint


def parse(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """((prefix, (verifier key, ...)), ...) of ``text``; ValueError naming the bad entry otherwise."""
    entries, seen = [], set()
    for number, entry in enumerate(text.replace("\n", ";").split(";"), start=1):
        fields = entry.split()
        if not fields:
            continue  # an empty entry (a trailing ';'): nothing to trust
        prefix, vkeys = fields[0], tuple(fields[1:])
        if not vkeys:
            raise ValueError(f"entry {number} ({prefix!r}) names no verifier key: expected '<origin prefix> "
                             "<name>+<hex key id>+<base64 key> ...'.")
        if prefix in seen:
            raise ValueError(f"the origin prefix {prefix!r} is given twice: give all its keys in one entry.")
        seen.add(prefix)
        for vkey in vkeys:
            try:
                checkpoint.read_verifier_key(vkey)
            except checkpoint.CheckpointError as error:
                raise ValueError(f"entry {number} ({prefix!r}), key {vkey!r}: {error}") from None
        entries.append((prefix, vkeys))
    return tuple(entries)


def trusted_keys(origin: str, logs) -> list[tuple[str, object]] | None:
    """[(name, public key), ...] trusted for ``origin`` (the longest prefix of ``logs`` it starts with); None when
    no entry covers it (tlog-witness: an unknown origin)."""
    matching = [(prefix, vkeys) for prefix, vkeys in logs if origin.startswith(prefix)]
    if not matching:
        return None
    _, vkeys = max(matching, key=lambda entry: len(entry[0]))
    return [checkpoint.read_verifier_key(vkey) for vkey in vkeys]
