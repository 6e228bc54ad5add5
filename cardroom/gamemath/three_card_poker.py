"""Three Card Poker (Casino Marysville's player-dealer versions): the Pair Plus and the 6 Card Bonus bets.

Rules followed (Casino Marysville binder, source ``cmv-binder``, seed file 004):

* "Number of Decks: ... two alternating decks, each consisting of a 52-card deck ... each deck being used for
  every other round of play" (Three Card Poker, Type of card deck used, 3; Three Card Poker 6 Card Bonus,
  Description of the Deck and Number of Decks Used): every round is dealt from **one** full 52-card deck, no
  joker, so these bets are computed for 1 deck whatever the two decks on the table.
* Bonus/Pair Plus rules 4 and 10 ("only considers the three cards each player receives"; the payoff table) and
  the 6 Card Bonus Pair Plus Pay Table: the player's three cards, three-card poker hands (``poker3``). The bet is
  forfeited when the player folds (rule 8); the player is assumed to play every hand that pays (the usual
  Q-6-4 strategy plays every pair or better), so a folded winner never happens.
* 6 Card Bonus: "the three cards dealt to a player and the three cards dealt to the player-dealer ... the best
  possible five-card hand" (6 Card Bonus, first paragraph; 6 Card Bonus Pay Table): six cards from one deck,
  ranked as five-card poker hands, ace high or low in a straight (A-2-3-4-5); the bet is not forfeited on a
  fold. A royal flush is a straight flush; a paytable that skips a hand between its lines is not computed.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb, prod

from .cards import RANKS
from .one_for_the_money import POKER_ASSUMPTIONS, bonus_hands
from .paytables import POKER3_NAMES, NotComputable, expected_return, normal, read_lines

PAIR_PLUS_ASSUMPTIONS = (
    "one full 52-card deck per round (two alternating decks, each used every other round)",
    "the player's three cards only; the player plays every hand that pays, so the bet is never forfeited by a "
    "fold",
    "a hand is paid once, by the highest-paying line it qualifies for",
) + POKER_ASSUMPTIONS


def pair_plus(lines, decks: int = 1) -> tuple[Fraction, tuple[str, ...]]:
    """(expected return per unit, assumptions) of a Pair Plus bet paid by ``lines``: the player's three cards
    from ``decks`` full decks (1 for Three Card Poker)."""
    pays, assumed = read_lines(lines, POKER3_NAMES)
    return expected_return(bonus_hands(decks), pays), PAIR_PLUS_ASSUMPTIONS + assumed


# -- six cards, best five ------------------------------------------------------------------------------------

ROYAL, STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH = (
    "royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush", "straight", "three_of_a_kind",
    "two_pair", "one_pair", "high_card")
RANKING = (ROYAL, STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH)
SIX_NAMES = {
    "royal flush": ROYAL, "straight flush": STRAIGHT_FLUSH, "4 of a kind": QUADS, "four of a kind": QUADS,
    "full house": FULL_HOUSE, "flush": FLUSH, "straight": STRAIGHT, "3 of a kind": TRIPS, "two pair": TWO_PAIR,
    "2 pair": TWO_PAIR, "one pair": PAIR, "pair": PAIR,
}
_STRAIGHTS = tuple(frozenset(range(low, low + 5)) for low in range(2, 11)) + (frozenset({14, 2, 3, 4, 5}),)


def _straight(ranks) -> frozenset | None:
    """The highest five-card straight among ``ranks`` (a set), or None."""
    present = set(ranks)
    for run in reversed(_STRAIGHTS[:-1]):
        if run <= present:
            return run
    return _STRAIGHTS[-1] if _STRAIGHTS[-1] <= present else None


def _by_ranks(ranks) -> str:
    """Best five-card hand of six cards of these ranks when no five share a suit."""
    shape = sorted(Counter(ranks).values(), reverse=True)
    if shape[0] == 4:
        return QUADS
    if shape[0] == 3 and shape[1] >= 2:
        return FULL_HOUSE
    if _straight(ranks):
        return STRAIGHT
    if shape[0] == 3:
        return TRIPS
    if shape[0] == 2 and shape[1] == 2:
        return TWO_PAIR
    if shape[0] == 2:
        return PAIR
    return HIGH


def _suited(ranks) -> str:
    """Best hand of five or six cards of one suit (distinct ranks)."""
    run = _straight(ranks)
    if run is None:
        return FLUSH
    return ROYAL if run == frozenset(range(10, 15)) else STRAIGHT_FLUSH


@lru_cache(maxsize=2)
def six_card_hands() -> tuple[tuple[str, int], ...]:
    """How many of the C(52, 6) = 20,358,520 six-card hands of one deck have each best five-card hand.

    Counted without listing the hands: every multiset of six ranks (at most four of a rank) has
    prod C(4, k) suit choices, all first classified by ranks alone; then the hands with five or six cards of
    one suit (the only ones whose suits matter) are counted by suit and moved to their flush class."""
    counts: Counter = Counter()
    for ranks in combinations_with_replacement(RANKS, 6):
        shape = Counter(ranks)
        if max(shape.values()) > 4:
            continue
        counts[_by_ranks(ranks)] += prod(comb(4, k) for k in shape.values())
    for suited in combinations(RANKS, 6):  # six cards of one suit: 4 suits
        counts[_by_ranks(suited)] -= 4
        counts[_suited(suited)] += 4
    for suited in combinations(RANKS, 5):  # five of one suit (4 suits) and one card of another suit (3 suits)
        best = _suited(suited)
        for odd in RANKS:
            counts[_by_ranks(suited + (odd,))] -= 12
            counts[best] += 12
    return tuple((hand, counts[hand]) for hand in RANKING)


SIX_ASSUMPTIONS = (
    "one full 52-card deck per round (two alternating decks, each used every other round)",
    "the player's three cards and the player-dealer's three cards, best five-card poker hand; A-2-3-4-5 is a "
    "straight; a royal flush is also a straight flush",
)


def six_card_bonus(lines) -> tuple[Fraction, tuple[str, ...]]:
    """(expected return per unit, assumptions) of the 6 Card Bonus paid by ``lines`` (Three Card Poker 6 Card
    Bonus, '6 Card Bonus Pay Table'): the line of the hand's best five-card hand pays; a royal flush with no line
    of its own is paid as a straight flush."""
    if not lines:
        raise NotComputable("the paytable has no lines")
    pays: dict[str, Fraction] = {}
    for line in lines:
        hand = SIX_NAMES.get(normal(line.hand))
        if hand is None:
            raise NotComputable(f"the hand '{line.hand}' is not one this module can classify")
        pays[hand] = line.pays()
    if ROYAL not in pays and STRAIGHT_FLUSH in pays:
        pays[ROYAL] = pays[STRAIGHT_FLUSH]
    listed = [RANKING.index(hand) for hand in pays]
    skipped = [RANKING[i] for i in range(min(listed), max(listed)) if RANKING[i] not in pays]
    if skipped:
        raise NotComputable(f"the paytable skips {', '.join(skipped)} between its lines; whether such a hand is "
                            "paid by a lower line is not stated")
    distribution = [(count, frozenset({hand})) for hand, count in six_card_hands()]
    return expected_return(distribution, pays), SIX_ASSUMPTIONS


__all__ = ["PAIR_PLUS_ASSUMPTIONS", "RANKING", "SIX_ASSUMPTIONS", "pair_plus", "six_card_bonus", "six_card_hands"]
