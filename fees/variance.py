"""Where the money goes missing: expected against collected over a period, by table, gaming day, shift and
recorder, with how unusual each group is against the room's own history (``fees.variance_stats``).

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
import functools
import operator
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q, Sum

from cardroom.models import Table
from cardroom.ordering import natural

from .models import CollectionEntry, Reconciliation, RoundOfPlay, VarianceCell, VarianceChange, VarianceDay
from .variance_stats import BASELINE_DAYS, DEFAULT_SHIFTS, Judgement, c_chart, p_chart, shift_of

SHORT = ("under_collected", "not_collected")
OVER = "over_collected"
GROUPS = ("table", "day", "shift", "recorder")
ZERO = Decimal("0.00")
UNKNOWN = "unknown"  # the key of short hands whose round (shift) or recorder is not known
LOOKUP_HANDS = 2_000  # short hands per query when reading their rounds and entries
REFRESH_CHUNK = 2_000  # reconciliations summed up per transaction


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


# -- reading the reconciliations and the short hands' rounds and entries -----------------------------------------


def _short_hands(rows):
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


# -- the summaries -----------------------------------------------------------------------------------------------


def _day_terms(keys):
    """Q objects matching these (table id, gaming day) pairs, a superset the caller narrows down, a few hundred
    days a query, read through the (gaming day, table) indexes."""
    by_day = defaultdict(set)
    for table_id, day in keys:
        by_day[day].add(table_id)
    days = sorted(by_day)
    for start in range(0, len(days), 200):
        yield functools.reduce(operator.or_, (Q(gaming_day=day, table_id__in=sorted(by_day[day]))
                                              for day in days[start:start + 200]))


def refresh(establishment):
    """Sum up again the room's table-days reconciled since they were last summed up (``VarianceChange``, written
    in each reconciliation's transaction: whatever order runs commit in, none is missed): each table-day's latest
    reconciliation replaces what an earlier one wrote. Returns how many table-days were (re)written."""
    marks = list(VarianceChange.objects.filter(establishment=establishment).values_list("pk", "table_id",
                                                                                         "gaming_day"))
    if not marks:
        return 0
    changed = {(table_id, day) for _, table_id, day in marks}
    latest, existing = {}, {}
    for q in _day_terms(changed):
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
    hands = with_rounds(_short_hands([(t, d, v) for _, t, d, _, _, _, v in rows]))
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
    hands = [h for h in with_rounds(_short_hands(rows), entries=True)
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
    for q in _day_terms({(table_id, day) for table_id, day, _, _ in found}):
        for table_id, day, code, version in RoundOfPlay.objects.filter(q).order_by().values_list(
                "table_id", "gaming_day", "schedule_code", "schedule_version").distinct():
            if code:
                priced[(table_id, day)].add((code, version))
    days = [OverDay(table_id, labels.get(table_id, str(table_id)), day, hands, amount,
                    tuple(sorted(priced[(table_id, day)])))
            for table_id, day, hands, amount in found]
    days.sort(key=lambda d: (d.day, natural(d.table)))
    return days
