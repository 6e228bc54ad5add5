"""The audit export bundle: a zip of data files, a manifest of their SHA-256 hashes, and an Ed25519 signature.

Plain Python (no Django), so a bundle can be checked anywhere with this file, ``cryptography`` and the
installation's public key. The format (docs/exports.md, "Bundle format and verification"):

- data files, each a zip entry (deflated), named freely but uniquely (``report.pdf``, ``ledger_entries.csv``...);
- ``manifest.json``: the exporter's fields (period, generator, audit chain heads...) plus ``"format":
  "cardroom-audit-bundle/1"`` and ``"files"``: ``[{"name", "sha256", "bytes", "rows"?}]`` sorted by name,
  serialized canonically (``json.dumps(sort_keys=True, indent=2, ensure_ascii=False)``, UTF-8);
- ``manifest.sig``: the Ed25519 signature over the exact bytes of ``manifest.json``, base64, one line.

Writing::

    with BundleWriter(path) as writer:
        with writer.open("ledger_entries.csv") as f:
            f.write(b"...")          # streamed into the zip, hashed and counted on the way
            f.rows = 1234            # optional: goes into the manifest entry
        writer.add_bytes("report.pdf", pdf)
        writer.finish({"period": {...}}, private_key)

Checking: ``verify(path, public_key)`` returns a ``Verification`` (ok, problems, manifest, and each file's
state and the signature's for a page to show); it never raises on a malformed or tampered bundle, every problem
is a sentence naming the file concerned.
"""

import base64
import binascii
import hashlib
import json
import os
import re
import struct
import time
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

FORMAT = "cardroom-audit-bundle/1"
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
RESERVED = (MANIFEST, SIGNATURE)
COMPRESS_LEVEL = 1  # deflate level: speed over size (the CSVs compress well at any level)
CHUNK = 1 << 20  # bytes read at a time when hashing
# A manifest lists ~30 files and the audit chains' heads: a few kB (1,000 files would be ~150 kB).
MAX_MANIFEST_BYTES = 1 << 20
MAX_SIGNATURE_BYTES = 4096
# A member's record in the zip's central directory: 46 bytes, its name (a bundle's are short) and a zip64 extra.
DIRECTORY_BYTES_PER_MEMBER = 1024
RATIO_FROM_BYTES = 1 << 20  # a member smaller than this cannot be a zip bomb; its ratio is not checked

_SHA256 = re.compile(r"[0-9a-f]{64}")


# --- keys -----------------------------------------------------------------------------------------------------


def generate_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def _text(data) -> str:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data).decode("ascii")
    if isinstance(data, str):
        return data
    raise TypeError(f"expected PEM or base64 text, not {type(data).__name__}")


def _raw_base64(text: str, what: str) -> bytes:
    try:
        raw = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"not an Ed25519 {what} key: expected PEM, or base64 of the raw 32 bytes") from None
    if len(raw) != 32:
        raise ValueError(f"not an Ed25519 {what} key: base64 decodes to {len(raw)} bytes, expected 32")
    return raw


def load_private_key(pem_bytes) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (PKCS#8, unencrypted) or base64 of the raw 32 bytes (str or bytes).

    Raises ValueError when it is neither."""
    if isinstance(pem_bytes, Ed25519PrivateKey):
        return pem_bytes
    try:
        text = _text(pem_bytes).strip()
    except UnicodeDecodeError:
        raise ValueError("not an Ed25519 private key: expected PEM or base64 text") from None
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        except (ValueError, TypeError) as error:
            raise ValueError(f"not a usable PEM private key: {error}") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"the PEM holds a {type(key).__name__.lstrip('_')}, not an Ed25519 private key")
        return key
    return Ed25519PrivateKey.from_private_bytes(_raw_base64(text, "private"))


def load_public_key(pem_or_raw_base64) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM (SubjectPublicKeyInfo) or base64 of the raw 32 bytes (str or bytes).

    A key object is passed through (a private key gives its public key). Raises ValueError otherwise."""
    if isinstance(pem_or_raw_base64, Ed25519PublicKey):
        return pem_or_raw_base64
    if isinstance(pem_or_raw_base64, Ed25519PrivateKey):
        return pem_or_raw_base64.public_key()
    try:
        text = _text(pem_or_raw_base64).strip()
    except UnicodeDecodeError:
        raise ValueError("not an Ed25519 public key: expected PEM or base64 text") from None
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(text.encode())
        except (ValueError, TypeError) as error:
            raise ValueError(f"not a usable PEM public key: {error}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError(f"the PEM holds a {type(key).__name__.lstrip('_')}, not an Ed25519 public key")
        return key
    return Ed25519PublicKey.from_public_bytes(_raw_base64(text, "public"))


def private_key_pem(key: Ed25519PrivateKey) -> str:
    """PEM text (PKCS#8, unencrypted) of a private key."""
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")


def _public(key_or_public) -> Ed25519PublicKey:
    if isinstance(key_or_public, Ed25519PrivateKey):
        return key_or_public.public_key()
    if isinstance(key_or_public, Ed25519PublicKey):
        return key_or_public
    raise TypeError(f"expected an Ed25519 key, not {type(key_or_public).__name__}")


def public_key_pem(key_or_public) -> str:
    """PEM text (SubjectPublicKeyInfo) of a public key, or of a private key's public key."""
    return _public(key_or_public).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def public_key_raw(key_or_public) -> bytes:
    """The raw 32 bytes of a public key."""
    return _public(key_or_public).public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_base64(key_or_public) -> str:
    """Base64 of the raw 32 bytes of a public key (what ``load_public_key`` also accepts)."""
    return base64.b64encode(public_key_raw(key_or_public)).decode("ascii")


def fingerprint(public_key) -> str:
    """``SHA256:<hex>``: the SHA-256 of the raw public key bytes (a private key gives its public key's)."""
    return "SHA256:" + hashlib.sha256(public_key_raw(public_key)).hexdigest()


def canonical_json(manifest: dict) -> bytes:
    """The exact bytes of manifest.json for a manifest."""
    return json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False).encode("utf-8")


# --- writing --------------------------------------------------------------------------------------------------


def check_name(name) -> str:
    """A data file's name: a relative path of plain parts, and not one of the manifest's own files."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a file in the bundle needs a non-empty name, not {name!r}")
    if name in RESERVED:
        raise ValueError(f"{name} is the bundle's own file; a data file cannot be called that")
    if "\\" in name or "\x00" in name or name.startswith("/") or any(
        part in ("", ".", "..") for part in name.split("/")
    ):
        raise ValueError(f"{name!r} is not a usable file name in a bundle (relative path, plain parts)")
    return name


class _Entry:
    """The binary file a data entry is written through: streams into the zip, hashing and counting."""

    def __init__(self, stream):
        self._stream = stream
        self._sha256 = hashlib.sha256()
        self.bytes = 0
        self.rows = None

    def write(self, data) -> int:
        data = memoryview(data).cast("B")
        self._stream.write(data)
        self._sha256.update(data)
        self.bytes += len(data)
        return len(data)

    def writable(self):
        return True

    def flush(self):
        pass

    @property
    def sha256(self) -> str:
        return self._sha256.hexdigest()


class BundleWriter:
    """Writes a bundle: data files (streamed, hashed on the way), then ``finish`` signs and closes it.

    ``path_or_fileobj`` is a path or a binary file object open for writing (left open by ``finish``).
    Use it as a context manager: leaving the block without ``finish`` (because of an exception) closes
    the zip, which is then incomplete and fails verification."""

    def __init__(self, path_or_fileobj):
        self._zip = zipfile.ZipFile(
            path_or_fileobj, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=COMPRESS_LEVEL, allowZip64=True
        )
        self._files = {}
        self._open_entry = None
        self._broken = False
        self._finished = False

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        unfinished = not self._finished
        self.close()
        if exc_type is None and unfinished:
            raise RuntimeError("BundleWriter closed without finish(): the bundle has no signed manifest")
        return False

    def close(self):
        """Close the zip (without a manifest unless ``finish`` ran)."""
        self._finished = True
        self._zip.close()

    def _zipinfo(self, name):
        info = zipfile.ZipInfo(name, date_time=time.localtime(time.time())[:6])
        info.compress_type = zipfile.ZIP_DEFLATED
        if hasattr(info, "compress_level"):  # Python 3.13+
            info.compress_level = COMPRESS_LEVEL
        else:
            info._compresslevel = COMPRESS_LEVEL
        info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
        return info

    def _check_writable(self):
        if self._finished:
            raise RuntimeError("the bundle is finished (or closed): nothing more can be written to it")
        if self._broken:
            raise RuntimeError("an earlier file failed while being written: this bundle cannot be finished")
        if self._open_entry is not None:
            raise RuntimeError(f"{self._open_entry} is still being written: close it first")

    @contextmanager
    def open(self, name):
        """``with writer.open(name) as f: f.write(data)``; set ``f.rows`` to record a row count."""
        check_name(name)
        self._check_writable()
        if name in self._files:
            raise ValueError(f"{name} is already in the bundle")
        self._open_entry = name
        try:
            with self._zip.open(self._zipinfo(name), "w", force_zip64=True) as stream:
                entry = _Entry(stream)
                yield entry
        except BaseException:
            self._broken = True
            raise
        finally:
            self._open_entry = None
        record = {"name": name, "sha256": entry.sha256, "bytes": entry.bytes}
        if entry.rows is not None:
            record["rows"] = entry.rows
        self._files[name] = record

    def add_bytes(self, name, data, rows=None):
        with self.open(name) as entry:
            entry.write(data)
            entry.rows = rows

    @property
    def files(self) -> list:
        """The manifest's ``files`` so far, sorted by name."""
        return [dict(self._files[name]) for name in sorted(self._files)]

    def finish(self, manifest: dict, private_key: Ed25519PrivateKey) -> dict:
        """Write manifest.json (``manifest`` plus ``format`` and ``files``) and manifest.sig, close the zip.

        Returns the manifest as written."""
        self._check_writable()
        if not isinstance(private_key, Ed25519PrivateKey):
            raise TypeError(f"the bundle is signed with an Ed25519 private key, not {type(private_key).__name__}")
        if not isinstance(manifest, dict):
            raise TypeError("the manifest is a dict")
        taken = {"format", "files"} & set(manifest)
        if taken:
            raise ValueError(f"the manifest's {', '.join(sorted(taken))} are written by the bundle itself")
        full = {**manifest, "format": FORMAT, "files": self.files}
        data = canonical_json(full)
        signature = base64.b64encode(private_key.sign(data)) + b"\n"
        for name, content in ((MANIFEST, data), (SIGNATURE, signature)):
            with self._zip.open(self._zipinfo(name), "w") as stream:
                stream.write(content)
        self.close()
        return json.loads(data)


# --- verifying ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """What a bundle may claim to hold before a byte of it is unpacked (docs/exports.md, "Limits"). A real bundle
    holds ~30 files (the kinds as CSV and JSON, columns.json, the report, a checkpoint or two per audit chain)."""

    max_members: int = 1000
    # All members unzipped, as their zip headers declare them; None: no cap (the service sets one).
    max_total_bytes: int | None = None
    # Unzipped to zipped, per member: level-1 deflate of the bundle's CSV and JSON stays under ~50:1; a zip bomb
    # reaches ~1,000:1.
    max_ratio: int = 200


_END = struct.Struct("<4s4H2LH")  # end of central directory: signature, disks, entries (disk, total), size, offset
_END64_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")  # zip64 end record: ..., entries (disk, total), size, offset


def _end_record(fileobj):
    """(members, central directory bytes, bundle bytes) as the zip's end record states them, read from the last
    64 kB the way ``zipfile`` finds it; None when there is none (``zipfile`` then says it is not a zip)."""
    fileobj.seek(0, os.SEEK_END)
    size = fileobj.tell()
    start = max(0, size - _END.size - 0xFFFF)  # the record, after a comment of up to 65,535 bytes
    fileobj.seek(start)
    tail = fileobj.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        return None
    members, directory = _END.unpack_from(tail, at)[4:6]
    if members == 0xFFFF or directory == 0xFFFFFFFF:  # zip64: the real figures sit just before its locator
        where = start + at - _END64_LOCATOR.size - _END64.size
        if where >= 0:
            fileobj.seek(where)
            record = fileobj.read(_END64.size)
            if len(record) == _END64.size and record[:4] == b"PK\x06\x06":
                members, directory = _END64.unpack(record)[7:9]
    return members, directory, size


def directory_problem(fileobj, limits) -> str | None:
    """Why a bundle's zip directory is refused before it is read (``zipfile`` would build a record of every
    member, ~1 kB each, whatever their number); None when it is within ``limits``. Leaves ``fileobj`` at 0."""
    try:
        found = _end_record(fileobj)
    except (OSError, ValueError):
        found = None  # zipfile says what is wrong
    finally:
        fileobj.seek(0)
    if found is None:
        return None
    members, directory, _ = found
    if members > limits.max_members:
        return (f"the bundle holds {members:,} files, more than the {limits.max_members:,} a bundle may hold "
                f"(not checked)")
    most = limits.max_members * DIRECTORY_BYTES_PER_MEMBER
    if directory > most:
        return (f"the bundle's zip directory is {directory:,} bytes, more than the {most:,} of "
                f"{limits.max_members:,} files (not checked)")
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

    def named(self, status):
        """The files of one status, sorted by name."""
        return sorted(name for name, seen in self.files.items() if seen == status)


def _reason(error) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _read_small(archive, info, limit):
    """(bytes, problem) of a small entry: the manifest or its signature."""
    if info.file_size > limit:
        return None, f"{info.filename}: {info.file_size:,} bytes, far too large for a {info.filename} (altered)"
    try:
        with archive.open(info) as stream:
            data = stream.read(limit + 1)
    except zipfile.BadZipFile as error:
        return None, f"{info.filename}: altered (its zip entry fails its integrity check: {error})"
    except Exception as error:  # zlib.error, EOFError, encrypted entries...: a damaged bundle, reported
        return None, f"{info.filename}: altered or corrupt, it cannot be read ({_reason(error)})"
    if len(data) > limit:
        return None, f"{info.filename}: far too large for a {info.filename} (altered)"
    return data, None


def _hash_entry(archive, info, expected_bytes):
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
                        f"{info.filename}: more than the {expected_bytes:,} bytes the manifest lists (altered)"
                    )
    except zipfile.BadZipFile as error:
        return None, count, f"{info.filename}: altered (its zip entry fails its integrity check: {error})"
    except Exception as error:
        return None, count, f"{info.filename}: altered or corrupt, it cannot be read ({_reason(error)})"
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


def verify(path_or_fileobj, public_key, limits=None, on_progress=None) -> Verification:
    """Check a bundle against a public key (anything ``load_public_key`` takes): every problem, by file.

    ``limits`` (``Limits()`` by default) bound what is read: a bundle past them is refused with the reason, before
    its files are unpacked. ``on_progress(done, total)`` is called as the listed files are checked.
    Never raises because of the bundle; an unusable ``public_key`` is the caller's error (ValueError)."""
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
            return _verify(fileobj, public_key, limits, on_progress)
    return _verify(path_or_fileobj, public_key, limits, on_progress)


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


def _verify(fileobj, public_key, limits, on_progress):
    problems, files, signature_state = [], {}, "unchecked"
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
    except zipfile.BadZipFile as error:
        return Verification(False, [f"the bundle is not a zip file ({error})"], None)
    except Exception as error:
        return Verification(False, [f"the bundle cannot be read as a zip file ({_reason(error)})"], None)
    with archive:
        try:
            infos = archive.infolist()
        except Exception as error:  # pragma: no cover - infolist is a list built when opening
            return Verification(False, [f"the bundle cannot be read as a zip file ({_reason(error)})"], None)
        too_large = _size_problems(infos, limits, bundle_bytes)
        problems.extend(too_large)
        by_name, seen_twice = {}, []
        for info in infos:
            if info.filename in by_name and info.filename not in seen_twice:
                seen_twice.append(info.filename)
            by_name.setdefault(info.filename, info)
        for name in seen_twice:
            count = sum(1 for info in infos if info.filename == name)
            problems.append(f"{name}: in the bundle {count} times (a file was added)")
            files[name] = "added"

        manifest_data = signature = None
        if MANIFEST not in by_name:
            problems.append(f"{MANIFEST}: missing from the bundle")
        else:
            manifest_data, problem = _read_small(archive, by_name[MANIFEST], MAX_MANIFEST_BYTES)
            if problem:
                problems.append(problem)
        if SIGNATURE not in by_name:
            problems.append(f"{SIGNATURE}: missing from the bundle (the manifest is not signed)")
            signature_state = "missing"
        else:
            signature, problem = _read_small(archive, by_name[SIGNATURE], MAX_SIGNATURE_BYTES)
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
                elif manifest.get("format") != FORMAT:
                    problems.append(f"{MANIFEST}: format is {manifest.get('format')!r}, expected {FORMAT!r}")

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
                sha, count, problem = _hash_entry(archive, info, entry["bytes"])
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
        else:
            # No manifest to check the files against: still say what the bundle holds unverified.
            others = [name for name in by_name if name not in RESERVED]
            for name in others:
                files.setdefault(name, "unchecked")
            if others and manifest_data is None:
                problems.append(f"no file could be checked ({len(others)} in the bundle, unverified)")
    return Verification(not problems, problems, manifest, files, signature_state)
