"""Where the money goes missing: expected against collected over a period, by table, gaming day, shift and
recorder, with how unusual each group is against the room's own history (``fees.variance.stats``).

Read from the stored reconciliations, not the rounds:

- A table-day counts as its *latest* reconciliation (the highest id: a later run supersedes an earlier one).
- A hand is *short* when its reconciliation found it under-collected or not collected at all; its amount short
  is expected minus collected. A hand collected *over* (more than the schedule set: players charged above it) is
  counted apart, per table-day (``hands_over``, ``amount_over``): no money is missing there, but it is a finding
  (``over_days``; the rule ``ledger.collected_above_schedule``).
- Shift and recorder are not stored on a reconciliation: they are read from the rounds and entries of the short
  hands alone. A hand's shift is the local hour its round was played at; its recorder whoever recorded its
  collection (its first effective entry), or its round when nothing was collected.

``refresh`` sums each table-day reconciled again (``VarianceChange``, written in the reconciliation's transaction)
up once into ``VarianceDay`` (a table-day's totals and short hands) and ``VarianceCell`` (its short hands by local
hour and recorder), so that a page over a busy room's year groups a few hundred thousand small rows in SQL instead
of reading the reconciliations' variances and looking their hands up again. Every reader calls it first; the
nightly validation run (the rule's facts) keeps it current.
"""

import datetime
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Count, Sum

from cardroom.models import Table
from cardroom.ordering import natural

from ..models import Reconciliation, RoundOfPlay, VarianceCell, VarianceDay
from .hands import ZERO, day_terms, short_hands, with_rounds
from .services import refresh
from .stats import BASELINE_DAYS, DEFAULT_SHIFTS, Judgement, c_chart, p_chart, shift_of

GROUPS = ("table", "day", "shift", "recorder")
UNKNOWN = "unknown"  # the key of short hands whose round (shift) or recorder is not known


@dataclass
class Row:
    key: str
    label: str
    hands_short: int = 0
    amount_short: Decimal = ZERO
    expected: Decimal | None = None  # None where the reconciliations do not split it (shift, recorder)
    collected: Decimal | None = None
    hands: int | None = None
    days: int = 0
    judgement: Judgement | None = None


@dataclass
class Report:
    establishment: object
    first: datetime.date
    last: datetime.date
    baseline: tuple  # (first, last) of the history judged against
    baseline_from: str  # "history": the 90 days before; "period": no history, the period's own share (p charts)
    currency: str
    total: Row
    shifts: tuple
    groups: dict  # group name -> [Row]


# -- the report --------------------------------------------------------------------------------------------------


def _names(user_ids):
    users = get_user_model().objects.filter(pk__in=[u for u in user_ids if u is not None])
    return dict(users.values_list("pk", "username"))


def _shift_key(hour, shifts):
    return UNKNOWN if hour is None or hour < 0 else shift_of(hour, shifts)


def group_key(hand, group, zone, shifts=DEFAULT_SHIFTS):
    """The key of the row a short hand belongs to in ``group`` (the drill-down's filter)."""
    if group == "table":
        return str(hand.table_id)
    if group == "day":
        return hand.day.isoformat()
    if group == "shift":
        return _shift_key(hand.played_at.astimezone(zone).hour if hand.played_at else None, shifts)
    return str(hand.recorder_id) if hand.recorder_id else UNKNOWN


def _sums(queryset, by):
    return {row[by]: row for row in queryset.values(by).annotate(
        expected=Sum("expected_total"), collected=Sum("collected_total"), hands=Sum("hands"), days=Count("id"),
        short=Sum("hands_short"), amount=Sum("amount_short"))}


def _cells(queryset):
    """(hour, recorder id, hands short, amount short) summed over the cells: one pass for shifts and recorders."""
    return list(queryset.values("hour", "recorder_id").annotate(short=Sum("hands_short"), amount=Sum("amount_short"))
                .values_list("hour", "recorder_id", "short", "amount"))


def report(establishment, first, last, shifts=DEFAULT_SHIFTS):
    """The variance report of ``establishment`` from gaming day ``first`` to ``last``."""
    refresh(establishment)
    base_first, base_last = first - datetime.timedelta(days=BASELINE_DAYS), first - datetime.timedelta(days=1)
    summed = VarianceDay.objects.filter(establishment=establishment).order_by()
    period, baseline = summed.filter(gaming_day__range=(first, last)), summed.filter(
        gaming_day__range=(base_first, base_last))
    by_table, by_day = _sums(period, "table_id"), _sums(period, "gaming_day")
    base = baseline.aggregate(hands=Sum("hands"), short=Sum("hands_short"), days=Count("gaming_day", distinct=True))
    cells = VarianceCell.objects.filter(establishment=establishment).order_by()
    period_cells, base_cells = cells.filter(gaming_day__range=(first, last)), cells.filter(
        gaming_day__range=(base_first, base_last))
    total_hands = sum(r["hands"] for r in by_table.values())
    total_short = sum(r["short"] for r in by_table.values())
    period_days = len(by_day)
    if base["hands"]:
        centre, baseline_from = (base["short"], base["hands"]), "history"
    else:  # no history yet: the period's own share is the centre line (trial limits)
        centre, baseline_from = (total_short, total_hands), "period"

    def summed_rows(sums, key, label):
        rows = []
        for value, s in sums.items():
            row = Row(key=key(value), label=label(value), hands_short=s["short"], amount_short=s["amount"],
                      expected=s["expected"], collected=s["collected"], hands=s["hands"], days=s["days"])
            row.judgement = p_chart(row.hands_short, row.hands, *centre)
            rows.append(row)
        return rows

    labels = dict(Table.objects.filter(establishment=establishment).values_list("pk", "label"))
    tables = summed_rows(by_table, str, lambda pk: f"Table {labels.get(pk, pk)}")
    tables.sort(key=lambda r: (-r.amount_short, natural(labels.get(int(r.key), r.key))))
    days = sorted(summed_rows(by_day, lambda d: d.isoformat(), lambda d: d.isoformat()), key=lambda r: r.key)

    def counted_rows(now, before, keys, label):
        rows = {key: Row(key=key, label=label(key)) for key in keys}
        for key, short, amount in now:
            row = rows.setdefault(key, Row(key=key, label=label(key)))
            row.hands_short += short
            row.amount_short += amount
        history = defaultdict(int)
        for key, short, _ in before:
            history[key] += short
        for row in rows.values():
            row.days = period_days
            row.judgement = c_chart(row.hands_short, period_days, history[row.key], base["days"] or 0)
        return list(rows.values())

    now, before = _cells(period_cells), _cells(base_cells)

    def by_shift(found):
        return [(_shift_key(hour, shifts), short, amount) for hour, _, short, amount in found]

    shift_rows = counted_rows(by_shift(now), by_shift(before), [label for label, _, _ in shifts],
                              lambda key: "not known" if key == UNKNOWN else key)

    def by_recorder(found):
        return [(str(recorder) if recorder else UNKNOWN, short, amount) for _, recorder, short, amount in found]

    names = _names({recorder for _, recorder, _, _ in now})
    recorder_rows = counted_rows(by_recorder(now), by_recorder(before), [],
                                 lambda key: names.get(int(key), key) if key != UNKNOWN else "not known")
    recorder_rows.sort(key=lambda r: (-r.amount_short, r.label))
    total = Row(key="", label="All tables", hands_short=total_short,
                amount_short=sum((r["amount"] for r in by_table.values()), ZERO),
                expected=sum((r["expected"] for r in by_table.values()), ZERO),
                collected=sum((r["collected"] for r in by_table.values()), ZERO), hands=total_hands,
                days=period_days)
    return Report(establishment=establishment, first=first, last=last, baseline=(base_first, base_last),
                  baseline_from=baseline_from, currency=establishment.jurisdiction.currency, total=total,
                  shifts=shifts, groups={"table": tables, "day": days, "shift": shift_rows, "recorder": recorder_rows})


def hands_behind(establishment, first, last, group, key, shifts=DEFAULT_SHIFTS, limit=500):
    """The short hands behind one row of the report, with their rounds and every entry (corrections too), in
    gaming day, table and time order; at most ``limit`` of them. Returns (hands, how many there are in all)."""
    refresh(establishment)
    summed = VarianceDay.objects.filter(establishment=establishment, gaming_day__range=(first, last),
                                        hands_short__gt=0)
    cells = VarianceCell.objects.filter(establishment=establishment, gaming_day__range=(first, last))
    try:
        if group == "table":
            summed = summed.filter(table_id=int(key))
            cells = cells.filter(day__table_id=int(key))
        elif group == "day":
            summed = summed.filter(gaming_day=datetime.date.fromisoformat(key))
            cells = cells.filter(gaming_day=datetime.date.fromisoformat(key))
        elif group == "shift":
            hours = [h for h in range(-1, 24) if _shift_key(h, shifts) == key]
            cells = cells.filter(hour__in=hours)
        elif group == "recorder":
            cells = cells.filter(recorder__isnull=True) if key == UNKNOWN else cells.filter(recorder_id=int(key))
        else:
            return [], 0
    except ValueError:
        return [], 0
    if group in ("shift", "recorder"):
        summed = summed.filter(pk__in=cells.values("day_id"))
    count = cells.aggregate(n=Sum("hands_short"))["n"] or 0
    runs, taken = [], 0
    for run, short in summed.order_by("gaming_day", "table_id").values_list("reconciliation_id", "hands_short"):
        if taken >= limit:
            break
        runs.append(run)
        taken += short
    rows = Reconciliation.objects.filter(id__in=runs).values_list("table_id", "gaming_day", "variances")
    hands = [h for h in with_rounds(short_hands(rows), entries=True)
             if group_key(h, group, establishment.zone, shifts) == key]
    labels = dict(Table.objects.filter(pk__in={h.table_id for h in hands}).values_list("pk", "label"))
    hands.sort(key=lambda h: (h.day, natural(labels.get(h.table_id, "")),
                              h.played_at or datetime.datetime.max.replace(tzinfo=datetime.UTC)))
    hands = hands[:limit]
    names = _names({h.recorder_id for h in hands})
    for hand in hands:
        hand.table_label = labels.get(hand.table_id, "")
        hand.recorder = names.get(hand.recorder_id, "not known")
        hand.local_time = hand.played_at.astimezone(establishment.zone) if hand.played_at else None
    return hands, count


def short_days(establishment, first, last):
    """The facts of the days-in-a-row rule: per table label the days it was played and the days it had a hand
    short; per recorder (username) the days they had a hand short; the room's days of play."""
    refresh(establishment)
    labels = dict(Table.objects.filter(establishment=establishment).values_list("pk", "label"))
    played, tables_short, recorders_short = defaultdict(set), defaultdict(set), defaultdict(set)
    for table_id, day, short in VarianceDay.objects.filter(
            establishment=establishment, gaming_day__range=(first, last)).values_list(
            "table_id", "gaming_day", "hands_short"):
        played[labels[table_id]].add(day)
        if short:
            tables_short[labels[table_id]].add(day)
    found = list(VarianceCell.objects.filter(establishment=establishment, gaming_day__range=(first, last))
                 .values_list("recorder_id", "gaming_day").distinct())
    names = _names({recorder for recorder, _ in found})
    for recorder, day in found:
        recorders_short[names.get(recorder, UNKNOWN)].add(day)
    room_days = set().union(*played.values()) if played else set()
    return {"played": dict(played), "tables_short": dict(tables_short), "recorders_short": dict(recorders_short),
            "room_days": room_days}


@dataclass
class OverDay:
    """A table-day whose hands were collected above what the schedule set (players charged more than it says)."""

    table_id: int
    table: str  # its label
    day: datetime.date
    hands_over: int
    amount_over: Decimal
    schedules: tuple = ()  # (code, version) the day's rounds were priced under


def over_days(establishment, first, last):
    """The table-days of ``establishment`` from ``first`` to ``last`` with a hand collected above the schedule, in
    day and table order, each with the schedule versions its rounds were priced under (the facts of the rule
    ``ledger.collected_above_schedule`` and the variance page's own section)."""
    refresh(establishment)
    found = list(VarianceDay.objects.filter(establishment=establishment, gaming_day__range=(first, last),
                                            hands_over__gt=0)
                 .values_list("table_id", "gaming_day", "hands_over", "amount_over"))
    if not found:
        return []
    labels = dict(Table.objects.filter(establishment=establishment).values_list("pk", "label"))
    priced = defaultdict(set)
    for q in day_terms({(table_id, day) for table_id, day, _, _ in found}):
        for table_id, day, code, version in RoundOfPlay.objects.filter(q).order_by().values_list(
                "table_id", "gaming_day", "schedule_code", "schedule_version").distinct():
            if code:
                priced[(table_id, day)].add((code, version))
    days = [OverDay(table_id, labels.get(table_id, str(table_id)), day, hands, amount,
                    tuple(sorted(priced[(table_id, day)])))
            for table_id, day, hands, amount in found]
    days.sort(key=lambda d: (d.day, natural(d.table)))
    return days
