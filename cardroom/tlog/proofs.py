"""The verifier's text formats (``cardroom.tlog``): inclusion, consistency and range proofs, written and read, and
``Unreadable``, the error for an input that is not what it should be. Plain Python (no Django)."""

import base64
import binascii
from dataclasses import dataclass

INCLUSION = "c2sp.org/tlog-proof@v1"
CONSISTENCY = "cardroom/tlog-consistency@v1"
RANGE = "cardroom/tlog-range@v1"
ORIGIN_PREFIX = "cardroom/audit/"  # the origins' default start (settings.AUDIT_LOG_ORIGIN is the installation's)


class Unreadable(ValueError):
    """An input that is not what it should be (exit 2); the message says which and why."""


# -- the text formats ------------------------------------------------------------------------------------------------


def b64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def unb64(text, what):
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Unreadable(f"{what} is not base64: {text[:40]!r}.") from None


def _proof_text(header, fields, hashes, note):
    lines = [header, *(f"{name} {value}" for name, value in fields), *(b64(h) for h in hashes)]
    return "\n".join(lines) + "\n\n" + note


def inclusion_text(index, path, note, entry_bytes=None):
    fields = ([("extra", b64(entry_bytes))] if entry_bytes is not None else []) + [("index", index)]
    return _proof_text(INCLUSION, fields, path, note)


def consistency_text(old_size, proof, note):
    return _proof_text(CONSISTENCY, [("old", old_size)], proof, note)


def range_text(start, end, proof, note):
    return _proof_text(RANGE, [("start", start), ("end", end)], proof, note)


@dataclass
class Proof:
    kind: str
    fields: dict  # name -> text
    hashes: list  # bytes
    note: str  # the checkpoint that follows
    used: bool = False  # a proof given to the verifier that a check relied on

    def number(self, name):
        value = self.fields.get(name, "")
        if not value.isdigit() or (value != "0" and value.startswith("0")):
            raise Unreadable(f"the proof's '{name}' line is missing or not a number.")
        return int(value)


def parse_proof(text, kind):
    """A proof of ``kind`` (its first line) read from its text."""
    head, blank, note = text.partition("\n\n")
    lines = head.split("\n")
    if lines[0] != kind:
        raise Unreadable(f"not a proof of the kind {kind!r}: its first line is {lines[0][:60]!r}.")
    if not blank or not note:
        raise Unreadable("the proof has no checkpoint after its blank line.")
    fields, hashes = {}, []
    for line in lines[1:]:
        name, space, value = line.partition(" ")
        if space and not hashes and name.isalpha():
            fields[name] = value
        else:
            digest = unb64(line, "a proof hash")
            if len(digest) != 32:
                raise Unreadable("a proof hash is not 32 bytes.")
            hashes.append(digest)
    return Proof(kind, fields, hashes, note)
