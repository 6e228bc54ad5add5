"""Filters the role pages share: times in the room's zone, money with its currency (``cardroom.moments`` and
``cardroom.money`` write them; the signs and the report call the same functions)."""

from django import template
from django.utils import timezone

from cardroom.moments import format_moment
from cardroom.money import format_money
from fees.models.postings import posted_as as describe

register = template.Library()


@register.filter
def room_time(moment, establishment=None):
    """``2026-03-03 02:30 PST``: a moment in the establishment's own zone, with the zone's abbreviation; without an
    establishment (a page over a whole jurisdiction), in the installation's zone."""
    zone = establishment.zone if establishment else timezone.get_current_timezone()
    return format_moment(moment, zone, missing="—")


@register.filter
def money(amount, currency="USD"):
    """``$1,234.50``, ``£12.00``: an amount as the pages write it; "—" when there is none."""
    return format_money(amount, currency or "USD")


@register.filter
def posted_as(posting):
    """A posting's schedule option or (house-banked) rules and decks: of a posting, or of one of
    ``TablePosting.objects.display_rows()``."""
    if hasattr(posting, "schedule__code"):
        return describe(posting.schedule__code, posting.option_number, posting.rules__version, posting.decks)
    return posting.posted_as
