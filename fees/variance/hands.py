"""The short hands of stored reconciliations, read the same way by the summing up (``fees.variance.services``)
and the report (``fees.variance.selectors``): a hand is short when its reconciliation found it under-collected or
not collected; its shift and recorder are looked up from its round and entries."""

import datetime
import functools
import operator
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Q

from ..models import CollectionEntry, RoundOfPlay

SHORT = ("under_collected", "not_collected")
OVER = "over_collected"
ZERO = Decimal("0.00")
LOOKUP_HANDS = 2_000  # short hands per query when reading their rounds and entries


@dataclass
class ShortHand:
    table_id: int
    day: datetime.date
    reference: str
    status: str
    expected: Decimal
    collected: Decimal
    played_at: datetime.datetime | None = None
    round_id: int | None = None
    recorder_id: int | None = None
    entries: list = field(default_factory=list)  # filled for the drill-down only

    @property
    def short(self):
        return self.expected - self.collected


def short_hands(rows):
    """The short hands of reconciliation rows (table_id, gaming_day, variances)."""
    return [ShortHand(table_id, day, v["reference"], v["status"], Decimal(v["expected"]), Decimal(v["collected"]))
            for table_id, day, variances in rows for v in variances if v["status"] in SHORT]


def _lookups(hands):
    """Q objects matching these hands' rounds (or entries), a day's tables and references per term (a superset the
    caller narrows down), LOOKUP_HANDS hands a query, read through the (gaming day, table, reference) indexes."""
    by_day = defaultdict(lambda: (set(), set()))
    for hand in hands:
        tables, references = by_day[hand.day]
        tables.add(hand.table_id)
        references.add(hand.reference)
    terms, size = [], 0
    for day in sorted(by_day):
        tables, references = by_day[day]
        terms.append(Q(gaming_day=day, table_id__in=sorted(tables), reference__in=sorted(references)))
        size += len(references)
        if size >= LOOKUP_HANDS:
            yield functools.reduce(operator.or_, terms)
            terms, size = [], 0
    if terms:
        yield functools.reduce(operator.or_, terms)


def with_rounds(hands, *, entries=False):
    """Fill in each hand's round (when played, by whom) and the recorder of its collection; with ``entries``,
    every entry of the hand (corrected ones too, each marked ``effective`` or not) for the drill-down."""
    by_key = {(h.table_id, h.day, h.reference): h for h in hands}
    for q in _lookups(hands):
        for table_id, day, reference, played_at, round_id, recorder in RoundOfPlay.objects.filter(q).values_list(
                "table_id", "gaming_day", "reference", "played_at", "id", "recorded_by_id"):
            if hand := by_key.get((table_id, day, reference)):
                hand.played_at, hand.round_id, hand.recorder_id = played_at, round_id, recorder
        if entries:
            for entry in CollectionEntry.objects.filter(q).order_by("id").select_related("recorded_by"):
                if hand := by_key.get((entry.table_id, entry.gaming_day, entry.reference)):
                    hand.entries.append(entry)
            continue
        seen = set()
        for key in CollectionEntry.objects.filter(q).effective().order_by("id").values_list(
                "table_id", "gaming_day", "reference", "recorded_by_id"):
            if key[:3] in by_key and key[:3] not in seen:  # the first effective entry: who recorded the collection
                seen.add(key[:3])
                by_key[key[:3]].recorder_id = key[3]
    if entries:
        for hand in hands:
            corrected = {e.corrects_id for e in hand.entries if e.corrects_id}
            for entry in hand.entries:
                entry.effective = entry.pk not in corrected
            effective = [e for e in hand.entries if e.effective]
            if effective:
                hand.recorder_id = effective[0].recorded_by_id
    return hands


def day_terms(keys):
    """Q objects matching these (table id, gaming day) pairs, a superset the caller narrows down, a few hundred
    days a query, read through the (gaming day, table) indexes."""
    by_day = defaultdict(set)
    for table_id, day in keys:
        by_day[day].add(table_id)
    days = sorted(by_day)
    for start in range(0, len(days), 200):
        yield functools.reduce(operator.or_, (Q(gaming_day=day, table_id__in=sorted(by_day[day]))
                                              for day in days[start:start + 200]))
