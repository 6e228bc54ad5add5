"""What the variance page reads, summed up once (``refresh``): each table-day reconciled again (``VarianceChange``)
written into ``VarianceDay`` and ``VarianceCell``. Every reader (``fees.variance.selectors``) calls it first."""

from collections import defaultdict
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Max

from ..models import ClosedMonth, Reconciliation, VarianceCell, VarianceChange, VarianceDay
from .hands import OVER, ZERO, day_terms, short_hands, with_rounds

REFRESH_CHUNK = 2_000  # reconciliations summed up per transaction


def refresh(establishment, *, closing=None):
    """Sum up again the room's table-days reconciled since they were last summed up (``VarianceChange``, written
    in each reconciliation's transaction: whatever order runs commit in, none is missed): each table-day's latest
    reconciliation replaces what an earlier one wrote. Returns how many table-days were (re)written.

    A closed month's table-days are left as its closing sealed them (the database refuses them to the service's
    role: fees migration 0021), their marks kept for a reopening, but for the month ``closing`` (its first day),
    which its closing, as the tables' owner, sums up one last time."""
    marks = list(VarianceChange.objects.filter(establishment=establishment).values_list("pk", "table_id",
                                                                                         "gaming_day"))
    if marks:
        closed = set(ClosedMonth.objects.filter(month__in={day.replace(day=1) for _, _, day in marks},
                                                reopened_at__isnull=True).exclude(month=closing)
                     .values_list("month", flat=True))
        marks = [mark for mark in marks if mark[2].replace(day=1) not in closed]
    if not marks:
        return 0
    changed = {(table_id, day) for _, table_id, day in marks}
    latest, existing = {}, {}
    for q in day_terms(changed):
        for table_id, day, run in Reconciliation.objects.filter(q).order_by().values("table_id", "gaming_day") \
                .annotate(run=Max("id")).values_list("table_id", "gaming_day", "run"):
            if (table_id, day) in changed:
                latest[(table_id, day)] = run
        for pk, table_id, day, run in VarianceDay.objects.filter(q, establishment=establishment).values_list(
                "pk", "table_id", "gaming_day", "reconciliation_id"):
            existing[(table_id, day)] = (pk, run)
    wanted = sorted(run for key, run in latest.items() if run != existing.get(key, (None, None))[1])
    for start in range(0, len(wanted), REFRESH_CHUNK):
        _sum_up(establishment, wanted[start:start + REFRESH_CHUNK], existing)
    # Only the marks read: one a run committed meanwhile wrote stays for the next look.
    pks = [pk for pk, _, _ in marks]
    for start in range(0, len(pks), REFRESH_CHUNK):
        VarianceChange.objects.filter(pk__in=pks[start:start + REFRESH_CHUNK]).delete()
    return len(wanted)


def _sum_up(establishment, run_ids, existing):
    rows = list(Reconciliation.objects.filter(id__in=run_ids).values_list(
        "id", "table_id", "gaming_day", "expected_total", "collected_total", "hands", "variances"))
    hands = with_rounds(short_hands([(t, d, v) for _, t, d, _, _, _, v in rows]))
    by_day = defaultdict(list)
    for hand in hands:
        by_day[(hand.table_id, hand.day)].append(hand)
    zone = establishment.zone
    days, cells = [], []
    for run, table_id, day, expected, collected, n_hands, variances in rows:
        short = by_day[(table_id, day)]
        over = [Decimal(v["collected"]) - Decimal(v["expected"]) for v in variances if v["status"] == OVER]
        summary = VarianceDay(establishment=establishment, table_id=table_id, gaming_day=day, reconciliation_id=run,
                              expected_total=expected, collected_total=collected, hands=n_hands,
                              hands_short=len(short), amount_short=sum((h.short for h in short), ZERO),
                              hands_over=len(over), amount_over=sum(over, ZERO))
        days.append(summary)
        grouped = defaultdict(lambda: [0, ZERO])
        for hand in short:
            cell = grouped[(hand.played_at.astimezone(zone).hour if hand.played_at else -1, hand.recorder_id)]
            cell[0] += 1
            cell[1] += hand.short
        cells += [VarianceCell(day=summary, establishment=establishment, gaming_day=day, hour=hour,
                               recorder_id=recorder, hands_short=n, amount_short=amount)
                  for (hour, recorder), (n, amount) in grouped.items()]
    stale = [existing[(t, d)][0] for _, t, d, *_ in rows if (t, d) in existing]
    try:
        with transaction.atomic():
            VarianceDay.objects.filter(pk__in=stale).delete()
            VarianceDay.objects.bulk_create(days, batch_size=1000)
            VarianceCell.objects.bulk_create(cells, batch_size=1000)
    except IntegrityError:
        pass  # another look summed these table-days up at the same moment: the same rows are there
