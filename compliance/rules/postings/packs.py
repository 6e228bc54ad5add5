"""The rule pack of each jurisdiction (the ``Rule`` objects it runs, in order), and checking a posting against its
pack."""

from __future__ import annotations

from ..base import WARNING, Finding, MissingParameter, ParameterSet, finding
from . import california, washington
from .common import COMMON, rule_bonus_caps, rule_coverage, rule_table_limit
from .facts import PostingFacts
from .house_banked import HOUSE_BANKED

PACKS = {
    "CA": california.PACK,
    "WA": washington.PACK,
    "WA-tribal": washington.TRIBAL_PACK,
    "GB": COMMON + (rule_table_limit, rule_coverage, rule_bonus_caps) + HOUSE_BANKED,
}


def pack_for(jurisdiction: str, establishment_kind: str | None = None) -> str:
    if jurisdiction == "WA" and establishment_kind == "tribal_casino":
        return "WA-tribal"
    return jurisdiction


def check_posting(facts: PostingFacts, params: ParameterSet) -> list[Finding]:
    """Every finding of the posting's rule pack, in rule order; a rule whose parameter has no value that day says
    so under its own code."""
    rules = PACKS.get(pack_for(facts.jurisdiction, facts.establishment_kind), COMMON)
    out: list[Finding] = []
    for rule in rules:
        try:
            out.extend(rule(facts, params))
        except MissingParameter as exc:
            out.append(finding(rule, WARNING, facts.subject, f"This rule could not be checked: {exc}",
                               "compliance rule parameters"))
    return out
