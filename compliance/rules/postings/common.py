"""The rules every jurisdiction's pack uses: the game approved, the schedule option, the table limit, the tiers
covering every wager, and the bonus bets' caps."""

from __future__ import annotations

import re
from decimal import Decimal

from fees import engine
from fees.engine import kinds

from ..base import ERROR, INFO, WARNING, ParameterSet, dollars, finding, rule
from .approvals import approval_findings, relevant_approvals
from .facts import PostingFacts


@rule(code="approval.game_approved", title="Game approved",
      citation="11 CCR 2071; WAC 230-15-035 (a game is offered only once approved); the approval in force")
def rule_game_approved(f: PostingFacts, params: ParameterSet):
    approvals = relevant_approvals(f.approvals, f.game.slug, f.jurisdiction, f.establishment, f.establishment_kind)
    return approval_findings(rule_game_approved, f.subject, approvals, f.game_label(), f.jurisdiction, f.establishment,
                             f.establishment_kind, f.as_of, f.establishment_name)


@rule(code="schedule.option_approved_for_game", title="Option approved for the game",
      citation="11 CCR 2071; GEGA-002888 provisions (one collection schedule option per table)")
def rule_schedule_option(f: PostingFacts, params: ParameterSet):
    s = f.schedule
    if s is None:
        if f.jurisdiction == "CA" and f.game.category in ("player_dealer", "poker_drop", "time_collection"):
            return [finding(rule_schedule_option, ERROR, f.subject,
                            f"A {f.game.name} table must post one collection schedule option; none was given.",
                            rule_schedule_option.citation)]
        return []
    out = []
    if s.jurisdiction != f.jurisdiction:
        out.append(finding(rule_schedule_option, ERROR, f.subject,
                           f"{s.code} is a {s.jurisdiction} schedule; it cannot be posted in {f.jurisdiction}.",
                           s.citation))
    if s.establishment is not None and f.establishment is not None and s.establishment != f.establishment:
        out.append(finding(rule_schedule_option, ERROR, f.subject, f"{s.code} is {s.establishment}'s own schedule.",
                           s.citation))
    if f.game.slug not in s.games:
        out.append(finding(rule_schedule_option, ERROR, f.subject,
                           f"{s.code} is not a collection schedule approved for {f.game_label()}.", s.citation))
    if f.option is None:
        numbers = sorted(s.options)
        listed = engine.number_ranges(numbers) if numbers else "none"
        out.append(finding(rule_schedule_option, ERROR, f.subject,
                           f"{s.code} version {s.version} has no option {f.option_number} (its options: {listed}).",
                           s.citation))
    return out


@rule(code="option.table_limit", title="Posted limits within the option's table limit",
      citation="The schedule option's table limit, where it states one")
def rule_table_limit(f: PostingFacts, params: ParameterSet):
    option = f.option
    if option is None or (option.table_limit_low is None and option.table_limit_high is None):
        return []
    out = []
    citation = f"{f.schedule.code} option {option.number}: {option.option.citation}"
    low, high = option.table_limit_low, option.table_limit_high
    if low is not None and f.min_wager is not None and f.min_wager < low:
        out.append(finding(rule_table_limit, ERROR, f.subject,
                           f"The table minimum {dollars(f.min_wager)} is below the option's table limit of "
                           f"{dollars(low)}-{dollars(high)}.", citation))
    if high is not None and f.max_wager is not None and f.max_wager > high:
        out.append(finding(rule_table_limit, ERROR, f.subject,
                           f"The table maximum {dollars(f.max_wager)} is above the option's table limit of "
                           f"{dollars(low)}-{dollars(high)}.", citation))
    return out


_MONEY_MEASURES = {"base_wager", "player_wager", "total_table_action"}
_UNCLEAR = {"unstated", "wager_unspecified"}
# What a tier is measured on, in words (for the findings that say a measure is read by an interpretation).
_MEASURE_NAMES = {"base_wager": "each base wager", "player_wager": "the player's total base wager",
                  "total_table_action": "total table action", "players": "the players in the hand",
                  "elapsed_time": "each interval of play", "flat": "nothing (one flat fee)",
                  "wager_unspecified": "a wager column whose basis it does not state", "unstated": "nothing stated"}


def readings(tiers, *fields) -> list[engine.Interpretation]:
    """The distinct approved interpretations of ``fields`` among ``tiers`` (one per statement, citation and date)."""
    found = {}
    for tier in tiers:
        for reading in tier.interpretations:
            if reading.field in fields:
                found.setdefault((reading.statement, reading.citation, reading.decided_on), reading)
    return list(found.values())


def read_measure(name: str, readings_: list, measure: str) -> str:
    """'the player fee does not state what it is measured on; it is read as measured on ... Interpretation: ...'"""
    printed = sorted({r.printed for r in readings_})
    as_printed = ("does not state what it is measured on" if set(printed) <= _UNCLEAR else
                  f"is printed as measured on {' / '.join(_MEASURE_NAMES.get(p, p) for p in printed)}")
    return (f"the {name} {as_printed}; it is read as measured on {_MEASURE_NAMES.get(measure, measure)}. "
            + " ".join(engine.footnote(r) for r in readings_))


def reading_citations(cite: str, readings_: list) -> str:
    return "; ".join([cite, *dict.fromkeys(r.citation for r in readings_)])


def largest_table_action(f: PostingFacts) -> Decimal:
    bonus = sum((amount for _, amount in f.bonus_limits), Decimal(0))
    return f.seats * (f.max_wager + bonus)


@rule(code="coverage.tiers", title="Every wager has a fee tier",
      citation="The schedule option's tiers (the fee engine's tier rule, fees.engine.find_tier)")
def rule_coverage(f: PostingFacts, params: ParameterSet):
    """Every wager and total table action the posting allows has a tier (the engine's tier rule)."""
    option = f.option
    if option is None or f.max_wager is None:
        return []
    code = f.schedule.code
    citation = f"{code} option {option.number}: {option.option.citation}"
    groups: dict[str, list] = {}
    for tier in option.option.tiers:
        groups.setdefault(tier.fee_kind, []).append(tier)
    low = f.min_wager if f.min_wager is not None else f.max_wager
    out = []
    for kind, tiers in groups.items():
        measure = tiers[0].measure
        name = kinds.WORDS.get(kind, f"{kind} fee")
        if measure in _UNCLEAR:
            out.append(finding(rule_coverage, WARNING, f.subject,
                               f"{code} option {option.number} does not say what its {name} is measured on, so "
                               "whether it covers this table's wagers cannot be checked.", citation))
            continue
        read = readings(tiers, "measure")
        if read:  # measured as an approved interpretation reads it: checked below, and said
            out.append(finding(rule_coverage, INFO, f.subject, f"{code} option {option.number}: "
                               f"{read_measure(name, read, measure)}", reading_citations(citation, read)))
        if measure not in _MONEY_MEASURES:
            continue
        if measure == "total_table_action":
            top = largest_table_action(f)
            amounts = ((low, f"the smallest total table action ({dollars(low)})"),
                       (top, f"the largest total table action this posting allows ({f.seats} seats x "
                             f"({dollars(f.max_wager)} maximum wager"
                             + "".join(f" + {dollars(a)} {b}" for b, a in f.bonus_limits)
                             + f") = {dollars(top)})"))
        else:
            amounts = ((low, f"a {dollars(low)} wager"), (f.max_wager, f"a {dollars(f.max_wager)} wager"))
        for amount, what in amounts:
            try:
                engine.find_tier(tiers, amount, what=what, code=code, option=option.number)
            except engine.QuoteError as exc:
                out.append(finding(rule_coverage, ERROR, f.subject,
                                   f"The {name} has no tier for {what}: {exc}", citation))
    return out


def normal_name(name: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", name.lower()).split())


@rule(code="bonus.caps", title="Bonus bets within their caps",
      citation="The game's (or its gaming activity's) bet limits")
def rule_bonus_caps(f: PostingFacts, params: ParameterSet):
    out = []
    for bet, maximum in f.bonus_limits:
        wanted = normal_name(bet)
        limits = [b for b in f.bet_limits if b.maximum is not None and normal_name(b.bet) == wanted]
        if not limits:
            continue
        for limit in limits:
            cap = limit.maximum
            how = dollars(cap)
            if limit.maximum_is_lesser_of_base_wager and f.max_wager is not None and f.max_wager < cap:
                cap, how = f.max_wager, f"the lesser of the base wager and {dollars(limit.maximum)}"
            if maximum > cap:
                out.append(finding(rule_bonus_caps, ERROR, f.subject,
                                   f"The {limit.bet} maximum of {dollars(maximum)} is above its cap of {how}.",
                                   limit.citation))
            if limit.minimum is not None and maximum < limit.minimum:
                out.append(finding(rule_bonus_caps, ERROR, f.subject,
                                   f"The {limit.bet} maximum of {dollars(maximum)} is below its minimum of "
                                   f"{dollars(limit.minimum)}.", limit.citation))
    return out


COMMON = (rule_game_approved, rule_schedule_option)
