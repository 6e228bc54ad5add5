"""Paytables: how each printed line is read, and the expected return of a bet paid by it.

**How a line pays.** A line printed "N to M" pays N/M units for each unit wagered **and the wager is kept**
(WAC 230-15-060 and the paytables' own wording: "to 1", never "for 1"); a "Push" line returns the wager; a
losing hand (no line) loses the wager. A fixed-amount line (Envy "$1,000") does not scale with the wager, so a
paytable with one has no house edge as a fraction of the wager: it is not computed. A line whose odds could not
be read (the OCR copies' "S5tol", "3tol") is not guessed: the paytable is not computed, and the reason names
the line.

**Which line pays.** A hand is paid once, by the highest-paying line it qualifies for (the rules list winning
hands, not an order of precedence; a suited three of a kind on a 3 Card Bonus table that has no line for it is
a "3 of a Kind" and a "Flush", and is paid 30 to 1). Where a game's rules rank the hands instead ("the best
possible five-card hand", Three Card Poker 6 Card Bonus) the ranking decides (``sixcard``).

**Hand names** are read by what they say, after folding case, apostrophes, hyphens and "three" / "3"; a name
this module does not know stops the computation (the reason names it). Two readings are assumptions, stated
with every result that uses them:

* Perfect Match, as the rules print it (One for the Money, Perfect Match version, rule 11): "Player's Card
  Matches a Dealer's Card" (10 to 1) is read as the same rank **and suit** and "Player's Card Ties a Dealer's
  Card" (3 to 1) as the same rank (a tie as in rule 10), any suit, because the paytable sheet prints the same two
  rows, at the same odds and in the same place, as "Player Card Matches A Dealer Card (Suited)" and
  "(Unsuited)". The sheet's "(Unsuited)" is read as the same rank in another suit; as the suited match pays more,
  the two readings of the lower row give the same result.
* "3 of a Kind" is any three cards of one rank, suited or not; "Suited 3-of-a-Kind" / "3 of a Kind Suited" is
  three identical cards (only possible with more than one deck).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from . import poker3


class NotComputable(ValueError):
    """A bet whose house edge this package does not compute; the message says why."""


@dataclass(frozen=True)
class Line:
    """One printed paytable line (the fields of ``PaytableLine``, as plain values)."""

    hand: str
    printed: str = ""
    odds_to: Decimal | Fraction | int | None = None
    odds_for: Decimal | Fraction | int | None = None
    is_push: bool = False
    fixed_amount: Decimal | None = None

    def pays(self) -> Fraction:
        """What one unit wagered wins on this line (0 for a push); raises NotComputable when it cannot be read."""
        if self.is_push:
            return Fraction(0)
        if self.fixed_amount is not None:
            raise NotComputable(f"line '{self.hand}' pays a fixed amount ({self.printed or self.fixed_amount}), "
                                "not odds on the wager, so the bet has no house edge as a share of the wager")
        if self.odds_to is None or self.odds_for in (None, 0):
            raise NotComputable(f"line '{self.hand}' is printed '{self.printed}', which states no odds that could "
                                "be read (left unparsed in the seed data), and is not guessed")
        return Fraction(self.odds_to) / Fraction(self.odds_for)


def normal(name: str) -> str:
    """'Player’s Card Matches a Dealer’s Card' -> "player card matches a dealer card"."""
    text = name.lower().replace("’", "'").replace("`", "'")
    text = re.sub(r"\b(player|dealer)'s\b", r"\1", text)
    text = text.replace("-", " ").replace("three", "3")
    text = re.sub(r"\s*\(\s*", " (", text)
    text = re.sub(r"\s*\)\s*", ") ", text)
    return " ".join(text.split())


POKER3_NAMES = {
    "mini royal flush": poker3.MINI_ROYAL,
    "mini royal": poker3.MINI_ROYAL,
    "straight flush": poker3.STRAIGHT_FLUSH,
    "suited 3 of a kind": poker3.SUITED_TRIPS,
    "3 of a kind suited": poker3.SUITED_TRIPS,
    "3 of a kind": poker3.TRIPS,
    "straight": poker3.STRAIGHT,
    "flush": poker3.FLUSH,
    "one pair": poker3.PAIR,
    "pair": poker3.PAIR,
}

MATCH_ASSUMED = (
    "the rules' 'Player's Card Matches a Dealer's Card' is read as the same rank and suit, and 'Player's Card "
    "Ties a Dealer's Card' as the same rank in any suit (the paytable sheet prints these rows as 'Matches A "
    "Dealer Card (Suited)' and '(Unsuited)' at the same odds)"
)
MATCH_NAMES = {
    "suited 3 of a kind": (poker3.SUITED_TRIPS, ""),
    "3 of a kind suited": (poker3.SUITED_TRIPS, ""),
    "3 of a kind": (poker3.TRIPS, ""),
    "player card matches a dealer card (suited)": (poker3.MATCH_SUITED, ""),
    "player card matches a dealer card (unsuited)": (poker3.MATCH_UNSUITED, ""),
    "player card matches a dealer card": (poker3.MATCH_SUITED, MATCH_ASSUMED),
    "player card ties a dealer card": (poker3.TIE, MATCH_ASSUMED),
}


def read_lines(lines, names: dict) -> tuple[dict[str, Fraction], tuple[str, ...]]:
    """{feature: best payout of the lines naming it} and the assumptions the names needed. Raises NotComputable
    for an empty paytable, an unknown hand name or a line that cannot be read."""
    if not lines:
        raise NotComputable("the paytable has no lines")
    pays: dict[str, Fraction] = {}
    assumed = []
    for line in lines:
        found = names.get(normal(line.hand))
        if found is None:
            raise NotComputable(f"the hand '{line.hand}' is not one this module can classify")
        feature, assumption = found if isinstance(found, tuple) else (found, "")
        payout = line.pays()
        pays[feature] = max(payout, pays.get(feature, payout))
        if assumption and assumption not in assumed:
            assumed.append(assumption)
    return pays, tuple(assumed)


def expected_return(distribution, pays: dict[str, Fraction]) -> Fraction:
    """Expected win per unit wagered (negative: the player loses) over ``distribution`` ((weight, features)
    pairs, features being the set of hands the outcome qualifies as): each outcome is paid its best line, and
    loses the wager when it qualifies for none."""
    won = 0
    weight_total = 0
    for weight, features in distribution:
        best = None
        for feature in features:
            payout = pays.get(feature)
            if payout is not None and (best is None or payout > best):
                best = payout
        won += weight * (best if best is not None else -1)
        weight_total += weight
    return Fraction(won) / weight_total


__all__ = ["Line", "MATCH_NAMES", "NotComputable", "POKER3_NAMES", "expected_return", "normal", "read_lines"]
