"""Washington's packs (WAC 230-15): wagering limits, house fees and the aggregate payout limit; a tribal casino's
fees come under its compact instead."""

from __future__ import annotations

from decimal import Decimal

from ..base import CONFIRMED, ERROR, INFO, WARNING, ParameterSet, dollars, finding, rule
from .common import COMMON, normal_name, rule_bonus_caps, rule_coverage, rule_table_limit
from .facts import PostingFacts
from .house_banked import HOUSE_BANKED


def _limit_check(f, rule, parameter, amount, what, subject=None):
    subject = subject or f.subject
    if amount > parameter.value:
        return [finding(rule, ERROR, subject,
                        f"{what} of {dollars(amount)} is above the Washington limit of {parameter.shown()}.",
                        parameter.citation, [parameter])]
    if parameter.status != CONFIRMED:
        return [finding(rule, INFO, subject,
                        f"{what} of {dollars(amount)} is within the Washington limit of {parameter.shown()}.",
                        parameter.citation, [parameter])]
    return []


@rule(code="wa.max_single_wager", title="Maximum single wager (Washington)", citation="WAC 230-15-140",
      parameters={"house_banked_max_wager": "the house-banked maximum wager"})
def rule_wa_max_single_wager(f: PostingFacts, params: ParameterSet):
    if f.game.category != "house_banked" or f.max_wager is None:
        return []
    parameter = params.at("WA", "house_banked_max_wager", f.as_of)
    out = _limit_check(f, rule_wa_max_single_wager, parameter, f.max_wager, "The maximum single wager")
    for bet, maximum in f.bonus_limits:
        if maximum > parameter.value:
            out += _limit_check(f, rule_wa_max_single_wager, parameter, maximum, f"The {bet} maximum")
    return out


@rule(code="wa.wagers_per_hand", title="Wagers per hand (Washington)", citation="WAC 230-15-040",
      parameters={"max_wagers_per_hand": "the most wagers on one hand",
                  "max_side_wagers": "the most side wagers on one hand",
                  "side_wager_max": "the largest side wager"})
def rule_wa_wagers_per_hand(f: PostingFacts, params: ParameterSet):
    if f.game.category != "house_banked":
        return []
    most = params.at("WA", "max_wagers_per_hand", f.as_of)
    side_most = params.at("WA", "max_side_wagers", f.as_of)
    side_cap = params.at("WA", "side_wager_max", f.as_of)
    wagers = f.wagers_per_hand if f.wagers_per_hand is not None else 1 + len(f.bonus_limits)
    out = []
    if wagers > most.value:
        out.append(finding(rule_wa_wagers_per_hand, ERROR, f.subject,
                           f"{wagers} separate wagers on one hand; at most {most.value.normalize()} are allowed.",
                           most.citation, [most]))
    if len(f.bonus_limits) > side_most.value:
        out.append(finding(rule_wa_wagers_per_hand, ERROR, f.subject,
                           f"{len(f.bonus_limits)} side wagers offered; at most {side_most.value.normalize()} are "
                           "allowed on one hand.", side_most.citation, [side_most]))
    for bet, maximum in f.bonus_limits:
        if maximum > side_cap.value:
            out.append(finding(rule_wa_wagers_per_hand, ERROR, f.subject,
                               f"The {bet} side wager goes up to {dollars(maximum)}; side wagers are limited to "
                               f"{dollars(side_cap.value)} or less.", side_cap.citation, [side_cap]))
    if not out and f.bonus_limits and any(p.status != CONFIRMED for p in (most, side_most, side_cap)):
        out.append(finding(rule_wa_wagers_per_hand, INFO, f.subject,
                           f"{wagers} wager(s) on one hand, {len(f.bonus_limits)} of them side wagers of at most "
                           f"{dollars(side_cap.value)}: within the limits.", most.citation,
                           [most, side_most, side_cap]))
    return out


@rule(code="wa.fees", title="Fees (Washington)", citation="WAC 230-15-080",
      parameters={"fee_types_per_table": "the number of fee types one table may charge",
                  "time_fee_max": "the largest time fee", "per_hand_fee_max": "the largest fee per hand",
                  "rake_max_percent": "the largest rake percentage", "rake_cap": "the largest rake per hand"})
def rule_wa_fees(f: PostingFacts, params: ParameterSet):
    if not f.fees:
        if f.schedule is None:
            return [finding(rule_wa_fees, INFO, f.subject, "No house fee was given, so the fee caps were not checked.",
                            rule_wa_fees.citation)]
        return []
    out = []
    kinds = sorted({fee.kind for fee in f.fees})
    one = params.at("WA", "fee_types_per_table", f.as_of)
    if len(kinds) > one.value:
        out.append(finding(rule_wa_fees, ERROR, f.subject,
                           f"{len(kinds)} types of fee at one table ({', '.join(kinds)}); only "
                           f"{one.value.normalize()} type may be used at a table at a time.", one.citation, [one]))
    for fee in f.fees:
        if fee.kind == "time" and fee.amount is not None:
            out += _limit_check(f, rule_wa_fees, params.at("WA", "time_fee_max", f.as_of), fee.amount,
                                "The time fee per player per hour")
        elif fee.kind == "per_hand" and fee.amount is not None:
            out += _limit_check(f, rule_wa_fees, params.at("WA", "per_hand_fee_max", f.as_of), fee.amount,
                                "The per-hand fee per player")
            if not f.class_f and f.game.category != "house_banked":
                out.append(finding(rule_wa_fees, ERROR, f.subject,
                                   "A per-hand fee may be charged only by Class F and house-banked licensees.",
                                   rule_wa_fees.citation))
        elif fee.kind == "rake":
            most = params.at("WA", "rake_max_percent", f.as_of)
            if fee.percent is not None and fee.percent > most.value:
                out.append(finding(rule_wa_fees, ERROR, f.subject,
                                   f"A rake of {fee.percent.normalize()}% is above the {most.shown()} limit.",
                                   most.citation, [most]))
            cap = params.get("WA", "rake_cap", f.as_of)
            if cap is not None:
                if fee.cap is None:
                    out.append(finding(rule_wa_fees, WARNING, f.subject,
                                       f"The rake states no per-hand cap; a cap of {cap.shown()} applies.",
                                       cap.citation, [cap]))
                else:
                    out += _limit_check(f, rule_wa_fees, cap, fee.cap, "The rake's per-hand cap")
    return out


@rule(code="wa.poker_limits", title="Poker wager limits (Washington)", citation="WAC 230-15-135",
      parameters={"poker_max_wager": "the poker maximum wager",
                  "poker_max_wager_class_f": "the poker maximum wager for Class F and house-banked licensees"})
def rule_wa_poker_limits(f: PostingFacts, params: ParameterSet):
    if f.game.category != "poker_drop" or f.max_wager is None:
        return []
    key = "poker_max_wager_class_f" if f.class_f else "poker_max_wager"
    parameter = params.at("WA", key, f.as_of)
    what = "The maximum single poker wager" + (" (Class F / house-banked licensee)" if f.class_f else "")
    return _limit_check(f, rule_wa_poker_limits, parameter, f.max_wager, what)


@rule(code="tribal.fees", title="Fees at a tribal casino (Washington)", citation="25 CFR 543.10(f)")
def rule_tribal_fees(f: PostingFacts, params: ParameterSet):
    return [finding(rule_tribal_fees, INFO, f.subject,
                    "At a tribal casino the fees are set under the tribal-state compact and the Tribal Gaming "
                    "Agency's internal controls, not WAC 230-15-080; the fees and rake collected must be displayed "
                    "or available for patron review.", rule_tribal_fees.citation)]


def _odds(value: Decimal | None) -> str:
    return "no odds" if value is None else f"{value.normalize():f} to 1"


@rule(code="wa.aggregate_payout_limit", title="Aggregate payout limit (Washington)", citation="WAC 230-15-490",
      parameters={"aggregate_payout_odds": "the odds from which an aggregate payout limit applies"})
def rule_wa_aggregate_payout_limit(f: PostingFacts, params: ParameterSet):
    """WAC 230-15-490: an aggregate payout limit only where the highest odds are at least 50 to 1, and then at
    least the maximum wager times the odds (counted up to 50 to 1); it is shown on the sign (signage.content)."""
    h = f.house_banked
    if h is None:
        return []
    cap = params.at("WA", "aggregate_payout_odds", f.as_of)
    maxima = {normal_name(bet): maximum for bet, maximum in f.bonus_limits}
    odds_bets = [(bet, p, p.top_odds()) for bet, p in h.paytables if p.top_odds() is not None]
    highest = max(odds_bets, key=lambda item: item[2], default=None)
    limit = h.aggregate_payout_limit
    if highest is None or highest[2] < cap.value:
        if limit is None:
            return []
        top = f"the highest odds paid here are {_odds(highest[2])} ({highest[0]})" if highest else \
            "no bet here pays odds"
        return [finding(rule_wa_aggregate_payout_limit, ERROR, f.subject,
                        f"An aggregate payout limit of {dollars(limit)} is posted, but {top}: a limit may be set only "
                        f"where the highest odds are at least {_odds(cap.value)}.", cap.citation, [cap])]
    if limit is None:
        return []  # a limit is allowed, not required: every winning wager is then paid in full
    needed = []
    for bet, paytable, top in odds_bets:
        maximum = maxima.get(normal_name(bet))
        if maximum is not None:
            counted = min(top, cap.value)
            needed.append((maximum * counted, bet, maximum, counted))
    if not needed:
        return []
    least, bet, maximum, counted = max(needed)
    if limit < least:
        return [finding(rule_wa_aggregate_payout_limit, ERROR, f.subject,
                        f"The aggregate payout limit of {dollars(limit)} is below the least allowed, {dollars(least)}: "
                        f"the {bet} maximum of {dollars(maximum)} x {_odds(counted)} (odds counted up to "
                        f"{_odds(cap.value)}).", cap.citation, [cap])]
    return []


PACK = COMMON + (rule_table_limit, rule_coverage, rule_bonus_caps, rule_wa_max_single_wager, rule_wa_wagers_per_hand,
                 rule_wa_fees, rule_wa_poker_limits) + HOUSE_BANKED + (rule_wa_aggregate_payout_limit,)
# Tribal casinos in Washington: the approval letter holds their wagering limits to WAC 230-15-040 and
# 230-15-140 too, but their fees come under the compact (25 CFR 543), not WAC 230-15-080.
TRIBAL_PACK = COMMON + (rule_table_limit, rule_coverage, rule_bonus_caps, rule_wa_max_single_wager,
                        rule_wa_wagers_per_hand, rule_tribal_fees) + HOUSE_BANKED + (rule_wa_aggregate_payout_limit,)
