"""The fee-kind table (fees.engine.kinds): every list of fee kinds and families is the table's, so a kind or a family
is added in one place (docs/architecture.md, "A new fee family"). No database."""

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from fees import engine
from fees.engine import kinds
from fees.engine.scales import groups_of
from fees.forms import TierForm
from fees.ledger import tally
from fees.models import CollectionEntry, FeeOption, FeeTier, LedgerDay
from fees.months import sealed
from fees.quotes import quoting
from signage import content


def test_the_models_choices_are_the_tables():
    assert FeeTier.FeeKind.choices == list(kinds.CHOICES)
    assert CollectionEntry.FeeKind.choices == list(kinds.CHOICES)
    for model in (FeeTier, CollectionEntry):
        assert list(model._meta.get_field("fee_kind").choices) == list(kinds.CHOICES)


def test_every_basis_declares_one_family():
    assert set(kinds.BY_BASIS) == set(FeeOption.Basis.values)
    assert sum(len(family.bases) for family in kinds.FAMILIES) == len(kinds.BY_BASIS)  # no basis in two families


def test_the_ledger_keeps_a_column_of_each_kind():
    assert tally.FEE_KINDS == kinds.NAMES
    assert tally.BY_KIND == kinds.LEDGER_COLUMNS
    columns = {field.name: field for field in LedgerDay._meta.fields if field.name.startswith("kind_")}
    assert tuple(columns) == kinds.LEDGER_COLUMNS
    assert [str(columns[kind.column].help_text) for kind in kinds.KINDS] == [
        f"Collected as {kind.collected_as}." for kind in kinds.KINDS]
    # A closing's v2 seal covers the kinds there were when it was written; a kind is never taken away.
    assert {c for c in sealed.LEDGER_ROW if c.startswith("kind_")} <= set(kinds.LEDGER_COLUMNS)


def test_a_tally_sums_each_kind_in_its_column():
    added, key = tally.Tally(), (1, 2, "2026-10-01", "USD")
    for i, kind in enumerate(kinds.KINDS, start=1):
        added.collected(key, "player", kind.name, Decimal(i))
    figures = dict(added.items())[key]
    assert [figures[kind.column] for kind in kinds.KINDS] == [Decimal(i) for i in range(1, len(kinds.KINDS) + 1)]


def test_the_grid_editor_offers_the_tables_words():
    assert TierForm().fields["fee_kind"].choices == [("", "—"), *((kind.name, kind.grid) for kind in kinds.KINDS)]


def _option(*tiers, basis="unstated"):
    return engine.Option(1, basis, "", "", 30, tuple(tiers))


def _tier(order, kind, fee, measure="unstated"):
    return engine.Tier(order, kind.name, "player", measure, None, None, Decimal(fee), "before_deal")


@pytest.mark.parametrize("kind", kinds.KINDS, ids=kinds.NAMES)
def test_the_words_of_each_kind(kind):
    # The engine's messages and the schedule pages: the kind's words.
    assert groups_of(_option(_tier(1, kind, "1")))[kind.name].name == kind.words
    # A sign: the kind's title over its table (a measure with no wording of its own), its words when it is $0.
    tables, none = content._tables(_option(_tier(1, kind, "1")), "USD")
    if kind.name != "time":  # a time collection's table says its interval
        assert tables[0].title == kind.title
    assert content._tables(_option(_tier(1, kind, "0")), "USD")[1] == (f"No {kind.words} is charged.",)


@pytest.mark.parametrize("family", kinds.FAMILIES, ids=lambda f: f.name)
def test_each_family_is_quoted_by_its_function(family):
    assert family.quote in engine.__all__ and callable(getattr(engine, family.quote))
    assert set(quoting.READ) == set(quoting.ANSWER) == {f.name for f in kinds.FAMILIES}
    for basis in family.bases:
        assert kinds.family_of(basis) is family
        assert str(engine.wrong_basis("X-1", _option(basis=basis))) == f"option 1 of X-1 {family.hint}."
    assert kinds.asked_for(dict.fromkeys(family.marks)) is family


def test_a_request_is_quoted_by_its_options_family_and_told_when_it_is_another():
    schedule = engine.Schedule("X-1", "", 1, None, "USD", "", (
        _option(engine.Tier(1, "collection", "pot", "flat", None, None, Decimal("1"), "after_flop"),
                basis="poker_drop"),))
    hand = {"players": 6, "reached_flop": True}
    assert quoting.quote_facts(schedule, 1, hand).total == Decimal("1.00")
    with pytest.raises(engine.QuoteError, match=r"^option 1 of X-1 is a poker drop; quote it with players"):
        quoting.quote_facts(schedule, 1, {"wagers": [{"player": "p1", "base": "5"}]})
    with pytest.raises(engine.QuoteError, match=r"^Say what was played"):
        quoting.quote_facts(schedule, 1, {"dice": 2})


# A kind added to the table (a row more, nothing else changed), in a fresh process: every list has it.
ADDED = """
import json, sys, types
from pathlib import Path
source = Path("fees/engine/kinds.py").read_text()
row = 'KINDS = (\\n    Kind("rebate", "Rebate fee (after the river)", "Pot rebate", "Rebate", "rebates", POKER),\\n'
assert source.count("KINDS = (\\n") == 1
module = types.ModuleType("fees.engine.kinds")
module.__file__ = "fees/engine/kinds.py"
sys.modules["fees.engine.kinds"] = module
exec(compile(source.replace("KINDS = (\\n", row), module.__file__, "exec"), module.__dict__)
import django
django.setup()
from fees.engine import Option, Tier
from fees.engine.scales import groups_of
from fees.forms import TierForm
from fees.imports import rows
from fees.ledger import intake, tally
from fees.models import CollectionEntry, FeeTier, LedgerDay
from signage import content
from decimal import Decimal
option = Option(1, "poker_drop", "", "", None, (Tier(1, "rebate", "pot", "flat", None, None, Decimal(0), "after_river"),))
found = {
    "tier choices": lambda: dict(FeeTier.FeeKind.choices).get("rebate"),
    "entry choices": lambda: dict(CollectionEntry._meta.get_field("fee_kind").choices).get("rebate"),
    "intake": lambda: "rebate" in intake.FEE_KINDS,
    "import words": lambda: rows.FEE_KINDS.get("rebate fee (after the river)"),
    "tally": lambda: [tally.FEE_KINDS[0], tally.BY_KIND[0]],
    "ledger column": lambda: str(LedgerDay._meta.get_field("kind_rebate").help_text),
    "grid": lambda: dict(TierForm().fields["fee_kind"].choices).get("rebate"),
    "engine words": lambda: groups_of(option)["rebate"].name,
    "sign": lambda: content._tables(option, "USD")[1],
}


def answer(read):
    try:
        return read()
    except Exception as error:  # a list that did not follow says how
        return repr(error)


print(json.dumps({name: answer(read) for name, read in found.items()}))
"""


@pytest.mark.long  # a fresh process sets Django up: seconds
def test_a_kind_added_to_the_table_reaches_every_list():
    root = Path(__file__).resolve().parents[2]
    found = subprocess.run([sys.executable, "-c", ADDED], cwd=root, capture_output=True, text=True, check=True,
                           env={**os.environ, "DJANGO_SETTINGS_MODULE": "project.settings"})
    assert json.loads(found.stdout) == {
        "tier choices": "Rebate fee (after the river)", "entry choices": "Rebate fee (after the river)",
        "intake": True, "import words": "rebate", "tally": ["rebate", "kind_rebate"],
        "ledger column": "Collected as rebates.", "grid": "Rebate", "engine words": "pot rebate",
        "sign": ["No pot rebate is charged."],
    }
