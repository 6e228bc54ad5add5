"""Which logs a witness trusts: WITNESS_LOGS as the environment writes it (cardroom.witness.logs), a malformed
value stopping start-up, and only the origins <base>/<chain> of a configured base given its keys."""

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
    parsed = logs.parse(f" cardroom/audit {ROOM_VKEY} ;\nexample.org/log {OTHER_VKEY}  {ROOM_VKEY};;")
    assert parsed == (("cardroom/audit", (ROOM_VKEY,)), ("example.org/log", (OTHER_VKEY, ROOM_VKEY)))
    assert logs.parse("") == () and logs.parse(" ; \n") == ()


def test_only_the_chains_of_a_configured_base_are_witnessed_never_a_prefix():
    """Issue 41: the log's owner holds the key, so an origin merely starting with a configured one (a "new" log,
    <base>/fork2/installation) would have a forked history cosigned. Only <base>/<chain> is accepted, <chain> a chain
    name as cardroom.chain.chain_name writes it."""
    parsed = logs.parse(f"room.example/audit {ROOM_VKEY}; example.org/log {OTHER_VKEY}")
    for origin in ("room.example/audit/installation", "room.example/audit/establishment:3",
                   "room.example/audit/establishment:1234567"):
        [(name, key)] = logs.trusted_keys(origin, parsed)
        assert (name, raw(key)) == ("cardroom", raw(ROOM)), origin
    [(name, key)] = logs.trusted_keys("example.org/log/installation", parsed)
    assert (name, raw(key)) == ("example.org/log", raw(OTHER))
    for origin in ("room.example/audit/fork2/installation", "room.example/audit/fork2/establishment:3",
                   "room.example/audit/establishment:3/installation", "room.example/audit", "room.example/audit/",
                   "room.example/audit/fork2", "room.example/audit/establishment:03", "room.example/audit/establishment:",
                   "room.example/audit/Installation", "room.example/audit-2/installation", "room.example/installation",
                   "other.example/audit/installation", "room.example/audit/installation "):
        assert logs.trusted_keys(origin, parsed) is None, origin


@pytest.mark.parametrize(("text", "match"), [
    ("cardroom/audit", "names no verifier key"),
    ("cardroom/audit not-a-key", "not a verifier key"),
    (f"cardroom/audit {ROOM_VKEY.replace('+', '+00', 1)}", "does not match"),  # a key id that is not its own
    (f"cardroom/audit {ROOM_VKEY}; cardroom/audit {OTHER_VKEY}", "given twice"),
    # An origin prefix, as WITNESS_LOGS was written before issue 41: refused, not read as a base.
    (f"cardroom/audit/ {ROOM_VKEY}", r"entry 1 \('cardroom/audit/'\) does not name a log: .* ends in '/': give the "
                                     "log's base origin, not a prefix"),
    (f"cardroom/audit {ROOM_VKEY}; room+x/audit {ROOM_VKEY}", r"entry 2 \('room\+x/audit'\) does not name a log"),
])
def test_a_malformed_entry_is_refused_naming_it(text, match):
    with pytest.raises(ValueError, match=match):
        logs.parse(text)


def test_a_malformed_value_stops_start_up():
    def start(**env):
        return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                              env={"PATH": os.environ["PATH"], **env}, timeout=120)

    refused = start(WITNESS_LOGS="cardroom/audit cardroom+00000000+AAAA")
    assert refused.returncode != 0 and "ImproperlyConfigured: WITNESS_LOGS: entry 1" in refused.stderr
    refused = start(WITNESS_LOGS=f"cardroom/audit/ {ROOM_VKEY}")  # a prefix
    assert refused.returncode != 0 and "ImproperlyConfigured: WITNESS_LOGS: entry 1 ('cardroom/audit/')" in \
        refused.stderr
    refused = start(WITNESS_NAME="witness example")
    assert refused.returncode != 0 and "WITNESS_NAME is a key name" in refused.stderr
    assert start(WITNESS_NAME="witness.example.org/w", WITNESS_LOGS=f"cardroom/audit {ROOM_VKEY}").returncode == 0
