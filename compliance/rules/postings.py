"""Posting checks: is what a table shows (or would show) allowed on a given day? Pure Python.

A posting is checked as ``PostingFacts`` (built by ``compliance.facts`` from a request or a stored
TablePosting) against the rule pack of its jurisdiction (``pack_for``). Every rule is a function
``rule(facts, params) -> iterable of Finding``; rules that need a fact the posting lacks say nothing.
Numeric limits are never written here: they come from ``params`` (dated values, see ``base.ParameterSet``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from fees import (
    engine,  # pure Python: the tier rule is the engine's, never a second copy
)

from .base import (
    CONFIRMED,
    ERROR,
    INFO,
    WARNING,
    Finding,
    MissingParameter,
    ParameterSet,
    dollars,
    finding,
)

# -- facts ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    text: str
    applies_to: str  # all | commercial | tribal
    status: str  # what the source says of the condition itself: outstanding | met | not_applicable | withdrawn
    citation: str
    kind: str = "prerequisite"  # prerequisite | operating | other_party
    order: int | None = None
    met: tuple[tuple[str, date], ...] = ()  # (establishment slug, day met) of the records standing there

    def met_at(self, establishment: str | None, day: date) -> date | None:
        """The day this condition was met at ``establishment`` if that is on or before ``day``, else None."""
        return next((on for slug, on in self.met if slug == establishment and on <= day), None)

    def label(self) -> str:
        return f"condition {self.order}" if self.order is not None else "a condition"


@dataclass(frozen=True)
class ApprovalFacts:
    key: str
    game: str  # slug
    game_name: str
    jurisdiction: str  # code
    establishment: str | None  # slug, None for the whole jurisdiction
    scope: str  # all | commercial | tribal
    status: str  # pending | trial | approved | withdrawn | revoked
    reference: str
    decided_on: date | None
    effective_from: date | None
    expires_on: date | None
    trial_ends_on: date | None
    citation: str
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class GameFacts:
    slug: str
    name: str
    registration_number: str | None
    category: str  # house_banked | player_dealer | poker_drop | time_collection | gaming_activity
    max_collection_rates: int | None = None
    max_collection_rates_citation: str = ""


@dataclass(frozen=True)
class BetLimitFacts:
    game: str
    bet: str
    minimum: Decimal | None
    maximum: Decimal | None
    maximum_is_lesser_of_base_wager: bool
    citation: str


@dataclass(frozen=True)
class OptionFacts:
    option: engine.Option
    min_wager_from: Decimal | None = None
    min_wager_to: Decimal | None = None
    max_wager_from: Decimal | None = None
    max_wager_to: Decimal | None = None
    table_limit_low: Decimal | None = None
    table_limit_high: Decimal | None = None

    @property
    def number(self):
        return self.option.number


@dataclass(frozen=True)
class ScheduleFacts:
    code: str
    version: int
    jurisdiction: str
    establishment: str | None
    games: frozenset
    citation: str
    options: dict  # number -> OptionFacts


@dataclass(frozen=True)
class HouseFee:
    """A Washington house fee as posted: time (per player per hour), per_hand (per player), rake (percent)."""

    kind: str
    amount: Decimal | None = None
    percent: Decimal | None = None
    cap: Decimal | None = None


@dataclass(frozen=True)
class PayoutLine:
    """One paytable line as printed: 'N to M' odds, a push, or a fixed amount."""

    hand: str
    printed: str
    odds_to: Decimal | None = None
    odds_for: Decimal | None = None
    is_push: bool = False
    fixed_amount: Decimal | None = None

    @property
    def odds(self) -> Decimal | None:
        """N/M of 'N to M' (40 for '40 to 1'); None where the line states no odds."""
        if self.odds_to is None or not self.odds_for:
            return None
        return self.odds_to / self.odds_for


@dataclass(frozen=True)
class PaytableFacts:
    game: str  # slug
    bet: str
    number: str
    source: str  # key of the document it was transcribed from
    citation: str
    lines: tuple[PayoutLine, ...] = ()

    @property
    def key(self):
        return (self.game, self.bet, self.number)

    def label(self) -> str:
        return f"{self.bet} paytable {self.number}"

    def payouts(self) -> tuple:
        """What it pays line by line, whatever the hands are called (to compare two printings of a paytable)."""
        return tuple((line.odds_to, line.odds_for, line.is_push, line.fixed_amount) for line in self.lines)

    def top_odds(self) -> Decimal | None:
        odds = [line.odds for line in self.lines if line.odds is not None]
        return max(odds) if odds else None


@dataclass(frozen=True)
class RulesFacts:
    game: str  # slug
    version: str
    title: str
    source: str  # key of the document it was transcribed from
    citation: str


@dataclass(frozen=True)
class ApprovedContent:
    """What one approval approves: the rules versions and paytables transcribed from the approval's own document
    (a letter and its enclosure share the approval's source, e.g. the WSGC letter of 2014-02-18)."""

    approval: str  # key
    reference: str
    citation: str
    rules: tuple[RulesFacts, ...] = ()
    paytables: tuple[PaytableFacts, ...] = ()


@dataclass(frozen=True)
class HouseBankedFacts:
    """A posting of a house-banked game without a collection schedule: the rules version, the decks, the paytable
    in use for each bonus bet and the aggregate payout limit (docs/signage.md); ``approved``: what each approval
    of the game approves."""

    rules: RulesFacts
    decks: int | None = None
    paytables: tuple[tuple[str, PaytableFacts], ...] = ()  # (bet as posted, the paytable it pays by)
    aggregate_payout_limit: Decimal | None = None
    approved: tuple[ApprovedContent, ...] = ()


@dataclass(frozen=True)
class PostingFacts:
    subject: dict
    jurisdiction: str
    as_of: date
    game: GameFacts
    establishment: str | None = None
    establishment_kind: str | None = None  # card_room | tribal_casino | casino
    schedule: ScheduleFacts | None = None
    option_number: int | None = None
    min_wager: Decimal | None = None
    max_wager: Decimal | None = None
    seats: int = 1
    bonus_limits: tuple[tuple[str, Decimal], ...] = ()
    approvals: tuple[ApprovalFacts, ...] = ()
    bet_limits: tuple[BetLimitFacts, ...] = ()
    fees: tuple[HouseFee, ...] = ()
    class_f: bool = False  # Washington Class F or house-banked licensee (WAC 230-15-135)
    wagers_per_hand: int | None = None
    house_banked: HouseBankedFacts | None = None  # a house-banked posting without a collection schedule

    @property
    def option(self) -> OptionFacts | None:
        if self.schedule is None or self.option_number is None:
            return None
        return self.schedule.options.get(self.option_number)

    @property
    def tribal(self) -> bool:
        return self.establishment_kind == "tribal_casino"

    def game_label(self) -> str:
        number = f" ({self.game.registration_number})" if self.game.registration_number else ""
        return f"{self.game.name}{number}"


# -- approvals (shared with the lint) ------------------------------------------------------------------

EXPIRING_WITHIN = timedelta(days=30)


@dataclass(frozen=True)
class ApprovalState:
    approval: ApprovalFacts
    in_force: bool
    why: str  # for a floor supervisor
    date_stated: bool


def approval_state(approval: ApprovalFacts, day: date) -> ApprovalState:
    start = approval.effective_from or approval.decided_on
    ref = f"{approval.reference or approval.key}"
    if approval.status in ("withdrawn", "revoked", "pending"):
        return ApprovalState(approval, False, f"the approval ({ref}) is {approval.status}", start is not None)
    if start is not None and day < start:
        return ApprovalState(approval, False, f"the approval ({ref}) applies only from {start.isoformat()}", True)
    if approval.expires_on is not None and day > approval.expires_on:
        return ApprovalState(approval, False, f"the approval ({ref}) expired on {approval.expires_on.isoformat()}",
                             True)
    if approval.status == "trial" and approval.trial_ends_on is not None and day > approval.trial_ends_on:
        return ApprovalState(approval, False, f"the trial ({ref}) ended on {approval.trial_ends_on.isoformat()}",
                             True)
    return ApprovalState(approval, True, "", start is not None)


def scopes_for(establishment_kind: str | None) -> tuple[str, ...]:
    if establishment_kind is None:
        return ("all", "commercial", "tribal")
    return ("all", "tribal") if establishment_kind == "tribal_casino" else ("all", "commercial")


def relevant_approvals(approvals, game, jurisdiction, establishment, establishment_kind):
    scopes = scopes_for(establishment_kind)
    return [
        a for a in approvals
        if a.game == game and a.jurisdiction == jurisdiction and a.scope in scopes
        and (establishment is None or a.establishment in (None, establishment))
    ]


def approval_findings(subject, approvals, game_label, jurisdiction, establishment, establishment_kind, day,
                      rule="approval.game_approved"):
    """Findings for 'is this game approved here on this day', shared by posting checks and the table lint."""
    citation_default = {
        "CA": "11 CCR 2071 (a game must be approved before it is offered)",
        "WA": "WAC 230-15-035 (only games the director authorized may be played)",
    }.get(jurisdiction, "Game approval")
    where = establishment or jurisdiction
    if not approvals:
        return [finding(rule, ERROR, subject,
                        f"{game_label} has no approval recorded for {where}: it may not be offered.",
                        citation_default)]
    states = [approval_state(a, day) for a in approvals]
    in_force = [s for s in states if s.in_force]
    if not in_force:
        reasons = "; ".join(s.why for s in states)
        return [finding(rule, ERROR, subject,
                        f"{game_label} is not approved for {where} on {day.isoformat()}: {reasons}.",
                        states[0].approval.citation)]
    chosen = next((s for s in in_force if s.date_stated), in_force[0])
    approval = chosen.approval
    out = []
    if not chosen.date_stated:
        out.append(finding(rule, INFO, subject,
                           f"{game_label} is approved ({approval.reference}), but the approval states no date; "
                           "treated as in force.", approval.citation))
    if approval.status == "trial":
        end = (f"until {approval.trial_ends_on.isoformat()}" if approval.trial_ends_on
               else "with no end date stated")
        out.append(finding("approval.trial_period", INFO, subject,
                           f"{game_label} is on trial ({approval.reference}) {end}; "
                           f"{day.isoformat()} is within the trial.", approval.citation))
    if approval.expires_on is not None and approval.expires_on - day <= EXPIRING_WITHIN:
        out.append(finding("approval.expiring", WARNING, subject,
                           f"The approval of {game_label} ({approval.reference}) expires on "
                           f"{approval.expires_on.isoformat()}.", approval.citation))
    if establishment is None and approval.establishment is not None:
        out.append(finding(rule, INFO, subject,
                           f"{game_label} is approved only at {approval.establishment}; name the establishment "
                           "to check a posting there.", approval.citation))
    out.extend(condition_findings(subject, approval, game_label, establishment, establishment_kind, day))
    return out


def conditions_outstanding(approval: ApprovalFacts, establishment: str | None, establishment_kind: str | None,
                           day: date) -> list[Condition]:
    """The prerequisites of ``approval`` that concern an establishment of this kind (``applies_to``) and are not
    recorded as met at ``establishment`` on or before ``day`` (all of them when no establishment is named). A
    condition the source itself records as met, not applicable or withdrawn is outstanding nowhere; 'operating'
    and 'other_party' conditions are never met once, so never outstanding here."""
    scopes = scopes_for(establishment_kind)
    return [c for c in approval.conditions
            if c.kind == "prerequisite" and c.status == "outstanding" and c.applies_to in scopes
            and (establishment is None or c.met_at(establishment, day) is None)]


def condition_findings(subject, approval: ApprovalFacts, game_label, establishment, establishment_kind, day):
    """``approval.conditions_outstanding``: an error when a prerequisite of the approval in force is not recorded
    as met at the establishment by ``day`` (the game may not be offered there yet), naming each condition and
    citing where it is written; without an establishment, a warning that they must be met where it is offered."""
    outstanding = conditions_outstanding(approval, establishment, establishment_kind, day)
    if not outstanding:
        return []
    named = "; ".join(f"{c.label()}, \"{c.text.rstrip('.')}\"" for c in outstanding)
    citation = "; ".join(dict.fromkeys(c.citation for c in outstanding))
    count = f"{len(outstanding)} condition{'s' if len(outstanding) > 1 else ''}"
    if establishment is None:
        return [finding("approval.conditions_outstanding", WARNING, subject,
                        f"The approval of {game_label} ({approval.reference}) has {count} to be met at each "
                        f"establishment before the game is offered there: {named}. Name the establishment to check "
                        "whether they are met.", citation)]
    return [finding("approval.conditions_outstanding", ERROR, subject,
                    f"{game_label} may not be offered at {establishment} on {day.isoformat()}: {count} of its "
                    f"approval ({approval.reference}) {'are' if len(outstanding) > 1 else 'is'} not recorded as met "
                    f"there: {named}.", citation)]


# -- rules ---------------------------------------------------------------------------------------------


def rule_game_approved(f: PostingFacts, params: ParameterSet):
    approvals = relevant_approvals(f.approvals, f.game.slug, f.jurisdiction, f.establishment, f.establishment_kind)
    return approval_findings(f.subject, approvals, f.game_label(), f.jurisdiction, f.establishment,
                             f.establishment_kind, f.as_of)


def rule_schedule_option(f: PostingFacts, params: ParameterSet):
    rule = "schedule.option_approved_for_game"
    s = f.schedule
    if s is None:
        if f.jurisdiction == "CA" and f.game.category in ("player_dealer", "poker_drop", "time_collection"):
            return [finding(rule, ERROR, f.subject,
                            f"A {f.game.name} table must post one collection schedule option; none was given.",
                            "11 CCR 2071; GEGA-002888 provisions (one collection schedule option per table)")]
        return []
    out = []
    if s.jurisdiction != f.jurisdiction:
        out.append(finding(rule, ERROR, f.subject,
                           f"{s.code} is a {s.jurisdiction} schedule; it cannot be posted in {f.jurisdiction}.",
                           s.citation))
    if s.establishment is not None and f.establishment is not None and s.establishment != f.establishment:
        out.append(finding(rule, ERROR, f.subject, f"{s.code} is {s.establishment}'s own schedule.", s.citation))
    if f.game.slug not in s.games:
        out.append(finding(rule, ERROR, f.subject,
                           f"{s.code} is not a collection schedule approved for {f.game_label()}.", s.citation))
    if f.option is None:
        numbers = sorted(s.options)
        listed = engine._ranges(numbers) if numbers else "none"
        out.append(finding(rule, ERROR, f.subject,
                           f"{s.code} version {s.version} has no option {f.option_number} (its options: {listed}).",
                           s.citation))
    return out


def rule_ca_wager_limits(f: PostingFacts, params: ParameterSet):
    rule = "ca.wager_limits"
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
            out.append(finding(rule, WARNING, f.subject, f"No table {label} is posted.",
                               "GEGA-002888 provisions (minimum and maximum wagering limits)"))
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
            out.append(finding(rule, ERROR, f.subject,
                               f"The table {label} of {dollars(amount)} is outside the allowed {dollars(low)} to "
                               f"{dollars(high)} for a {label} wagering limit.", citation, used))
        elif any(p.status != CONFIRMED for p in used):
            out.append(finding(rule, INFO, f.subject,
                               f"The table {label} of {dollars(amount)} is within {dollars(low)} to "
                               f"{dollars(high)}.", citation, used))
    if f.min_wager is not None and f.max_wager is not None and f.min_wager > f.max_wager:
        out.append(finding(rule, ERROR, f.subject,
                           f"The posted minimum {dollars(f.min_wager)} is above the posted maximum "
                           f"{dollars(f.max_wager)}.", "GEGA-002888 provisions (wagering limits)"))
    return out


def rule_table_limit(f: PostingFacts, params: ParameterSet):
    option = f.option
    if option is None or (option.table_limit_low is None and option.table_limit_high is None):
        return []
    out = []
    citation = f"{f.schedule.code} option {option.number}: {option.option.citation}"
    low, high = option.table_limit_low, option.table_limit_high
    if low is not None and f.min_wager is not None and f.min_wager < low:
        out.append(finding("option.table_limit", ERROR, f.subject,
                           f"The table minimum {dollars(f.min_wager)} is below the option's table limit of "
                           f"{dollars(low)}-{dollars(high)}.", citation))
    if high is not None and f.max_wager is not None and f.max_wager > high:
        out.append(finding("option.table_limit", ERROR, f.subject,
                           f"The table maximum {dollars(f.max_wager)} is above the option's table limit of "
                           f"{dollars(low)}-{dollars(high)}.", citation))
    return out


def rule_ca_flat_fees(f: PostingFacts, params: ParameterSet):
    option = f.option
    if option is None:
        return []
    return [finding("ca.flat_fees", INFO, f.subject,
                    f"Every fee in {f.schedule.code} option {option.number} is a flat dollar amount fixed before "
                    "play, never a percentage of wagers or winnings (fee rows hold amounts only).",
                    "Penal Code 337j (as summarised in legislative analyses); Sutter's Place v. Kennedy (1999) "
                    "71 Cal.App.4th 674")]


def collection_rates(option: engine.Option) -> list[Decimal]:
    """The distinct fee amounts an option can charge ($0 is no collection)."""
    return sorted({t.fee for t in option.tiers if t.fee > 0})


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
        return [finding("ca.collection_rates", ERROR, f.subject,
                        f"{f.schedule.code} option {option.number} has {len(rates)} collection rates ({shown}); "
                        f"at most {limit.normalize()} are allowed at a {f.game.name} table.", citation, used)]
    if any(p.status != CONFIRMED for p in used):
        return [finding("ca.collection_rates", INFO, f.subject,
                        f"{f.schedule.code} option {option.number} has {len(rates)} collection rate(s) ({shown}), "
                        f"within the {limit.normalize()} allowed.", citation, used)]
    return []


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


def rule_coverage(f: PostingFacts, params: ParameterSet):
    """Every wager and total table action the posting allows has a tier (the engine's tier rule)."""
    option = f.option
    if option is None or f.max_wager is None:
        return []
    rule = "coverage.tiers"
    code = f.schedule.code
    citation = f"{code} option {option.number}: {option.option.citation}"
    groups: dict[str, list] = {}
    for tier in option.option.tiers:
        groups.setdefault(tier.fee_kind, []).append(tier)
    low = f.min_wager if f.min_wager is not None else f.max_wager
    out = []
    for kind, tiers in groups.items():
        measure = tiers[0].measure
        name = "player-dealer fee" if kind == "player_dealer" else f"{kind.replace('_', ' ')} fee"
        if measure in _UNCLEAR:
            out.append(finding(rule, WARNING, f.subject,
                               f"{code} option {option.number} does not say what its {name} is measured on, so "
                               "whether it covers this table's wagers cannot be checked.", citation))
            continue
        read = readings(tiers, "measure")
        if read:  # measured as an approved interpretation reads it: checked below, and said
            out.append(finding(rule, INFO, f.subject, f"{code} option {option.number}: "
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
                out.append(finding(rule, ERROR, f.subject,
                                   f"The {name} has no tier for {what}: {exc}", citation))
    return out


def _normal(name: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", name.lower()).split())


def rule_bonus_caps(f: PostingFacts, params: ParameterSet):
    out = []
    for bet, maximum in f.bonus_limits:
        wanted = _normal(bet)
        limits = [b for b in f.bet_limits if b.maximum is not None and _normal(b.bet) == wanted]
        if not limits:
            continue
        for limit in limits:
            cap = limit.maximum
            how = dollars(cap)
            if limit.maximum_is_lesser_of_base_wager and f.max_wager is not None and f.max_wager < cap:
                cap, how = f.max_wager, f"the lesser of the base wager and {dollars(limit.maximum)}"
            if maximum > cap:
                out.append(finding("bonus.caps", ERROR, f.subject,
                                   f"The {limit.bet} maximum of {dollars(maximum)} is above its cap of {how}.",
                                   limit.citation))
            if limit.minimum is not None and maximum < limit.minimum:
                out.append(finding("bonus.caps", ERROR, f.subject,
                                   f"The {limit.bet} maximum of {dollars(maximum)} is below its minimum of "
                                   f"{dollars(limit.minimum)}.", limit.citation))
    return out


# Washington ------------------------------------------------------------------------------------------


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


def rule_wa_max_single_wager(f: PostingFacts, params: ParameterSet):
    if f.game.category != "house_banked" or f.max_wager is None:
        return []
    parameter = params.at("WA", "house_banked_max_wager", f.as_of)
    out = _limit_check(f, "wa.max_single_wager", parameter, f.max_wager, "The maximum single wager")
    for bet, maximum in f.bonus_limits:
        if maximum > parameter.value:
            out += _limit_check(f, "wa.max_single_wager", parameter, maximum, f"The {bet} maximum")
    return out


def rule_wa_wagers_per_hand(f: PostingFacts, params: ParameterSet):
    if f.game.category != "house_banked":
        return []
    rule = "wa.wagers_per_hand"
    most = params.at("WA", "max_wagers_per_hand", f.as_of)
    side_most = params.at("WA", "max_side_wagers", f.as_of)
    side_cap = params.at("WA", "side_wager_max", f.as_of)
    wagers = f.wagers_per_hand if f.wagers_per_hand is not None else 1 + len(f.bonus_limits)
    out = []
    if wagers > most.value:
        out.append(finding(rule, ERROR, f.subject,
                           f"{wagers} separate wagers on one hand; at most {most.value.normalize()} are allowed.",
                           most.citation, [most]))
    if len(f.bonus_limits) > side_most.value:
        out.append(finding(rule, ERROR, f.subject,
                           f"{len(f.bonus_limits)} side wagers offered; at most {side_most.value.normalize()} are "
                           "allowed on one hand.", side_most.citation, [side_most]))
    for bet, maximum in f.bonus_limits:
        if maximum > side_cap.value:
            out.append(finding(rule, ERROR, f.subject,
                               f"The {bet} side wager goes up to {dollars(maximum)}; side wagers are limited to "
                               f"{dollars(side_cap.value)} or less.", side_cap.citation, [side_cap]))
    if not out and f.bonus_limits and any(p.status != CONFIRMED for p in (most, side_most, side_cap)):
        out.append(finding(rule, INFO, f.subject,
                           f"{wagers} wager(s) on one hand, {len(f.bonus_limits)} of them side wagers of at most "
                           f"{dollars(side_cap.value)}: within the limits.", most.citation,
                           [most, side_most, side_cap]))
    return out


def rule_wa_fees(f: PostingFacts, params: ParameterSet):
    rule = "wa.fees"
    if not f.fees:
        if f.schedule is None:
            return [finding(rule, INFO, f.subject, "No house fee was given, so the fee caps were not checked.",
                            "WAC 230-15-080")]
        return []
    out = []
    kinds = sorted({fee.kind for fee in f.fees})
    one = params.at("WA", "fee_types_per_table", f.as_of)
    if len(kinds) > one.value:
        out.append(finding(rule, ERROR, f.subject,
                           f"{len(kinds)} types of fee at one table ({', '.join(kinds)}); only "
                           f"{one.value.normalize()} type may be used at a table at a time.", one.citation, [one]))
    for fee in f.fees:
        if fee.kind == "time" and fee.amount is not None:
            out += _limit_check(f, rule, params.at("WA", "time_fee_max", f.as_of), fee.amount,
                                "The time fee per player per hour")
        elif fee.kind == "per_hand" and fee.amount is not None:
            out += _limit_check(f, rule, params.at("WA", "per_hand_fee_max", f.as_of), fee.amount,
                                "The per-hand fee per player")
            if not f.class_f and f.game.category != "house_banked":
                out.append(finding(rule, ERROR, f.subject,
                                   "A per-hand fee may be charged only by Class F and house-banked licensees.",
                                   "WAC 230-15-080"))
        elif fee.kind == "rake":
            most = params.at("WA", "rake_max_percent", f.as_of)
            if fee.percent is not None and fee.percent > most.value:
                out.append(finding(rule, ERROR, f.subject,
                                   f"A rake of {fee.percent.normalize()}% is above the {most.shown()} limit.",
                                   most.citation, [most]))
            cap = params.get("WA", "rake_cap", f.as_of)
            if cap is not None:
                if fee.cap is None:
                    out.append(finding(rule, WARNING, f.subject,
                                       f"The rake states no per-hand cap; a cap of {cap.shown()} applies.",
                                       cap.citation, [cap]))
                else:
                    out += _limit_check(f, rule, cap, fee.cap, "The rake's per-hand cap")
    return out


def rule_wa_poker_limits(f: PostingFacts, params: ParameterSet):
    if f.game.category != "poker_drop" or f.max_wager is None:
        return []
    key = "poker_max_wager_class_f" if f.class_f else "poker_max_wager"
    parameter = params.at("WA", key, f.as_of)
    what = "The maximum single poker wager" + (" (Class F / house-banked licensee)" if f.class_f else "")
    return _limit_check(f, "wa.poker_limits", parameter, f.max_wager, what)


def rule_tribal_fees(f: PostingFacts, params: ParameterSet):
    return [finding("tribal.fees", INFO, f.subject,
                    "At a tribal casino the fees are set under the tribal-state compact and the Tribal Gaming "
                    "Agency's internal controls, not WAC 230-15-080; the fees and rake collected must be displayed "
                    "or available for patron review.", "25 CFR 543.10(f)")]


# House-banked games without a collection schedule ------------------------------------------------------


def _odds(value: Decimal | None) -> str:
    return "no odds" if value is None else f"{value.normalize():f} to 1"


def rule_approved_rules_and_paytables(f: PostingFacts, params: ParameterSet):
    """The rules version and each paytable posted are among those the approval in force approves: the ones
    transcribed from the approval's own document. A paytable printed elsewhere with the very same payouts as an
    approved one is accepted, with an info finding saying which."""
    h = f.house_banked
    if h is None:
        return []
    rule = "approval.rules_and_paytables"
    relevant = relevant_approvals(f.approvals, f.game.slug, f.jurisdiction, f.establishment, f.establishment_kind)
    in_force = {a.key for a in relevant if approval_state(a, f.as_of).in_force}
    contents = [c for c in h.approved if c.approval in in_force]
    if not contents:
        return []  # approval.game_approved says there is no approval in force
    reference = "; ".join(c.reference for c in contents)
    citation = "; ".join(c.citation for c in contents)
    if f.jurisdiction == "WA":
        citation += "; WAC 230-15-035 (only games and rules the director authorized)"
    out = []
    approved_rules = [r for c in contents for r in c.rules]
    if not approved_rules:
        out.append(finding(rule, WARNING, f.subject,
                           f"The approval ({reference}) records no rules version, so whether '{h.rules.version}' "
                           "is the approved one cannot be checked.", citation))
    elif (h.rules.game, h.rules.version) not in {(r.game, r.version) for r in approved_rules}:
        listed = ", ".join(f"'{r.version}'" for r in approved_rules)
        out.append(finding(rule, ERROR, f.subject,
                           f"The rules version posted, '{h.rules.version}' ({h.rules.title}), is not one the approval "
                           f"({reference}) approves; approved: {listed}.", citation))
    approved_paytables = [p for c in contents for p in c.paytables]
    for bet, paytable in h.paytables:
        if paytable.key in {p.key for p in approved_paytables}:
            continue
        same_bet = [p for p in approved_paytables if _normal(p.bet) == _normal(paytable.bet)]
        same_payouts = [p for p in same_bet if p.payouts() == paytable.payouts()]
        if same_payouts:
            out.append(finding(rule, INFO, f.subject,
                               f"The {bet} {paytable.label()} ({paytable.citation}) is not the approval's own printing "
                               f"but pays exactly as its approved {same_payouts[0].label()}.", citation))
        elif not approved_paytables:
            out.append(finding(rule, WARNING, f.subject,
                               f"The approval ({reference}) records no paytable, so whether the {bet} "
                               f"{paytable.label()} is approved cannot be checked.", citation))
        else:
            listed = ", ".join(p.label() for p in same_bet) or "none"
            out.append(finding(rule, ERROR, f.subject,
                               f"The {bet} bet pays by {paytable.label()}, which the approval ({reference}) does not "
                               f"approve; approved {paytable.bet} paytables: {listed}.", citation))
    return out


_FOR = re.compile(r"\d\s*for\s*\d", re.IGNORECASE)


def rule_payouts_to_one(f: PostingFacts, params: ParameterSet):
    """Every payout of a paytable in use reads 'N to 1' (what is won for each unit wagered, the wager kept),
    never 'N for 1' (which counts the wager returned: '5 for 1' pays 4 to 1), and can be read at all."""
    h = f.house_banked
    if h is None:
        return []
    out = []
    for bet, paytable in h.paytables:
        citation = f"{paytable.citation}; WAC 230-15-060 (payout odds posted)"
        for line in paytable.lines:
            if _FOR.search(line.printed):
                out.append(finding("paytable.payouts_to_one", ERROR, f.subject,
                                   f"The {bet} {paytable.label()} prints the {line.hand} payout as '{line.printed}': "
                                   "payouts are stated 'to 1' (winnings for each unit wagered, the wager returned "
                                   "as well), never 'for 1', which counts the wager in the payout.", citation))
            elif line.odds is None and not line.is_push and line.fixed_amount is None:
                out.append(finding("paytable.payouts_to_one", ERROR, f.subject,
                                   f"The {bet} {paytable.label()} prints the {line.hand} payout as '{line.printed}', "
                                   "which cannot be read as odds: the sign would not say what it pays.", citation))
    return out


def rule_wa_aggregate_payout_limit(f: PostingFacts, params: ParameterSet):
    """WAC 230-15-490: an aggregate payout limit only where the highest odds are at least 50 to 1, and then at
    least the maximum wager times the odds (counted up to 50 to 1); it is shown on the sign (signage.content)."""
    h = f.house_banked
    if h is None:
        return []
    rule = "wa.aggregate_payout_limit"
    cap = params.at("WA", "aggregate_payout_odds", f.as_of)
    maxima = {_normal(bet): maximum for bet, maximum in f.bonus_limits}
    odds_bets = [(bet, p, p.top_odds()) for bet, p in h.paytables if p.top_odds() is not None]
    highest = max(odds_bets, key=lambda item: item[2], default=None)
    limit = h.aggregate_payout_limit
    if highest is None or highest[2] < cap.value:
        if limit is None:
            return []
        top = f"the highest odds paid here are {_odds(highest[2])} ({highest[0]})" if highest else \
            "no bet here pays odds"
        return [finding(rule, ERROR, f.subject,
                        f"An aggregate payout limit of {dollars(limit)} is posted, but {top}: a limit may be set only "
                        f"where the highest odds are at least {_odds(cap.value)}.", cap.citation, [cap])]
    if limit is None:
        return []  # a limit is allowed, not required: every winning wager is then paid in full
    needed = []
    for bet, paytable, top in odds_bets:
        maximum = maxima.get(_normal(bet))
        if maximum is not None:
            counted = min(top, cap.value)
            needed.append((maximum * counted, bet, maximum, counted))
    if not needed:
        return []
    least, bet, maximum, counted = max(needed)
    if limit < least:
        return [finding(rule, ERROR, f.subject,
                        f"The aggregate payout limit of {dollars(limit)} is below the least allowed, {dollars(least)}: "
                        f"the {bet} maximum of {dollars(maximum)} x {_odds(counted)} (odds counted up to "
                        f"{_odds(cap.value)}).", cap.citation, [cap])]
    return []


HOUSE_BANKED = (rule_approved_rules_and_paytables, rule_payouts_to_one)
COMMON = (rule_game_approved, rule_schedule_option)
PACKS = {
    "CA": COMMON + (rule_ca_wager_limits, rule_table_limit, rule_ca_flat_fees, rule_ca_collection_rates,
                    rule_coverage, rule_bonus_caps) + HOUSE_BANKED,
    "WA": COMMON + (rule_table_limit, rule_coverage, rule_bonus_caps, rule_wa_max_single_wager,
                    rule_wa_wagers_per_hand, rule_wa_fees, rule_wa_poker_limits) + HOUSE_BANKED
          + (rule_wa_aggregate_payout_limit,),
    # Tribal casinos in Washington: the approval letter holds their wagering limits to WAC 230-15-040 and
    # 230-15-140 too, but their fees come under the compact (25 CFR 543), not WAC 230-15-080.
    "WA-tribal": COMMON + (rule_table_limit, rule_coverage, rule_bonus_caps, rule_wa_max_single_wager,
                           rule_wa_wagers_per_hand, rule_tribal_fees) + HOUSE_BANKED
                 + (rule_wa_aggregate_payout_limit,),
    "GB": COMMON + (rule_table_limit, rule_coverage, rule_bonus_caps) + HOUSE_BANKED,
}


def pack_for(jurisdiction: str, establishment_kind: str | None = None) -> str:
    if jurisdiction == "WA" and establishment_kind == "tribal_casino":
        return "WA-tribal"
    return jurisdiction


def check_posting(facts: PostingFacts, params: ParameterSet) -> list[Finding]:
    """Every finding of the posting's rule pack, in rule order."""
    rules = PACKS.get(pack_for(facts.jurisdiction, facts.establishment_kind), COMMON)
    out: list[Finding] = []
    for rule in rules:
        try:
            out.extend(rule(facts, params))
        except MissingParameter as exc:
            out.append(finding(rule.__name__.replace("rule_", "").replace("_", "."), WARNING, facts.subject,
                               f"This rule could not be checked: {exc}", "compliance rule parameters"))
    return out
