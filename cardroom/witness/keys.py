"""The witness's own Ed25519 key: WITNESS_KEY, else WITNESS_KEY_FILE (created when missing), as cardroom.keys loads
the signing key and with its code. It must differ from the signing key: a witness's cosignature and the log's own
signature are different statements, and C2SP tlog-cosignature asks a distinct key for each cosigner. Loaded once per
process (per setting value) and cached."""

import threading
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from .. import bundle, checkpoint
from .. import keys as installation_keys
from ..tlog import cosignature

_lock = threading.Lock()
_cache = {}  # (WITNESS_KEY, WITNESS_KEY_FILE) -> private key


def enabled() -> bool:
    """Whether this installation is a witness (WITNESS_NAME set)."""
    return bool(settings.WITNESS_NAME)


def name() -> str:
    return settings.WITNESS_NAME


def witness_key() -> Ed25519PrivateKey:
    """The witness's private key; ImproperlyConfigured when it is not a key or is the signing key."""
    configured = settings.WITNESS_KEY or ""
    path = Path(settings.WITNESS_KEY_FILE)
    cache_key = (configured, str(path))
    key = _cache.get(cache_key)
    if key is not None:
        return key
    with _lock:
        key = _cache.get(cache_key)
        if key is None:
            if configured.strip():
                try:
                    key = bundle.load_private_key(configured)
                except ValueError as error:
                    raise ImproperlyConfigured(f"WITNESS_KEY is not an Ed25519 private key (PEM, or base64 of the "
                                               f"raw 32 bytes): {error}") from None
            else:
                try:
                    key = installation_keys.load_or_create(
                        path, ("this installation's witness key", "WITNESS_KEY or a shared WITNESS_KEY_FILE"))
                except ImproperlyConfigured as error:
                    raise ImproperlyConfigured(f"WITNESS_KEY_FILE: {error}") from None
            raw = checkpoint.raw_public_key(key.public_key())
            if raw == checkpoint.raw_public_key(installation_keys.public_key()):
                raise ImproperlyConfigured("The witness key (WITNESS_KEY / WITNESS_KEY_FILE) is the signing key: a "
                                           "witness cosigns with a key of its own.")
            _cache[cache_key] = key
    return key


def verifier_key() -> str:
    """The witness's public key as the rooms it witnesses configure it (C2SP vkey, type 0x04)."""
    return cosignature.verifier_key(name(), witness_key().public_key())
