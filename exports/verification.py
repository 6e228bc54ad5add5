"""Checking an uploaded audit export bundle: the one service behind the API (``POST /api/v1/exports/verify``)
and the regulator's verify page. The check itself is ``bundle.verify`` (docs/exports.md)."""

import json
import zipfile
from dataclasses import dataclass

from . import bundle, keys

MAX_PUBLIC_KEY_BYTES = 16 * 1024


class PublicKeyError(ValueError):
    """The public key given cannot be used; the message says why (a 400 on the ``public_key`` field)."""


def public_key_from(upload=None, text=None):
    """The key to verify against: the one uploaded (a file) or given as text; None for the installation's key that
    signed the bundle (``signer_of``)."""
    if upload is not None:
        if upload.size > MAX_PUBLIC_KEY_BYTES:
            raise PublicKeyError("This is far too large to be a public key.")
        text = upload.read()
    if text in (None, "", b""):
        return None
    try:
        return bundle.load_public_key(text)
    except (ValueError, TypeError) as error:
        raise PublicKeyError(f"Not an Ed25519 public key (PEM, or base64 of the raw 32 bytes): {error}.") from None


def signer_of(fileobj):
    """The installation's public key, current or rotated (``cardroom.models.SigningKey``), that the bundle's
    manifest names; the current key when it names none the installation has used."""
    from cardroom.models import SigningKey

    try:
        with zipfile.ZipFile(fileobj) as archive:
            info = archive.getinfo(bundle.MANIFEST)
            named = json.loads(archive.read(info)).get("signing_key") if info.file_size < (1 << 20) else None
    except Exception:  # an unreadable bundle: bundle.verify says what is wrong with it
        named = None
    finally:
        if hasattr(fileobj, "seek"):
            fileobj.seek(0)
    recorded = SigningKey.objects.filter(fingerprint=named).first() if isinstance(named, str) else None
    return bundle.load_public_key(recorded.public_key) if recorded is not None else keys.public_key()


def installation_fingerprints():
    from cardroom.models import SigningKey

    return {keys.key_fingerprint(), *SigningKey.objects.values_list("fingerprint", flat=True)}


@dataclass
class Checked:
    """A bundle's verification (``bundle.Verification``) and the key it was checked against."""

    verification: bundle.Verification
    public_key_fingerprint: str
    installation_key: bool  # checked against one of this installation's own keys (current or rotated)

    @property
    def ok(self):
        return self.verification.ok

    def as_dict(self):
        """The API's answer."""
        return {"ok": self.verification.ok, "problems": self.verification.problems,
                "manifest": self.verification.manifest, "public_key_fingerprint": self.public_key_fingerprint}


def verify_upload(upload, public_key=None):
    """Check an uploaded bundle (a Django ``UploadedFile``, spooled to disk when large) and close it.

    ``public_key``: a key from ``public_key_from``; None for the installation's key that signed it."""
    try:
        upload.seek(0)
        public_key = public_key if public_key is not None else signer_of(upload.file)
        result = bundle.verify(upload.file, public_key)
    finally:
        upload.close()
    fingerprint = bundle.fingerprint(public_key)
    return Checked(result, fingerprint, fingerprint in installation_fingerprints())
