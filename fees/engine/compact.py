"""A priced round stored compactly: what every round priced under one schedule version and option shares (the
document, its title and citations, the tiers' bounds and printed text, the interpretations read) once, apart
from what is the round's own (the day it was priced as of, its fee lines), and both put back together exactly.

``split`` takes what the ledger used to store per round (``explain``'s account, the ledger's fee lines and fees
by payer) and returns ``(shared_body, fee_lines, per_round)``; ``rebuild`` gives the three back, equal byte for
byte as ``json.dumps`` writes them (key order included). ``split`` rebuilds before it answers and refuses
(``NotCompactable``) anything it would not give back exactly, so nothing is ever lost silently: a change to
``explain``'s shape shows up here as a refusal, not as a quietly different account.

The shared body's dicts may come back from PostgreSQL's jsonb with their keys reordered, so ``rebuild`` writes
every object in ``explain``'s own key order (the ``*_KEYS`` below), never in the order it reads them.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal, InvalidOperation
from types import SimpleNamespace

from cardroom.money import CENT

from .explanation import explain
from .quotes import FeeLine

# The logical columns of a fee line, in the order a stored line holds them (a line stored without its note has
# none: the note is "" for most lines, so it is left off rather than written each time).
LINE_FIELDS = ("payer", "player", "fee_kind", "measure", "tier", "measured", "fee", "note")

# explain()'s key orders: the account, a fee line, a tier, an interpretation read ("tier" only at the top).
EXPLANATION_KEYS = ("document", "title", "version", "effective_from", "as_of", "option", "basis", "citation",
                    "document_citation", "currency", "fees", "interpretations")
FEE_KEYS = ("payer", "player", "fee_kind", "measure", "measured", "tier", "fee", "note")
TIER_KEYS = ("order", "lower", "upper", "printed_bounds", "printed_fee", "interpretations")
READING_KEYS = ("tier", "field", "printed", "read_as", "statement", "citation", "decided_on")
# What the round itself adds to the shared part of its account.
PER_ROUND_KEYS = ("as_of", "fees")


class NotCompactable(ValueError):
    """What was given would not be rebuilt exactly from its compact form."""


def _ordered(item: dict, keys) -> dict:
    return {key: item[key] for key in keys if key in item}


def _reading(item: dict) -> dict:
    return _ordered(item, READING_KEYS)


def _tier(item: dict) -> dict:
    tier = _ordered(item, TIER_KEYS)
    if "interpretations" in tier:
        tier["interpretations"] = [_reading(r) for r in tier["interpretations"]]
    return tier


def _cents_text(value: str) -> str:
    return f"{Decimal(value).quantize(CENT):f}"


def digest(body) -> str:
    """The sha256 (hex) of ``body``'s canonical JSON (keys sorted, no spaces): what a shared body is known by."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def encode(fee_lines) -> str:
    """Fee lines as stored: JSON text with no spaces."""
    return json.dumps(fee_lines, separators=(",", ":"), ensure_ascii=False)


def decode(text) -> list:
    return json.loads(text) if isinstance(text, str) else list(text or ())


def option_tiers(schedule, option) -> list[dict]:
    """Every tier of ``option`` as ``explain`` writes a line's tier: what ``split`` keeps in the shared body, so
    that every round of the option shares one body whichever tiers its own lines used."""
    lines = tuple(FeeLine(t.payer, None, t.fee_kind, t.measure, None, t, Decimal(0)) for t in option.tiers)
    return [fee["tier"] for fee in explain(schedule, option, SimpleNamespace(lines=lines))["fees"]]


def row(line: list) -> tuple:
    """A stored line as ``LINE_FIELDS``' values (the note "" where it was left off)."""
    return tuple(line[:7]) + ((line[7] if len(line) > 7 else ""),)


def rebuild(shared_body, fee_lines, per_round) -> tuple[dict, list, list]:
    """``(explanation, expected_lines, expected_by_payer)`` as the ledger stored them before they were split."""
    if shared_body is None:  # a round stored with no account (written outside the engine)
        return {}, [], []
    head = shared_body["explanation"]
    tiers = {tier["order"]: _tier(tier) for tier in shared_body["tiers"]}
    fees, lines, by_payer = [], [], {}
    for stored in fee_lines:
        payer, player, fee_kind, measure, order, measured, fee, note = row(stored)
        tier = None if order is None else tiers[order]
        fees.append({"payer": payer, "player": player, "fee_kind": fee_kind, "measure": measure,
                     "measured": _cents_text(measured) if isinstance(measured, str) else measured,
                     "tier": tier, "fee": fee, "note": note})
        lines.append({"payer": payer, "player": player or "", "fee_kind": fee_kind, "measure": measure,
                      "measured": measured,
                      "tier": None if tier is None else {"order": tier["order"],
                                                         "printed_bounds": tier["printed_bounds"],
                                                         "printed_fee": tier["printed_fee"]},
                      "fee": fee})
        key = (payer, player or "")
        by_payer[key] = by_payer.get(key, Decimal("0")) + Decimal(fee)
    explanation = _ordered({**head, "as_of": per_round["as_of"], "fees": fees}, EXPLANATION_KEYS)
    if "interpretations" in explanation:
        explanation["interpretations"] = [_reading(r) for r in explanation["interpretations"]]
    return explanation, lines, [{"payer": payer, "player": player, "fee": f"{total.quantize(CENT)}"}
                                for (payer, player), total in by_payer.items()]


def split(explanation, expected_lines, expected_by_payer, *, tiers=None,
          key_order=True) -> tuple[dict | None, list, dict]:
    """``(shared_body, fee_lines, per_round)`` of a round's account (``explain``'s), its fee lines and its fees by
    payer. ``tiers``: the option's tiers as ``explain`` writes them (``option_tiers``), all kept in the shared body;
    without, the body keeps those the lines used. Raises ``NotCompactable`` unless ``rebuild`` gives the three back
    exactly; ``key_order=False`` for what comes from PostgreSQL's jsonb, which kept no key order to give back (the
    rest must still be equal: every key, value and list in its order)."""
    if explanation == {} and not expected_lines and not expected_by_payer:
        body, fee_lines, per_round = None, [], {"as_of": None}
    else:
        try:
            body, fee_lines, per_round = _split(explanation, expected_lines, tiers)
        except (KeyError, TypeError, AttributeError, IndexError) as error:
            raise NotCompactable(f"not an account explain() writes ({type(error).__name__}: {error})") from None
    try:
        again = rebuild(body, fee_lines, per_round)
        differs = different((explanation, expected_lines, expected_by_payer), again, key_order=key_order)
    except (KeyError, TypeError, ValueError, InvalidOperation, ArithmeticError) as error:
        raise NotCompactable(f"its compact form does not rebuild ({type(error).__name__}: {error})") from None
    if differs:
        raise NotCompactable(differs)
    return body, fee_lines, per_round


def different(given, rebuilt, *, key_order=True) -> str:
    """"" when ``rebuilt`` (an ``(explanation, expected_lines, expected_by_payer)``) is ``given`` as JSON, byte for
    byte (``key_order=False``: but for the order of keys); else which of the three differs and how."""
    for name, was, now in zip(("explanation", "expected_lines", "expected_by_payer"), given, rebuilt):
        was, now = json.dumps(was, sort_keys=not key_order), json.dumps(now, sort_keys=not key_order)
        if was != now:
            return f"its {name} would not be rebuilt exactly: {was[:300]} would come back as {now[:300]}"
    return ""


def _split(explanation, expected_lines, tiers):
    head = {key: value for key, value in explanation.items() if key not in PER_ROUND_KEYS}
    by_order = {tier["order"]: tier for tier in tiers or ()}
    fee_lines = []
    if len(explanation["fees"]) != len(expected_lines):
        raise NotCompactable("the account and the fee lines do not have as many lines")
    for fee, line in zip(explanation["fees"], expected_lines):
        tier = fee["tier"]
        if tier is not None:
            by_order.setdefault(tier["order"], tier)
        stored = [fee["payer"], fee["player"], fee["fee_kind"], fee["measure"],
                  None if tier is None else tier["order"], line["measured"], fee["fee"]]
        if fee["note"] != "":
            stored.append(fee["note"])
        fee_lines.append(stored)
    body = {"explanation": head, "tiers": [by_order[order] for order in sorted(by_order)]}
    return body, fee_lines, {"as_of": explanation["as_of"]}
