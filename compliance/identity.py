"""A finding's identity and the facts it judged, so that an acknowledgement outlives the run that found it.

A finding is the same finding in a later run when its rule and the thing checked are the same (``identity``);
an acknowledgement of it holds while the facts it judged are unchanged (``fingerprint``): the posting's values,
the dated rule values used and what the finding says. When they change, ``changes`` says how, in words.
Pure: no Django.
"""

import hashlib
import json
from decimal import Decimal

from cardroom.money import format_money

# Subject keys that name a copy of the thing checked, not the thing: a new posting at the same table (or a new
# version of a schedule) is the same thing with (perhaps) new facts.
COPY_KEYS = ("posting",)
FACT_KEYS = {"schedule": "schedule", "option": "option", "rules": "rules version", "decks": "decks",
             "version": "schedule version"}


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def identity(rule, subject, establishment_id, jurisdiction_id):
    """The rule, where, and the thing checked (the subject less its copy and fact keys)."""
    thing = {k: v for k, v in subject.items() if k not in COPY_KEYS and k not in FACT_KEYS}
    return _digest([rule, establishment_id, jurisdiction_id, thing])


def _money(value):
    return format_money(value, "USD", missing="none", whole=True)


def posting_facts(facts):
    """What a posting check judged, in words ({label: value}), from a ``rules.postings.PostingFacts``."""
    out = {"minimum wager": _money(facts.min_wager), "maximum wager": _money(facts.max_wager),
           "seats": str(facts.seats)}
    if facts.schedule is not None:
        out["schedule"] = f"{facts.schedule.code} version {facts.schedule.version}"
    for bet, limit in facts.bonus_limits:
        out[f"{bet} limit"] = _money(limit)
    if facts.house_banked is not None:
        out["aggregate payout limit"] = _money(facts.house_banked.aggregate_payout_limit)
    return out


def facts_of(subject, message, parameters, judged=None):
    """All the facts a finding judged ({label: words}): ``judged`` (a posting's values), the subject's fact keys,
    the dated values used (``Parameter.as_dict()``s) and what it found."""
    out = dict(judged or {})
    for key, label in FACT_KEYS.items():
        if subject.get(key) is not None:
            out.setdefault(label, str(subject[key]))
    for p in parameters:
        value = Decimal(p["value"])
        amount = _money(value) if p.get("unit") == "USD" else f"{value.normalize():f} {p.get('unit', '')}".strip()
        out[p["key"]] = f"{amount} from {p['effective_from']}"
    out["finding"] = message
    return out


def fingerprint(facts):
    return _digest(facts)


def changes(old, new):
    """What changed between two finding's facts, in words ('maximum wager was $500, now $400')."""
    said = []
    for label in [*old, *(k for k in new if k not in old)]:
        if label == "finding" or old.get(label) == new.get(label):
            continue
        if label not in new:
            said.append(f"{label} was {old[label]}, now not used")
        elif label not in old:
            said.append(f"{label} is now {new[label]}")
        else:
            said.append(f"{label} was {old[label]}, now {new[label]}")
    if not said and old.get("finding") != new.get("finding"):
        said.append(f"it read \u201c{old.get('finding', '')}\u201d")
    return "; ".join(said)
