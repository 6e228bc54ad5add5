"""Exact numbers: fractions in, decimals out, never a float on the way.

Every probability and expected value in ``cardroom.gamemath`` is a ``fractions.Fraction`` computed from whole
counts of card combinations. A house edge is shown as a percent ``Decimal`` rounded half up (the way published
figures are rounded) only at the very end, by ``percent``; a stated figure is compared with a computed one at
the stated figure's own precision by ``agrees``.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

HUNDRED = Fraction(100)


def rounded(value: Fraction, places: int) -> Decimal:
    """``value`` rounded half away from zero to ``places`` decimals, exactly (integer arithmetic, no float and
    no intermediate decimal rounding)."""
    if places < 0:
        raise ValueError("places must be zero or more")
    value = Fraction(value)
    sign = -1 if value < 0 else 1
    scaled = abs(value) * 10**places
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest >= scaled.denominator:
        whole += 1
    return (Decimal(sign * whole).scaleb(-places)).quantize(Decimal(1).scaleb(-places))


def percent(fraction: Fraction, places: int = 4) -> Decimal:
    """A fraction of the wager (e.g. a house edge of 512/22100) as a percent Decimal: ``Decimal('2.3167')``."""
    return rounded(Fraction(fraction) * HUNDRED, places)


def places_of(stated: Decimal) -> int:
    """Decimals a stated figure is given to: 2 for Decimal('6.07'), 1 for Decimal('3.6'), 0 for Decimal('5')."""
    exponent = stated.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def agrees(stated: Decimal, computed: Fraction, places: int | None = None) -> bool:
    """True when the computed house edge (a fraction of the wager), rounded half up to the stated figure's
    precision (``places``, default the decimals ``stated`` is written with), equals the stated percent."""
    places = places_of(stated) if places is None else places
    return rounded(Fraction(computed) * HUNDRED, places) == Decimal(stated).quantize(Decimal(1).scaleb(-places))


__all__ = ["agrees", "percent", "places_of", "rounded"]
