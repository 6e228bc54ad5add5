"""The audit export bundle's names and sizes, and its Ed25519 keys: loading (PEM or base64), writing them out,
fingerprints, and the manifest's canonical JSON. Plain Python (no Django); ``cardroom.bundle`` re-exports it all."""

import base64
import binascii
import hashlib
import json

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

# The bundle's format, named in its manifest. 1: every kind as CSV and JSON; 2: each kind once, as CSV described
# in columns.json (types, units, currencies, time zones), JSON only where a record nests; 3: a bundle of bundles, a
# period whose months are (partly) closed: their own bundles, unchanged, and one of the open days, with the proofs
# linking their audit checkpoints (``cardroom.bundle.nesting``). A verifier reads all three.
FORMAT_1 = "cardroom-audit-bundle/1"
FORMAT_2 = "cardroom-audit-bundle/2"
FORMAT_3 = "cardroom-audit-bundle/3"
FORMAT = FORMAT_2  # what BundleWriter writes unless told (``finish(..., format=FORMAT_3)``)
FORMATS = (FORMAT_1, FORMAT_2, FORMAT_3)  # what verify accepts
INNER_FORMATS = (FORMAT_1, FORMAT_2)  # what a bundle of bundles may hold: no bundle of bundles inside another
BUNDLES = "bundles/"  # a bundle of bundles' inner bundles: bundles/<name>.zip
LINKS = "links/"  # its consistency proofs between inner bundles' checkpoints: links/<chain>.<old>-<new>.txt
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
RESERVED = (MANIFEST, SIGNATURE)
COMPRESS_LEVEL = 1  # deflate level: speed over size (the CSVs compress well at any level)
CHUNK = 1 << 20  # bytes read at a time when hashing
# A manifest lists ~20 files and the audit chains' heads: a few kB (1,000 files would be ~150 kB).
MAX_MANIFEST_BYTES = 1 << 20
MAX_SIGNATURE_BYTES = 4096
# A checkpoint is its body and a signature line per signer: under 1 kB with a few witnesses' cosignatures.
MAX_CHECKPOINT_BYTES = 64 * 1024
# A member's record in the zip's central directory: 46 bytes, its name (a bundle's are short) and a zip64 extra.
DIRECTORY_BYTES_PER_MEMBER = 1024
RATIO_FROM_BYTES = 1 << 20  # a member smaller than this cannot be a zip bomb; its ratio is not checked


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
