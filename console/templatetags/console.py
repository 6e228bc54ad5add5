"""Filters the role pages share: times in the room's zone, money with its currency (``cardroom.moments`` and
``cardroom.money`` write them; the signs and the report call the same functions)."""

from decimal import Decimal

from django import template
from django.utils import timezone

from cardroom.citations import readable_citation
from cardroom.moments import format_moment, zone_name
from cardroom.money import format_money
from compliance.rules import words
from fees.models.postings import posted_as as describe

register = template.Library()


@register.filter
def room_time(moment, establishment=None):
    """``2026-03-03 02:30 PST``: a moment in the establishment's own zone, with the zone's abbreviation; without an
    establishment (a page over a whole jurisdiction), in the installation's zone."""
    zone = establishment.zone if establishment else timezone.get_current_timezone()
    return format_moment(moment, zone, missing="—")


@register.filter
def room_zone(establishment=None):
    """"Pacific time": the zone a form's times are read in (the room's, else the installation's), named for every
    moment; the abbreviation ("PDT", "PST") is a moment's, and ``room_time`` writes it beside the moment."""
    return zone_name(establishment.zone if establishment else timezone.get_current_timezone())


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


@register.filter
def rule_title(code):
    """'Number of collection rates (California)' for a finding's rule code (the code stays in the API)."""
    return words.rule_title(code)


@register.filter
def cited(citation):
    """A citation without the seed's line locators, which mean nothing to a reader of the document."""
    return readable_citation(citation)


@register.filter
def parameter_name(key):
    """'the most collection rates allowed' for a rule parameter's key."""
    return words.parameter_name(key)


@register.filter
def parameter_shown(parameter):
    """A rule parameter used by a finding (its stored dict) as a person reads it: '5', '$400', '10%', '50 to 1',
    then when it is in force from and how sure we are of it."""
    value = Decimal(str(parameter["value"]))
    unit = parameter.get("unit", "")
    if unit in ("USD", "GBP"):
        amount = format_money(value, unit)
    else:
        amount = f"{value.normalize():f}" + {"percent": "%", "count": ""}.get(unit, f" {unit}")
    sure = {"confirmed": "confirmed in the regulation's text", "secondary": "from a secondary source",
            "check": "to be checked"}.get(parameter.get("status"), parameter.get("status", ""))
    return f"{amount} (in force from {parameter.get('effective_from')}, {sure})"
