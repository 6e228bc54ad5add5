"""Checking the audit log from outside, offline: proofs' text formats and the verifier. Plain Python, no Django.

Whoever holds the installation's public keys (``GET /api/v1/audit/keys``, saved as a file) checks with this module
and ``cryptography`` alone, with no access to the service (docs/audit.md, "Checking the log from outside"):

    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT entry ENTRY.tlog-proof [--entry ROW.json]
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT consistency KEPT-CHECKPOINT.txt PROOF.txt
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT export BUNDLE.zip [--kept CHECKPOINT.txt ...]
        [--proof PROOF.txt ...]
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT checkpoint CHECKPOINT.txt

With ``--witness <name> <verifier key>`` (repeatable) and ``--quorum N`` (default: all the witnesses named), the
checkpoints checked must also carry good cosignatures of at least N of those witnesses (``cardroom.tlog.witnessed``):
each chain's checkpoint of an export bundle, the newer checkpoint of a consistency proof, the checkpoint given.

Only keys that lead back to the root of trust (``--trust``: the first key's fingerprint, kept when the installation
was set up) are trusted: each later key carries the key before it's signature over ``endorsement_statement``, and
is valid from its endorsed ``valid_from`` until the next key's. The keys file's own ``root`` proves nothing (whoever
altered a bundle can write a keys file naming their own key): without ``--trust`` the verifier checks what it can
against it but never says HOLDS.

Each prints what it checked, one line per finding (names and texts from the inputs with their control and format
characters escaped: ``cardroom.bundle.verification.shown``), then its verdict, and exits with it (``EXIT``): 0 HOLDS, 1
DOES NOT HOLD, 2 UNREADABLE (an input cannot be read), 3 NOT CHECKED (everything held, but against the keys file's
own root: no ``--trust`` given). The formats:

- an inclusion proof is C2SP ``tlog-proof@v1``: the first line ``c2sp.org/tlog-proof@v1``, then ``extra <base64>``
  (here: the entry's canonical bytes, ``cardroom.chain.canonical``, from which its hash is recomputed), ``index <n>``
  (0-based: the entry at position n + 1 of its chain), the audit path one base64 hash a line, a blank line and the
  checkpoint the path leads to;
- a consistency proof has the same shape: ``cardroom/tlog-consistency@v1``, ``old <size>``, the proof's hashes
  (RFC 9162 §2.1.4), a blank line and the newer checkpoint;
- an export of a period with closed months is a bundle of bundles (``cardroom-audit-bundle/3``,
  ``cardroom.bundle.nesting``): ``export`` checks it and its links, then each inner bundle as an export of its own,
  each line named by the inner bundle or the link concerned;
- an export's range proof (``checkpoints/<chain>.range.txt``): ``cardroom/tlog-range@v1``, ``start <index>``,
  ``end <index>``, the heads of the subtrees outside the run (``cardroom.merkle.range_proof``), a blank line and
  the checkpoint: with the export's audit rows of positions start + 1 to end, it gives back the checkpoint's root.

The parts: ``cardroom.tlog.proofs`` (the text formats), ``cardroom.tlog.keys`` (the keys file and the keyring) and
``cardroom.tlog.checks`` (the checks); this module is the command line (``__main__.py`` runs it for ``python -m
cardroom.tlog``) and gathers them under one name.
"""

import argparse
import json
import sys

from ..bundle.verification import shown
from . import witnessed
from .checks import (
    Result,
    check_checkpoint,
    check_consistency,
    check_entry,
    check_export,
    compare_kept,
    entry_from_row,
    validity_problem,
)
from .keys import ENDORSEMENT, Key, Keyring, endorsement_statement
from .proofs import (
    CONSISTENCY,
    INCLUSION,
    ORIGIN_PREFIX,
    chain_of,
    RANGE,
    Proof,
    Unreadable,
    b64,  # noqa: F401 - tests build proofs with them
    unb64,  # noqa: F401
    consistency_text,
    inclusion_text,
    parse_proof,
    range_text,
)

__all__ = [
    "CONSISTENCY", "INCLUSION", "ORIGIN_PREFIX", "RANGE", "Proof", "Unreadable", "chain_of", "consistency_text", "inclusion_text",
    "parse_proof", "range_text",
    "ENDORSEMENT", "Key", "Keyring", "endorsement_statement",
    "Result", "check_checkpoint", "check_consistency", "check_entry", "check_export", "compare_kept", "entry_from_row",
    "validity_problem",
    "EXIT", "main",
]


# -- the command -----------------------------------------------------------------------------------------------------

# The verdicts and their exit codes.
EXIT = {"HOLDS": 0, "DOES NOT HOLD": 1, "UNREADABLE": 2, "NOT CHECKED": 3}
NOT_CHECKED = "NOT CHECKED: no root of trust given (--trust SHA256:...)"

_HELP = """exit codes:
  0  HOLDS          everything checked holds, under the root of trust given (--trust)
  1  DOES NOT HOLD  something checked does not hold (each FAIL line says what)
  2  UNREADABLE     an input cannot be read (the line says which, and why)
  3  NOT CHECKED    no --trust given: nothing failed against the keys file's own root, but that file could have
                    been written by whoever made the bundle; run again with --trust and the fingerprint you kept

Keep the installation's root fingerprint (SHA256:...) when you first receive its keys file, from a channel you
trust, and give it with --trust every time: a fingerprint read from the keys file or a bundle vouches for nothing."""


def _text(path, what):
    """The text of an input file; ``what`` it is names it when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise Unreadable(f"cannot read {what} {path}: {error.strerror or error}.") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Unreadable(f"{what} {path} is not UTF-8 text (its byte 0x{data[error.start]:02x} at position "
                         f"{error.start:,} cannot be read as UTF-8): is it the right file?") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # line ends as a file opened as text reads them


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m cardroom.tlog", description=(
        "Check cardroom's audit log offline against the installation's public keys (GET /api/v1/audit/keys)."),
        epilog=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", required=True, action="append",
                        help="The keys file (the JSON of GET /api/v1/audit/keys, or verifier keys one a line).")
    parser.add_argument("--trust", action="append", default=[], metavar="SHA256:...",
                        help="The fingerprint of the installation's first key (the keys file's 'root'), as you kept "
                             "it (repeatable): only keys it endorsed, one after another, are trusted. Without it "
                             "nothing is said to hold (exit 3, NOT CHECKED).")
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
    parser.add_argument("--witness", nargs=2, action="append", default=[], metavar=("NAME", "VERIFIER_KEY"),
                        help="A witness whose cosignature the checkpoints must carry (repeatable): its name and "
                             "verifier key (name+hex id+base64 of 0x04 and its Ed25519 key), as its operator "
                             "publishes them.")
    parser.add_argument("--quorum", type=int, metavar="N",
                        help="How many of the witnesses named must have cosigned each checkpoint (default: all).")
    args = parser.parse_args(argv)
    try:
        witnesses = [witnessed.witness(name, key) for name, key in args.witness]
        quorum = witnessed.quorum_of(witnesses, args.quorum)
        files = [Keyring.parse(_text(path, "the keys file")) for path in args.keys]
        given = Keyring([k for ring in files for k in ring.keys], tuple(r for ring in files for r in ring.roots))
        keyring = given.trusted(args.trust)
        if not args.trust:
            _say(f"NOTE no root of trust given (--trust): checked against the keys file's own root, "
                 f"{', '.join(keyring.roots)}, which vouches for nothing by itself.")
        for fingerprint, why in keyring.untrusted.items():
            _say(f"NOTE the keys file lists {fingerprint}, which is not trusted: {why}.")
        if args.command == "entry":
            row = json.loads(_text(args.entry, "the entry")) if args.entry else None
            if row is not None and not isinstance(row, dict):
                raise Unreadable("the entry is not a JSON object.")
            result = check_entry(keyring, _text(args.proof, "the proof"), row)
        elif args.command == "consistency":
            result = check_consistency(keyring, _text(args.kept, "the kept checkpoint"),
                                       _text(args.proof, "the proof"))
        elif args.command == "export":
            result = check_export(keyring, args.bundle, [_text(path, "the kept checkpoint") for path in args.kept],
                                  [_text(path, "the proof") for path in args.proof])
        else:
            result = check_checkpoint(keyring, _text(args.checkpoint, "the checkpoint"))
        if witnesses:
            witnessed.check(result, _witnessed_checkpoints(args), witnesses, quorum)
    except (Unreadable, ValueError) as error:
        _say(f"UNREADABLE {error}", sys.stderr)
        return EXIT["UNREADABLE"]
    for line in result.lines:
        _say(line)
    if not result.ok:
        verdict, line = "DOES NOT HOLD", "DOES NOT HOLD"
    elif not args.trust:
        verdict, line = "NOT CHECKED", (f"{NOT_CHECKED}: nothing failed, but only against the keys file's own root. "
                                        "Give the installation's fingerprint you kept with --trust.")
    else:
        verdict, line = "HOLDS", "HOLDS"
    _say(line)
    return EXIT[verdict]


def _witnessed_checkpoints(args):
    """[(what, note)]: the checkpoints the witnesses must have cosigned, for the command given."""
    if args.command == "export":
        return [(f"{chain} checkpoint", note) for chain, note in witnessed.bundle_checkpoints(args.bundle)]
    if args.command == "consistency":
        return [("newer checkpoint", parse_proof(_text(args.proof, "the proof"), CONSISTENCY).note)]
    if args.command == "checkpoint":
        return [("checkpoint", _text(args.checkpoint, "the checkpoint"))]
    return [("checkpoint", parse_proof(_text(args.proof, "the proof"), INCLUSION).note)]


def _say(line, stream=None):
    """One line of output; what it quotes from the inputs (names, texts) cannot break it or turn it around."""
    print(shown(line), file=stream or sys.stdout)
