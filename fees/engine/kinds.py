"""The fee kinds and the fee families, in one table: every list of them (the model's choices, the words of messages
and signs, the grid editor's choices, the ledger's kept sums, which quote an option takes) is derived from it.

A **fee kind** is what a tier charges (``fees.models.FeeTier.fee_kind``, a collection entry's ``fee_kind``); a
**fee family** is a way a schedule charges, quoted by one function of the engine: an option's basis declares its
family, and its family says how a round of it is asked for and quoted (``fees.quotes.quoting``). Pure data: the
engine's modules read their words here, so this module imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    name: str
    bases: tuple[str, ...]  # the option bases (fees.models.FeeOption.Basis) quoted this way
    marks: tuple[str, ...]  # the facts of a quote request that say it asks for this family
    quote: str  # the engine's function that quotes it (fees.engine.<quote>)
    hint: str  # what an option of this family quoted the wrong way is told


@dataclass(frozen=True)
class Kind:
    name: str  # the stored value
    label: str  # the choice's label (forms, the admin, the API's schema)
    title: str  # a sign's heading; in lower case, the words of messages ("player-dealer fee")
    grid: str  # the grid editor's select, a few words
    collected_as: str  # what the ledger's kept sums say they collected
    family: Family

    @property
    def words(self) -> str:
        return self.title.lower()

    @property
    def column(self) -> str:
        """The kept sums' column of what was collected as this kind (fees.models.LedgerDay)."""
        return f"kind_{self.name}"


CALIFORNIA = Family(
    "california",
    bases=("total_table_action", "base_wager_flat_player_dealer", "base_wager_and_table_action",
           "player_total_wager_flat_player_dealer", "player_total_wager_and_table_action", "unstated"),
    marks=("wagers",), quote="quote_california", hint="is a California game fee; quote it with wagers")
TIME = Family(
    "time", bases=("time_collection",), marks=("game_started_at", "game_ended_at"), quote="quote_time",
    hint="is a time collection; quote it with game_started_at, game_ended_at and the players' seats")
POKER = Family(
    "poker", bases=("poker_drop",), marks=("players",), quote="quote_poker",
    hint="is a poker drop; quote it with players and reached_flop")

# In the order a request's facts are read for their family (``asked_for``): a time collection's facts name its
# players too, so time is asked before poker.
FAMILIES = (CALIFORNIA, TIME, POKER)
# What a request that names no family is told (a new family adds its words).
SAY_WHAT_WAS_PLAYED = (
    "Say what was played: 'wagers' for a California game, 'players' with 'reached_flop' for a poker hand, "
    "or 'game_started_at', 'game_ended_at' and 'players' for time collection.")

KINDS = (
    Kind("player", "Player fee", "Player fee", "Player", "player fees", CALIFORNIA),
    Kind("player_dealer", "Player-dealer fee", "Player-dealer fee", "Player-dealer", "player-dealer fees",
         CALIFORNIA),
    Kind("collection", "Collection fee (after the flop)", "Collection fee", "Collection", "collection fees", POKER),
    Kind("jackpot", "Jackpot fee (after the flop)", "Jackpot fee", "Jackpot", "jackpot fees", POKER),
    Kind("designated_table", "Designated table fee (after the river)", "Designated table fee", "Designated table",
         "designated table fees", POKER),
    Kind("time", "Time collection", "Time collection", "Time", "time collection", TIME),
)

# The lists, derived.
NAMES = tuple(kind.name for kind in KINDS)
CHOICES = tuple((kind.name, kind.label) for kind in KINDS)
WORDS = {kind.name: kind.words for kind in KINDS}
TITLES = {kind.name: kind.title for kind in KINDS}
GRID = {kind.name: kind.grid for kind in KINDS}
LEDGER_COLUMNS = tuple(kind.column for kind in KINDS)
BY_BASIS = {basis: family for family in FAMILIES for basis in family.bases}


def of_family(family: Family) -> tuple[str, ...]:
    """The fee kinds a family's quotes charge, in the table's order."""
    return tuple(kind.name for kind in KINDS if kind.family is family)


def family_of(basis: str) -> Family:
    """The family an option's basis declares; a basis the table does not name is quoted as a California game fee,
    as the engine always has (the model's bases are all named: tests/fees/engine/test_kinds.py)."""
    return BY_BASIS.get(basis, CALIFORNIA)


def asked_for(facts: dict) -> Family | None:
    """The family a quote request's facts are written for (None: they name none)."""
    return next((family for family in FAMILIES if any(mark in facts for mark in family.marks)), None)
