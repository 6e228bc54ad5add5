"""Money: the cent, and the one way an amount is written for people (pages, signs, the report, messages).

Plain Python, no Django: the fee engine and the rules use it too.

Amounts are written by babel's ``format_currency`` in US English, the language of every page and sign:
"$1,234.50", "-$5.00", "£12.00", "€3.50", "¥1,000" (a currency's own number of decimals). Only ``Decimal`` and
whole numbers are accepted: a float cannot hold every cent, so it is refused rather than rounded. What machines
read (CSV, JSON, receipts) is not written here: those keep their plain decimal strings ("1234.50").
"""

import functools
from decimal import ROUND_HALF_EVEN, Decimal

from babel.numbers import format_currency, get_currency_precision

CENT = Decimal("0.01")
LOCALE = "en_US"  # the pages' and signs' language
MISSING = "—"  # an amount that is not there, on the pages
MINUS = "\u2212"  # a true minus sign, for differences


def format_money(amount, currency="USD", *, missing=MISSING, whole=False):
    """``amount`` as people read it: "$196.00", "-$1,234.50", "£12.00"; ``missing`` when it is None. ``whole``
    leaves out the cents of an amount of whole units, as schedules and regulations print limits and bounds:
    "$400", "$1,500", but "$12.50"."""
    if amount is None:
        return missing
    amount = _rounded(amount, currency)
    if whole and amount == amount.to_integral_value():
        return _written(amount, currency).rsplit(".", 1)[0]
    return _written(amount, currency)


def format_difference(amount, currency="USD"):
    """A difference, its sign always written: "+$1.00", "−$2.50" (a true minus sign), "$0.00"."""
    amount = _rounded(amount, currency)
    text = _written(abs(amount), currency)
    if amount > 0:
        return "+" + text
    return MINUS + text if amount < 0 else text


@functools.lru_cache(maxsize=4096)
def _written(amount, currency):
    # babel takes ~0.1 ms an amount; a page or a floor of signs writes the same few amounts again and again.
    return format_currency(amount, currency, locale=LOCALE)


def _rounded(amount, currency):
    """``amount`` to the currency's own places (half to even, as Decimal formats), never a negative zero."""
    if isinstance(amount, bool) or not isinstance(amount, (Decimal, int)):
        raise TypeError(f"an amount of money is a Decimal (or a whole number), not {type(amount).__name__}")
    amount = Decimal(amount)
    if not amount.is_finite():
        raise ValueError(f"an amount of money is a finite number, not {amount}")
    amount = amount.quantize(Decimal(1).scaleb(-get_currency_precision(currency)), ROUND_HALF_EVEN)
    return abs(amount) if amount == 0 else amount
