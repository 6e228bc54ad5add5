"""Checking the audit log from outside, offline: proofs' text formats and the verifier. Plain Python, no Django.

Whoever holds the installation's public keys (``GET /api/v1/audit/keys``, saved as a file) checks with this module
and ``cryptography`` alone, with no access to the service (docs/audit.md, "Checking the log from outside"):

    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT --origin BASE entry ENTRY.tlog-proof
        [--entry ROW.json]
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT consistency KEPT-CHECKPOINT.txt PROOF.txt
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT --origin BASE export BUNDLE.zip
        [--kept CHECKPOINT.txt ...] [--proof PROOF.txt ...]
    python -m cardroom.tlog --keys keys.json --trust SHA256:ROOT --origin BASE checkpoint CHECKPOINT.txt

With ``--witness <name> <verifier key>`` (repeatable) and ``--quorum N`` (default: all the witnesses named), the
checkpoints checked must also carry good cosignatures of at least N of those witnesses (``cardroom.tlog.witnessed``):
each chain's checkpoint of an export bundle, the newer checkpoint of a consistency proof, the checkpoint given.

Only keys that lead back to the root of trust (``--trust``: the first key's fingerprint, kept when the installation
was set up) are trusted: each later key carries the key before it's signature over ``endorsement_statement``, and
is valid from its endorsed ``valid_from`` until the next key's. The keys file's own ``root`` proves nothing (whoever
altered a bundle can write a keys file naming their own key): without ``--trust`` the verifier checks what it can
against it but never says HOLDS. So with the log's origin (``--origin``: the installation's ``AUDIT_LOG_ORIGIN``,
kept with the root; or the origin of the checkpoints you kept, ``--kept`` or ``consistency``'s first file): only
checkpoints of ``<origin>/<chain>`` are trusted (``cardroom.tlog.origins``), since the key signs any name it is given
and a witness keeps one history per name. Without it the verifier checks against the keys file's own ``origin`` and
says NOT CHECKED.

Each prints what it checked, one line per finding (names and texts from the inputs with their control and format
characters escaped: ``cardroom.bundle.verification.shown``), then its verdict, and exits with it (``EXIT``): 0 HOLDS, 1
DOES NOT HOLD, 2 UNREADABLE (an input cannot be read), 3 NOT CHECKED (everything held, but against the keys file's
own root or origin: no ``--trust``, or no ``--origin`` and no kept checkpoint, given). The formats:

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

The parts: ``cardroom.tlog.proofs`` (the text formats), ``cardroom.tlog.origins`` (a log's name),
``cardroom.tlog.keys`` (the keys file and the keyring) and ``cardroom.tlog.checks`` (the checks); this module is the
command line (``__main__.py`` runs it for ``python -m cardroom.tlog``) and gathers them under one name.
"""

import argparse
import json
import sys

from .. import checkpoint
from ..bundle.verification import shown
from . import origins, witnessed
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
from .keys import ENDORSEMENT, Key, Keyring, OtherLog, endorsement_statement
from .origins import chain_of
from .proofs import (
    CONSISTENCY,
    INCLUSION,
    ORIGIN_PREFIX,
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
    "ENDORSEMENT", "Key", "Keyring", "OtherLog", "endorsement_statement",
    "Result", "check_checkpoint", "check_consistency", "check_entry", "check_export", "compare_kept", "entry_from_row",
    "validity_problem",
    "EXIT", "main",
]


# -- the command -----------------------------------------------------------------------------------------------------

# The verdicts and their exit codes.
EXIT = {"HOLDS": 0, "DOES NOT HOLD": 1, "UNREADABLE": 2, "NOT CHECKED": 3}
NOT_CHECKED = "NOT CHECKED: no root of trust given (--trust SHA256:...)"
NO_ORIGIN = "no log origin given (--origin <base>)"
# What NOT CHECKED says is missing: (what was not given, what of the keys file's was used instead, what to give).
_NO_ROOT = ("no root of trust given (--trust SHA256:...)", "root",
            "the installation's fingerprint you kept with --trust")
_NO_ORIGIN = (NO_ORIGIN, "origin", "the installation's log origin you kept with --origin")

_HELP = """exit codes:
  0  HOLDS          everything checked holds, under the root of trust given (--trust) and of the log's origin
                    given (--origin, or the checkpoints you kept)
  1  DOES NOT HOLD  something checked does not hold (each FAIL line says what)
  2  UNREADABLE     an input cannot be read (the line says which, and why)
  3  NOT CHECKED    no --trust, or no --origin, given: nothing failed against the keys file's own root and origin,
                    but that file could have been written by whoever made the bundle; run again with --trust and
                    --origin as you kept them

Keep the installation's root fingerprint (SHA256:...) and its log's origin (the keys file's "root" and "origin")
when you first receive its keys file, from a channel you trust, and give them with --trust and --origin every time:
a fingerprint or an origin read from the keys file or a bundle vouches for nothing."""


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
    parser.add_argument("--origin", metavar="BASE",
                        help="The installation's log origin (the keys file's 'origin', e.g. room.example/audit), as "
                             "you kept it: only checkpoints of BASE/installation and BASE/establishment:<id> are "
                             "trusted. Without it, the origin of the checkpoints you kept (--kept, or consistency's "
                             "first file); with neither, nothing is said to hold (exit 3, NOT CHECKED).")
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
        named = {ring.origin for ring in files if ring.origin}
        if len(named) > 1:
            raise Unreadable(f"the keys files name different origins ({', '.join(sorted(named))}): give the one to "
                             "check with --origin.")
        given = Keyring([k for ring in files for k in ring.keys], tuple(r for ring in files for r in ring.roots),
                        origin=next(iter(named), None))
        origin = _origin(args)
        keyring = given.trusted(args.trust, origin)
        if not args.trust:
            _say(f"NOTE no root of trust given (--trust): checked against the keys file's own root, "
                 f"{', '.join(keyring.roots)}, which vouches for nothing by itself.")
        if origin is None:
            _say(f"NOTE {NO_ORIGIN}: checked against the keys file's own origin, {keyring.origin}, which vouches for "
                 "nothing by itself." if keyring.origin else
                 f"NOTE {NO_ORIGIN}, and the keys file names none: checkpoints of any cardroom log were accepted.")
        elif not args.origin:
            _say(f"NOTE the log's origin, {origin}, is the one of the checkpoint you kept (--origin not given).")
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
            witnessed.check(result, _witnessed_checkpoints(args), witnesses, quorum, keyring.origin)
    except (Unreadable, ValueError) as error:
        _say(f"UNREADABLE {error}", sys.stderr)
        return EXIT["UNREADABLE"]
    for line in result.lines:
        _say(line)
    gaps = [gap for gap, given in ((_NO_ROOT, args.trust), (_NO_ORIGIN, origin)) if not given]
    if not result.ok:
        verdict, line = "DOES NOT HOLD", "DOES NOT HOLD"
    elif gaps:
        said, own, give = (" and ".join(part) for part in zip(*gaps))
        verdict, line = "NOT CHECKED", (f"NOT CHECKED: {said}: nothing failed, but only against the keys file's own "
                                        f"{own}. Give {give}.")
    else:
        verdict, line = "HOLDS", "HOLDS"
    _say(line)
    return EXIT[verdict]


def _origin(args):
    """The log's base origin the checkpoints must carry, as the regulator gave it: ``--origin``, else the origin of
    the checkpoints they kept (``--kept``; ``consistency``'s kept checkpoint), which are theirs; None when neither
    names one (the keys file's own is then used, and nothing is said to hold)."""
    if args.origin is not None:
        problem = origins.base_problem(args.origin)
        if problem:
            raise Unreadable(f"--origin: {problem}.")
        return args.origin
    kept = args.kept if args.command == "export" else [args.kept] if args.command == "consistency" else []
    bases = set()
    for path in kept:
        try:
            parts = origins.split(checkpoint.read_body(_text(path, "the kept checkpoint").partition("\n\n")[0]
                                                       + "\n")[0])
        except checkpoint.CheckpointError:
            parts = None  # not a checkpoint: its check says so
        if parts is not None:
            bases.add(parts[0])
    if len(bases) > 1:
        raise Unreadable(f"the checkpoints you kept are of different logs ({', '.join(sorted(bases))}): give the "
                         "one to check with --origin.")
    return next(iter(bases), None)


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
