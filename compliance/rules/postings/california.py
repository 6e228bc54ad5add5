"""California's pack: the wagering limits, flat fees and the number of collection rates (GEGA-002888, Penal Code
337j), with the rules every pack uses."""

from __future__ import annotations

from decimal import Decimal

from fees import engine

from ..base import CONFIRMED, ERROR, INFO, WARNING, ParameterSet, dollars, finding, rule
from ..words import with_article
from .common import COMMON, rule_bonus_caps, rule_coverage, rule_table_limit
from .facts import PostingFacts
from .house_banked import HOUSE_BANKED


@rule(code="ca.wager_limits", title="Wager limits (California)",
      citation="GEGA-002888 provisions (minimum and maximum wagering limits)",
      parameters={"min_wager_floor": "the lowest minimum wager allowed",
                  "min_wager_ceiling": "the highest minimum wager allowed",
                  "max_wager_floor": "the lowest maximum wager allowed",
                  "max_wager_ceiling": "the highest maximum wager allowed"})
def rule_ca_wager_limits(f: PostingFacts, params: ParameterSet):
    if f.game.category != "player_dealer":
        # The $1-$1,000 / $100-$10,000 wagering limits are GEGA-002888's, for California games; a $2-$20
        # poker or lowball game is limited by its own schedule's games, not by them.
        return []
    option = f.option
    out = []
    checks = (
        ("minimum", f.min_wager, "min_wager_from", "min_wager_to", "min_wager_floor", "min_wager_ceiling"),
        ("maximum", f.max_wager, "max_wager_from", "max_wager_to", "max_wager_floor", "max_wager_ceiling"),
    )
    for label, amount, low_field, high_field, low_key, high_key in checks:
        if amount is None:
            out.append(finding(rule_ca_wager_limits, WARNING, f.subject, f"No table {label} is posted.",
                               rule_ca_wager_limits.citation))
            continue
        bounds, used = [], []
        for field_name, key in ((low_field, low_key), (high_field, high_key)):
            value = getattr(option, field_name) if option is not None else None
            if value is not None:
                bounds.append((value, option.option.citation))
            else:
                parameter = params.at("CA", key, f.as_of)
                bounds.append((parameter.value, parameter.citation))
                used.append(parameter)
        (low, low_cite), (high, high_cite) = bounds
        citation = low_cite if low_cite == high_cite else f"{low_cite}; {high_cite}"
        if not low <= amount <= high:
            out.append(finding(rule_ca_wager_limits, ERROR, f.subject,
                               f"The table {label} of {dollars(amount)} is outside the allowed {dollars(low)} to "
                               f"{dollars(high)} for a {label} wagering limit.", citation, used))
        elif any(p.status != CONFIRMED for p in used):
            out.append(finding(rule_ca_wager_limits, INFO, f.subject,
                               f"The table {label} of {dollars(amount)} is within {dollars(low)} to "
                               f"{dollars(high)}.", citation, used))
    if f.min_wager is not None and f.max_wager is not None and f.min_wager > f.max_wager:
        out.append(finding(rule_ca_wager_limits, ERROR, f.subject,
                           f"The posted minimum {dollars(f.min_wager)} is above the posted maximum "
                           f"{dollars(f.max_wager)}.", "GEGA-002888 provisions (wagering limits)"))
    return out


@rule(code="ca.flat_fees", title="Flat collection fees (California)",
      citation="Penal Code 337j (as summarised in legislative analyses); Sutter's Place v. Kennedy (1999) "
               "71 Cal.App.4th 674")
def rule_ca_flat_fees(f: PostingFacts, params: ParameterSet):
    option = f.option
    if option is None:
        return []
    return [finding(rule_ca_flat_fees, INFO, f.subject,
                    f"Every fee in {f.schedule.code} option {option.number} is a flat dollar amount fixed before "
                    "play, never a percentage of wagers or winnings (fee rows hold amounts only).",
                    rule_ca_flat_fees.citation)]


def collection_rates(option: engine.Option) -> list[Decimal]:
    """The distinct fee amounts an option can charge ($0 is no collection)."""
    return sorted({t.fee for t in option.tiers if t.fee > 0})


@rule(code="ca.collection_rates", title="Number of collection rates (California)",
      citation="Penal Code 337j (as summarised in legislative analyses); the game's own rules where they allow fewer",
      parameters={"max_collection_rates": "the most collection rates allowed"})
def rule_ca_collection_rates(f: PostingFacts, params: ParameterSet):
    option = f.option
    if option is None:
        return []
    parameter = params.at("CA", "max_collection_rates", f.as_of)
    limit, citation, used = parameter.value, parameter.citation, [parameter]
    if f.game.max_collection_rates is not None and f.game.max_collection_rates < limit:
        limit = Decimal(f.game.max_collection_rates)
        citation = f"{f.game.name} rules: {f.game.max_collection_rates_citation}"
        used = []
    rates = collection_rates(option.option)
    shown = ", ".join(dollars(r) for r in rates)
    if len(rates) > limit:
        return [finding(rule_ca_collection_rates, ERROR, f.subject,
                        f"{f.schedule.code} option {option.number} has {len(rates)} collection rates ({shown}); "
                        f"at most {limit.normalize()} are allowed at {with_article(f.game.name)} table.", citation, used)]
    if any(p.status != CONFIRMED for p in used):
        return [finding(rule_ca_collection_rates, INFO, f.subject,
                        f"{f.schedule.code} option {option.number} has {len(rates)} collection rate(s) ({shown}), "
                        f"within the {limit.normalize()} allowed.", citation, used)]
    return []


PACK = COMMON + (rule_ca_wager_limits, rule_table_limit, rule_ca_flat_fees, rule_ca_collection_rates, rule_coverage,
                 rule_bonus_caps) + HOUSE_BANKED
