"""Receipts' canonical form (docs/receipts.md): what their hashes cover, and the arithmetic a replay redoes.

Pure Python (no Django), so that how a receipt is hashed can be read, and checked, in one short file.

- Canonical JSON, as the audit chain writes it (cardroom/chain.py): keys sorted, no spaces, UTF-8 (not
  escaped), no NaN. Decimals are written as strings ("3.00"), dates and times in ISO 8601, tuples as lists.
- ``content_sha256``: the SHA-256 of the canonical JSON of the engine's view of a schedule version
  (``fees.engine.Schedule``), rendered field by field, whatever fields it carries.
- ``receipt_sha256``: the SHA-256 of the canonical JSON of every other field of the receipt. It shows a
  receipt was changed after it was issued; it is not a signature (anyone can rehash an altered receipt),
  which is why a replay also recomputes everything else from the database.
"""

import dataclasses
import datetime
import enum
import hashlib
import json
from decimal import Decimal

from cardroom.exceptions import BadInput
from cardroom.money import CENT

QUOTE = "cardroom.quote/1"
RECONCILIATION = "cardroom.reconciliation/1"
KINDS = (QUOTE, RECONCILIATION)
FIELDS = ("receipt", "engine", "schedule", "inputs", "outputs", "issued_at", "issued_by")
SEAL = "receipt_sha256"
# A reconciliation receipt lists its hands up to this many; past it, only their count and hash (docs/receipts.md).
HANDS_LISTED_AT_MOST = 2000


class ReceiptFormatError(BadInput):
    """Not a receipt this service can read: not JSON, an unknown kind, a field missing or of the wrong type. A
    BadInput of its own because ``replay_receipt`` answers it with an exit status of its own (unreadable)."""


# -- canonical JSON ----------------------------------------------------------------------------------------

def plain(value):
    """``value`` as JSON-ready data: dataclasses field by field, Decimals as strings, dates in ISO 8601."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Decimal):
        return format(value, "f")  # never an exponent: Decimal("1E+2") is "100"
    if isinstance(value, (datetime.date, datetime.time)):  # datetimes too
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(item) for item in value), key=canonical_json)
    # Refuse rather than guess: a hash must never depend on a repr().
    raise TypeError(f"{type(value).__name__} has no canonical JSON form; teach fees.quotes.receipt_format.plain about it.")


def canonical_json(value) -> bytes:
    return json.dumps(plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def sha256(value) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()


def content_sha256(schedule) -> str:
    """The hash of an engine Schedule's whole content (options, tiers and anything else it carries)."""
    return sha256(schedule)


def schedule_stamp(schedule) -> dict:
    """A receipt's ``schedule``: which version priced it, and the hash of what that version says."""
    return {"code": schedule.code, "version": schedule.version, "effective_from": plain(schedule.effective_from),
            "currency": schedule.currency, "content_sha256": content_sha256(schedule)}


def seal(body: dict) -> dict:
    """The receipt: ``body`` (the FIELDS) with its ``receipt_sha256``."""
    receipt = {name: body[name] for name in FIELDS}
    return {**receipt, SEAL: sha256(receipt)}


def seal_holds(receipt: dict) -> bool:
    return sha256({name: value for name, value in receipt.items() if name != SEAL}) == receipt.get(SEAL)


# -- reading a receipt -------------------------------------------------------------------------------------

def _need(mapping, key, kinds, where):
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    value = mapping.get(key)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join("null" if kind is type(None) else kind.__name__ for kind in kinds)
        raise ReceiptFormatError(f"{where}{key} must be {names}, not {_show(value)}.")
    return value


def _id(mapping, key, where):
    value = _need(mapping, key, int, where)
    if not 0 < value < 2**63:  # what a database id can be
        raise ReceiptFormatError(f"{where}{key} must be a whole number from 1 to 2**63 - 1, not {value}.")
    return value


def _moment(text, where):
    try:
        moment = datetime.datetime.fromisoformat(text)
        utc = moment.astimezone(datetime.timezone.utc) if moment.tzinfo is not None else None
    except (ValueError, OverflowError):
        raise ReceiptFormatError(f"{where} must be a date and time in ISO 8601, not {text!r}.") from None
    if utc is None:
        raise ReceiptFormatError(f"{where} must give its UTC offset: {text!r}.")
    return utc


def _day(text, where):
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ReceiptFormatError(f"{where} must be a date (YYYY-MM-DD), not {text!r}.") from None


def _stamp(value, where):
    if not isinstance(value, dict):
        raise ReceiptFormatError(f"{where} must be an object, not {value!r}.")
    _need(value, "code", str, f"{where}.")
    _id(value, "version", f"{where}.")
    _need(value, "content_sha256", str, f"{where}.")


def read(text) -> dict:
    """A receipt from its JSON text, checked for shape (not for truth: that is the replay's work)."""
    try:
        receipt = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise ReceiptFormatError(f"not valid JSON ({error}).") from None
    if not isinstance(receipt, dict):
        raise ReceiptFormatError("a receipt is a JSON object.")
    try:
        canonical_json(receipt)
    except (ValueError, RecursionError) as error:  # a lone surrogate, a number too big (1e999), nested too deep
        raise ReceiptFormatError(f"it has no canonical JSON form ({error}).") from None
    missing = [name for name in FIELDS + (SEAL,) if name not in receipt]
    if missing:
        raise ReceiptFormatError(f"missing field(s): {', '.join(missing)}.")
    unknown = set(receipt) - set(FIELDS) - {SEAL}
    if unknown:
        raise ReceiptFormatError(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}.")
    kind = receipt["receipt"]
    if kind not in KINDS:
        raise ReceiptFormatError(f"receipt must be one of {', '.join(KINDS)}, not {kind!r}.")
    for name in ("engine", "issued_at", "issued_by", SEAL):
        _need(receipt, name, str, "")
    _moment(receipt["issued_at"], "issued_at")
    inputs, outputs = receipt["inputs"], receipt["outputs"]
    if not isinstance(inputs, dict) or not isinstance(outputs, dict):
        raise ReceiptFormatError("inputs and outputs must be objects.")
    if kind == QUOTE:
        _stamp(receipt["schedule"], "schedule")
        _need(inputs, "schedule", str, "inputs.")
        _need(inputs, "option", int, "inputs.")
        _day(_need(inputs, "as_of", str, "inputs."), "inputs.as_of")
        known_at = _need(inputs, "known_at", (str, type(None)), "inputs.")
        if known_at is not None:
            _moment(known_at, "inputs.known_at")
        _need(inputs, "facts", dict, "inputs.")
    else:
        stamps = receipt["schedule"]
        if not isinstance(stamps, list):
            raise ReceiptFormatError("schedule of a reconciliation receipt must be a list of schedule versions.")
        for i, stamp in enumerate(stamps):
            _stamp(stamp, f"schedule[{i}]")
        table = _need(inputs, "table", dict, "inputs.")
        _id(table, "id", "inputs.table.")
        _day(_need(inputs, "gaming_day", str, "inputs."), "inputs.gaming_day")
        _moment(_need(inputs, "counted_as_of", str, "inputs."), "inputs.counted_as_of")
        _need(inputs, "hands_sha256", str, "inputs.")
        _need(inputs, "hands_count", int, "inputs.")
        _need(inputs, "hands", (list, type(None)), "inputs.")
    return receipt


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


# -- what a replay compares --------------------------------------------------------------------------------

def differences(said, found, path="", limit=10):
    """Where ``found`` differs from what the receipt ``said``, as short readable lines (at most ``limit``)."""
    lines = []

    def walk(a, b, where):
        if len(lines) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), key=str):
                walk(a.get(key, _ABSENT), b.get(key, _ABSENT), f"{where}.{key}" if where else str(key))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{where}[{i}]")
        elif a != b or type(a) is not type(b):
            lines.append(f"{where or 'value'}: the receipt says {_show(a)}, the replay gives {_show(b)}")

    walk(said, found, path)
    return lines


class _Absent:
    def __repr__(self):
        return "nothing"


_ABSENT = _Absent()


def _show(value):
    text = repr(value) if isinstance(value, _Absent) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


# -- reconciliation arithmetic -----------------------------------------------------------------------------

def cents(amount) -> str:
    return f"{Decimal(amount).quantize(CENT):f}"


def reconciliation_outputs(hands, currency) -> dict:
    """A reconciliation's result from its hands, by the rule of fees.ledger.reconcile: a hand balances when it has
    a round and what was collected equals what was expected; the day balances when every hand does."""
    expected = sum((Decimal(hand["expected"]) for hand in hands), Decimal("0.00"))
    collected = sum((Decimal(hand["collected"]) for hand in hands), Decimal("0.00"))
    with_variance = sum(1 for hand in hands
                        if not hand["rounds"] or Decimal(hand["expected"]) != Decimal(hand["collected"]))
    return {
        "currency": currency, "expected_total": cents(expected), "collected_total": cents(collected),
        "difference": cents(collected - expected), "status": "variance" if with_variance else "balanced",
        "rounds": sum(len(hand["rounds"]) for hand in hands), "entries": sum(len(hand["entries"]) for hand in hands),
        "hands": len(hands), "hands_balanced": len(hands) - with_variance, "hands_with_variance": with_variance,
    }
