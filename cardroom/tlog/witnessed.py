"""Witnesses required: the verifier's check that enough of the witnesses a regulator names cosigned the checkpoints
it is shown, and the room's list of witnesses as its configuration writes it. Plain Python, no Django.

A cosignature (C2SP tlog-cosignature, ``cardroom.tlog.cosignature``) is a witness's signature line on a checkpoint:
at that time the witness had seen this tree of the log and no other inconsistent with it. The verifier is given the
witnesses it trusts (``--witness <name> <verifier key>``) and how many of them must have cosigned (``--quorum N``,
by default all of them); ``check`` says HOLDS only when every checkpoint it is given carries at least N good
cosignatures of those witnesses. A line with a named witness's name and key id that does not verify is a FAIL (the
checkpoint or the line was altered); lines of other witnesses are not read.

The room's configuration (``WITNESSES``, docs/audit.md "Submitting to witnesses") lists each witness as its
verifier key (which carries its name) and its submission prefix, one witness a line (or separated by ``;``):

    witness.example/w1+1a2b3c4d+BFyz...= https://witness.example/w1
"""

import datetime
import io
import json
import zipfile
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .. import checkpoint
from ..bundle.format import BUNDLES, MANIFEST
from ..bundle.verification import members
from . import origins
from .cosignature import CosignatureError, cosignature_of, read_verifier_key
from .proofs import Unreadable


@dataclass(frozen=True)
class Witness:
    name: str
    public_key: Ed25519PublicKey
    verifier_key: str
    url: str = ""  # the submission prefix (the room's configuration); the verifier needs none


def read_config(text):
    """The witnesses of a ``WITNESSES`` setting: ``<verifier key> <submission prefix URL>`` each, one a line or
    separated by ``;``. ValueError saying which entry is wrong (the settings turn it into ImproperlyConfigured)."""
    witnesses = []
    for number, entry in enumerate((e.strip() for e in text.replace(";", "\n").split("\n")), start=1):
        if not entry or entry.startswith("#"):
            continue
        parts = entry.split()
        if len(parts) != 2:
            raise ValueError(f"witness {number} ({entry[:60]!r}) is not '<verifier key> <submission prefix URL>'.")
        key, url = parts
        if not url.startswith(("https://", "http://")):
            raise ValueError(f"witness {number}'s submission prefix must be an http(s) URL, not {url[:60]!r}.")
        try:
            name, public_key = read_verifier_key(key)
        except CosignatureError as error:
            raise ValueError(f"witness {number}: {error}") from None
        if any(w.name == name for w in witnesses):
            raise ValueError(f"the witness {name} is listed twice.")
        witnesses.append(Witness(name, public_key, key.strip(), url.rstrip("/")))
    return witnesses


def witness(name, key):
    """A witness the regulator names on the command line (``--witness <name> <verifier key>``); Unreadable when the
    key is not a witness key or is another witness's."""
    try:
        named, public_key = read_verifier_key(key)
    except CosignatureError as error:
        raise Unreadable(f"--witness {name}: {error}") from None
    if named != name:
        raise Unreadable(f"--witness {name}: the verifier key given is of the witness {named}.")
    return Witness(name, public_key, key.strip())


def quorum_of(witnesses, quorum):
    """The number of witnesses that must have cosigned: ``quorum`` (1 to their number), or all of them."""
    if quorum is None:
        return len(witnesses)
    if not witnesses:
        raise Unreadable("--quorum needs the witnesses it counts (--witness <name> <verifier key>).")
    if not 1 <= quorum <= len(witnesses):
        raise Unreadable(f"--quorum {quorum}: between 1 and the {len(witnesses)} witness"
                         f"{'es' if len(witnesses) != 1 else ''} named.")
    return quorum


def cosigners(note, witnesses):
    """({name: Cosigned} of the witnesses that cosigned the note, {name: why} of those whose line is bad)."""
    good, bad = {}, {}
    for w in witnesses:
        try:
            found = cosignature_of(note, w.name, w.public_key)
        except CosignatureError as error:
            bad[w.name] = str(error)
            continue
        if found is not None:
            good[w.name] = found
    return good, bad


def check(result, checkpoints, witnesses, quorum, origin=None):
    """Add to ``result`` (a ``tlog.Result``) whether each of ``checkpoints`` ([(what, note)]: "establishment:3
    checkpoint", say) carries good cosignatures of at least ``quorum`` of ``witnesses``: one line each, naming the
    witnesses that cosigned (and when) and, when too few did, which are missing. A cosignature vouches for the
    log its checkpoint names: one of a checkpoint of another log than ``origin`` (the base origin, ``cardroom.tlog.
    origins``) counts for nothing, since a witness that never saw this log's history would cosign that one."""
    if not witnesses:
        return result
    if not checkpoints:
        result.fails("no checkpoint was found to count the witnesses' cosignatures on.")
    for what, note in checkpoints:
        try:
            named = checkpoint.read_body(note.partition("\n\n")[0] + "\n")[0]
        except checkpoint.CheckpointError as error:
            result.fails(f"{what}: {error}")
            continue
        wrong = origins.problem(named, origin)
        if wrong:
            result.fails(f"{what}: its cosignatures count for nothing here: {wrong}.")
            continue
        try:
            good, bad = cosigners(note, witnesses)
        except CosignatureError as error:
            result.fails(f"{what}: {error}")
            continue
        for name, why in bad.items():
            result.fails(f"{what}: a bad cosignature line of the witness {name}: {why}")
        said = ", ".join(f"{name} at {_when(c.timestamp)}" for name, c in good.items()) or "none"
        missing = [w.name for w in witnesses if w.name not in good]
        if len(good) >= quorum:
            result.holds(f"{what}: cosigned by {len(good)} of the {len(witnesses)} witnesses named (quorum "
                         f"{quorum}): {said}.")
        else:
            result.fails(f"{what}: cosigned by {len(good)} of the {len(witnesses)} witnesses named, fewer than the "
                         f"quorum of {quorum}; no good cosignature of {', '.join(missing)} (cosigned: {said}).")
    return result


def _when(timestamp):
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def bundle_checkpoints(path):
    """[(chain, note)] of the checkpoints an export bundle carries (``checkpoints/<chain>.txt``, in a top folder
    too), for the chains its manifest lists; Unreadable when it cannot be read. The bundle's own check says whether
    they are signed and whether one is missing. A bundle of bundles (format 3) is witnessed through its last inner
    bundle's checkpoints, those of the period's end: the outer check proves each earlier inner bundle's checkpoint a
    prefix of the next (``cardroom.bundle.nesting``), so a cosigned last one vouches for the log they make together.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            names = members(archive)
            manifest = json.loads(archive.read(names[MANIFEST]))
            inner = manifest.get("bundles")
            if isinstance(inner, list) and inner:
                last = inner[-1]["name"]  # bundles/<name>.zip
                if not str(last).startswith(BUNDLES):
                    raise ValueError(f"its last inner bundle is not under {BUNDLES}")
                return [(f"{last}: {chain}", note)
                        for chain, note in bundle_checkpoints(io.BytesIO(archive.read(names[last])))]
            chains = [head["chain"] for head in manifest.get("audit_chains", [])]
            found = []
            for chain in chains:
                info = names.get(f"checkpoints/{chain.replace(':', '-')}.txt")
                if info is not None:
                    found.append((chain, archive.read(info).decode("utf-8", "replace")))
            return found
    except (OSError, zipfile.BadZipFile, KeyError, TypeError, ValueError, AttributeError) as error:
        raise Unreadable(f"{path}: its checkpoints cannot be read: {error}.") from None
