"""The witness's own Ed25519 key: WITNESS_KEY, else WITNESS_KEY_FILE (created when missing), as cardroom.keys loads
the signing key and with its code. It must differ from the signing key: a witness's cosignature and the log's own
signature are different statements, and C2SP tlog-cosignature asks a distinct key for each cosigner. Loaded once per
process (per setting value) and cached."""

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from .. import checkpoint
from .. import keys as installation_keys
from ..tlog import cosignature


def enabled() -> bool:
    """Whether this installation is a witness (WITNESS_NAME set)."""
    return bool(settings.WITNESS_NAME)


def name() -> str:
    return settings.WITNESS_NAME


def witness_key() -> Ed25519PrivateKey:
    """The witness's private key; ImproperlyConfigured when it is not a key or is the signing key."""
    return installation_keys.configured_key(
        settings.WITNESS_KEY or "", Path(settings.WITNESS_KEY_FILE), "WITNESS_KEY",
        ("this installation's witness key", "WITNESS_KEY or a shared WITNESS_KEY_FILE"), check=_not_the_signing_key)


def _not_the_signing_key(key):
    if checkpoint.raw_public_key(key.public_key()) == checkpoint.raw_public_key(installation_keys.public_key()):
        raise ImproperlyConfigured("The witness key (WITNESS_KEY / WITNESS_KEY_FILE) is the signing key: a witness "
                                   "cosigns with a key of its own.")


def verifier_key() -> str:
    """The witness's public key as the rooms it witnesses configure it (C2SP vkey, type 0x04)."""
    return cosignature.verifier_key(name(), witness_key().public_key())
