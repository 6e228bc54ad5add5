"""Filters the role pages share: times in the room's zone, money with its currency."""

from django import template
from django.utils import timezone

from fees.models.postings import posted_as as describe

register = template.Library()


@register.filter
def room_time(moment, establishment):
    """``2026-03-03 02:30 PST``: a moment in the establishment's own zone, with the zone's abbreviation."""
    if moment is None:
        return "—"
    local = timezone.localtime(moment, establishment.zone)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


@register.filter
def money(amount, currency="USD"):
    if amount is None:
        return "—"
    symbol = "$" if currency == "USD" else ""
    suffix = "" if symbol else f" {currency}"
    return f"{symbol}{amount:,.2f}{suffix}"


@register.filter
def posted_as(posting):
    """A posting's schedule option or (house-banked) rules and decks: of a posting, or of one of
    ``TablePosting.objects.display_rows()``."""
    if hasattr(posting, "schedule__code"):
        return describe(posting.schedule__code, posting.option_number, posting.rules__version, posting.decks)
    return posting.posted_as
