"""Which computation answers which bet: the seeded games' bets, their deck counts, and what is not computed.

``compute(game, bet, lines, decks_min, decks_max)`` returns one ``Computation`` per deck count the bet is
dealt from: the house edge as an exact fraction (``edge``; ``percent`` gives it to 4 decimals), the rules it
follows, the assumptions made, or, when it is not computed, the reason. Bets are found by the game's slug and
the bet's name as the seed data spells them (case and punctuation folded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Callable

from . import one_for_the_money as ofm
from . import three_card_poker as tcp
from .exact import percent, rounded
from .paytables import NotComputable, normal

MAIN_GAME = "main game"


@dataclass(frozen=True)
class Computation:
    """The house edge of one bet for one deck count, or why it is not computed."""

    game: str
    bet: str
    decks: int | None
    edge: Fraction | None  # expected loss per unit wagered (per unit of Ante for a main game); None: not computed
    reason: str = ""  # why it is not computed
    method: str = ""
    citation: str = ""  # the rules the computation follows
    assumptions: tuple[str, ...] = ()
    strategy: dict = field(default_factory=dict)  # a main game's strategy table

    @property
    def percent(self) -> Decimal | None:
        """The house edge in percent, to 4 decimals (half up); None when not computed."""
        return None if self.edge is None else percent(self.edge)


@dataclass(frozen=True)
class Model:
    """How one seeded bet is computed: the method, the rules it follows, its deck counts, the evaluator."""

    method: str
    citation: str
    decks: Callable[[int | None, int | None], tuple[int, ...]]
    evaluate: Callable  # (lines, decks) -> (expected return per unit, assumptions) | Computation fields


def _game_decks(decks_min, decks_max):
    """The deck counts the game's rules name (One for the Money rule 1: 'six or eight decks' is 6 and 8)."""
    counts = tuple(sorted({n for n in (decks_min, decks_max) if n}))
    return counts or (6, 8)


def _one_deck(decks_min, decks_max):
    """Three Card Poker: 'two alternating decks ... each deck being used for every other round': one per round."""
    return (1,)


def _main_game(lines, decks):
    """One for the Money's main game (no paytable): the best strategy's edge and its strategy table."""
    game = ofm.main_game(decks)
    return -game.house_edge, ofm.MAIN_ASSUMPTIONS, {
        **game.strategy(), "element_of_risk_percent": str(percent(game.element_of_risk)),
        "average_wager_units": str(rounded(game.average_wager, 4)),
    }


def _three_card_bonus(lines, decks):
    """``one_for_the_money.three_card_bonus``."""
    return ofm.three_card_bonus(lines, decks)


def _perfect_match(lines, decks):
    """``one_for_the_money.perfect_match``."""
    return ofm.perfect_match(lines, decks)


def _pair_plus(lines, decks):
    """``three_card_poker.pair_plus``."""
    return tcp.pair_plus(lines, decks)


def _six_card(lines, decks):
    """``three_card_poker.six_card_bonus`` (always one deck)."""
    return tcp.six_card_bonus(lines)


OFM_MAIN = Model(
    "exact enumeration by rank over the shoe without replacement; best of check / Raise / Trade per first card, "
    "best stand / Raise after a trade",
    f"{ofm.RULES}, rules 1 and 3-10 (GB trial record, rules 1-9)", _game_decks, _main_game)
OFM_BONUS = Model(
    "exact count of the C(52n, 3) three-card hands of an n-deck shoe, by card-type multiset",
    f"{ofm.RULES}, 3 Card Bonus version, rules 1 and 11", _game_decks, _three_card_bonus)
OFM_MATCH = Model(
    "exact count of the player's card against the C(52n - 1, 2) dealer pairs of an n-deck shoe",
    f"{ofm.RULES}, Perfect Match version, rules 1 and 11; paytable sheet", _game_decks, _perfect_match)
TCP_PAIR_PLUS = Model(
    "exact count of the C(52, 3) = 22,100 three-card hands of one deck",
    "Casino Marysville binder: Three Card Poker, Type of card deck used 3 and Bonus/Pair Plus rules 4, 8, 10; "
    "Three Card Poker 6 Card Bonus, Number of Decks and Pair Plus", _one_deck, _pair_plus)
TCP_SIX = Model(
    "exact count of the C(52, 6) = 20,358,520 six-card hands of one deck, by rank multiset and suit",
    "Casino Marysville binder: Three Card Poker 6 Card Bonus, Number of Decks and 6 Card Bonus", _one_deck,
    _six_card)

MODELS: dict[tuple[str, str], Model] = {
    ("one-for-the-money", MAIN_GAME): OFM_MAIN,
    ("one-for-the-money", "3 card bonus"): OFM_BONUS,
    ("one-for-the-money", "perfect match"): OFM_MATCH,
    ("three-card-poker", "bonus/pair plus"): TCP_PAIR_PLUS,
    ("three-card-poker-6-card-bonus", "pair plus"): TCP_PAIR_PLUS,
    ("three-card-poker-6-card-bonus", "6 card bonus"): TCP_SIX,
}

_JOKER_SEVEN = ("seven-card pai gow hands from a 53-card deck with a joker (an ace, or to complete a straight or "
                "flush) are not computed by this package")
NOT_COMPUTED: dict[tuple[str, str], str] = {
    ("blackjack-bonus-bet", "blackjack bonus bet"): (
        "the gaming activity goes with 'all limits and versions of Bureau approved blackjack games' (item 2), "
        "whose decks differ (No Bust 21st Century Blackjack adds a joker to each deck; Pure 21.5 Blackjack "
        "replaces tens and faces by 'Bonus' cards) and whose number of decks it does not state, so the cards "
        "the bet's hands are dealt from are not known"),
    ("buster-blackjack-bonus-bet", "buster blackjack bonus bet"): (
        "it pays on the number of cards in the player-dealer's busted hand, which depends on the drawing rules "
        "and the decks of the blackjack game it goes with ('all versions of Blackjack'), not stated with the bet"),
    ("fortune-pai-gow-poker", "fortune bonus"): _JOKER_SEVEN,
    ("face-up-pai-gow-poker", "fortune bonus bet"): _JOKER_SEVEN,
    ("fortune-pai-gow-poker", "envy bonus"): (
        "it pays fixed amounts when another player at the table has the hand, so what it returns depends on the "
        "number of players and on the wager: it has no house edge as a share of the wager"),
    ("face-up-pai-gow-poker", "envy bonus"): (
        "it pays fixed amounts when another player at the table has the hand, so what it returns depends on the "
        "number of players and on the wager: it has no house edge as a share of the wager"),
    ("face-up-pai-gow-poker", "ace high bonus bet"): (
        "it depends on two seven-card hands (the player's and the player-dealer's) dealt from one 53-card deck "
        "with a joker, which this package does not compute"),
}


def model_of(game: str, bet: str) -> Model | None:
    """The computation of a seeded bet (game slug, bet name as seeded), or None."""
    return MODELS.get((game, normal(bet)))


def has_main_game(game: str) -> bool:
    """True for a game whose main game (no paytable) is computed: One for the Money."""
    return (game, MAIN_GAME) in MODELS


def compute(game: str, bet: str, lines=(), decks_min: int | None = None,
            decks_max: int | None = None) -> list[Computation]:
    """One Computation per deck count the bet is dealt from (a single one with ``decks`` None when the bet is
    not computed and its deck count is unknown). ``lines``: ``paytables.Line`` of the bet's paytable, in
    printed order ('Main game': none)."""
    model = model_of(game, bet)
    if model is None:
        reason = NOT_COMPUTED.get((game, normal(bet)), "no computation of this bet is implemented")
        return [Computation(game, bet, None, None, reason=reason)]
    out = []
    for decks in model.decks(decks_min, decks_max):
        try:
            found = model.evaluate(tuple(lines), decks)
        except NotComputable as error:
            out.append(Computation(game, bet, decks, None, reason=str(error), method=model.method,
                                   citation=model.citation))
            continue
        expected, assumptions, *extra = found
        out.append(Computation(game, bet, decks, -expected, method=model.method, citation=model.citation,
                               assumptions=tuple(assumptions), strategy=extra[0] if extra else {}))
    return out


__all__ = ["Computation", "MAIN_GAME", "MODELS", "Model", "NOT_COMPUTED", "compute", "has_main_game", "model_of"]
