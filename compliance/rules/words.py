"""What a person reads instead of a rule's code or a parameter's key (pure: no Django).

The codes (``ca.collection_rates``) and keys (``max_collection_rates``) stay what the API, the exports and the
stored findings use; pages, signs, PDFs and messages meant for people say these words, which each rule carries
(``base.Rule``: its title, and the names of the parameters it reads; docs/compliance.md lists each rule with its
citation).
"""

from __future__ import annotations

from .base import RULES, key_in_words


def rule_title(code: str) -> str:
    """'Number of collection rates (California)' for 'ca.collection_rates' (the rule's own title); a code no rule
    has reads as words."""
    rule = RULES.get(code)
    return rule.title if rule else code.rsplit(".", 1)[-1].replace("_", " ").capitalize()


def parameter_name(key: str) -> str:
    """'the house-banked maximum wager' for 'house_banked_max_wager' (as the rule reading it names it); a key no
    rule names reads as words."""
    return next((rule.parameters[key] for rule in RULES.values() if key in rule.parameters), None) \
        or key_in_words(key)


def with_article(noun: str) -> str:
    """'an Omaha Hi-Low table', 'a Blackjack table': by the sound of the first letter (a vowel letter, as written)."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun
