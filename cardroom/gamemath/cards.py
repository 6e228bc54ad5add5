"""Cards and shoes: exact counts of the hands a shoe of N standard decks can deal.

A shoe of ``decks`` standard 52-card decks holds ``decks`` copies of each of the 52 card types (rank 2..14,
ace = 14; suit 0..3) and no joker. Cards are dealt **without replacement**, so two cards of the same type are
possible in a multi-deck shoe (two 10 of spades) and a card dealt is no longer in the shoe for the next one.
Nothing here simulates: a hand's weight is the number of ways the physical cards can be chosen, so every
probability is a ratio of whole numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb

RANKS = tuple(range(2, 15))  # 2 .. 10, J = 11, Q = 12, K = 13, A = 14 ("Ace is high and 2 is low")
SUITS = (0, 1, 2, 3)
RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


def rank_name(rank: int) -> str:
    """'2' .. '10', 'J', 'Q', 'K', 'A'."""
    return RANK_NAMES.get(rank, str(rank))


@dataclass(frozen=True, order=True)
class Card:
    """A card type: rank 2..14 (ace high), suit 0..3. A shoe holds one copy per deck."""

    rank: int
    suit: int

    def __str__(self):
        return f"{rank_name(self.rank)}{'shdc'[self.suit]}"


CARD_TYPES = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)


@dataclass(frozen=True)
class Shoe:
    """``decks`` standard 52-card decks shuffled together, no jokers."""

    decks: int

    def __post_init__(self):
        if not isinstance(self.decks, int) or isinstance(self.decks, bool) or self.decks < 1:
            raise ValueError(f"a shoe needs a whole number of decks, at least 1, not {self.decks!r}")

    @property
    def size(self) -> int:
        """Cards in the full shoe."""
        return 52 * self.decks

    def copies(self) -> dict[Card, int]:
        """How many cards of each type the full shoe holds."""
        return {card: self.decks for card in CARD_TYPES}


def multisets(size: int, copies: dict) -> list[tuple[int, tuple]]:
    """Every multiset of ``size`` card types that ``copies`` (type -> cards available) can deal, with its weight:
    the number of ways to choose that many physical cards, the product over the types of C(available, taken).
    The weights add up to C(total cards, size): every unordered hand counted once."""
    types = sorted(t for t, n in copies.items() if n > 0)
    out = []
    for chosen in combinations_with_replacement(types, size):
        weight = 1
        for card in set(chosen):
            weight *= comb(copies[card], chosen.count(card))
        if weight:
            out.append((weight, chosen))
    return out


@lru_cache(maxsize=32)
def three_card_hands(decks: int) -> tuple[tuple[int, tuple[Card, Card, Card]], ...]:
    """Every unordered three-card hand a full shoe of ``decks`` decks can deal, as (weight, cards); the weights
    add up to C(52 x decks, 3). Cached: 24,804 multisets at most."""
    return tuple(multisets(3, Shoe(decks).copies()))


def total(weighted) -> int:
    """The sum of the weights of (weight, hand) pairs."""
    return sum(weight for weight, _ in weighted)


__all__ = ["CARD_TYPES", "Card", "RANKS", "SUITS", "Shoe", "multisets", "rank_name", "three_card_hands", "total"]
