"""A log's name: the origin line its checkpoints carry, ``<base>/<chain>``. Plain Python, no Django.

An installation names its audit log once (``AUDIT_LOG_ORIGIN``, the *base*: ``room.example/audit``), and each chain
is one log under it: ``room.example/audit/installation``, ``room.example/audit/establishment:3``. The base is what a
regulator keeps beside the root of trust and gives the verifier (``--origin``), what the service pins when it
verifies, and what a witness is configured with (``WITNESS_LOGS``): a checkpoint is of this installation's log only
when its origin is exactly the base, a ``/`` and a well-formed chain name (``cardroom.chain.chain_name``:
``installation`` or ``establishment:<id>``). Anything else is another log, however it starts: whoever holds the key
could sign ``room.example/audit/fork2/installation`` and show it as a new log, so no prefix is ever trusted.
"""

import re

from ..chain import INSTALLATION

# The chain names cardroom.chain.chain_name makes, and no other spelling of them (establishment:01 is not :1).
CHAIN = re.compile(rf"{INSTALLATION}|establishment:[1-9][0-9]*")
WANTED = "a schema-less URL of printable ASCII without spaces, '+' or a final '/', e.g. room.example/audit"


def base_problem(base):
    """Why ``base`` cannot be a log's base origin (``AUDIT_LOG_ORIGIN``, a ``WITNESS_LOGS`` entry, ``--origin``);
    None when it can."""
    if not isinstance(base, str) or not re.fullmatch(r"[!-~]+", base) or "+" in base:
        return f"{base!r} is not {WANTED}"
    if base.endswith("/"):
        return (f"{base!r} ends in '/': give the log's base origin, not a prefix (its checkpoints' origins are "
                "<base>/installation and <base>/establishment:<id>)")
    return None


def origin(base, chain):
    """The origin line of ``chain``'s checkpoints."""
    return f"{base}/{chain}"


def split(origin_line):
    """(base, chain) of an origin of some cardroom installation's log; None when what follows its last '/' is not a
    chain name, or nothing comes before it."""
    base, slash, chain = str(origin_line).rpartition("/")
    if not slash or base_problem(base) or not CHAIN.fullmatch(chain):
        return None
    return base, chain


def chain_of(origin_line, base=None):
    """The chain ``origin_line`` names when it is ``<base>/<chain>`` (any base when ``base`` is None); None when it
    is not a checkpoint of that log."""
    parts = split(origin_line)
    if parts is None or (base is not None and parts[0] != base):
        return None
    return parts[1]


def problem(origin_line, base=None):
    """Why a checkpoint of ``origin_line`` is not one of the log ``base`` names (any installation's when None), in a
    sentence; None when it is."""
    if chain_of(origin_line, base) is not None:
        return None
    if base is None:
        return (f"its origin, {origin_line}, is not a cardroom audit log's (<base>/installation or "
                "<base>/establishment:<id>)")
    return (f"it is of the log {origin_line}, not of {base} (whose checkpoints are {base}/installation and "
            f"{base}/establishment:<id>): another log, or this one under another name")
