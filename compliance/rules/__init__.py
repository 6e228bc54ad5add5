"""Compliance rules as pure functions (no Django): facts in, findings out.

A rule is one object, ``base.Rule``: its code (what findings, acknowledgements and exports store), its title, its
citation and the names of the seeded parameters it reads, with its check where it has one. ``base.RULES`` holds
every rule by its code, whole once this package is imported (it imports every rule module); ``words`` reads the
titles and parameter names from it.

- ``base``: rules, findings, parameters (dated values looked up by day) and the helpers every rule shares;
- ``postings``: the rules a proposed or stored table posting is checked against, grouped in packs per
  jurisdiction (``pack_for``), and ``check_posting`` which runs a pack;
- ``lint``: schedule lint (tiers, coverage, ambiguity, cross-document consistency) and approval lint;
- ``rounds``: rules over a table's recorded rounds (player-dealer rotation);
- ``variance``: rules over the ledger's reconciliations (collections short day after day, above the schedule);
- ``game_math``: approval lint over the game math, ``approval.house_edge``: stated house edges the exact
  computation does not reproduce (facts from ``cardroom.game_checks.stated_edges``; docs/game-math.md).

``compliance.facts`` builds the facts from the database; nothing here reads it.
"""

from . import game_math, variance  # noqa: F401 (their rules join RULES)
from .base import ERROR, INFO, RULES, WARNING, Finding, MissingParameter, Parameter, ParameterSet, Rule
from .lint import lint_approvals, lint_documents, lint_option
from .postings import PACKS, PostingFacts, check_posting, pack_for
from .rounds import Hand, TableRounds, rule_player_dealer_rotation

__all__ = [
    "ERROR", "INFO", "RULES", "WARNING", "Finding", "Hand", "MissingParameter", "Parameter", "ParameterSet", "PACKS",
    "PostingFacts", "Rule", "TableRounds", "check_posting", "lint_approvals", "lint_documents", "lint_option", "pack_for",
    "rule_player_dealer_rotation",
]
