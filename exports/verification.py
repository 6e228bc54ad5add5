"""Checking an uploaded audit export bundle: the one service behind the API (``POST /api/v1/exports/verify``)
and the regulator's verify page. The check itself is ``bundle.verify`` (docs/exports.md)."""

from dataclasses import dataclass

from . import bundle, keys

MAX_PUBLIC_KEY_BYTES = 16 * 1024


class PublicKeyError(ValueError):
    """The public key given cannot be used; the message says why (a 400 on the ``public_key`` field)."""


def public_key_from(upload=None, text=None):
    """The key to verify against: the one uploaded (a file) or given as text, else this installation's."""
    if upload is not None:
        if upload.size > MAX_PUBLIC_KEY_BYTES:
            raise PublicKeyError("This is far too large to be a public key.")
        text = upload.read()
    if text in (None, "", b""):
        return keys.public_key()
    try:
        return bundle.load_public_key(text)
    except (ValueError, TypeError) as error:
        raise PublicKeyError(f"Not an Ed25519 public key (PEM, or base64 of the raw 32 bytes): {error}.") from None


@dataclass
class Checked:
    """A bundle's verification (``bundle.Verification``) and the key it was checked against."""

    verification: bundle.Verification
    public_key_fingerprint: str
    installation_key: bool  # checked against this installation's own key

    @property
    def ok(self):
        return self.verification.ok

    def as_dict(self):
        """The API's answer."""
        return {"ok": self.verification.ok, "problems": self.verification.problems,
                "manifest": self.verification.manifest, "public_key_fingerprint": self.public_key_fingerprint}


def verify_upload(upload, public_key=None):
    """Check an uploaded bundle (a Django ``UploadedFile``, spooled to disk when large) and close it.

    ``public_key``: a key from ``public_key_from``; None for this installation's."""
    public_key = public_key if public_key is not None else keys.public_key()
    try:
        upload.seek(0)
        result = bundle.verify(upload.file, public_key)
    finally:
        upload.close()
    fingerprint = bundle.fingerprint(public_key)
    return Checked(result, fingerprint, fingerprint == keys.key_fingerprint())
