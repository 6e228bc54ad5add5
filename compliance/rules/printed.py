"""Reading a schedule's cells as printed: amounts, and bounds made of amounts. Pure Python.

A tier keeps both its typed values (``lower``, ``upper``, ``fee``) and its cells exactly as printed
(``printed_bounds``, ``printed_fee``). These readers say what a printed cell states, or ``None`` when it cannot
be read as amounts (words, "N/A", player counts, several values): a cell that is not read is never guessed at,
and the lint then says nothing about it.

Amounts: an optional currency sign ($, £, €), whole units written plainly or grouped by commas in threes
("1,001"), and at most two decimal places ("$2.50", "1.00"); or cents ("50¢"). Bounds: "A-B" (or "A - B",
"A to B", an en or em dash), "A+", "A & over", "A and over", "A or more", "A and up", "Over A", "More than A",
"Above A", "Up to A", "A or less", "Under A", "Less than A", "Below A", or a lone amount "A" (that amount only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

_AMOUNT = r"[$£€]?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?"
_CENTS = r"\d{1,2}\s*¢"
_ONE = rf"(?:{_AMOUNT}|{_CENTS})"
_DASH = r"\s*(?:-|–|—|to)\s*"

_RANGE = re.compile(rf"({_ONE}){_DASH}({_ONE})", re.IGNORECASE)
_AND_OVER = re.compile(rf"({_ONE})\s*(?:\+|(?:&|and)\s+(?:over|up|above)|or\s+(?:more|over|above))", re.IGNORECASE)
_OVER = re.compile(rf"(?:over|more\s+than|above)\s+({_ONE})", re.IGNORECASE)
_UP_TO = re.compile(rf"(?:up\s+to\s+({_ONE})|({_ONE})\s+or\s+less)", re.IGNORECASE)
_UNDER = re.compile(rf"(?:under|less\s+than|below)\s+({_ONE})", re.IGNORECASE)
_LONE = re.compile(rf"({_ONE})", re.IGNORECASE)
_AMOUNT_ONLY = re.compile(_AMOUNT)
_CENTS_ONLY = re.compile(_CENTS)


def read_amount(text: str | None) -> Decimal | None:
    """The amount a printed cell states ("$1" -> 1, "$2.50" -> 2.50, "1.00" -> 1.00, "$1,001" -> 1001,
    "50¢" -> 0.50), or None when it is not one plain amount."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if _CENTS_ONLY.fullmatch(text):
        return Decimal(text.rstrip("¢").strip()) / 100
    if not _AMOUNT_ONLY.fullmatch(text):
        return None
    return Decimal(text.lstrip("$£€").strip().replace(",", ""))


@dataclass(frozen=True)
class PrintedBounds:
    """What a printed bounds cell states. ``lower`` / ``upper`` are None when that side is not stated;
    ``lower_exclusive`` ("Over $500") and ``upper_exclusive`` ("Under $100") say the amount itself is not
    covered; ``open_top`` that nothing above is excluded ("$201+", "$1,001 & over", "Over $500")."""

    lower: Decimal | None
    upper: Decimal | None
    lower_exclusive: bool = False
    upper_exclusive: bool = False
    open_top: bool = False


def read_bounds(text: str | None) -> PrintedBounds | None:
    """The bounds a printed cell states in amounts, or None when it cannot be read as amounts."""
    if not isinstance(text, str) or not text.strip():
        return None
    text = " ".join(text.split())
    if m := _RANGE.fullmatch(text):
        return PrintedBounds(read_amount(m[1]), read_amount(m[2]))
    if m := _AND_OVER.fullmatch(text):
        return PrintedBounds(read_amount(m[1]), None, open_top=True)
    if m := _OVER.fullmatch(text):
        return PrintedBounds(read_amount(m[1]), None, lower_exclusive=True, open_top=True)
    if m := _UP_TO.fullmatch(text):
        return PrintedBounds(None, read_amount(m[1] or m[2]))
    if m := _UNDER.fullmatch(text):
        return PrintedBounds(None, read_amount(m[1]), upper_exclusive=True)
    if m := _LONE.fullmatch(text):
        amount = read_amount(m[1])
        return PrintedBounds(amount, amount)
    return None


def bounds_disagree(printed: PrintedBounds, lower: Decimal | None, upper: Decimal | None) -> list[str]:
    """How typed bounds differ from what is printed (an empty list when they agree). Only what the printed
    cell states is compared: "Up to $100" states no lower bound, so none is checked. "Over $500" is typed as an
    amount above $500 by at most a dollar ($501, or $500.01); "Under $100" as one below it by at most a dollar."""
    out = []
    if printed.lower is not None:
        if printed.lower_exclusive:
            if lower is None or not printed.lower < lower <= printed.lower + 1:
                out.append("lower")
        elif lower != printed.lower:
            out.append("lower")
    if printed.open_top:
        if upper is not None:
            out.append("upper")
    elif printed.upper is not None:
        if printed.upper_exclusive:
            if upper is None or not printed.upper - 1 <= upper < printed.upper:
                out.append("upper")
        elif upper != printed.upper:
            out.append("upper")
    return out


__all__ = ["PrintedBounds", "bounds_disagree", "read_amount", "read_bounds"]
