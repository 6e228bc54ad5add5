"""Compliance rules as pure functions (no Django): facts in, findings out.

- ``base``: findings, parameters (dated values looked up by day) and the helpers every rule shares;
- ``postings``: the rules a proposed or stored table posting is checked against, grouped in packs per
  jurisdiction (``pack_for``), and ``check_posting`` which runs a pack;
- ``lint``: schedule lint (tiers, coverage, ambiguity, cross-document consistency) and approval lint;
- ``rounds``: rules over a table's recorded rounds (player-dealer rotation).
- ``game_math``: approval lint over the game math, ``approval.house_edge``: stated house edges the exact
  computation does not reproduce (facts from ``cardroom.game_checks.stated_edges``; docs/game-math.md).

``compliance.facts`` builds the facts from the database; nothing here reads it.
"""

from .base import ERROR, INFO, WARNING, Finding, MissingParameter, Parameter, ParameterSet
from .lint import lint_approvals, lint_documents, lint_option
from .postings import PACKS, PostingFacts, check_posting, pack_for
from .rounds import Hand, TableRounds, rule_player_dealer_rotation

__all__ = [
    "ERROR", "INFO", "WARNING", "Finding", "Hand", "MissingParameter", "Parameter", "ParameterSet", "PACKS",
    "PostingFacts", "TableRounds", "check_posting", "lint_approvals", "lint_documents", "lint_option", "pack_for",
    "rule_player_dealer_rotation",
]
