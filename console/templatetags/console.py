"""Filters the role pages share: times in the room's zone, money with its currency (``cardroom.moments`` and
``cardroom.money`` write them; the signs and the report call the same functions)."""

import datetime
import re
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


# What the offline verifier's lines (cardroom.tlog) call a log and a moment: its chain's name, not inside an origin
# ("cardroom/audit/establishment:1" stays whole), and a time in UTC to the second.
CHAIN_NAME = re.compile(r"(?<![\w/])(establishment:(\d+)|installation)(?=[:\s,.)]|$)")
UTC_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}) UTC")


@register.filter
def log_words(line, establishment=None):
    """A line of the verifier's as a page says it: "the audit log of Casino Marysville" for the chain
    ``establishment:1``, "the installation's audit log" for ``installation``, and each UTC moment in the room's zone
    (the installation's without one) with its abbreviation."""
    from cardroom.models import Establishment

    ids = {int(m.group(2)) for m in CHAIN_NAME.finditer(line) if m.group(2)}
    names = dict(Establishment.objects.filter(pk__in=ids).values_list("pk", "name")) if ids else {}
    zone = establishment.zone if establishment else timezone.get_current_timezone()

    def chain(match):
        if match.group(2) is None:
            return "the installation's audit log"
        name = names.get(int(match.group(2)))
        return f"the audit log of {name}" if name else match.group(1)

    def moment(match):
        at = datetime.datetime.fromisoformat(f"{match.group(1)}T{match.group(2)}+00:00")
        return format_moment(at, zone)

    return UTC_MOMENT.sub(moment, CHAIN_NAME.sub(chain, str(line)))


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
