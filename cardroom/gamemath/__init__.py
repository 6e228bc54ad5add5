"""Game math: the exact house edge of the seeded games' bets, from their rules and paytables. Pure Python.

No Django, no floats, no simulation: every probability is a ratio of whole counts of card combinations
(``fractions.Fraction``) over a shoe of N standard decks dealt without replacement, and a percent is rounded
only when shown (``exact``). Each function's docstring names the rule it follows and the assumptions it makes;
docs/game-math.md has the method, the assumptions and the results.

* ``cards``: card types, shoes, weighted multisets of hands;
* ``poker3``: what a three-card hand qualifies as (three-card poker hands; Perfect Match hands);
* ``paytables``: how printed lines pay ("N to M", push, fixed amounts), hand names, expected return;
* ``one_for_the_money``: the main game's best strategy and house edge, the 3 Card Bonus and Perfect Match;
* ``three_card_poker``: Pair Plus and the 6 Card Bonus (one deck per round);
* ``baccarat``: not a seeded game; a check of the shoe arithmetic against published counts;
* ``catalogue``: which computation answers which seeded bet, for which deck counts, and what is not computed.

The Django side (``cardroom.game_checks``) reads the seeded paytables and stated house edges and compares.
"""

from .catalogue import MAIN_GAME, Computation, compute, has_main_game, model_of
from .exact import agrees, percent, places_of, rounded
from .paytables import Line, NotComputable

__all__ = ["MAIN_GAME", "Computation", "Line", "NotComputable", "agrees", "compute", "has_main_game", "model_of",
           "percent", "places_of", "rounded"]
