"""What a reconciliation owes twice (docs/change-control.md, "Retroactive changes"): what was collected stays as
recorded; what was owed is judged when collected (each round's ``expected_total``: priced as its table's sign
showed, ``fees.models.in_force.shown``) and as known now, where a version published later, confirmed as
retroactive, now covers the round's gaming day.

``restate(results, day_from, day_to)`` adds to each reconciliation summary of ``results`` the owed-as-known-now total
and a restatement per schedule and versions; nothing is stored per round (rounds are append-only). The rounds whose
version differs from the one now in force are priced again with the impact preview's machinery
(``fees.quotes.impact.grouped``, ``fees.quotes.repricing.reprice``: alike rounds priced once), so what the preview
showed before publishing is what the reconciliation records after it.

The normal path, no retroactive version over the days reconciled, costs one query per run.
"""

import datetime
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Q
from django.utils import timezone

from cardroom import generation
from cardroom.money import format_difference, format_money
from cardroom.ordering import natural

from ..models import Reconciliation, RoundOfPlay, ScheduleVersion, in_force
from ..quotes import impact, quoting, repricing


def retroactive_versions(day_from, day_to):
    """The published versions confirmed as retroactive whose reach, from their effective date to the day they were
    published, meets ``day_from`` to ``day_to``: [(version, first day, last day)]. One query."""
    found = []
    for version in (ScheduleVersion.objects.filter(status=ScheduleVersion.Status.PUBLISHED, retroactive=True,
                                                   effective_from__lte=day_to, published_at__isnull=False)
                    .select_related("document").order_by("document__code", "number")):
        published_on = timezone.localdate(version.published_at)
        if published_on >= day_from:
            found.append((version, max(version.effective_from, day_from), min(published_on, day_to)))
    return found


def reach_of(version):
    """(first, last) gaming days a published retroactive version reaches back over: from its effective date to the
    day it was published."""
    return version.effective_from, timezone.localdate(version.published_at)


def restate(results, day_from, day_to):
    """Add ``owed_now_total`` and ``restatements`` to each summary of ``results`` ({(table id, gaming day): summary})
    where a retroactive version now prices its rounds otherwise; every other summary gets None and []."""
    for summary in results.values():
        summary["owed_now_total"], summary["restatements"] = None, []
    if not results:
        return results
    reached = retroactive_versions(day_from, day_to)
    if not reached:
        return results
    tables = {table for table, _ in results}
    spans = defaultdict(list)  # schedule code: (first, last)
    for version, first, last in reached:
        spans[version.document.code].append((first, last))
    memory = generation.current()
    for code, days in sorted(spans.items()):
        where = Q()
        for first, last in days:
            where |= Q(gaming_day__range=(first, last))
        groups = impact.grouped(RoundOfPlay.objects.filter(where, schedule_code=code, table_id__in=tables))
        _restate_schedule(results, code, groups, memory)
    for summary in results.values():
        if summary["restatements"]:
            summary["restatements"].sort(key=lambda r: (r["schedule"], r["version_then"], r["version_now"]))
            summary["owed_now_total"] = summary["expected_total"] + sum(
                (Decimal(r["difference"]) for r in summary["restatements"]), Decimal("0.00"))
    return results


def _restate_schedule(results, code, groups, memory):
    versions = quoting.published_versions(code, memory)
    by_number = {version.number: version for version in versions}
    buckets = defaultdict(list)  # (version then, version now): groups
    for group in groups:
        if (group.table, group.day) not in results:
            continue
        now = in_force.among(versions, group.day)
        if now is not None and now.number != group.version and group.version in by_number:
            buckets[(group.version, now.number)].append(group)
    for (then, now), alike in sorted(buckets.items()):
        figures = repricing.reprice(
            alike, quoting.published_snapshot(by_number[now].id, memory),
            {then: quoting.published_snapshot(by_number[then].id, memory)}, price=quoting.quote_facts)
        published_at = by_number[now].published_at
        for row in figures.rows:
            f = row.figures
            results[(row.table, row.day)]["restatements"].append({
                "schedule": code, "version_then": then, "version_now": now,
                "published_at": published_at.isoformat() if published_at else None,
                "rounds": f.rounds, "unpriced": f.unpriced, "owed_then": str(f.expected),
                "owed_now": str(f.expected + f.difference), "difference": str(f.difference),
                "currency": figures.currency,
            })


# -- where people look: the variance page, the regulator's room -------------------------------------------------------

@dataclass
class Restated:
    """One restatement of a table-day's latest reconciliation, and the sentence people read."""

    table: str
    day: datetime.date
    schedule: str
    version_then: int
    version_now: int
    published_on: datetime.date | None
    rounds: int
    owed_then: Decimal
    owed_now: Decimal
    difference: Decimal
    currency: str

    @property
    def words(self):
        published = (f" (published retroactively on {self.published_on.isoformat()})" if self.published_on
                     else " (published retroactively)")
        return (f"Table {self.table}, {self.day.isoformat()}: owed {format_money(self.owed_now, self.currency)} "
                f"under {self.schedule} v{self.version_now}{published}, {format_money(self.owed_then, self.currency)} "
                f"under v{self.version_then} when collected: retroactive difference "
                f"{format_difference(self.difference, self.currency)} over {self.rounds} round"
                f"{'' if self.rounds == 1 else 's'}.")


def restated(establishment, first, last):
    """The restatements of the latest reconciliation of each of ``establishment``'s table-days from ``first`` to
    ``last``, by day then table: a retroactive version's own finding, apart from any shortfall."""
    found = []
    for run in (Reconciliation.objects.filter(establishment=establishment, gaming_day__range=(first, last))
                .latest_of_each_table_day().filter(owed_now_total__isnull=False).select_related("table")):
        for item in run.restatements:
            published = item.get("published_at")
            found.append(Restated(
                table=run.table.label, day=run.gaming_day, schedule=item["schedule"],
                version_then=item["version_then"], version_now=item["version_now"],
                published_on=timezone.localtime(datetime.datetime.fromisoformat(published),
                                                establishment.zone).date() if published else None,
                rounds=item["rounds"], owed_then=Decimal(item["owed_then"]), owed_now=Decimal(item["owed_now"]),
                difference=Decimal(item["difference"]), currency=item["currency"]))
    return sorted(found, key=lambda r: (r.day, natural(r.table), r.schedule, r.version_then))


def in_all(lines):
    """The restatements' differences summed: "+$235.00 over 14 table-days" per currency, joined ("" for none)."""
    by_currency, days = defaultdict(lambda: Decimal("0.00")), defaultdict(set)
    for line in lines:
        by_currency[line.currency] += line.difference
        days[line.currency].add((line.table, line.day))
    return "; ".join(f"{format_difference(total, currency)} over {len(days[currency])} table-day"
                     f"{'' if len(days[currency]) == 1 else 's'}" for currency, total in sorted(by_currency.items()))
