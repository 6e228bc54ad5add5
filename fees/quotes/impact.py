"""Impact before publishing (issue 13): what a schedule version would have collected over the rounds recorded in a
period, against what the versions in force expected, per table and gaming day, and which tier edges move the most;
and, for a retroactive version, the reconciliations and postings publishing it would change. Nothing is saved.

- ``impact(version, establishment, start, end)``: every round of the version's schedule recorded at the
  establishment on those gaming days, priced again under ``version`` (``fees.quotes.repricing`` does the arithmetic).
  "Expected" is what each round's stored ``expected_total`` says: what the version in force when it was played
  expected. The version is applied to every round of the period, as if it had been in force throughout.
- ``reach(version, establishment)``: for a version not yet published whose effective date is before today, the
  postings of its schedule at the establishment in force from that date to now, the latest reconciliation of each
  of their tables and gaming days in that time in open months (publishing reconciles them again, the retroactive
  difference recorded beside what was owed when collected: ``fees.ledger.restating``), and the closed months it
  reaches, which publishing leaves as they are.
"""

import datetime
import json
from collections import defaultdict
from dataclasses import dataclass

from django.utils import timezone

from cardroom.exceptions import BadInput
from cardroom.models import Table
from cardroom.ordering import natural

from ..models import Reconciliation, RoundOfPlay, ScheduleVersion, TablePosting
from ..models.publication import reaches_back
from ..months.selectors import closed_for
from . import quoting, repricing

MAX_DAYS = 92  # a quarter: a period is read at once, so it is bounded
DEFAULT_DAYS = 31


def check_period(start, end):
    if end < start:
        raise BadInput(f"The period must not end before it starts: to ({end.isoformat()}) is before from "
                       f"({start.isoformat()}).", field="to")
    days = (end - start).days + 1
    if days > MAX_DAYS:
        raise BadInput(f"The period from {start.isoformat()} to {end.isoformat()} is {days} days long; it can "
                       f"be at most {MAX_DAYS} days.", field="to")


def check_place(document, establishment):
    """The schedule must be one the establishment can post: its own, or its jurisdiction's shared one."""
    if document.jurisdiction_id != establishment.jurisdiction_id or document.establishment_id not in (
            None, establishment.pk):
        raise BadInput(f"{document.code} is not a schedule of {establishment.name}: no table there posts it.",
                       field="establishment")


def is_retroactive(version, today=None):
    """Not published yet and dated before today: publishing it changes what was in force on days already played."""
    today = today or timezone.localdate()
    return not version.is_published and reaches_back(version.effective_from, today)


def _rounds(document, establishment):
    return RoundOfPlay.objects.filter(establishment=establishment, schedule_code=document.code)


def default_period(version, establishment, today=None):
    """From a retroactive version's effective date to today; else the last 31 gaming days with rounds of its schedule
    there (the last 31 days when there are none). At most MAX_DAYS either way."""
    today = today or timezone.localdate()
    longest = datetime.timedelta(days=MAX_DAYS - 1)
    if is_retroactive(version, today):
        return version.effective_from, min(today, version.effective_from + longest)
    days = list(_rounds(version.document, establishment).order_by("-gaming_day")
                .values_list("gaming_day", flat=True).distinct()[:DEFAULT_DAYS])
    if not days:
        return today - datetime.timedelta(days=DEFAULT_DAYS - 1), today
    return max(days[-1], days[0] - longest), days[0]


def played(document, establishment, start, end):
    """The rounds recorded there on those days, grouped: alike rounds are priced once."""
    return grouped(_rounds(document, establishment).filter(gaming_day__range=(start, end)))


def grouped(rounds):
    """``rounds`` (a RoundOfPlay queryset) grouped as ``repricing.Played``: alike rounds are priced once."""
    groups = {}
    for table_id, day, number, option, facts, expected in (
            rounds.order_by()
            .values_list("table_id", "gaming_day", "schedule_version", "option_number", "facts", "expected_total")):
        key = (table_id, day, number, option, json.dumps(facts, sort_keys=True, separators=(",", ":")))
        group = groups.get(key)
        if group is None:
            groups[key] = [facts, 1, expected]
        else:
            group[1] += 1
            group[2] += expected
    return [repricing.Played(table=table, day=day, version=number, option=option, facts=facts, facts_key=text,
                             rounds=rounds, expected=expected)
            for (table, day, number, option, text), (facts, rounds, expected) in groups.items()]


@dataclass
class Report:
    version: ScheduleVersion
    establishment: object
    start: datetime.date
    end: datetime.date
    figures: repricing.Impact
    tables: dict  # table id: Table

    @property
    def currency(self):
        return self.figures.currency

    @property
    def rows(self):
        """Per table and gaming day, in floor order then by day."""
        return sorted(({"table": self.tables[row.table], "day": row.day, "figures": row.figures,
                        "versions": sorted(row.versions)} for row in self.figures.rows),
                      key=lambda r: (natural(r["table"].label), r["day"]))


def impact(version, establishment, start, end):
    """What ``version`` would have expected for the rounds of its schedule recorded at ``establishment`` from
    ``start`` to ``end`` (gaming days), against what was expected when they were recorded."""
    check_period(start, end)
    document = version.document
    check_place(document, establishment)
    groups = played(document, establishment, start, end)
    numbers = {group.version for group in groups}
    bases = list(document.versions.filter(number__in=numbers, status=ScheduleVersion.Status.PUBLISHED)
                 .select_related("document__source"))
    if not groups:  # no rounds: still say which tiers differ from the version in force then
        bases = [v for v in [document.version_as_of(end)] if v is not None]
    figures = repricing.reprice(groups, quoting.snapshot(version), {v.number: quoting.snapshot(v) for v in bases},
                                price=quoting.quote_facts)
    tables = Table.objects.in_bulk({row.table for row in figures.rows})
    return Report(version=version, establishment=establishment, start=start, end=end, figures=figures,
                  tables=tables)


# -- a retroactive version's reach ---------------------------------------------------------------------------------

@dataclass
class Reach:
    start: datetime.date
    end: datetime.date
    postings: list  # (posting, until): until None while it is still in force
    reconciliations: list  # the latest run of each table and gaming day reached, in open months
    runs: int  # every run on those tables and days, the earlier ones included
    closed_months: list = ()  # first days of the closed months reached: publishing leaves them as they are


def reach(version, establishment, today=None):
    """The postings and reconciliations a retroactive version reaches back to (None for any other version)."""
    today = today or timezone.localdate()
    if not is_retroactive(version, today):
        return None
    start, document = version.effective_from, version.document
    reached_from = datetime.datetime.combine(start, establishment.gaming_day_start, tzinfo=establishment.zone)
    by_table = defaultdict(list)
    for posting in (TablePosting.objects.filter(table__establishment=establishment, effective_from__lte=timezone.now())
                    .select_related("table", "schedule").order_by("table_id", "effective_from", "id")):
        by_table[posting.table_id].append(posting)
    postings, days = [], defaultdict(list)
    for table_postings in by_table.values():
        for posting, after in zip(table_postings, table_postings[1:] + [None]):
            until = after.effective_from if after is not None else None
            if posting.schedule_id != document.pk or (until is not None and until <= reached_from):
                continue
            postings.append((posting, until))
            last = today if until is None else min(today, establishment.gaming_day_of(
                until - datetime.timedelta(microseconds=1)))
            days[posting.table_id].append((max(start, establishment.gaming_day_of(posting.effective_from)), last))
    months, month = [], start.replace(day=1)
    while month <= today:
        months.append(month)
        month = (month + datetime.timedelta(days=32)).replace(day=1)
    closed = sorted(closed_for(months))
    latest, runs = {}, 0
    for run in (Reconciliation.objects.filter(table_id__in=days, gaming_day__range=(start, today))
                .select_related("table__establishment", "run_by").order_by("-run_at", "-id")):
        if run.gaming_day.replace(day=1) in closed:
            continue
        if any(first <= run.gaming_day <= last for first, last in days[run.table_id]):
            runs += 1
            latest.setdefault((run.table_id, run.gaming_day), run)
    return Reach(
        start=start, end=today,
        postings=sorted(postings, key=lambda p: (natural(p[0].table.label), p[0].effective_from)),
        reconciliations=sorted(latest.values(), key=lambda r: (r.gaming_day, natural(r.table.label))),
        runs=runs, closed_months=closed,
    )
