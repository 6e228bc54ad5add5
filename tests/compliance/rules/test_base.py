"""A rule is one object (``compliance.rules.base.Rule``): its code, title, citation and the seeded parameters it
reads. Its findings carry its code, even when it could not be checked; every rule is documented; the parameters the
rules name and those the seed records are the same, but for those documented as having no rule yet."""

import datetime
import re
from decimal import Decimal as D
from pathlib import Path

import pytest
import yaml

from compliance.rules import PACKS, RULES, WARNING, Parameter, ParameterSet, Rule, check_posting
from compliance.rules.base import RuleParameters, UndeclaredParameter
from compliance.rules.postings import GameFacts, PostingFacts, rule_wa_fees, rule_wa_max_single_wager
from compliance.rules.words import parameter_name, rule_title

ROOT = Path(__file__).resolve().parents[3]
DOCS = (ROOT / "docs" / "compliance.md").read_text()
SEEDED = {parameter["key"] for path in (ROOT / "seed" / "rules").glob("*.yaml")
          for parameter in yaml.safe_load(path.read_text()).get("parameters", [])}
NAMED = {key for rule in RULES.values() for key in rule.parameters}
DAY = datetime.date(2026, 11, 21)


def test_every_rule_has_a_code_a_title_and_a_citation():
    assert len(RULES) > 30
    for code, rule in RULES.items():
        assert rule.code == code and re.fullmatch(r"[a-z]+\.[a-z_]+", code), code
        assert rule.title and rule.citation, code
        assert rule_title(code) == rule.title


def test_a_code_belongs_to_one_rule():
    with pytest.raises(ValueError, match="wa.fees"):
        Rule("wa.fees", "Fees again", "WAC 230-15-080")
    assert RULES["wa.fees"] is rule_wa_fees


def test_packs_list_rules_that_check():
    assert all(isinstance(rule, Rule) and rule.check is not None for pack in PACKS.values() for rule in pack)


def test_every_rule_is_documented():
    assert [code for code in RULES if f"`{code}`" not in DOCS] == []


def test_every_parameter_a_rule_names_is_seeded_and_has_a_name():
    assert NAMED - SEEDED == set()
    assert parameter_name("house_banked_max_wager") == "the house-banked maximum wager"


def test_every_seeded_parameter_is_read_by_a_rule_or_documented_as_having_none_yet():
    no_rule_yet = {key for line in DOCS.splitlines() if "no rule yet" in line
                   for key in re.findall(r"`([a-z_]+)`", line)}
    assert no_rule_yet and SEEDED - NAMED == no_rule_yet


def test_a_rule_reads_only_the_parameters_it_names():
    params = ParameterSet([Parameter("WA", "house_banked_max_wager", D("300"), "USD", datetime.date(2009, 1, 1),
                                     "secondary", "WAC 230-15-140")])
    assert RuleParameters(params, rule_wa_max_single_wager).at("WA", "house_banked_max_wager", DAY).value == 300
    with pytest.raises(UndeclaredParameter, match="wa.fees reads house_banked_max_wager"):
        RuleParameters(params, rule_wa_fees).get("WA", "house_banked_max_wager", DAY)


def test_a_rule_that_could_not_be_checked_says_so_under_its_own_code_and_title():
    """A Washington house-banked posting with no parameter recorded: each rule that needs one says it could not be
    checked, as itself (it was once 'wa.max.single.wager', a code no rule has, with no title)."""
    game = GameFacts("one-for-the-money", "One for the Money", None, "house_banked")
    facts = PostingFacts(subject={"type": "posting"}, jurisdiction="WA", as_of=DAY, game=game,
                         establishment="wa-room", establishment_kind="card_room", max_wager=D("100"), seats=6)
    found = [f for f in check_posting(facts, ParameterSet([])) if "could not be checked" in f.message]
    assert [(f.rule, rule_title(f.rule), f.severity) for f in found] == [
        ("wa.max_single_wager", "Maximum single wager (Washington)", WARNING),
        ("wa.wagers_per_hand", "Wagers per hand (Washington)", WARNING),
    ]
    assert found[0].message == "This rule could not be checked: No rule parameter WA/house_banked_max_wager is recorded."


def test_the_migration_gives_misbuilt_codes_their_rules_code_and_the_identity_that_follows():
    """compliance 0006 recodes stored could-not-be-checked findings: each code it writes is a rule's, and the
    identity it writes is the one a new finding of that rule gets (compliance.identity)."""
    import importlib

    from compliance import identity

    migration = importlib.import_module("compliance.migrations.0006_could_not_be_checked_codes")
    assert set(migration.MISBUILT.values()) <= set(RULES)
    for misbuilt, code in migration.MISBUILT.items():
        assert misbuilt.replace(".", "_") == RULES[code].check.__name__.removeprefix("rule_")
    subject = {"table": 3, "posting": 12, "schedule": "GEGA-002888", "option": 1, "rules": "v1", "decks": 6,
               "version": 2, "bet": "3 Card Bonus"}
    assert migration.identity("wa.max_single_wager", subject, 4, 2) == identity.identity(
        "wa.max_single_wager", subject, 4, 2)
