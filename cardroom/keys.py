"""The installation's signing key: the Ed25519 key that signs every audit export bundle's manifest.

Where it comes from (settings, read from the environment):

- ``SIGNING_KEY``: the private key itself, as PEM (PKCS#8) text or base64 of the raw 32 bytes;
- else ``SIGNING_KEY_FILE`` (default ``var/signing-key.pem``): a PEM file. When it does not exist the first
  process that needs the key generates one and creates the file (mode 0600, its directory too). The file
  appears whole and at once (written aside, then hard-linked into place, which fails if another process got
  there first); a process that loses that race reads the winner's key, so both sign with the same key.

**Production should set the key explicitly**, and **with several hosts every host must have the same key**
(the same ``SIGNING_KEY``, or a ``SIGNING_KEY_FILE`` on shared storage): a key generated on the side by one host
would sign bundles that the others' public key (``GET /api/v1/exports/public-key``) does not verify. Losing the
key does not invalidate bundles already issued, as long as their public key was kept; regulators should record
the public key (or its fingerprint) when they first receive it.

The key is loaded once per process (per setting value) and cached.
"""

import logging
import os
import threading
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from . import bundle

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_cache = {}  # (setting, its value, the key file) -> private key
# (what the key is, the settings giving every host the same one): load_or_create's warning when it makes one.
SIGNING_KEY_WORDS = ("this installation's export signing key", "SIGNING_KEY or a shared SIGNING_KEY_FILE")


def installation_key() -> Ed25519PrivateKey:
    """This installation's Ed25519 private key."""
    path = Path(getattr(settings, "SIGNING_KEY_FILE", None) or Path(settings.BASE_DIR) / "var" / "signing-key.pem")
    return configured_key(getattr(settings, "SIGNING_KEY", "") or "", path, "SIGNING_KEY")


def configured_key(configured, path, setting, words=SIGNING_KEY_WORDS, check=None) -> Ed25519PrivateKey:
    """The key a ``setting`` gives (its text, ``configured``), else the one in the file ``path`` (made when missing),
    loaded once per process and value. ``check(key)`` may refuse it (ImproperlyConfigured), each time it is asked
    for, outside the lock: a check may load another key."""
    cache_key = (setting, configured, str(path))
    key = _cache.get(cache_key)
    if key is None:
        key = _load(cache_key, configured, path, setting, words)
    if check is not None:
        check(key)
    return key


def _load(cache_key, configured, path, setting, words):
    with _lock:
        key = _cache.get(cache_key)
        if key is None:
            if configured.strip():
                try:
                    key = bundle.load_private_key(configured)
                except ValueError as error:
                    raise ImproperlyConfigured(
                        f"{setting} is not an Ed25519 private key (PEM, or base64 of the raw 32 bytes): {error}"
                    ) from None
            else:
                try:
                    key = load_or_create(path, words)
                except ImproperlyConfigured as error:
                    raise ImproperlyConfigured(f"{setting}_FILE: {error}") from None
            _cache[cache_key] = key
    return key


def public_key() -> Ed25519PublicKey:
    """This installation's public key."""
    return installation_key().public_key()


def public_key_pem() -> str:
    return bundle.public_key_pem(installation_key())


def public_key_base64() -> str:
    """Base64 of the raw 32 bytes of the public key."""
    return bundle.public_key_base64(installation_key())


def key_fingerprint() -> str:
    """``SHA256:<hex>`` of the public key, as bundles' manifests and the verification name it."""
    return bundle.fingerprint(installation_key())


def _read(path: Path):
    """The key in ``path``; waits briefly for a file another process is still writing (no-link fallback)."""
    for attempt in range(50):
        data = path.read_bytes()
        if data.strip() or attempt == 49:
            break
        time.sleep(0.02)
    try:
        return bundle.load_private_key(data)
    except ValueError as error:
        raise ImproperlyConfigured(f"SIGNING_KEY_FILE {path} does not hold an Ed25519 private key: {error}") from None


def load_or_create(path, words=SIGNING_KEY_WORDS) -> Ed25519PrivateKey:
    """The key in the PEM file ``path``, generated and written there (0600) if the file does not exist. ``words``:
    (what the key is, the settings that give every host the same one), for the warning when one is generated."""
    path = Path(path)
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = bundle.generate_private_key()
    pem = bundle.private_key_pem(key).encode("ascii")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    descriptor = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)  # atomic, and refuses to replace a key another process put there first
        except FileExistsError:
            return _read(path)
        except OSError:
            # A file system without hard links: create the file exclusively and write it in place.
            try:
                descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                return _read(path)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(pem)
                handle.flush()
                os.fsync(handle.fileno())
    finally:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
    logger.warning(
        "Generated %s in %s (%s). Keep it; with several hosts give every host the same key (%s).",
        words[0], path, bundle.fingerprint(key), words[1])
    return key
