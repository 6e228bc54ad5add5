"""Money: the cent, and the one way an amount is written for people (pages, signs, the report, messages).

Plain Python, no Django: the fee engine and the rules use it too.
"""

from decimal import Decimal

CENT = Decimal("0.01")
