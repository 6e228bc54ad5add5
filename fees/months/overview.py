"""A room's months as a person meets them (the console's Months page and its JSON twin): each month of the room's
ledger, newest first, with its state, its totals, its bundles and who closed it and when.

A month is **open** (its rows in the database, written and reconciled as ever), **held** (open: the nightly close,
``LEDGER_CLOSE_AFTER_DAYS`` days after the month ended, could not close it, and says why in ``ledger.month_held``:
``fees.months.held``), **closing** (its closing began and stopped before its partitions were archived: frozen,
nothing written), **closed** (its rows exported as signed bundles and archived as files beside them, read-only until
reopened) or **removed** (closed, its archived files removed once ``LEDGER_ARCHIVE_RETENTION_DAYS`` passed:
``fees.months.retention``; it can no longer be reopened).

Totals: a closed month's from what its closing sealed (``ClosedMonth.totals``, once its seal verifies:
``selectors.sealed_months``); an open month's from the kept sums (``LedgerDay``). One query for the kept sums, one
for the closings, one for the held entries, and the seal's checks of the closed months.
"""

import datetime
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.db.models import Sum
from django.db.models.functions import TruncMonth

from cardroom import values

from ..models import ClosedMonth, LedgerDay
from . import held, partitions
from .selectors import closed_words, sealed_months

ZERO = Decimal("0.00")
STATES = {  # state: (label, what it means)
    "open": ("Open", "Its rounds and entries are in the database: recorded, corrected and reconciled as ever."),
    "held": ("Held open", "Open: the nightly close could not close it, for the reason given; it tries again each "
                          "night, and the room's compliance officers and the administrators see it in their inbox."),
    "closing": ("Closing", "Its closing began and stopped before its rows were archived: nothing can be written "
                           "into it; an operator finishes it (close_month) or undoes it (reopen_month)."),
    "closed": ("Closed", "Its rounds and entries were exported as a signed audit bundle and archived as files: "
                         "read-only, its reconciliations final, its figures those its closing sealed. An operator "
                         "reopens it (reopen_month) to write or reconcile again."),
    "removed": ("Closed, archive removed", "Closed, and its archived files were removed at the end of their "
                                           "retention: it can no longer be reopened; its figures stay as sealed."),
}


@dataclass
class Total:
    currency: str
    expected: Decimal = ZERO
    collected: Decimal = ZERO
    rounds: int = 0
    entries: int = 0

    @property
    def difference(self):
        return self.collected - self.expected  # collected minus expected, as a reconciliation's

    def as_dict(self):
        return {"currency": self.currency, "expected": _cents(self.expected), "collected": _cents(self.collected),
                "difference": _cents(self.difference), "rounds": self.rounds, "entries": self.entries}


def _cents(amount):
    return str(amount.quantize(ZERO))  # SQLite's sums drop the cents ("5"): "5.00", as every amount is written


@dataclass
class Month:
    first: datetime.date
    state: str = "open"
    totals: list = field(default_factory=list)  # Total, one per currency
    source: str = "kept"  # "sealed": the closing's seal; "kept": the ledger's kept sums
    reasons: list = field(default_factory=list)  # held: why
    held_at: datetime.datetime | None = None
    closing: ClosedMonth | None = None  # the standing closing (closing, closed, removed)
    words: str = ""  # what the pages say of a closed month (selectors.closed_words)
    bundles: list = field(default_factory=list)  # this room's: {"file", "sha256", "bytes", "there"}
    reopened: list = field(default_factory=list)  # earlier closings, reopened
    problems: list = field(default_factory=list)  # the live rows (or the record) against the seal
    closes_on: datetime.date | None = None  # open or held: the day the nightly close takes it up

    @property
    def label(self):
        return STATES[self.state][0]

    @property
    def meaning(self):
        return STATES[self.state][1]

    @property
    def key(self):
        return f"{self.first:%Y-%m}"

    def as_dict(self):
        closing = self.closing
        return {
            "month": self.key, "state": self.state, "state_label": self.label, "totals_from": self.source,
            "totals": [t.as_dict() for t in self.totals], "held_because": list(self.reasons),
            "closes_on": self.closes_on.isoformat() if self.closes_on else None,
            "closed_at": closing.closed_at.isoformat() if closing else None,
            "closed_by": closing.closed_by if closing else None,
            "archive_removed_at": (closing.archive_removed_at.isoformat()
                                   if closing and closing.archive_removed_at else None),
            "bundles": [{k: b[k] for k in ("file", "sha256", "bytes", "there")} for b in self.bundles],
            "reopened": [{"closed_at": c.closed_at.isoformat(), "closed_by": c.closed_by,
                          "reopened_at": c.reopened_at.isoformat(), "reopened_by": c.reopened_by}
                         for c in self.reopened],
            "problems": list(self.problems),
        }


def _month_end(first):
    return partitions.next_month(first) - datetime.timedelta(days=1)


def room_months(establishment, today=None):
    """Every month of ``establishment``'s ledger (kept sums, closings or held entries), newest first."""
    today = today or datetime.date.today()
    months = {}

    def month(first):
        return months.setdefault(first, Month(first))

    kept = {}
    for row in (LedgerDay.objects.filter(establishment=establishment).annotate(first=TruncMonth("gaming_day"))
                .values("first", "currency").order_by()
                .annotate(expected=Sum("expected_total"), collected=Sum("collected_total"), rounds=Sum("rounds"),
                          entries=Sum("entries"))):
        first = row["first"].date() if isinstance(row["first"], datetime.datetime) else row["first"]
        kept.setdefault(first, []).append(Total(row["currency"], row["expected"] or ZERO, row["collected"] or ZERO,
                                                row["rounds"] or 0, row["entries"] or 0))
        month(first)
    closings = list(ClosedMonth.objects.filter(establishments=establishment).order_by("-month", "-closed_at"))
    for closing in closings:
        found = month(closing.month)
        if closing.reopened_at is not None:
            found.reopened.append(closing)
        elif found.closing is None:
            found.closing = closing
            found.state = ("closing" if not closing.archived else "removed" if closing.archive_removed_at
                           else "closed")
            found.words = closed_words(closing, establishment.zone)
            directory = Path(closing.archive_dir)
            found.bundles = [{**b, "there": (directory / b["file"]).is_file()} for b in closing.bundles
                             if b.get("establishment") == establishment.slug]
    for entry in held.standing().filter(establishment=establishment).order_by("pk"):
        try:
            first = values.month(entry.data.get("month") or "")
        except values.Invalid:
            continue
        found = month(first)
        if found.closing is None:
            found.state, found.reasons, found.held_at = "held", list(entry.data.get("reasons") or []), entry.created_at
    sealed = (sealed_months([establishment]) if any(m.state in ("closed", "removed") for m in months.values())
              else None)
    for first, found in months.items():
        found.totals = sorted(kept.get(first, []), key=lambda t: t.currency)
        if found.closing is None:
            found.closes_on = _month_end(first) + datetime.timedelta(days=settings.LEDGER_CLOSE_AFTER_DAYS)
            continue
        if sealed is None:
            continue
        found.problems = [str(p) for p in sealed.problems if p.month == first]
        if sealed.covers(first):
            found.source, found.totals = "sealed", _sealed_totals(found.closing, establishment.slug)
    return sorted(months.values(), key=lambda m: m.first, reverse=True)


def _sealed_totals(closing, slug):
    """The room's totals of a closed month as its closing sealed them (per currency)."""
    by_currency = {}
    for row in (closing.totals or {}).get("ledger", ()):
        if row.get("establishment") != slug:
            continue
        total = by_currency.setdefault(row["currency"], Total(row["currency"]))
        total.expected += Decimal(row["expected"])
        total.collected += Decimal(row["collected"])
        total.rounds += int(row.get("rounds") or 0)
        total.entries += int(row.get("entries") or 0)
    return [by_currency[c] for c in sorted(by_currency)]
