"""Checking the audit log from outside, offline: proofs' text formats and the verifier. Plain Python, no Django.

Whoever holds the installation's public keys (``GET /api/v1/audit/keys``, saved as a file) checks with this module
and ``cryptography`` alone, with no access to the service (docs/audit.md, "Checking the log from outside"):

    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT entry ENTRY.tlog-proof [--entry ROW.json]
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT consistency KEPT-CHECKPOINT.txt PROOF.txt
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT export BUNDLE.zip [--kept CHECKPOINT.txt ...]
        [--proof PROOF.txt ...]
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

The parts: ``cardroom.tlog_proofs`` (the text formats), ``cardroom.tlog_keys`` (the keys file and the keyring) and
``cardroom.tlog_checks`` (the checks); this module is the command line and gathers them under one name.
"""

import argparse
import json
import sys

from .tlog_checks import (
    Result,
    check_checkpoint,
    check_consistency,
    check_entry,
    check_export,
    compare_kept,
    entry_from_row,
    validity_problem,
)
from .tlog_keys import ENDORSEMENT, Key, Keyring, endorsement_statement
from .tlog_proofs import (
    CONSISTENCY,
    INCLUSION,
    ORIGIN_PREFIX,
    RANGE,
    Proof,
    Unreadable,
    _b64,  # noqa: F401 - tests build proofs with them
    _unb64,  # noqa: F401
    consistency_text,
    inclusion_text,
    parse_proof,
    range_text,
)

__all__ = [
    "CONSISTENCY", "INCLUSION", "ORIGIN_PREFIX", "RANGE", "Proof", "Unreadable", "consistency_text", "inclusion_text",
    "parse_proof", "range_text",
    "ENDORSEMENT", "Key", "Keyring", "endorsement_statement",
    "Result", "check_checkpoint", "check_consistency", "check_entry", "check_export", "compare_kept", "entry_from_row",
    "validity_problem",
    "main",
]


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
    entry.add_argument("--entry", help="The entry as you hold it (a JSON object: a row of an export's audit log, "
                                       "its columns as audit_log.csv names them, or a row of a format-1 bundle's "
                                       "audit_log.json); without it, the entry the proof carries.")
    consistency = commands.add_parser("consistency", help="A kept checkpoint against a newer one "
                                                          "(GET /api/v1/audit/consistency).")
    consistency.add_argument("kept")
    consistency.add_argument("proof")
    export = commands.add_parser("export", help="An audit export bundle, and checkpoints you kept against it.")
    export.add_argument("bundle")
    export.add_argument("--kept", action="append", default=[],
                        help="A checkpoint you kept, before the export or after it (repeatable).")
    export.add_argument("--proof", action="append", default=[],
                        help="A consistency proof the verifier asked you to fetch (GET /api/v1/audit/consistency), "
                             "for a checkpoint kept after the export (repeatable).")
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
            result = check_export(keyring, args.bundle, [_text(path) for path in args.kept],
                                  [_text(path) for path in args.proof])
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
