"""Three-card hands: what a hand of three cards qualifies as, for the paytables that name three-card hands.

Two families of paytables are read here:

* **three-card poker hands** (One for the Money 3 Card Bonus, Three Card Poker Pair Plus): straight flush,
  mini royal flush, three of a kind (and, in a multi-deck shoe, suited three of a kind: three identical cards),
  straight, flush, one pair. Straights are three consecutive ranks; the ace plays high (Q-K-A) **and** low
  (A-2-3), never around the corner (K-A-2), as in Three Card Poker and in the published 21+3 analyses this
  module reproduces (tests/cardroom/gamemath/test_gamemath.py). A flush is three cards of one suit whatever their ranks,
  so in a multi-deck shoe a suited pair (two identical cards and a third of the same suit) is a flush, and three
  identical cards are both three of a kind and a flush.
* **Perfect Match** hands, which depend on which card is the player's: the player's card and the dealer's two
  cards are suited three of a kind (all three identical), three of a kind (all one rank), the player's card
  identical to a dealer card (same rank and suit), of the rank of a dealer card in another suit, or of the rank
  of a dealer card in any suit (a "tie" in the main game's sense: One for the Money rules, rule 10).

A hand qualifies for every feature it has; which one pays is decided by the paytable (``paytables``).
"""

from __future__ import annotations

from functools import lru_cache

from .cards import Card

STRAIGHT_FLUSH = "straight_flush"
MINI_ROYAL = "mini_royal"
SUITED_TRIPS = "suited_three_of_a_kind"
TRIPS = "three_of_a_kind"
STRAIGHT = "straight"
FLUSH = "flush"
PAIR = "pair"
POKER_FEATURES = (MINI_ROYAL, STRAIGHT_FLUSH, SUITED_TRIPS, TRIPS, STRAIGHT, FLUSH, PAIR)

MATCH_SUITED = "match_suited"  # the player's card is identical to a dealer card
MATCH_UNSUITED = "match_unsuited"  # the player's card has a dealer card's rank, in another suit
TIE = "tie"  # the player's card has a dealer card's rank, any suit
MATCH_FEATURES = (SUITED_TRIPS, TRIPS, MATCH_SUITED, MATCH_UNSUITED, TIE)


def is_straight(ranks) -> bool:
    """Three distinct consecutive ranks; A-2-3 and Q-K-A count, K-A-2 does not."""
    ordered = sorted(ranks)
    if len(set(ordered)) != 3:
        return False
    return ordered[2] - ordered[0] == 2 or ordered == [2, 3, 14]


@lru_cache(maxsize=65536)
def poker_features(cards: tuple[Card, Card, Card]) -> frozenset[str]:
    """The three-card poker hands ``cards`` qualifies as (see the module docstring for the definitions)."""
    ranks = [c.rank for c in cards]
    distinct = len(set(ranks))
    flush = len({c.suit for c in cards}) == 1
    straight = is_straight(ranks)
    found = set()
    if flush:
        found.add(FLUSH)
    if straight:
        found.add(STRAIGHT)
    if straight and flush:
        found.add(STRAIGHT_FLUSH)
        if sorted(ranks) == [12, 13, 14]:
            found.add(MINI_ROYAL)
    if distinct == 1:
        found.add(TRIPS)
        if flush:
            found.add(SUITED_TRIPS)
    if distinct == 2:
        found.add(PAIR)
    return frozenset(found)


@lru_cache(maxsize=65536)
def match_features(player: Card, dealer: tuple[Card, Card]) -> frozenset[str]:
    """The Perfect Match hands of the player's card against the dealer's two cards."""
    a, b = dealer
    found = set()
    if player.rank == a.rank == b.rank:
        found.add(TRIPS)
        if player == a == b:
            found.add(SUITED_TRIPS)
    if player == a or player == b:
        found.add(MATCH_SUITED)
    if (player.rank == a.rank and player != a) or (player.rank == b.rank and player != b):
        found.add(MATCH_UNSUITED)
    if player.rank in (a.rank, b.rank):
        found.add(TIE)
    return frozenset(found)


__all__ = ["FLUSH", "MATCH_FEATURES", "MATCH_SUITED", "MATCH_UNSUITED", "MINI_ROYAL", "PAIR", "POKER_FEATURES",
           "STRAIGHT", "STRAIGHT_FLUSH", "SUITED_TRIPS", "TIE", "TRIPS", "is_straight", "match_features",
           "poker_features"]
