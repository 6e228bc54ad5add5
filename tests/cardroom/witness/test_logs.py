"""Which logs a witness trusts: WITNESS_LOGS as the environment writes it (cardroom.witness.logs), a malformed
value stopping start-up, and each origin given the keys of the longest prefix it starts with."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardroom import checkpoint
from cardroom.witness import logs

ROOT = Path(__file__).resolve().parents[3]
# Keys from fixed seeds: the parametrized cases below name them, and every test process must collect the same names.
ROOM, OTHER = (Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest()).public_key()
               for seed in (b"the room", b"another log"))
ROOM_VKEY, OTHER_VKEY = checkpoint.verifier_key("cardroom", ROOM), checkpoint.verifier_key("example.org/log", OTHER)


def raw(public_key):
    return checkpoint.raw_public_key(public_key)


def test_entries_separated_by_semicolons_or_newlines():
    parsed = logs.parse(f" cardroom/audit/ {ROOM_VKEY} ;\nexample.org/log {OTHER_VKEY}  {ROOM_VKEY};;")
    assert parsed == (("cardroom/audit/", (ROOM_VKEY,)), ("example.org/log", (OTHER_VKEY, ROOM_VKEY)))
    assert logs.parse("") == () and logs.parse(" ; \n") == ()


def test_an_origin_takes_the_keys_of_its_longest_prefix():
    parsed = logs.parse(f"cardroom/audit/ {ROOM_VKEY}; cardroom/audit/installation {OTHER_VKEY}")
    [(name, key)] = logs.trusted_keys("cardroom/audit/establishment:3", parsed)
    assert (name, raw(key)) == ("cardroom", raw(ROOM))
    [(name, key)] = logs.trusted_keys("cardroom/audit/installation", parsed)
    assert (name, raw(key)) == ("example.org/log", raw(OTHER))
    assert logs.trusted_keys("cardroom/audit", parsed) is None
    assert logs.trusted_keys("example.org/log", parsed) is None


@pytest.mark.parametrize(("text", "match"), [
    ("cardroom/audit/", "names no verifier key"),
    ("cardroom/audit/ not-a-key", "not a verifier key"),
    (f"cardroom/audit/ {ROOM_VKEY.replace('+', '+00', 1)}", "does not match"),  # a key id that is not its own
    (f"cardroom/audit/ {ROOM_VKEY}; cardroom/audit/ {OTHER_VKEY}", "given twice"),
])
def test_a_malformed_entry_is_refused_naming_it(text, match):
    with pytest.raises(ValueError, match=match):
        logs.parse(text)


def test_a_malformed_value_stops_start_up():
    def start(**env):
        return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                              env={"PATH": os.environ["PATH"], **env}, timeout=120)

    refused = start(WITNESS_LOGS="cardroom/audit/ cardroom+00000000+AAAA")
    assert refused.returncode != 0 and "ImproperlyConfigured: WITNESS_LOGS: entry 1" in refused.stderr
    refused = start(WITNESS_NAME="witness example")
    assert refused.returncode != 0 and "WITNESS_NAME is a key name" in refused.stderr
    assert start(WITNESS_NAME="witness.example.org/w", WITNESS_LOGS=f"cardroom/audit/ {ROOM_VKEY}").returncode == 0
