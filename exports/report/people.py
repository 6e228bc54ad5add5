"""Values as a person reads them in the report: moments in the room's zone, money as the pages write it, counts
and cut texts. The zone is the report's own (``render`` sets ``ZONE``): the rooms', as on the pages."""

import contextvars
import datetime
from zoneinfo import ZoneInfo

from django.conf import settings

from cardroom.moments import format_moment
from cardroom.money import format_difference, format_money

CELL_LIMIT = 300  # characters of one cell: a table row must fit on one page (reportlab cannot split a row)
NBSP = "\xa0"  # a space reportlab does not break a line at
CLIPPED = " [...]"  # ends a cell cut to CELL_LIMIT characters

# The zone of the report being rendered (render sets it): the rooms' own, as on the pages.
ZONE = contextvars.ContextVar("report_zone", default=None)


class Markup(str):
    """Cell text that is already Paragraph markup (escaped), e.g. a struck old value."""


def zone():
    return ZONE.get() or ZoneInfo(settings.TIME_ZONE)


def zone_of(scope):
    """The rooms' zone when the rooms exported share one, else the installation's."""
    zones = {e.time_zone for e in scope.establishments}
    return ZoneInfo(zones.pop()) if len(zones) == 1 else ZoneInfo(settings.TIME_ZONE)


def local(value):
    """A moment (aware datetime, or collect's UTC text) as local time with the zone: "2026-03-02 14:05 PDT"."""
    return format_moment(value, zone())


def money(amount, currency, signed=False):
    """``$1,234.50`` as the pages write it, from a Decimal (never through float); ``signed`` writes a difference as
    the pages do: +$1.00, −$2.50 with a true minus sign."""
    text = format_difference(amount, currency) if signed else format_money(amount, currency)
    return text.replace(" ", NBSP)


def text(value):
    """Any cell value as text: yes/no, local moments, ISO days."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value  # a Markup stays one
    if value is True or value is False:
        return "yes" if value else "no"
    if isinstance(value, datetime.datetime):
        return local(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def count(number, thing, things=None):
    return f"{number:,} {thing if number == 1 else (things or thing + 's')}"


def clipped(value):
    """A cell's text cut to CELL_LIMIT characters: a reason may be thousands of characters long."""
    return value if len(value) <= CELL_LIMIT else value[:CELL_LIMIT - len(CLIPPED)].rstrip() + CLIPPED
