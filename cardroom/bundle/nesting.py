"""The bundle of bundles (format 3, ``cardroom-audit-bundle/3``): an export of a period whose months are (partly)
closed. A closed month's bundles were signed when it was closed and its rows then left the database, so they are
carried as they are, never rebuilt, beside a bundle of the open days; one signed manifest holds them together.
Plain Python (no Django). The layout (docs/exports.md, "A bundle of bundles"):

- ``bundles/<name>.zip``: each inner bundle (format 1 or 2), byte for byte as signed;
- ``links/<chain>.<old>-<new>.txt``: for each audit chain, the consistency proof between the checkpoints of two
  inner bundles that follow each other (``cardroom/tlog-consistency@v1``, the text ``cardroom.tlog`` reads and
  ``GET /api/v1/audit/consistency`` gives): from the smaller tree to the larger;
- ``report.pdf``: the whole period;
- ``manifest.json``: as every bundle's (``files`` lists the inner bundles and links too), plus ``bundles``, in the
  order of their periods, ``[{"name", "period", "sha256", "bytes", "closed_month"?}]`` (``closed_month``
  ``YYYY-MM`` for a closed month's own bundle), and ``links``, ``[{"chain", "from", "to", "file"}]``.

``check`` is what ``verification.verify`` adds for such a manifest: each inner bundle verified in full as a bundle
of its own (its problems named ``bundles/<name>.zip: ...``), its period as the outer manifest lists it, the periods
one after another without a gap, and each chain's checkpoints, bundle to bundle, one log: the smaller tree a prefix
of the larger (``merkle.verify_consistency``), proved by the link the outer bundle carries or the ``from-<n>``
proof the later inner bundle carries. The roots compared are the inner bundles' signed checkpoints, so a link
proves nothing by itself: one that does not join them fails, naming the two bundles.
"""

import base64
import binascii
import datetime
import json
import tempfile
import zipfile
from dataclasses import dataclass, field

from .. import checkpoint, merkle
from .format import BUNDLES, CHUNK, INNER_FORMATS, LINKS, MANIFEST, MAX_MANIFEST_BYTES

# The consistency proof's first line, as cardroom.tlog.proofs writes it (tlog stands on this package, not under it).
CONSISTENCY = "cardroom/tlog-consistency@v1"


def checkpoint_stem(chain):
    """Where a bundle keeps a chain's checkpoint and its proofs (``cardroom.transparency.export_files``)."""
    return f"checkpoints/{chain.replace(':', '-')}"


def link_name(chain, old, new):
    return f"{LINKS}{chain.replace(':', '-')}.{old}-{new}.txt"


def read_link(text):
    """(old size, proof hashes) of a consistency proof's text; ValueError when it is not one."""
    head, blank, note = text.partition("\n\n")
    lines = head.split("\n")
    if lines[0] != CONSISTENCY or not blank or not note or len(lines) < 2 or not lines[1].startswith("old "):
        raise ValueError(f"not a consistency proof ({CONSISTENCY}, old <size>, its hashes, the checkpoint)")
    old = lines[1].removeprefix("old ")
    if not old.isdigit():
        raise ValueError("its 'old' line is not a number")
    try:
        hashes = [base64.b64decode(line, validate=True) for line in lines[2:]]
    except (binascii.Error, ValueError):
        raise ValueError("a hash of it is not base64") from None
    if any(len(h) != 32 for h in hashes):
        raise ValueError("a hash of it is not 32 bytes")
    return int(old), hashes


@dataclass
class Nested:
    """What ``check`` found beyond the outer bundle's files: each inner bundle's ``Verification`` by name, and a
    sentence for every link between two inner bundles' checkpoints that holds (those that do not are problems)."""

    inner: dict = field(default_factory=dict)
    links: list = field(default_factory=list)


def _day(value):
    try:
        return datetime.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def span(period):
    """(from, to) of a manifest's period, as text: ``as_of`` is from the beginning (None) to that day."""
    period = period if isinstance(period, dict) else {}
    return period.get("from"), period.get("to") or period.get("as_of")


def _listed(manifest, files, problems):
    """The manifest's ``bundles`` entries that are well formed, in order."""
    entries = manifest.get("bundles")
    if not isinstance(entries, list) or not entries:
        problems.append(f"{MANIFEST}: a bundle of bundles lists no inner bundles (wrong format)")
        return []
    by_file, found = {f.get("name"): f for f in manifest.get("files", []) if isinstance(f, dict)}, []
    for index, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        period = entry.get("period") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.startswith(BUNDLES) or _day(span(period)[1]) is None:
            problems.append(f"{MANIFEST}: bundles[{index}] has no name under {BUNDLES} or no period (wrong format)")
            continue
        listed = by_file.get(name)
        if listed is None or (listed.get("sha256"), listed.get("bytes")) != (entry.get("sha256"), entry.get("bytes")):
            problems.append(f"{MANIFEST}: {name} is not listed among its files with the same SHA-256 and size "
                            "(wrong format)")
            continue
        found.append(entry)
    return found


def _copy(archive, info, most, into):
    """Unzip a member into a file, never past ``most`` bytes; the problem, or None."""
    copied = 0
    try:
        with archive.open(info) as source:
            while chunk := source.read(min(CHUNK, most + 1 - copied)):
                into.write(chunk)
                copied += len(chunk)
                if copied > most:
                    return "larger than the outer manifest lists"
    except Exception as error:  # a damaged member: the outer check has said so
        return f"cannot be read ({type(error).__name__})"
    into.seek(0)
    return None


def _signing_key(fileobj):
    """The fingerprint an inner bundle's manifest names (to pick the key it is checked against); None."""
    try:
        with zipfile.ZipFile(fileobj) as archive:
            info = next((i for i in archive.infolist() if i.filename.rpartition("/")[2] == MANIFEST), None)
            if info is None or info.file_size > MAX_MANIFEST_BYTES:
                return None
            named = json.loads(archive.read(info)).get("signing_key")
    except Exception:  # the inner check says what is wrong with it
        named = None
    finally:
        fileobj.seek(0)
    return named if isinstance(named, str) else None


def _text(fileobj, verified, name):
    """A file of a verified inner bundle, as text; None when it has none."""
    if verified.files.get(name) != "ok":
        return None
    fileobj.seek(0)
    with zipfile.ZipFile(fileobj) as archive:
        data = archive.read(f"{verified.folder}/{name}" if verified.folder else name)
    return data.decode("utf-8", "replace")


def _inner(archive, by_name, entry, verify_inner, problems):
    """(Verification, {chain: (origin, size, root, carried proofs by old size)}) of one inner bundle."""
    name = entry["name"]
    with tempfile.TemporaryFile() as copy:
        problem = _copy(archive, by_name[name], entry["bytes"], copy)
        if problem:
            problems.append(f"{name}: {problem}: not checked as a bundle")
            return None, {}
        verified = verify_inner(copy, _signing_key(copy))
        copy.seek(0)
        problems.extend(f"{name}: {p}" for p in verified.problems)
        manifest = verified.manifest or {}
        if manifest and manifest.get("format") not in INNER_FORMATS:
            problems.append(f"{name}: its format is {manifest.get('format')!r}; a bundle of bundles holds bundles of "
                            f"{' or '.join(INNER_FORMATS)}")
        if manifest and manifest.get("period") != entry["period"]:
            problems.append(f"{name}: its own manifest covers {manifest.get('period')}, the outer manifest lists it "
                            f"for {entry['period']}")
        chains = {}
        for chain, note in verified.checkpoints.items() if verified.ok else ():
            stem = checkpoint_stem(chain)
            try:
                origin, size, root = checkpoint.read_body(note)
            except checkpoint.CheckpointError as error:
                problems.append(f"{name}: {stem}.txt: {error}")
                continue
            chains[chain] = (origin, size, root, _carried(copy, verified, stem))
    return verified, chains


def _carried(fileobj, verified, stem):
    """The inner bundle's consistency proofs from earlier checkpoints of a chain, by their old size."""
    found = {}
    for name in verified.files:
        if name.startswith(f"{stem}.from-") and name.endswith(".txt"):
            old = name[len(stem) + 6:-4]
            if old.isdigit():
                found[int(old)] = _text(fileobj, verified, name)
    return found


def _periods(entries, period, problems):
    """The inner bundles' periods, in order, one after the other with no gap, cover the outer period."""
    spans = sorted({span(e["period"]) for e in entries}, key=lambda each: each[1])
    if [span(e["period"])[1] for e in entries] != sorted(span(e["period"])[1] for e in entries):
        problems.append(f"{MANIFEST}: its bundles are not listed in the order of their periods (wrong format)")
    for (_, before), (start, end) in zip(spans, spans[1:]):
        if _day(start) != _day(before) + datetime.timedelta(days=1):
            problems.append(f"{MANIFEST}: the inner bundles' periods do not follow each other: one ends on {before}, "
                            f"the next covers {start} to {end} (a gap, or days twice)")
    # A closed month's bundle is whole: the first may begin before the period, the last end after it.
    start, end = span(period)
    if spans and (_day(end) is None or _day(spans[-1][1]) < _day(end)
                  or (_day(start) or datetime.date.min) < (_day(spans[0][0]) or datetime.date.min)):
        problems.append(f"{MANIFEST}: the inner bundles cover {spans[0][0] or 'the beginning'} to {spans[-1][1]}, "
                        f"not the period {period}")


def _link(manifest, by_name, files, archive, chain, earlier, later):
    """The proof hashes joining two inner bundles' checkpoints of ``chain``, from the outer link or the later
    (larger) bundle's own ``from-<n>`` proof; (old size, hashes) or None, and where it was read."""
    for link in manifest.get("links") or []:
        if isinstance(link, dict) and (link.get("chain"), link.get("from"), link.get("to")) == (chain, earlier, later):
            name = link.get("file")
            if files.get(name) == "ok":
                try:
                    return read_link(archive.read(by_name[name]).decode("utf-8", "replace")), name
                except ValueError:
                    return None, name
    return None, None


def _join(result, problems, chain, first, second, found):
    """Whether two inner bundles' checkpoints of ``chain`` are of one log: (name, (origin, size, root, carried))
    each, in period order; ``found``: the outer link's (old, hashes) and its name, or (None, None)."""
    (a, (origin_a, size_a, root_a, _)), (b, (origin_b, size_b, root_b, _)) = first, second
    what = f"link {a} -> {b}, {chain}"
    if origin_a != origin_b:
        problems.append(f"{what}: the checkpoints are of different logs ({origin_a}, {origin_b})")
        return
    small, large = sorted((first, second), key=lambda item: item[1][1])
    (_, (_, old, old_root, _)), (large_name, (_, new, new_root, carried)) = small, large
    if old == new:
        if old_root == new_root:
            result.links.append(f"{what}: both checkpoints are of {old} entries, with the same root")
        else:
            problems.append(f"{what}: both checkpoints are of {old} entries but their roots differ: the log was "
                            "rewritten between them")
        return
    if old == 0:
        result.links.append(f"{what}: the earlier checkpoint is of the empty log, which every log holds")
        return
    (proof, source) = found
    if proof is None and carried.get(old):
        try:
            proof, source = read_link(carried[old]), f"{large_name}'s proof from {old} entries"
        except ValueError:
            proof = None
    if proof is None:
        problems.append(f"{what}: no consistency proof from {old} to {new} entries is carried "
                        f"({source or 'no link file, and the later bundle carries none'}): the log cannot be shown "
                        "unbroken across them")
    elif proof[0] != old or not merkle.verify_consistency(old, new, old_root, new_root, proof[1]):
        problems.append(f"{what}: the log of {new} entries does NOT hold the {old} entries of the other "
                        "checkpoint as they were: it was rewritten between the two bundles, or a checkpoint "
                        "was changed")
    else:
        result.links.append(f"{what}: the log of {new} entries holds the {old} entries of the other checkpoint, "
                            f"unchanged ({source})")


def check(archive, by_name, manifest, files, problems, verify_inner):
    """The checks of a bundle of bundles beyond its own files (the module's docstring): ``archive`` the outer zip,
    ``by_name`` its members by name, ``files`` the outer check's states, ``problems`` extended. ``verify_inner(
    fileobj, fingerprint)`` verifies an inner bundle (a seekable file) against the key its manifest names. Returns
    a ``Nested``."""
    result = Nested()
    entries = _listed(manifest, files, problems)
    _periods(entries, manifest.get("period"), problems)
    checkpoints = []
    for entry in entries:
        name = entry["name"]
        if files.get(name) in ("missing", "unchecked") or name not in by_name:
            continue  # missing, or past the limits: said already
        verified, chains = _inner(archive, by_name, entry, verify_inner, problems)
        if verified is not None:
            result.inner[name] = verified
        # One that did not verify breaks each chain there (its problems are said): no link is checked across it.
        checkpoints.append((name, chains if verified is not None and verified.ok else None))
    for chain in sorted({chain for _, chains in checkpoints for chain in chains or ()}):
        carrying = [(name, chains and chains[chain]) for name, chains in checkpoints
                    if chains is None or chain in chains]
        for first, second in zip(carrying, carrying[1:]):
            if first[1] and second[1]:
                _join(result, problems, chain, first, second,
                      _link(manifest, by_name, files, archive, chain, first[0], second[0]))
    return result
