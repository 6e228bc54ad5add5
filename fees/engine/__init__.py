"""The fee engine: what a card room collects for one round, hand or time-collection period.

Pure Python (no Django): ``fees.quotes.quoting`` turns a published schedule version into the frozen dataclasses
below and calls the ``quote_*`` functions; anything wrong with the input, or an amount the schedule does not
cover, raises ``QuoteError`` with a message that says exactly what is wrong. All money is ``Decimal``,
quantized to the cent; floats are refused.

The rules
---------

**Tiers.** The tiers of one fee kind in an option are read in printed order (``Tier.order``). Tier *i*
covers the amounts greater than the previous tier's upper bound and up to its own upper bound (``upper``
``None``: open-ended); the first tier starts at its ``lower`` (``None``: open below, as in "5 or less").
So an amount printed in no row, such as $100.50 between "$1-$100" and "$101-$200", falls in the higher
tier. An amount below the first tier, or above the top of a table with no open-ended tier, is an error:
the engine never guesses a fee the schedule does not state. The upper bounds must climb in printed order;
a table printed from its top band down (the poker tables: "6 or more", "5", "2-4") is read from the bottom
up, and a table whose bounds are in neither order is reported as inconsistent data, never re-sorted.
Player counts use the same rule with whole numbers.

**California games** (a player-dealer position). Total table action (TTA) is the sum of every wager's
base and bonus amounts, backline bets included. What each fee is measured on comes from the tiers, not
from option numbers:

- player fee ``flat``: each player pays the one printed fee once (GEGA-002888 options 1-38 print $0);
- player fee ``total_table_action``: each player pays the fee of the TTA tier;
- player fee ``base_wager``: every base wager (every spot, backline included) pays its own tier; bonus
  wagers pay nothing;
- player fee ``player_wager``: a player's base wagers are added up and the total picks the tier;
- player-dealer fee ``total_table_action``: the fee of the TTA tier; ``flat``: the one printed fee;
- a fee whose measure is ``unstated`` or ``wager_unspecified`` cannot be quoted (the schedule does not
  say how it is measured), unless an approved interpretation reads it (``fees.schedules.interpretations``): the Tier then
  holds the reading and carries the ``Interpretation``, and ``explain`` names it with its citation.

**Poker drop.** The collection fee (by players in the hand) and the jackpot fee are taken only when the
hand reaches the flop ("no flop, no drop"); the designated table fee only when it reaches the river. A
hand has at least two players.

**Time collection** (lowball, and Washington time fees). With interval *I* (the option's
``interval_minutes``; 60 for a Washington fee unless set), the collection marks are
``game_started_at + k*I`` for k = 1, 2, ... while the mark is not after ``game_ended_at``. The fee is
collected at the end of each interval for the interval just played, so **a player pays at mark m if and
only if seated_from < m <= seated_to**: a player who sits down exactly at a mark does not pay at that mark,
and a player who leaves exactly at a mark does. A player's seats must lie within the game and must not
overlap; a player may have several seats (left and came back). Marks are counted in absolute time, so a
daylight-saving change inside a game does not move them.

**Washington.** A per-hand fee is the amount times the players in the hand; a rake is the percentage of the
pot rounded down to the cent, limited to the cap if there is one (WAC 230-15-080).

Speed
-----

quote_california is the hot path (benchmarks/engine_quotes.py). Each Option compiles its tier groups once
(upper bounds ready for ``bisect``, also in integer cents) on first use and keeps them, which is safe because
Schedule, Option and Tier are frozen: keep one Schedule per published version and reuse it. A Wager checks
its amounts when it is made, so quotes do not check them again. A CaliforniaQuote's ``lines`` are built the
first time they are read; the fees and totals never depend on them.

The package
-----------

``kinds`` (the fee kinds and families, their words and which function quotes each family: the one table every
list of them is derived from), ``amounts`` (QuoteError, money read to the cent), ``schedules`` (Schedule, Option, Tier, Interpretation),
``quotes`` (Wager, Seat and the quotes' FeeLines), ``scales`` (tier groups and the tier rule: find_tier),
``california``, ``poker``, ``time_collection``, ``washington`` (one quote function each) and ``explanation``
(explain). Everything a caller needs is imported from ``fees.engine`` itself.
"""

from . import kinds
from .amounts import QuoteError, money
from .california import quote_california
from .explanation import explain
from .poker import quote_poker
from .quotes import CaliforniaQuote, FeeLine, PokerQuote, Seat, TimeQuote, Wager, wrong_basis
from .scales import find_tier
from .schedules import Interpretation, Option, Schedule, Tier, footnote, number_ranges
from .time_collection import LONGEST_TIME_COLLECTION, quote_time
from .washington import WashingtonFee, WashingtonQuote, quote_washington_hand, quote_washington_time

# Written into every receipt (docs/receipts.md). Bump it with any change that can give a different answer for
# some input: an amount, a fee line (the tier picked, what it was measured on), or whether an input is refused.
# Not for speed-ups, reworded messages or refactors that answer exactly as before.
ENGINE_VERSION = "1"

__all__ = [
    "ENGINE_VERSION", "LONGEST_TIME_COLLECTION", "CaliforniaQuote", "FeeLine", "Interpretation", "Option",
    "PokerQuote", "QuoteError", "Schedule", "Seat", "Tier", "TimeQuote", "Wager", "WashingtonFee", "WashingtonQuote",
    "explain", "find_tier", "footnote", "money", "number_ranges", "quote_california", "quote_poker", "quote_time",
    "quote_washington_hand", "quote_washington_time", "wrong_basis",
]
