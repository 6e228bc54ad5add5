"""The audit export bundle: a zip of data files, a manifest of their SHA-256 hashes, and an Ed25519 signature.

Plain Python (no Django), so a bundle can be checked anywhere with this file, ``cryptography`` and the
installation's public key. The format (docs/exports.md, "Bundle format and verification"):

- data files, each a zip entry (deflated; a bundle of bundles' inner bundles stored), named freely but uniquely
  (``report.pdf``, ``ledger_entries.csv``...);
- ``manifest.json``: the exporter's fields (period, generator, audit chain heads...) plus ``"format":
  "cardroom-audit-bundle/2"`` (``FORMAT``; ``/1``, the format before it, is still verified: ``FORMATS``; ``/3`` is a
  bundle of bundles, a period with closed months: ``.nesting``) and
  ``"files"``: ``[{"name", "sha256", "bytes", "rows"?}]`` sorted by name,
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

The parts: ``.format`` (names, sizes, keys, canonical JSON, the formats), ``.writing`` (writing),
``.verification`` (checking, with its limits), ``.nesting`` (what a bundle of bundles adds to the checks) and
``.reading`` (a format-2 CSV file read back as columns.json
types it); this package gathers the first three under one name.
"""

from .format import (
    CHUNK,
    COMPRESS_LEVEL,
    DIRECTORY_BYTES_PER_MEMBER,
    FORMAT,
    FORMAT_1,
    FORMAT_2,
    FORMAT_3,
    FORMATS,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    MAX_SIGNATURE_BYTES,
    RATIO_FROM_BYTES,
    RESERVED,
    SIGNATURE,
    canonical_json,
    fingerprint,
    generate_private_key,
    load_private_key,
    load_public_key,
    private_key_pem,
    public_key_base64,
    public_key_pem,
    public_key_raw,
)
from .verification import Limits, Verification, directory_problem, verify
from .writing import BundleWriter, check_name

__all__ = [
    "CHUNK", "COMPRESS_LEVEL", "DIRECTORY_BYTES_PER_MEMBER", "FORMAT", "FORMAT_1", "FORMAT_2", "FORMAT_3", "FORMATS",
    "MANIFEST",
    "MAX_MANIFEST_BYTES", "MAX_SIGNATURE_BYTES", "RATIO_FROM_BYTES", "RESERVED", "SIGNATURE",
    "canonical_json", "fingerprint", "generate_private_key", "load_private_key", "load_public_key",
    "private_key_pem", "public_key_base64", "public_key_pem", "public_key_raw",
    "BundleWriter", "check_name",
    "Limits", "Verification", "directory_problem", "verify",
]
