"""Writing an audit export bundle: ``BundleWriter`` streams the data files into the zip, hashing and counting them,
then signs the manifest (the format: ``cardroom.bundle``). Plain Python (no Django)."""

import base64
import hashlib
import json
import time
import zipfile
from contextlib import contextmanager

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .format import COMPRESS_LEVEL, FORMAT, FORMATS, MANIFEST, RESERVED, SIGNATURE, canonical_json


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

    def _zipinfo(self, name, stored=False):
        info = zipfile.ZipInfo(name, date_time=time.localtime(time.time())[:6])
        info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
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
    def open(self, name, *, stored=False):
        """``with writer.open(name) as f: f.write(data)``; set ``f.rows`` to record a row count. ``stored``: put
        in the zip as it is, not deflated (a file compressed already, such as an inner bundle: deflating it again
        costs time and saves nothing). After the block ``f.sha256`` and ``f.bytes`` are the file's."""
        check_name(name)
        self._check_writable()
        if name in self._files:
            raise ValueError(f"{name} is already in the bundle")
        self._open_entry = name
        try:
            with self._zip.open(self._zipinfo(name, stored), "w", force_zip64=True) as stream:
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

    def finish(self, manifest: dict, private_key: Ed25519PrivateKey, *, format=None) -> dict:
        """Write manifest.json (``manifest`` plus ``format``, ``FORMAT`` unless given, and ``files``) and
        manifest.sig, close the zip.

        Returns the manifest as written."""
        self._check_writable()
        format = format or FORMAT
        if format not in FORMATS:
            raise ValueError(f"{format!r} is not a bundle format ({', '.join(FORMATS)})")
        if not isinstance(private_key, Ed25519PrivateKey):
            raise TypeError(f"the bundle is signed with an Ed25519 private key, not {type(private_key).__name__}")
        if not isinstance(manifest, dict):
            raise TypeError("the manifest is a dict")
        taken = {"format", "files"} & set(manifest)
        if taken:
            raise ValueError(f"the manifest's {', '.join(sorted(taken))} are written by the bundle itself")
        full = {**manifest, "format": format, "files": self.files}
        data = canonical_json(full)
        signature = base64.b64encode(private_key.sign(data)) + b"\n"
        for name, content in ((MANIFEST, data), (SIGNATURE, signature)):
            with self._zip.open(self._zipinfo(name), "w") as stream:
                stream.write(content)
        self.close()
        return json.loads(data)
