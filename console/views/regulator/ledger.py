"""Fees expected vs collected for one establishment's month: the figures per gaming day (exports.collect, read from
the ledger's kept sums, and a closed month's from what its closing sealed), the tables reconciled, and the SVG chart
laid out."""

import calendar
import datetime
from decimal import Decimal

from django.db.models import Count, Max, Q
from django.utils import timezone

from cardroom.money import format_difference
from exports import collect
from fees.ledger import restating
from fees.models import LedgerDay, Reconciliation
from fees.months.selectors import closed_months, sealed_months, shown_words

from ...rows import cell, e
from ...templatetags.console import money


def month_end(first):
    return first.replace(day=calendar.monthrange(first.year, first.month)[1])


def shift_month(first, months):
    index = first.year * 12 + first.month - 1 + months
    return datetime.date(index // 12, index % 12 + 1, 1)


def _latest_day(establishment):
    """The last gaming day with a round or a collection in the room: the ledger's kept sums have a row for every
    table-day written (``fees.models.LedgerDay``, one look down its room-and-day index)."""
    return LedgerDay.objects.filter(establishment=establishment).aggregate(last=Max("gaming_day"))["last"]


def _reconciled(table_ids, first, last):
    """Per gaming day: how many tables were reconciled, and how many of them the latest run found with a
    variance. Counted by the database: a table-day's latest reconciliation is the one no later run (``run_at``,
    then ``id``, the model's order) follows."""
    latest = (Reconciliation.objects.filter(table_id__in=table_ids, gaming_day__range=(first, last))
              .latest_of_each_table_day().order_by().values("gaming_day")
              .annotate(tables=Count("id"), variance=Count("id", filter=~Q(status=Reconciliation.Status.BALANCED))))
    return {row["gaming_day"]: {"tables": row["tables"], "variance": row["variance"]} for row in latest}


def _nice_step(top):
    """A round axis step (1, 2 or 5 times a power of ten) giving four or five ticks up to ``top``."""
    raw = top / 4
    power = Decimal(10) ** (len(str(int(raw))) - 1) if raw >= 1 else Decimal("1")
    for factor in (1, 2, 5, 10):
        if power * factor >= raw:
            return power * factor
    return power * 10  # pragma: no cover


CHART = {"width": 640, "height": 250, "left": 66, "right": 8, "top": 14, "bottom": 36}


def _chart(first, last, days, currency):
    """The SVG chart, laid out here (its days' bars and labels as SVG, ready to write): expected and collected
    side by side for every gaming day of the month, on a round money scale."""
    by_day = {d["day"]: d for d in days}
    top = max([max(d["expected"], d["collected"]) for d in days] or [Decimal("0")])
    step = _nice_step(top) if top > 0 else Decimal("1")
    ceiling = step * ((top / step).to_integral_value(rounding="ROUND_CEILING") or 1)
    plot_w = CHART["width"] - CHART["left"] - CHART["right"]
    plot_h = CHART["height"] - CHART["top"] - CHART["bottom"]
    count = (last - first).days + 1
    slot = plot_w / count
    bar = max(min(slot * 0.38, 14), 1.5)
    base = CHART["top"] + plot_h

    def y(value):
        return base - float(value / ceiling) * plot_h

    def n(value):
        return f"{value:.1f}"

    def rect(x, value, fill, title):
        return (f'\n        <rect x="{n(x)}" y="{n(y(value))}" width="{n(bar)}" height="{n(base - y(value))}" '
                f'fill="{fill}"><title>{e(title)}</title></rect>')

    # Each day's bars and label written as SVG here, once: the template writes them as they are (issue 25).
    marks = []
    for index in range(count):
        day = first + datetime.timedelta(days=index)
        middle = CHART["left"] + index * slot + slot / 2
        found = by_day.get(day)
        if found:
            when = f"{day:%a} {day.day} {day:%b}"
            short = found["collected"] < found["expected"]
            marks.append(rect(middle - bar, found["expected"], "#6b7785",
                              f"{when}: expected {money(found['expected'], currency)}"))
            marks.append(rect(middle, found["collected"], "#a4161a" if short else "#0b5cad",
                              f"{when}: collected {money(found['collected'], currency)}"
                              + (", short of expected" if short else "")))
        if count <= 16 or day.day % 2 == 1:
            marks.append(f'\n        <text x="{n(middle)}" y="{base + 14}" text-anchor="middle" font-size="11" '
                         f'fill="#555">{day.day}</text>')
        marks.append("\n      ")
    ticks = []
    value = Decimal("0")
    while value <= ceiling:
        ticks.append({"label": money(value, currency), "y": n(y(value))})
        value += step
    return {**CHART, "marks": cell("".join(marks)), "ticks": ticks, "base": base,
            "tick_x": CHART["left"] - 6, "plot_right": CHART["width"] - CHART["right"],
            "axis_label_y": CHART["height"] - 4}


def signed(amount, currency):
    """A difference as people write it: +$1.00, −$2.50 (a true minus sign), $0.00."""
    return format_difference(amount or Decimal("0.00"), currency)


def fees_month(establishment, tables, month_form):
    """The month shown (chosen, else the latest with rounds or collections) and its figures per gaming day."""
    table_ids = [t.pk for t in tables]
    first = month_form.first_day()
    latest = _latest_day(establishment)
    if first is None:
        today = timezone.localdate(timezone.now(), establishment.zone)
        first = (latest or today).replace(day=1)
    last = month_end(first)
    sealed = sealed_months([establishment], first, last)
    days = collect.fees_by_day([establishment], first, last, sealed=sealed)
    reconciled = _reconciled(table_ids, first, last)
    currency = establishment.jurisdiction.currency
    for day in days:
        if not day.get("sealed"):  # a closed month's day: its reconciliations as its closing sealed them
            day["reconciled"] = reconciled.get(day["day"])
        day["label"] = f"{day['day']:%a} {day['day'].day} {day['day']:%b}"
        day["difference_text"] = signed(day["difference"], day["currency"])
        day["differing"] = [(label, signed(difference, day["currency"]))  # only the tables that differ
                            for label, _, _, difference in day["tables"] if difference]
    restated = restating.restated(establishment, first, last)
    mine = [d for d in days if d["currency"] == currency]
    totals = {"expected": sum((d["expected"] for d in mine), Decimal("0.00")),
              "collected": sum((d["collected"] for d in mine), Decimal("0.00"))}
    totals["difference"] = totals["collected"] - totals["expected"]
    totals["difference_text"] = signed(totals["difference"], currency)
    return {"first": first, "last": last, "days": days, "currency": currency, "totals": totals,
            "short_days": sum(1 for d in mine if d["collected"] < d["expected"]),
            "differing": sum(len(d["differing"]) for d in days),
            "chart": _chart(first, last, mine, currency), "latest": latest,
            # What a closed month's closing sealed and its kept sums no longer say (or a record no longer sealed).
            "sealed_problems": [d["problem"] for d in days if d.get("problem")]
            + [str(p) for p in sealed.problems_of("record")],
            # A retroactive version's difference, per table-day: its own line, not in the difference above.
            "restated": restated, "restated_in_all": restating.in_all(restated),
            "closed_months": [shown_words(c, establishment.zone) for c in closed_months(first, last)],
            "previous": shift_month(first, -1),
            "next": shift_month(first, 1) if latest and shift_month(first, 1) <= latest else None}
