"""A stated house edge beside the computed one: the facts a check and a compliance rule need. Pure Python.

A document states a house edge to some precision ("6.07%", "3.6%"); it *agrees* with the computation when the
computed edge, rounded half up to that many decimals, is the stated figure. A figure stated without a deck count
is compared with each deck count the game is dealt from and agrees when it agrees with any of them.

The seed stores stated edges as decimals with three places, so trailing zeros are lost ("6.40" is stored as
6.400). ``stated_places`` recovers the precision from the citation, which quotes the printed figure ("row
'House Edge 6 Deck' (6.40%)"): the first figure in it equal to the stated value followed by "%"; failing that,
the stored value without its trailing zeros.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .exact import agrees, percent, places_of, rounded


def stated_places(value: Decimal, citation: str = "") -> int:
    """Decimals a stated percent was printed with: 2 for 6.400 cited as '(6.40%)', 1 for 3.600 cited as
    "'Main game: 3.6% ...'"."""
    plain = f"{Decimal(value).normalize():f}"
    whole, _, decimals = plain.partition(".")
    pattern = rf"(?<![\d.]){re.escape(whole)}" + (rf"\.{decimals}(0*)" if decimals else r"(?:\.(0+))?") + r"\s*%"
    found = re.search(pattern, citation or "")
    if found:
        return len(decimals) + len(found.group(1) or "")
    return places_of(Decimal(plain))


@dataclass(frozen=True)
class ApprovalRef:
    """An approval a stated edge concerns (its key, reference, jurisdiction and establishment)."""

    key: str
    reference: str
    jurisdiction: str
    establishment: str | None = None


@dataclass(frozen=True)
class ComputedEdge:
    """One computation a stated edge is compared with."""

    decks: int
    paytable: str | None  # the paytable number, for a figure stated for a bet without naming one
    edge: Fraction

    @property
    def percent(self) -> Decimal:
        """To 4 decimals, half up."""
        return percent(self.edge)


@dataclass(frozen=True)
class StatedEdge:
    """A house edge a document states, with what it is compared with."""

    game: str  # slug
    game_name: str
    bet: str
    paytable: str | None  # number as printed; None when the document names none
    strategy: str
    stated: Decimal  # percent
    places: int
    decks: int | None  # None: not stated
    citation: str
    source: str
    approvals: tuple[ApprovalRef, ...] = ()  # the approvals the statement concerns
    computed: tuple[ComputedEdge, ...] = ()  # every comparable computation (deck counts, paytables)
    rules: str = ""  # the rules the computation follows
    assumptions: tuple[str, ...] = ()
    id: int | None = None

    def agreeing(self) -> list[ComputedEdge]:
        """The computations that, rounded half up to the stated decimals, are the stated figure."""
        return [c for c in self.computed if agrees(self.stated, c.edge, self.places)]

    @property
    def reproduced(self) -> bool | None:
        """True when some computation agrees at the stated precision, False when none does, None when nothing
        could be computed to compare with."""
        if not self.computed:
            return None
        return bool(self.agreeing())

    def shown(self) -> str:
        """The figure as printed: '6.40%'."""
        return f"{Decimal(self.stated).quantize(Decimal(1).scaleb(-self.places))}%"

    def at_stated_precision(self, computed: ComputedEdge) -> Decimal:
        """A computation rounded half up to the stated decimals."""
        return rounded(computed.edge * 100, self.places)


__all__ = ["ApprovalRef", "ComputedEdge", "StatedEdge", "stated_places"]
