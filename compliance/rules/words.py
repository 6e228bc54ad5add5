"""What a person reads instead of a rule's code or a parameter's key (pure: no Django).

The codes (``ca.collection_rates``) and keys (``max_collection_rates``) stay what the API, the exports and the
stored findings use; pages, signs, PDFs and messages meant for people say these words (docs/compliance.md lists
each rule with its citation).
"""

from __future__ import annotations

RULE_TITLES = {
    "approval.conditions_outstanding": "Approval conditions outstanding",
    "approval.expired": "Approval expired",
    "approval.expiring": "Approval expiring soon",
    "approval.game_approved": "Game approved",
    "approval.house_edge": "Stated house edge",
    "approval.rules_and_paytables": "Approved rules and paytables",
    "approval.table_game": "Game at a table approved",
    "approval.trial_period": "Trial period",
    "ca.collection_rates": "Number of collection rates (California)",
    "ca.flat_fees": "Flat collection fees (California)",
    "ca.player_dealer_rotation": "Player-dealer rotation (California)",
    "ca.wager_limits": "Wager limits (California)",
    "coverage.tiers": "Every wager has a fee tier",
    "ledger.collected_above_schedule": "Collected above the schedule",
    "ledger.short_days_in_a_row": "Collections short day after day",
    "lint.ambiguous": "Unclear schedule entry",
    "lint.ascending": "Tiers in order",
    "lint.cents": "Amounts in whole cents",
    "lint.closed_top": "Top tier closed",
    "lint.consistency": "Schedules in force together agree",
    "lint.contiguous": "Tiers without gaps or overlaps",
    "lint.negative": "No negative amounts",
    "lint.no_fees": "Option without fees",
    "option.table_limit": "Posted limits within the option's table limit",
    "schedule.fee_cliff": "Fee step at a tier edge",
    "schedule.option_approved_for_game": "Option approved for the game",
    "schedule.printed_bounds_mismatch": "Printed tier bounds match the typed ones",
    "schedule.printed_fee_mismatch": "Printed fee matches the typed one",
    "wa.aggregate_payout_limit": "Aggregate payout limit (Washington)",
    "wa.fees": "Fees (Washington)",
    "wa.max_single_wager": "Maximum single wager (Washington)",
    "wa.poker_limits": "Poker wager limits (Washington)",
    "wa.wagers_per_hand": "Wagers per hand (Washington)",
}

PARAMETER_NAMES = {
    "aggregate_payout_odds": "the odds from which an aggregate payout limit applies",
    "fee_types_per_table": "the number of fee types one table may charge",
    "house_banked_max_wager": "the house-banked maximum wager",
    "max_collection_rates": "the most collection rates allowed",
    "max_side_wagers": "the most side wagers on one hand",
    "max_tables": "the most tables allowed",
    "max_wager_ceiling": "the highest maximum wager allowed",
    "max_wager_floor": "the lowest maximum wager allowed",
    "max_wagers_per_hand": "the most wagers on one hand",
    "min_wager_ceiling": "the highest minimum wager allowed",
    "min_wager_floor": "the lowest minimum wager allowed",
    "over_collection_tolerance": "the amount a table's gaming day may be collected above the schedule",
    "per_hand_fee_max": "the largest fee per hand",
    "player_dealer_max_consecutive_hands": "the most hands in a row one player may deal",
    "poker_max_betting_rounds": "the most betting rounds in a poker hand",
    "poker_max_wager": "the poker maximum wager",
    "poker_max_wager_class_f": "the poker maximum wager for Class F and house-banked licensees",
    "poker_max_wagers_per_round": "the most wagers in one poker betting round",
    "rack_removal_hours": "the hours within which a rack is removed",
    "rake_cap": "the largest rake per hand",
    "rake_max_percent": "the largest rake percentage",
    "side_wager_max": "the largest side wager",
    "time_fee_max": "the largest time fee",
    "variance_short_days_error": "the gaming days in a row with a hand short that make an error",
    "variance_short_days_warning": "the gaming days in a row with a hand short that make a warning",
}


def rule_title(code: str) -> str:
    """'Number of collection rates (California)' for 'ca.collection_rates'; an unknown code reads as words."""
    return RULE_TITLES.get(code) or code.rsplit(".", 1)[-1].replace("_", " ").capitalize()


def parameter_name(key: str) -> str:
    """'the house-banked maximum wager' for 'house_banked_max_wager'; an unknown key reads as words."""
    return PARAMETER_NAMES.get(key) or "the " + key.replace("_", " ")


def with_article(noun: str) -> str:
    """'an Omaha Hi-Low table', 'a Blackjack table': by the sound of the first letter (a vowel letter, as written)."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun
