"""Punto banco baccarat, exactly, over a shoe of N decks: a check of this package's shoe arithmetic.

No seeded game is baccarat. It is here because its figures are published to the last combination (the
number of ordered six-card sequences of an eight-deck shoe won by Banker, by Player and tied), so exact
agreement with them shows that drawing without replacement from a multi-deck shoe is counted right
(tests/cardroom/gamemath/test_gamemath.py). Standard drawing rules (the "tableau"): a natural 8 or 9 in either hand
stands both; Player draws on 0-5; if Player stood, Banker draws on 0-5; if Player drew a third card worth t, Banker
draws on 0-2, on 3 unless t is 8, on 4 if t is 2-7, on 5 if t is 4-7, on 6 if t is 6-7, and stands on 7. Tens and faces
count 0. Banker pays 0.95 to 1 (5% commission), Player 1 to 1, Tie 8 to 1; Banker and Player push on a tie.

Counts are of ordered sequences of six cards (the cards not drawn are still counted), as the published tables
count them, so they add up to 416 x 415 x ... x 411 for eight decks.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache


def _banker_draws(banker: int, third: int | None) -> bool:
    """The tableau: does Banker, on ``banker`` points, draw when Player drew ``third`` (None: Player stood)?"""
    if third is None:
        return banker <= 5
    if banker <= 2:
        return True
    return {3: third != 8, 4: 2 <= third <= 7, 5: 4 <= third <= 7, 6: 6 <= third <= 7}.get(banker, False)


@dataclass(frozen=True)
class Baccarat:
    """Ordered six-card sequences of a ``decks``-deck shoe won by Banker, by Player, and tied."""

    decks: int
    banker: int  # ordered six-card sequences Banker wins
    player: int
    tie: int

    @property
    def total(self) -> int:
        """52n x (52n - 1) x ... x (52n - 5): every ordered sequence of six cards."""
        return self.banker + self.player + self.tie

    def banker_edge(self) -> Fraction:
        """House edge of Banker, paid 0.95 to 1 (5% commission), pushing on a tie."""
        return -Fraction(self.banker * Fraction(95, 100) - self.player, self.total)

    def player_edge(self) -> Fraction:
        """House edge of Player, paid 1 to 1, pushing on a tie."""
        return -Fraction(self.player - self.banker, self.total)

    def tie_edge(self, pays: int = 8) -> Fraction:
        """House edge of Tie, paid ``pays`` to 1, losing when either hand wins."""
        return -Fraction(self.tie * pays - self.banker - self.player, self.total)


@lru_cache(maxsize=8)
def baccarat(decks: int) -> Baccarat:
    """Banker / Player / Tie counts over every ordered six-card sequence of a full shoe of ``decks`` decks."""
    counts = [16 * decks] + [4 * decks] * 9  # by point value: 0 (tens and faces), 1 (aces) .. 9
    size = 52 * decks
    results = [0, 0, 0]  # banker, player, tie

    def settle(player, banker, weight):
        results[0 if banker > player else 1 if player > banker else 2] += weight

    for p1 in range(10):
        w1 = counts[p1]
        counts[p1] -= 1
        for p2 in range(10):
            w2 = w1 * counts[p2]
            counts[p2] -= 1
            for b1 in range(10):
                w3 = w2 * counts[b1]
                counts[b1] -= 1
                for b2 in range(10):
                    w4 = w3 * counts[b2]
                    if not w4:
                        continue
                    counts[b2] -= 1
                    player, banker = (p1 + p2) % 10, (b1 + b2) % 10
                    if player >= 8 or banker >= 8 or (player >= 6 and banker >= 6):
                        settle(player, banker, w4 * (size - 4) * (size - 5))
                    elif player >= 6:  # Player stands, Banker (0-5) draws
                        for b3 in range(10):
                            if counts[b3]:
                                settle(player, (banker + b3) % 10, w4 * counts[b3] * (size - 5))
                    else:
                        for p3 in range(10):
                            w5 = w4 * counts[p3]
                            if not w5:
                                continue
                            counts[p3] -= 1
                            final = (player + p3) % 10
                            if _banker_draws(banker, p3):
                                for b3 in range(10):
                                    if counts[b3]:
                                        settle(final, (banker + b3) % 10, w5 * counts[b3])
                            else:
                                settle(final, banker, w5 * (size - 5))
                            counts[p3] += 1
                    counts[b2] += 1
                counts[b1] += 1
            counts[p2] += 1
        counts[p1] += 1
    return Baccarat(decks, *results)


__all__ = ["Baccarat", "baccarat"]
