"""Checking an audit export bundle: ``verify`` and its ``Limits`` (what a bundle may claim before it is unpacked),
reporting every problem by file in a ``Verification`` (the format: ``cardroom.bundle``). Plain Python (no Django)."""

import base64
import binascii
import hashlib
import json
import os
import re
import struct
import unicodedata
import zipfile
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature

from . import nesting
from .format import (CHUNK, DIRECTORY_BYTES_PER_MEMBER, FORMAT_3, FORMATS, MANIFEST, MAX_CHECKPOINT_BYTES,
                     MAX_MANIFEST_BYTES, MAX_SIGNATURE_BYTES, RATIO_FROM_BYTES, RESERVED, SIGNATURE, fingerprint,
                     load_public_key)

_SHA256 = re.compile(r"[0-9a-f]{64}")
# Characters that are not shown as themselves: controls (a newline splits a line), format characters (U+202E turns
# the text after it around), surrogates, line and paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char):
    code = ord(char)
    return _ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                                  else f"\\U{code:08x}")


def shown(text):
    """``text`` (a member's name, or a sentence naming one) safe to show on a line, on a page or in a terminal: each
    control, format, surrogate, line or paragraph separator character (Unicode categories Cc, Cf, Cs, Zl, Zp) written
    as its escape (``\\n``, ``\\x1b``, ``\\u202e``), so a name can neither split a line nor reorder what follows it.
    Shown text stays as it is when shown again."""
    if text.isprintable():  # nothing to escape (the common case)
        return text
    return "".join(_escape(char) if unicodedata.category(char) in _HIDDEN else char for char in text)


@dataclass(frozen=True)
class Limits:
    """What a bundle may claim to hold before a byte of it is unpacked (docs/exports.md, "Limits"). A real bundle
    holds ~20 files (format 2: each kind's CSV, round_pricings.json, columns.json, the report, a checkpoint or two
    per audit chain); one of format 1, ~30 (each kind as CSV and JSON)."""

    max_members: int = 1000
    # All members unzipped, as their zip headers declare them; None: no cap (the service sets one).
    max_total_bytes: int | None = None
    # Unzipped to zipped, per member: level-1 deflate of the bundle's CSV and JSON stays under ~50:1; a zip bomb
    # reaches ~1,000:1.
    max_ratio: int = 200


_END = struct.Struct("<4s4H2LH")  # end of central directory: signature, disks, entries (disk, total), size, offset
_END64_LOCATOR = struct.Struct("<4sLQL")  # signature, disk of the zip64 end record, its offset, disks
_END64 = struct.Struct("<4sQ2H2L4Q")  # zip64 end record: ..., entries (disk, total), size, offset
_CENTRAL = 46  # a member's record in the central directory, before its name, extra field and comment
_END_SIGNATURE, _END64_SIGNATURE, _LOCATOR_SIGNATURE = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"


class _Refused(Exception):
    """A zip whose end records readers could read in more than one way; the message says why (not checked)."""


def _found(data, signature):
    """Every offset of ``signature`` in ``data``, overlapping ones too."""
    at, found = data.find(signature), []
    while at >= 0:
        found.append(at)
        at = data.find(signature, at + 1)
    return found


def _end_record(fileobj):
    """(members, central directory bytes, where it starts) as the zip's end records state them, read strictly; None
    when the file has none at all (``zipfile`` then says it is not a zip). Raises ``_Refused`` when readers could
    take another record for it: zip readers look for the end record in different ways (``zipfile`` takes the last
    signature in the last 64 kB, or a zip64 record found just before it), so a bundle whose records allow more than
    one reading is refused, not read one way and checked another."""
    fileobj.seek(0, os.SEEK_END)
    size = fileobj.tell()
    start = max(0, size - _END.size - 0xFFFF)  # the record, after a comment of up to 65,535 bytes
    fileobj.seek(start)
    tail = fileobj.read()
    found = _found(tail, _END_SIGNATURE)
    if not found:
        return None
    ends = [at for at in found if len(tail) - at >= _END.size and _END.unpack_from(tail, at)[-1] == len(tail) - at
            - _END.size]  # its comment ends the file
    if not ends:
        raise _Refused("the bundle's zip end record does not end the file (bytes were added after it, or it was "
                       "altered: not checked)")
    if len(ends) > 1 or found[-1] != ends[0]:
        raise _Refused("the bundle's zip end record is ambiguous: its signature appears again after it or within "
                       "it (altered: not checked)")
    where = start + ends[0]
    _, disk, directory_disk, on_disk, members, directory, offset, _ = _END.unpack_from(tail, ends[0])
    ends_at = where  # the central directory ends where the end records begin
    fileobj.seek(max(0, where - _END64_LOCATOR.size))
    locator = fileobj.read(_END64_LOCATOR.size) if where >= _END64_LOCATOR.size else b""
    if locator[:4] == _LOCATOR_SIGNATURE:  # zip64: zipfile goes by the record just before the locator
        _, _, record_at, _ = _END64_LOCATOR.unpack(locator)
        ends_at = where - _END64_LOCATOR.size - _END64.size
        fileobj.seek(max(0, ends_at))
        record = fileobj.read(_END64.size) if ends_at >= 0 else b""
        if len(record) != _END64.size or record[:4] != _END64_SIGNATURE or record_at != ends_at:
            raise _Refused("the bundle's zip64 end record is not where its locator says (altered: not checked)")
        wide = _END64.unpack(record)
        disk, directory_disk, both = wide[4], wide[5], (wide[6], wide[7], wide[8], wide[9])
        for narrow, value, most in zip((on_disk, members, directory, offset), both, (0xFFFF, 0xFFFF, 0xFFFFFFFF,
                                                                                      0xFFFFFFFF)):
            if narrow not in (value, most):  # the end record must say the same, or leave it to the zip64 one
                raise _Refused("the bundle's zip end record and its zip64 end record disagree (altered: not "
                               "checked)")
        on_disk, members, directory, offset = both
    if disk or directory_disk or on_disk != members:
        raise _Refused("the bundle's zip end record names other disks, or two counts of its files (altered: not "
                       "checked)")
    if directory <= ends_at and offset != ends_at - directory:
        raise _Refused("the bundle's zip directory is not where its end record says (bytes were added before the "
                       "zip, or it was altered: not checked)")
    return members, directory, ends_at - directory


def _listed_in(fileobj, directory, starts_at):
    """How many members the central directory holds, counted record by record as ``zipfile`` reads it (which goes
    by its size, whatever the end record's count); None when it is not readable to the end (``zipfile`` says why)."""
    fileobj.seek(starts_at)
    data = fileobj.read(directory)
    count = at = 0
    while at < len(data):
        if data[at:at + 4] != b"PK\x01\x02" or at + _CENTRAL > len(data):
            return None
        name, extra, comment = struct.unpack_from("<3H", data, at + 28)
        at += _CENTRAL + name + extra + comment
        count += 1
    return count if len(data) == directory else None


def directory_problem(fileobj, limits) -> str | None:
    """Why a bundle's zip directory is refused before it is read (``zipfile`` would build a record of every
    member, ~1 kB each, whatever their number): end records that allow more than one reading, more members than
    ``limits`` allow (as the end record counts them, then as the directory holds them) or a directory larger than
    they need. None when it is within them. Leaves ``fileobj`` at 0."""
    try:
        found = _end_record(fileobj)
        if found is None:
            return None
        members, directory, starts_at = found
        if members > limits.max_members:
            return (f"the bundle holds {members:,} files, more than the {limits.max_members:,} a bundle may hold "
                    f"(not checked)")
        most = limits.max_members * DIRECTORY_BYTES_PER_MEMBER
        if directory > most:
            return (f"the bundle's zip directory is {directory:,} bytes, more than the {most:,} of "
                    f"{limits.max_members:,} files (not checked)")
        listed = _listed_in(fileobj, directory, starts_at) if starts_at >= 0 else None
        if listed is not None and listed > limits.max_members:  # the end record understated them
            return (f"the bundle holds {listed:,} files, more than the {limits.max_members:,} a bundle may hold "
                    f"(not checked)")
        if listed is not None and listed != members:
            return (f"the bundle's zip end record counts {members:,} files, its directory holds {listed:,} "
                    f"(altered: not checked)")
    except _Refused as refused:
        return str(refused)
    except (OSError, ValueError):
        return None  # zipfile says what is wrong
    finally:
        fileobj.seek(0)
    return None


@dataclass
class Verification:
    ok: bool
    problems: list[str] = field(default_factory=list)
    # The manifest as read from the bundle (None when it could not be read). Trust it only when ok.
    manifest: dict | None = None
    # Every data file seen, listed or present, by name: "ok", "altered", "missing" (listed, not in the bundle),
    # "added" (in the bundle, not listed, or a second entry under a listed name) or "unchecked" (no manifest
    # to check it against, or past the ``Limits``: not unzipped).
    files: dict = field(default_factory=dict)
    # The manifest's signature: "valid", "invalid" (altered, or made by another key), "missing" (no
    # manifest.sig) or "unchecked" (no manifest, or one that cannot be read).
    signature: str = "unchecked"
    # The one top folder every file sat in, taken off their names (a bundle unzipped and zipped again); None.
    folder: str | None = None
    # A bundle of bundles (format 3): each inner bundle's own Verification by name, and the links between their
    # checkpoints that hold, in sentences (``nesting.check``; those that do not are problems).
    inner: dict = field(default_factory=dict)
    links: list = field(default_factory=list)
    # The audit checkpoints, chain -> the signed note (``checkpoints/<chain>.txt`` of each chain the manifest lists,
    # when that file verified): what the links, the log's origin and the witnesses are read from.
    checkpoints: dict = field(default_factory=dict)

    @property
    def format(self):
        """The bundle format its manifest names (``cardroom-audit-bundle/1``, ``/2``, ``/3``); None if unreadable."""
        value = self.manifest.get("format") if self.manifest else None
        return value if isinstance(value, str) else None

    def named(self, status):
        """The files of one status, sorted by name."""
        return sorted(name for name, seen in self.files.items() if seen == status)


def _reason(error) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _read_small(archive, name, info, limit):
    """(bytes, problem) of a small entry: the manifest or its signature."""
    if info.file_size > limit:
        return None, f"{name}: {info.file_size:,} bytes, far too large for a {name} (altered)"
    try:
        with archive.open(info) as stream:
            data = stream.read(limit + 1)
    except zipfile.BadZipFile as error:
        return None, f"{name}: altered (its zip entry fails its integrity check: {error})"
    except Exception as error:  # zlib.error, EOFError, encrypted entries...: a damaged bundle, reported
        return None, f"{name}: altered or corrupt, it cannot be read ({_reason(error)})"
    if len(data) > limit:
        return None, f"{name}: far too large for a {name} (altered)"
    return data, None


def _checkpoints(archive, by_name, manifest, files, problems):
    """chain -> its checkpoint's text, for each audit chain the manifest lists whose checkpoint file verified."""
    found = {}
    for head in manifest.get("audit_chains") or []:
        chain = head.get("chain") if isinstance(head, dict) else None
        name = f"{nesting.checkpoint_stem(chain)}.txt" if isinstance(chain, str) else None
        if name is None or files.get(name) != "ok":
            continue  # a chain with no entries has no checkpoint; one that did not verify is a problem said
        data, problem = _read_small(archive, name, by_name[name], MAX_CHECKPOINT_BYTES)
        if problem:
            problems.append(problem)
        else:
            found[chain] = data.decode("utf-8", "replace")
    return found


def _hash_entry(archive, name, info, expected_bytes):
    """(sha256 hex, byte count, problem) of a data entry, streamed; stops past the expected size."""
    digest, count = hashlib.sha256(), 0
    try:
        with archive.open(info) as stream:
            while True:
                # Never past the listed size + 1, whatever the zip's header says: that byte proves it longer.
                chunk = stream.read(min(CHUNK, expected_bytes + 1 - count))
                if not chunk:
                    break
                digest.update(chunk)
                count += len(chunk)
                if count > expected_bytes:
                    return None, count, (
                        f"{name}: more than the {expected_bytes:,} bytes the manifest lists (altered)"
                    )
    except zipfile.BadZipFile as error:
        return None, count, f"{name}: altered (its zip entry fails its integrity check: {error})"
    except Exception as error:
        return None, count, f"{name}: altered or corrupt, it cannot be read ({_reason(error)})"
    return digest.hexdigest(), count, None


def _listed_files(manifest, problems):
    """The manifest's valid ``files`` entries by name; malformed ones become problems."""
    files = manifest.get("files")
    if not isinstance(files, list):
        problems.append(f"{MANIFEST}: has no list of files (wrong format)")
        return {}
    listed = {}
    for index, entry in enumerate(files):
        name = entry.get("name") if isinstance(entry, dict) else None
        label = name if isinstance(name, str) and name else f"files[{index}]"
        if not isinstance(name, str) or not name:
            problems.append(f"{MANIFEST}: {label} has no file name (wrong format)")
            continue
        if name in RESERVED:
            problems.append(f"{MANIFEST}: lists {name}, which is the bundle's own file (wrong format)")
            continue
        size, sha = entry.get("bytes"), entry.get("sha256")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            problems.append(f"{MANIFEST}: the entry for {name} has no valid byte count (wrong format)")
            continue
        if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
            problems.append(f"{MANIFEST}: the entry for {name} has no valid SHA-256 (wrong format)")
            continue
        if name in listed:
            problems.append(f"{MANIFEST}: lists {name} more than once (wrong format)")
            continue
        listed[name] = entry
    return listed


def _check_signature(data, signature, public_key, problems):
    try:
        raw = base64.b64decode(signature.strip(), validate=True)
    except (binascii.Error, ValueError):
        raw = None
    if raw is None or len(raw) != 64:
        problems.append(f"{SIGNATURE}: not a valid Ed25519 signature (base64 of 64 bytes): altered")
        return "invalid"
    try:
        public_key.verify(raw, data)
    except InvalidSignature:
        problems.append(
            f"{MANIFEST} has been altered or was not signed by this key ({fingerprint(public_key)}): "
            f"the signature in {SIGNATURE} does not match it"
        )
        return "invalid"
    return "valid"


def verify(path_or_fileobj, public_key, limits=None, on_progress=None, keys=None) -> Verification:
    """Check a bundle against a public key (anything ``load_public_key`` takes): every problem, by file.

    ``limits`` (``Limits()`` by default) bound what is read: a bundle past them is refused with the reason, before
    its files are unpacked. ``on_progress(done, total)`` is called as the listed files are checked. A bundle of
    bundles' inner ones are checked against the key their manifest names when ``keys`` (fingerprint -> public key)
    has it, else against ``public_key``.
    Never raises because of the bundle; an unusable ``public_key`` is the caller's error (ValueError). The problems
    name files as ``shown`` shows them (``files`` holds the names as they are)."""
    public_key = load_public_key(public_key)
    limits = limits or Limits()
    if isinstance(path_or_fileobj, (str, os.PathLike)):
        try:
            fileobj = open(path_or_fileobj, "rb")
        except FileNotFoundError:
            return Verification(False, ["the bundle does not exist (no such file)"], None)
        except OSError as error:
            return Verification(False, [f"the bundle cannot be read ({_reason(error)})"], None)
        with fileobj:
            result = _verify(fileobj, public_key, limits, on_progress, keys or {})
    else:
        result = _verify(path_or_fileobj, public_key, limits, on_progress, keys or {})
    result.problems = [shown(problem) for problem in result.problems]  # names as they were put in the zip
    return result


def _size_problems(infos, limits, bundle_bytes):
    """Why the members, as their headers declare them, are not unpacked at all."""
    problems = []
    if len(infos) > limits.max_members:  # the end record understated them
        problems.append(f"the bundle holds {len(infos):,} files, more than the {limits.max_members:,} a bundle "
                        f"may hold (not checked)")
    packed = sum(info.compress_size for info in infos)
    if packed > bundle_bytes:
        problems.append(f"the bundle's files claim {packed:,} zipped bytes, more than the bundle's {bundle_bytes:,} "
                        f"(overlapping or altered zip entries: not checked)")
    unpacked = sum(info.file_size for info in infos)
    if limits.max_total_bytes is not None and unpacked > limits.max_total_bytes:
        problems.append(f"the bundle's files unzip to {unpacked:,} bytes, more than the {limits.max_total_bytes:,} "
                        f"of the largest export (not checked)")
    return problems


def _member_problem(name, info, listed_bytes, limits):
    """(state, problem) of a listed member refused from its zip header alone: a size other than the manifest's, or
    a zip bomb; (None, None) when it is to be hashed."""
    if info.file_size > listed_bytes:  # the same sentences as when hashing finds it
        return "altered", f"{name}: more than the {listed_bytes:,} bytes the manifest lists (altered)"
    if info.file_size < listed_bytes:
        return "altered", f"{name}: {info.file_size:,} bytes, the manifest lists {listed_bytes:,} (altered)"
    if info.file_size >= RATIO_FROM_BYTES and info.file_size > limits.max_ratio * max(info.compress_size, 1):
        return "unchecked", (f"{name}: {info.compress_size:,} zipped bytes that unzip to {info.file_size:,}, more "
                             f"than {limits.max_ratio}:1 (a zip bomb, not a bundle's file: not checked)")
    return None, None


def _is_directory(info):
    """A folder's own entry, which zip tools add when they zip a folder: no content, a name ending in '/'."""
    return info.filename.endswith("/") and info.file_size == 0


def bundled(infos):
    """(folder, [(name, info)]): the members under the names the manifest gives them. A bundle unzipped and zipped
    again by another tool holds the same files' bytes, in another order, compressed otherwise, with folders' own
    entries and perhaps all in one top folder (docs/exports.md, "A bundle zipped again"): folders' entries are left
    out and, when every file sits in one top folder beside ``manifest.json``, that folder is taken off the names.
    Anything else keeps its name, so a file added anywhere is still named as added."""
    files = [info for info in infos if not _is_directory(info)]
    tops = {info.filename.partition("/")[0] for info in files}
    folder = tops.pop() if len(tops) == 1 and all("/" in info.filename for info in files) else None
    if folder is None or not any(info.filename == f"{folder}/{MANIFEST}" for info in files):
        return None, [(info.filename, info) for info in files]
    return folder, [(info.filename[len(folder) + 1:], info) for info in files]


def members(archive):
    """A bundle's members by the names the manifest gives them (``bundled``), the first entry of a name twice."""
    by_name = {}
    for name, info in bundled(archive.infolist())[1]:
        by_name.setdefault(name, info)
    return by_name


def _verify(fileobj, public_key, limits, on_progress, keys):
    problems, files, signature_state, nested, checkpoints = [], {}, "unchecked", nesting.Nested(), {}
    try:
        refused = directory_problem(fileobj, limits)
        fileobj.seek(0, os.SEEK_END)
        bundle_bytes = fileobj.tell()
        fileobj.seek(0)
    except Exception as error:
        return Verification(False, [f"the bundle cannot be read as a zip file ({_reason(error)})"], None)
    if refused:
        return Verification(False, [refused], None)
    try:
        archive = zipfile.ZipFile(fileobj)
    except zipfile.BadZipFile:
        return Verification(False, ["the bundle is not a zip file: it may be another file, or one cut short on its "
                                    "way here; download the export again"], None)
    except Exception as error:
        return Verification(False, [f"the bundle cannot be read as a zip file ({_reason(error)})"], None)
    with archive:
        try:
            infos = archive.infolist()
        except Exception as error:  # pragma: no cover - infolist is a list built when opening
            return Verification(False, [f"the bundle cannot be read as a zip file ({_reason(error)})"], None)
        too_large = _size_problems(infos, limits, bundle_bytes)
        problems.extend(too_large)
        folder, named = bundled(infos)
        by_name, seen_twice = {}, []
        for name, info in named:
            if name in by_name and name not in seen_twice:
                seen_twice.append(name)
            by_name.setdefault(name, info)
        for name in seen_twice:
            count = sum(1 for other, _ in named if other == name)
            problems.append(f"{name}: in the bundle {count} times (a file was added)")
            files[name] = "added"

        manifest_data = signature = None
        if MANIFEST not in by_name:
            problems.append(f"{MANIFEST}: missing from the bundle")
        else:
            manifest_data, problem = _read_small(archive, MANIFEST, by_name[MANIFEST], MAX_MANIFEST_BYTES)
            if problem:
                problems.append(problem)
        if SIGNATURE not in by_name:
            problems.append(f"{SIGNATURE}: missing from the bundle (the manifest is not signed)")
            signature_state = "missing"
        else:
            signature, problem = _read_small(archive, SIGNATURE, by_name[SIGNATURE], MAX_SIGNATURE_BYTES)
            if problem:
                problems.append(problem)
                signature_state = "invalid"
        if manifest_data is not None and signature is not None:
            signature_state = _check_signature(manifest_data, signature, public_key, problems)

        manifest = None
        if manifest_data is not None:
            try:
                manifest = json.loads(manifest_data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError) as error:
                problems.append(f"{MANIFEST}: not valid JSON ({_reason(error)}): altered or not a bundle manifest")
            else:
                if not isinstance(manifest, dict):
                    problems.append(f"{MANIFEST}: not a JSON object (wrong format)")
                    manifest = None
                elif manifest.get("format") not in FORMATS:
                    problems.append(f"{MANIFEST}: format is {manifest.get('format')!r}, expected "
                                    f"{' or '.join(repr(f) for f in FORMATS)}")

        if manifest is not None:
            listed = _listed_files(manifest, problems)
            for done, (name, entry) in enumerate(sorted(listed.items())):
                if on_progress is not None:
                    on_progress(done, len(listed))
                info = by_name.get(name)
                if info is None:
                    problems.append(f"{name}: listed in the manifest but missing from the bundle")
                    files[name] = "missing"
                    continue
                if too_large:
                    files.setdefault(name, "unchecked")
                    continue
                state, problem = _member_problem(name, info, entry["bytes"], limits)
                if problem:
                    problems.append(problem)
                    files.setdefault(name, state)
                    continue
                sha, count, problem = _hash_entry(archive, name, info, entry["bytes"])
                if problem:
                    problems.append(problem)
                elif count != entry["bytes"]:
                    problems.append(f"{name}: {count:,} bytes, the manifest lists {entry['bytes']:,} (altered)")
                elif sha != entry["sha256"]:
                    problems.append(f"{name}: SHA-256 does not match the manifest (altered)")
                files.setdefault(name, "altered" if problem or count != entry["bytes"] or sha != entry["sha256"]
                                 else "ok")
            if on_progress is not None:
                on_progress(len(listed), len(listed))
            for name in by_name:
                if name not in listed and name not in RESERVED:
                    problems.append(f"{name}: in the bundle but not listed in the manifest")
                    files[name] = "added"
            if manifest.get("format") == FORMAT_3 and keys is not None:  # None: inside one (never nested deeper)
                nested = nesting.check(archive, by_name, manifest, files, problems, lambda inner, named: _verify(
                    inner, keys.get(named, public_key), limits, None, None))
            checkpoints = _checkpoints(archive, by_name, manifest, files, problems)
        else:
            # No manifest to check the files against: still say what the bundle holds unverified.
            others = [name for name in by_name if name not in RESERVED]
            for name in others:
                files.setdefault(name, "unchecked")
            if others and manifest_data is None:
                problems.append(f"no file could be checked ({len(others)} in the bundle, unverified)")
    return Verification(not problems, problems, manifest, files, signature_state, folder, nested.inner, nested.links,
                        checkpoints)
