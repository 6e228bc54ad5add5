"""Amounts as the engine reads and writes them: the one error it raises, money read to the cent, and the
few ways an amount or a count is printed in its messages and notes."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from cardroom import values
from cardroom.exceptions import BadInput
from cardroom.money import CENT, format_money

ZERO = Decimal("0.00")


class QuoteError(BadInput):
    """Bad input or an amount the schedule does not cover. Message says exactly what is wrong (becomes a 400).

    A BadInput of its own because its callers tell it apart: pricing a round, a repricing, a rule or a receipt's
    replay catches exactly the engine's refusal (and records that it cannot price), never another BadInput."""


def money(value, what: str) -> Decimal:
    """``value`` as an amount of money quantized to the cent, read by ``cardroom.values.money`` (the service's
    one reader of amounts): a decimal string ("12.50"), a whole number or a Decimal; never a float, a negative
    amount (not even "-0"), more than 2 decimal places, or anything but plain ASCII digits ("1e3", "1_000")."""
    if type(value) is Decimal:
        # Fast path for amounts already read (the engine's own tiers): finite, not negative, at most 2 places.
        try:
            cents = value.quantize(CENT)
        except InvalidOperation:
            cents = None
        if cents == value and not cents.is_signed():
            return cents
    try:
        return values.money(value)
    except values.Invalid as error:
        raise QuoteError(f"{what} {error}", field=what) from None


def rake_percent(value) -> Decimal:
    try:
        percent = values.decimal(value, example='"10"')
    except values.Invalid as error:
        raise QuoteError(f"A rake percent {error}") from None
    if percent <= 0 or percent > 100:
        raise QuoteError(f"A rake percent must be more than 0 and at most 100, not {value!r}.")
    return percent


def and_list(items: list[str]) -> str:
    """['$1', '$2', '$3'] -> '$1, $2 and $3'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def dollars(amount, compact: bool = False) -> str:
    """$450.00; compact: $1, $0.50, $1,500 (the way schedules print bounds)."""
    return format_money(Decimal(amount), "USD", whole=compact)


def printed_count(amount) -> str:
    """A player count as printed: 6 (also for a bound stored as Decimal('6.00'))."""
    amount = Decimal(amount)
    return f"{amount:f}" if amount != amount.to_integral_value() else f"{amount:.0f}"

