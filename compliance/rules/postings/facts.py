"""What a posting check is given: the posting, its game, schedule option, approvals, fees and (for a house-banked
game) rules and paytables, as frozen dataclasses built by ``compliance.facts``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from fees import (
    engine,  # pure Python: the tier rule is the engine's, never a second copy
)


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
    establishment_name: str | None = None  # as messages name it (the slug is its key)
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
