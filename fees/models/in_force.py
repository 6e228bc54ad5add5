"""Which schedule version is in force on a day: as the record stands now, or as it stood at a moment.

The rule, written once here: of a document's published versions (with ``known_at``, only those published by
then, so that a version published later, a retroactive one among them, is left out), the one whose effective
date is the latest on or before the day; a first version whose source states no date is in force from the
beginning until a later one takes over; of two taking effect on the same day, the higher number.

What a table's sign showed when a round was played is ``shown``: a version confirmed as retroactive
(``ScheduleVersion.retroactive``) counts from its publication, any other from its effective date. A round is
priced so (``fees.quotes.quoting.quote_posting``): a version published later for a day already played does not
change what the round was owed when collected; its reconciliation says what it is owed as known now beside it
(``fees.ledger.restating``).

It is needed in two forms, both kept here: ``candidates``, a query (``ScheduleDocument.version_as_of``,
``ScheduleVersion.objects.in_force_for``); and ``among``, over versions already in hand (the compliance pages,
and every quote: ``fees.quotes.quoting`` keeps a document's published versions in memory).
"""

import datetime

from django.db.models import F, Q

# Latest first: the first candidate is the version in force.
LATEST_FIRST = (F("effective_from").desc(nulls_last=True), "-number")


def candidates(versions, day, known_at=None):
    """``versions`` (a ScheduleVersion queryset) that may be in force on ``day`` as the record stood at
    ``known_at`` (now, when None), latest first: the first of them is the one in force."""
    published = versions.filter(status=versions.model.Status.PUBLISHED)
    if known_at is not None:
        published = published.filter(published_at__lte=known_at)
    return published.filter(Q(effective_from__lte=day) | Q(effective_from__isnull=True)).order_by(*LATEST_FIRST)


def among(versions, day, known_at=None):
    """The version in force on ``day`` among ``versions`` already in hand (one document's), or None."""
    found = [v for v in versions if v.is_published and (v.effective_from is None or v.effective_from <= day)
             and (known_at is None or v.published_at <= known_at)]
    if not found:
        return None
    return max(found, key=lambda v: (v.effective_from is not None, v.effective_from or datetime.date.min, v.number))




def shown(versions, day, moment):
    """The version a sign showed on ``day`` at ``moment``, among ``versions`` already in hand (one document's): a
    version confirmed as retroactive counts from its publication, as the record stood at ``moment``; any other
    from its effective date (published on time, or the record was entered later: a seed, the demo's month). When
    only retroactive versions cover the day, the one in force as known now."""
    known = [v for v in versions if not v.retroactive or v.published_at is None or v.published_at <= moment]
    found = among(known, day)
    return found if found is not None else among(versions, day)
