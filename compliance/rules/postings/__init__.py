"""Posting checks: is what a table shows (or would show) allowed on a given day? Pure Python.

A posting is checked as ``PostingFacts`` (built by ``compliance.facts`` from a request or a stored
TablePosting) against the rule pack of its jurisdiction (``pack_for``). Every rule is a ``base.Rule`` made by
``@rule(code=..., title=..., citation=..., parameters=...)`` over its check, called as
``rule(facts, params) -> iterable of Finding``; rules that need a fact the posting lacks say nothing.
Numeric limits are never written here: they come from ``params`` (dated values, see ``base.ParameterSet``).

The package: ``facts`` (what a check is given), ``approvals`` (is the game approved here; shared with the lint),
``common`` (the rules every pack uses), ``house_banked``, one module per jurisdiction's pack (``california``,
``washington``) and ``packs`` (``PACKS``, ``check_posting``). Callers import from this package itself.
"""

from .approvals import (
    EXPIRING,
    EXPIRING_WITHIN,
    ApprovalState,
    approval_findings,
    approval_state,
    condition_findings,
    conditions_outstanding,
    relevant_approvals,
    scopes_for,
)
from .california import collection_rates, rule_ca_collection_rates, rule_ca_flat_fees, rule_ca_wager_limits
from .common import (
    COMMON,
    largest_table_action,
    read_measure,
    reading_citations,
    readings,
    rule_bonus_caps,
    rule_coverage,
    rule_game_approved,
    rule_schedule_option,
    rule_table_limit,
)
from .facts import (
    ApprovalFacts,
    ApprovedContent,
    BetLimitFacts,
    Condition,
    GameFacts,
    HouseBankedFacts,
    HouseFee,
    OptionFacts,
    PayoutLine,
    PaytableFacts,
    PostingFacts,
    RulesFacts,
    ScheduleFacts,
)
from .house_banked import HOUSE_BANKED, rule_approved_rules_and_paytables, rule_payouts_to_one
from .packs import PACKS, check_posting, pack_for
from .washington import (
    rule_tribal_fees,
    rule_wa_aggregate_payout_limit,
    rule_wa_fees,
    rule_wa_max_single_wager,
    rule_wa_poker_limits,
    rule_wa_wagers_per_hand,
)

__all__ = [
    "COMMON", "EXPIRING", "EXPIRING_WITHIN", "HOUSE_BANKED", "PACKS", "ApprovalFacts", "ApprovalState", "ApprovedContent",
    "BetLimitFacts", "Condition", "GameFacts", "HouseBankedFacts", "HouseFee", "OptionFacts", "PayoutLine",
    "PaytableFacts", "PostingFacts", "RulesFacts", "ScheduleFacts", "approval_findings", "approval_state",
    "check_posting", "collection_rates", "condition_findings", "conditions_outstanding", "largest_table_action",
    "pack_for", "read_measure", "reading_citations", "readings", "relevant_approvals",
    "rule_approved_rules_and_paytables", "rule_bonus_caps", "rule_ca_collection_rates", "rule_ca_flat_fees",
    "rule_ca_wager_limits", "rule_coverage", "rule_game_approved", "rule_payouts_to_one", "rule_schedule_option",
    "rule_table_limit", "rule_tribal_fees", "rule_wa_aggregate_payout_limit", "rule_wa_fees",
    "rule_wa_max_single_wager", "rule_wa_poker_limits", "rule_wa_wagers_per_hand", "scopes_for",
]
