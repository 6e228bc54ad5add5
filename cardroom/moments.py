"""A moment as people read it: in the room's zone, with the zone's abbreviation ("2026-11-21 13:52 PST").

Plain Python, no Django: the pages (the ``room_time`` filter), the signs, the report and messages call it with the
zone they show (a room's ``Establishment.zone``, else the installation's). The abbreviation is the one in force at
that moment, so a day of the autumn change shows "01:30 PDT" and then "01:30 PST".
"""

import datetime
from zoneinfo import ZoneInfo


# What people call the zones the rooms are in; any other zone is named by its IANA key. A label that stands for
# every moment of a form (a time field) names the zone, never an abbreviation: "PST" or "PDT" belongs to a moment.
ZONE_NAMES = {"America/Los_Angeles": "Pacific time", "America/Denver": "Mountain time",
              "America/Phoenix": "Arizona time", "America/Chicago": "Central time",
              "America/New_York": "Eastern time", "Pacific/Honolulu": "Hawaii time", "UTC": "UTC"}


def zone_name(zone):
    """"Pacific time" for America/Los_Angeles (a tzinfo or a zone name): the zone, whatever the moment."""
    key = getattr(zone, "key", None) or str(zone)
    return ZONE_NAMES.get(key, key)


def format_moment(moment, zone, *, missing=""):
    """``moment`` (an aware datetime, or ISO 8601 text with its offset) in ``zone`` (a tzinfo or a zone name such
    as "America/Los_Angeles"): "2026-11-21 13:52 PST"; ``missing`` when there is no moment."""
    if moment in (None, ""):
        return missing
    local = in_zone(moment, zone)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


def in_zone(moment, zone):
    """``moment`` as an aware datetime in ``zone``; a naive one is refused (its zone would be a guess)."""
    if isinstance(moment, str):
        moment = datetime.datetime.fromisoformat(moment)
    if moment.utcoffset() is None:
        raise ValueError(f"a moment shown to people must say its zone or offset, not {moment!r}")
    return moment.astimezone(ZoneInfo(zone) if isinstance(zone, str) else zone)


def abbreviations(first, last, zone):
    """The zone's abbreviations in use from ``first`` to ``last`` (aware datetimes), sorted: ["PDT", "PST"]. A zone
    keeps an abbreviation for over a month, so the two ends and noon of the first of each month between find them
    all."""
    first, last = in_zone(first, zone), in_zone(last, zone)
    moments, month = [first, last], first.date().replace(day=1)
    while month < last.date():
        moments.append(datetime.datetime.combine(month, datetime.time(12), first.tzinfo))
        month = (month + datetime.timedelta(days=32)).replace(day=1)
    return sorted({moment.tzname() for moment in moments})
