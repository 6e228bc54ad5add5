"""One for the Money: the main game under its best strategy, and the 3 Card Bonus and Perfect Match bets.

The rules followed are SHFL's "Rules and Dealing Procedures" (seed file 001, source ``ofm-paytables``; the same
rules are in the WSGC letter's enclosure, ``wsgc-letter-2014``, and, numbered 1-10, in the GB trial record,
``gb-trial``). Rule numbers below are those of the 3 Card Bonus and Perfect Match versions of seed 001:

* rule 1: six or eight decks of 52 cards;
* rule 3: the player makes the Ante, and may make the bonus bet (3 Card Bonus, or Perfect Match);
* rule 4: each player gets one card face up, the dealer two cards face down;
* rule 5: the player checks, Raises 1x the Ante, or makes the Trade wager (1x the Ante): the traded card is
  removed and replaced by the next card (5c.i); after a trade the player stands or Raises 1x the Ante (5c.ii);
* rule 6: the dealer's final card is the higher of the dealer's two cards;
* rules 8-10: a player's card higher than the dealer's final card wins the Ante, Raise and Trade (1 to 1,
  "the ... bets win"), a lower one loses them, ties push ("Cards are ranked in standard order: Ace is high and
  2 is low"; suits do not matter);
* rule 11: the bonus bet is "based on the dealer's two cards and the player's one card at the end of the game".

Assumptions, stated with every result:

* **Shoe.** A full shoe of 6 or 8 decks for every round (a continuous shuffler, which rule 2 prefers); cards
  are dealt without replacement. Other players' cards are dealt from the same shoe but are not seen by the
  strategy, so by symmetry they do not change any expected value and the game is analysed heads-up.
* **Main game.** House edge is the player's expected loss **per unit of Ante** (the initial wager), with the
  best strategy: the decision that maximises the expected result given the player's card (rule 5), and after a
  trade the best stand / Raise given the new card and the card traded away. With only the player's own cards
  to go on, this best ("perfect") strategy is also the best strategy that looks at the player's card's rank
  alone ("basic"), so the GB trial's two figures are both compared with it.
* **Bonus bets.** The bet's three cards are taken to be three cards drawn at random from the full shoe: the
  player's first card and the dealer's two. That is exact for a player who does not trade; a trade replaces the
  player's card by one drawn from the shoe without the traded card, which changes the bonus hand's odds very
  slightly. ``side_bet_with_best_strategy`` computes that exactly too, for the record (docs/game-math.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb

from . import poker3
from .cards import CARD_TYPES, RANKS, Card, Shoe, multisets, rank_name, three_card_hands
from .paytables import MATCH_NAMES, POKER3_NAMES, expected_return, read_lines

RULES = "One for the Money, Rules and Dealing Procedures (seed 001 / ofm-paytables; WSGC enclosure)"
CHECK, RAISE, TRADE, STAND = "check", "raise", "trade", "stand"

BONUS_ASSUMPTIONS = (
    "the bet's three cards (the player's card and the dealer's two, rule 11) are three cards drawn at random "
    "from a full shoe of the stated decks, without replacement; a trade (rule 5c) is not taken into account",
    "a hand is paid once, by the highest-paying line it qualifies for",
)
POKER_ASSUMPTIONS = (
    "straights are three consecutive ranks, ace high (Q-K-A) or low (A-2-3), not K-A-2; a flush is three cards "
    "of one suit (a suited pair included); three identical cards are three of a kind (and a flush)",
)


# -- the bonus bets --------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def bonus_hands(decks: int) -> tuple[tuple[int, frozenset], ...]:
    """The three-card poker hands of three cards drawn at random from a full shoe: (weight, features), the
    weights adding up to C(52 x decks, 3)."""
    grouped: dict[frozenset, int] = {}
    for weight, cards in three_card_hands(decks):
        features = poker3.poker_features(cards)
        grouped[features] = grouped.get(features, 0) + weight
    return tuple((w, f) for f, w in sorted(grouped.items(), key=lambda item: sorted(item[0])))


def _against(player: Card, copies: dict[Card, int]) -> list[tuple[int, frozenset]]:
    """The Perfect Match hands of ``player`` against two dealer cards drawn from ``copies``, as (weight,
    features). A dealer card matters only by how it relates to the player's card: the same card (same rank and
    suit), the same rank in another suit, or another rank; so the C(left, 2) pairs fall in six classes, each
    counted exactly and classified on a representative pair."""
    left = sum(copies.values())
    same = copies[player]
    rank = sum(n for card, n in copies.items() if card.rank == player.rank) - same
    other = left - same - rank
    alike = player
    suited_other = Card(player.rank, (player.suit + 1) % 4)
    stranger = Card(2 if player.rank != 2 else 3, player.suit)
    classes = (
        (comb(same, 2), (alike, alike)), (same * rank, (alike, suited_other)), (same * other, (alike, stranger)),
        (comb(rank, 2), (suited_other, suited_other)), (rank * other, (suited_other, stranger)),
        (comb(other, 2), (stranger, stranger)),
    )
    return [(weight, poker3.match_features(player, dealer)) for weight, dealer in classes if weight]


@lru_cache(maxsize=16)
def match_hands(decks: int) -> tuple[tuple[int, frozenset], ...]:
    """The Perfect Match hands of the player's card against the dealer's two cards, all three drawn at random
    from a full shoe: (weight, features). By symmetry the player's card is fixed (every card type is alike) and
    the dealer's two cards are drawn from the rest of the shoe; the weights add up to C(52 x decks - 1, 2)."""
    player = CARD_TYPES[0]
    copies = Shoe(decks).copies()
    copies[player] -= 1
    return tuple(_against(player, copies))


def three_card_bonus(lines, decks: int) -> tuple[Fraction, tuple[str, ...]]:
    """(expected return per unit, assumptions) of the 3 Card Bonus bet paid by ``lines``, ``decks`` decks.
    Follows rule 11 of the 3 Card Bonus version (hands: Straight Flush, 3 of a Kind, Straight, Flush)."""
    pays, assumed = read_lines(lines, POKER3_NAMES)
    return expected_return(bonus_hands(decks), pays), BONUS_ASSUMPTIONS + POKER_ASSUMPTIONS + assumed


def perfect_match(lines, decks: int) -> tuple[Fraction, tuple[str, ...]]:
    """(expected return per unit, assumptions) of the Perfect Match bet paid by ``lines``, ``decks`` decks.
    Follows rule 11 of the Perfect Match version (paytable sheet: 3 of a Kind Suited, 3 of a Kind, Player Card
    Matches A Dealer Card (Suited) / (Unsuited))."""
    pays, assumed = read_lines(lines, MATCH_NAMES)
    return expected_return(match_hands(decks), pays), BONUS_ASSUMPTIONS + assumed


# -- the main game -------------------------------------------------------------------------------------------


def _result(rank: int, counts: dict[int, int]) -> Fraction:
    """Expected result (+1 win, -1 loss, 0 push) of a player's card of ``rank`` against the higher of two cards
    drawn from ``counts`` (rank -> cards left): rules 6 and 8-10."""
    left = sum(counts.values())
    lower = sum(n for r, n in counts.items() if r < rank)
    not_higher = lower + counts[rank]
    pairs = left * (left - 1)
    win = Fraction(lower * (lower - 1), pairs)  # both dealer cards lower
    lose = 1 - Fraction(not_higher * (not_higher - 1), pairs)  # at least one dealer card higher
    return win - lose


@dataclass(frozen=True)
class Decision:
    """The best play of a first card of one rank, with the expected result of each option per unit of Ante."""

    rank: int
    probability: Fraction
    check: Fraction
    raise_: Fraction
    trade: Fraction
    action: str
    raise_after_trade: tuple[int, ...]  # new-card ranks the player raises on after trading this rank

    @property
    def best(self) -> Fraction:
        """Expected result of the chosen option, per unit of Ante."""
        return {CHECK: self.check, RAISE: self.raise_, TRADE: self.trade}[self.action]

    def as_dict(self) -> dict:
        """The decision with its rank named and the expected results as Fractions."""
        return {"rank": rank_name(self.rank), "action": self.action, "check": self.check, "raise": self.raise_,
                "trade": self.trade, "raise_after_trade": [rank_name(r) for r in self.raise_after_trade]}


@dataclass(frozen=True)
class MainGame:
    """The main game for one deck count: each first card's best decision, the expected result per unit of Ante
    and the average total wagered."""

    decks: int
    decisions: tuple[Decision, ...]
    expected: Fraction  # per unit of Ante, best strategy
    average_wager: Fraction  # Ante + Trade + Raise, in units of Ante, on average

    @property
    def house_edge(self) -> Fraction:
        """Expected loss per unit of Ante."""
        return -self.expected

    @property
    def element_of_risk(self) -> Fraction:
        """Expected loss per unit of total amount wagered (Ante, Trade and Raise)."""
        return -self.expected / self.average_wager

    def strategy(self) -> dict[str, list[str]]:
        """The strategy table in words: ranks to trade, check and raise with, and to raise on after a trade."""
        table: dict[str, list[str]] = {TRADE: [], CHECK: [], RAISE: []}
        for d in self.decisions:
            table[d.action].append(rank_name(d.rank))
        after = {d.raise_after_trade for d in self.decisions if d.action == TRADE}
        table["raise after a trade"] = ([rank_name(r) for r in next(iter(after))] if len(after) == 1
                                        else ["depends on the card traded"])
        return table


@lru_cache(maxsize=16)
def main_game(decks: int) -> MainGame:
    """The main game (rules 3-10) under its best strategy, exactly, for a full shoe of ``decks`` decks.

    For each rank of the player's first card: check (1 unit at risk), Raise (2 units) or Trade (2 units, then
    stand, or Raise to 3 units, whichever is better given the new card and the card traded away; the dealer's
    two cards and the new card are drawn from the shoe without the first card, rule 5c.i). Ties between options
    go to the one that wagers less. Cards are compared by rank only (rules 8-10)."""
    shoe = Shoe(decks)
    full = {rank: 4 * shoe.decks for rank in RANKS}
    decisions = []
    expected = Fraction(0)
    average = Fraction(0)
    for rank in RANKS:
        counts = dict(full)
        counts[rank] -= 1
        left = shoe.size - 1
        check = _result(rank, counts)
        raise_ = 2 * check
        trade = Fraction(0)
        raise_on = []
        raise_after = Fraction(0)
        for new in RANKS:
            if not counts[new]:
                continue
            after = dict(counts)
            after[new] -= 1
            result = _result(new, after)
            chance = Fraction(counts[new], left)
            if 3 * result > 2 * result:
                raise_on.append(new)
                trade += chance * 3 * result
                raise_after += chance
            else:
                trade += chance * 2 * result
        options = [(check, 0, CHECK), (raise_, 1, RAISE), (trade, 2, TRADE)]
        best, _, action = max(options, key=lambda o: (o[0], -o[1]))
        probability = Fraction(full[rank], shoe.size)
        decisions.append(Decision(rank, probability, check, raise_, trade, action, tuple(raise_on)))
        expected += probability * best
        average += probability * {CHECK: 1, RAISE: 2, TRADE: 2 + raise_after}[action]
    return MainGame(decks, tuple(decisions), expected, average)


MAIN_ASSUMPTIONS = (
    "house edge per unit of Ante (the initial wager); the Trade and Raise each wager 1x the Ante and win or lose "
    "with it (rules 5, 8-10)",
    "best strategy: for each rank of the player's card, the option (check, Raise, Trade) with the higher expected "
    "result; after a trade, Raise when the new card's expected result is positive (rule 5c.ii); the player sees "
    "only his own cards, so this perfect strategy is also the basic (rank-only) strategy",
    "a full shoe for every round (continuous shuffler, rule 2); cards without replacement; other players' cards "
    "unseen",
)


# -- the bonus bets as a player following the best strategy sees them -----------------------------------------


def side_bet_with_best_strategy(bet: str, lines, decks: int) -> Fraction:
    """Expected return per unit of the 3 Card Bonus (``bet`` = "3 Card Bonus") or Perfect Match bet when the
    player also plays the main game with the best strategy (``main_game``), so that the bonus hand's player card
    is the card after a trade (rule 11: "the player's one card at the end of the game").

    A player trading a first card ``p`` (the strategy trades by rank alone) ends with a card drawn from the shoe
    without ``p`` and without the dealer's two cards; by exchangeability the new card and the dealer's two cards
    are three cards drawn at random from the shoe without ``p``. Exact, by enumeration over card types."""
    names = POKER3_NAMES if bet == "3 Card Bonus" else MATCH_NAMES
    pays, _ = read_lines(lines, names)
    game = main_game(decks)
    shoe = Shoe(decks)
    total = Fraction(0)
    for decision in game.decisions:
        first = Card(decision.rank, 0)  # by symmetry between suits, the first card is a spade
        copies = shoe.copies()
        copies[first] -= 1
        if decision.action != TRADE:
            if bet == "3 Card Bonus":
                outcomes = [(w, poker3.poker_features((first,) + d)) for w, d in multisets(2, copies)]
            else:
                outcomes = _against(first, copies)
        elif bet == "3 Card Bonus":
            outcomes = [(w, poker3.poker_features(h)) for w, h in multisets(3, copies)]
        else:
            outcomes = []
            for new in (Card(r, s) for r in RANKS for s in (0, 1)):  # a spade, or (x3) another suit
                times = copies[new] * (1 if new.suit == 0 else 3)
                if not times:
                    continue
                rest = dict(copies)
                rest[new] -= 1
                # the dealer's two cards: C(n - 2, 2) pairs in all, whatever the new card
                outcomes.extend((times * w, features) for w, features in _against(new, rest))
        total += decision.probability * expected_return(outcomes, pays)
    return total


__all__ = ["BONUS_ASSUMPTIONS", "CHECK", "Decision", "MAIN_ASSUMPTIONS", "MainGame", "POKER_ASSUMPTIONS", "RAISE",
           "RULES", "STAND", "TRADE", "bonus_hands", "main_game", "match_hands", "perfect_match",
           "side_bet_with_best_strategy", "three_card_bonus"]
