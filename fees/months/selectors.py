"""What the ledger asks of closed months (``fees.months.services`` closes and reopens them): whether a day is in
one (``closed_for``, ``refuse_closed``; ``MonthClosed``, the refusal), and the seal a closing's record carries
(``seal_statement``, what the installation's key signs; ``seal_problem``, whether the record is still as sealed),
and a closed month's sums as sealed against the live ones (``sealed_months``: the regulator's pages and
``check_ledger_sums`` read it). These run everywhere, SQLite too (where no month is ever closed)."""

import base64
import datetime
from dataclasses import dataclass, field
from decimal import Decimal

from cryptography.exceptions import InvalidSignature
from django.utils import timezone

from cardroom import transparency
from cardroom.exceptions import BadInput

from ..models import ClosedMonth
from . import sealed

# -- what the ledger asks ---------------------------------------------------------------------------------------

class MonthClosed(BadInput):
    """A write into (or a reconciliation of) a closed month: nothing was changed."""


def refusal(day):
    return (f"{day.isoformat()} falls in {day:%B %Y}, a closed month: its rounds and entries are archived and "
            f"read-only. An operator attaches it again with `manage.py reopen_month --month {day:%Y-%m}`.")


def closed_for(days):
    """``{day: why it is refused}`` for each of ``days`` in a closed month (empty when none is): one query,
    asked afresh each time (a month is closed and reopened by another process)."""
    firsts = {day.replace(day=1) for day in days}
    if not firsts:
        return {}
    closed = set(ClosedMonth.objects.filter(month__in=firsts, reopened_at__isnull=True)
                 .values_list("month", flat=True))
    return {day: refusal(day) for day in days if day.replace(day=1) in closed} if closed else {}


def closed_months(day_from, day_to):
    """The months closed (or closing) and not reopened that hold a day from ``day_from`` to ``day_to``, oldest first."""
    return list(ClosedMonth.objects.filter(month__gte=day_from.replace(day=1), month__lte=day_to,
                                           reopened_at__isnull=True).order_by("month"))


def closed_words(closed, zone=None):
    """What every page and message says of a closed month: "October 2026 is closed (on 2026-11-10 by ...): its
    reconciliations are final; reopen it to reconcile again (...)". ``zone``: the room's, for the day it closed."""
    on = timezone.localtime(closed.closed_at, zone).date().isoformat()
    if not closed.archived:
        return (f"{closed.month:%B %Y} is being closed (since {on}, by {closed.closed_by}): its rows are frozen and "
                f"its reconciliations final; reopen it to reconcile again (an operator runs "
                f"manage.py reopen_month --month {closed.month:%Y-%m}).")
    return (f"{closed.month:%B %Y} is closed (on {on} by {closed.closed_by}): its reconciliations are final; reopen "
            f"it to reconcile again (an operator runs manage.py reopen_month --month {closed.month:%Y-%m}).")


def shown_words(closed, zone=None):
    """What a page showing a closed month's figures says of them (the variance page, the regulator's ledger)."""
    figures = ("Its figures here are those its closing sealed" if seal_version(closed) != SEAL_V1 else
               "Its closing sealed no figures (it was closed before closings sealed them): those here are the "
               "ledger's kept sums")
    return (f"{closed_words(closed, zone)} {figures}; its rounds and entries are in its audit bundle (the room's "
            f"Months page).")


def refuse_closed(day_from, day_to, zone=None):
    """Raise MonthClosed if a day from ``day_from`` to ``day_to`` is in a closed month (its rows are not here:
    a reconciliation would find nothing and say so wrongly)."""
    if closed := closed_months(day_from, day_to):
        raise MonthClosed(" ".join(closed_words(month, zone) for month in closed))


# -- the seal: what a reopening may restore ---------------------------------------------------------------------

SEAL_V1 = "cardroom/closed-month@v1"  # the files and bundles (a month closed before issue 41)
SEAL = "cardroom/closed-month@v2"  # and the month's sums per room and gaming day (``totals``: fees.months.sealed)
STATEMENTS = (SEAL_V1, SEAL)


def seal_version(closed):
    """The statement a closing's seal signed: its ``statement``, v1 where the seal names none (sealed before v2)."""
    seal = closed.seal if isinstance(closed.seal, dict) else {}
    return seal.get("statement", SEAL_V1)


def seal_statement(closed, version=None):
    """The bytes the installation's key signs when a month's partitions are archived: which closing, and for each
    file its table, columns, rows and SHA-256, and each bundle's digest; from v2 on, the month's kept sums and
    variance summaries per room and gaming day (their totals and the digest of their rows). A reopening restores
    only files that match a statement so signed, so whoever may write the closing record (or the files) cannot slip
    other rows back in, and the pages and ``check_ledger_sums`` hold the live sums to it. ``version``: the seal's
    own (``seal_version``) unless given, so a seal made before v2 is read as it was signed."""
    version = version or seal_version(closed)
    lines = [version, f"month {closed.month:%Y-%m}", f"closing {closed.pk} {closed.closed_at.isoformat()}"]
    lines += [f"partition {p['partition']} of {p['table']} file {p['file']} rows {p['rows']} sha256 {p['sha256']} "
              f"columns {','.join(p['columns'])}" for p in closed.partitions if p.get("file")]
    lines += [f"bundle {b['establishment']} file {b['file']} sha256 {b['sha256']}" for b in closed.bundles]
    if version != SEAL_V1:
        lines += sealed.lines(closed.totals if isinstance(closed.totals, dict) else {})
    return ("\n".join(lines) + "\n").encode()


def seal_problem(closed):
    """Why the closing record is not as the installation sealed it (None when it is): no seal, a key the
    installation does not trust (``transparency.trusted_keys``, rooted in its configuration), or a signature that
    does not cover the record as it now reads."""
    seal = closed.seal if isinstance(closed.seal, dict) else {}
    if not seal.get("signature"):
        return (f"the closing record of {closed.month:%B %Y} carries no seal (it was closed before closings were "
                f"sealed, or the seal was removed)")
    if seal_version(closed) not in STATEMENTS:
        return (f"the seal of {closed.month:%B %Y}'s closing names a statement this installation does not know, "
                f"{seal_version(closed)!r}")
    key = transparency.trusted_keys().by_fingerprint(seal.get("key"))
    if key is None:
        return f"its seal names the key {seal.get('key')!r}, which this installation does not trust"
    try:
        key.public_key.verify(base64.b64decode(seal["signature"], validate=True), seal_statement(closed))
    except (InvalidSignature, ValueError, TypeError):
        return (f"the closing record of {closed.month:%B %Y} is not as it was sealed when the month was closed: "
                f"its files, digests, rows or columns were changed since")
    return None


# -- a closed month's sums, as sealed: what the pages and check_ledger_sums read --------------------------------

@dataclass
class SealedMonths:
    """The closed months of a period as their closings sealed them (``sealed_months``)."""

    covered: set = field(default_factory=set)  # the months' first days whose figures are read from their seal
    ledger: dict = field(default_factory=dict)  # {(day, currency): {"expected", "collected"}}: the rooms' kept sums
    reconciled: dict = field(default_factory=dict)  # {day: {"tables", "variance"}}: their latest reconciliations
    problems: list = field(default_factory=list)  # sealed.Disagreement: the live rows (or a record) against the seal
    unsealed: list = field(default_factory=list)  # ClosedMonths closed before closings sealed their sums

    def covers(self, day):
        return day.replace(day=1) in self.covered

    def problems_of(self, *kinds):
        return [p for p in self.problems if p.kind in kinds]


def sealed_months(establishments=None, day_from=None, day_to=None):
    """What the closed months from ``day_from`` to ``day_to`` (every one when not given) sealed of ``establishments``
    (every room when None), and where the live rows now differ: one query of the closed months, and for each that
    sealed its sums, its live totals (``sealed.totals``: two queries). A month whose record no longer verifies
    (``seal_problem``) is a problem and not covered: its figures are read live, as those of a month closed before
    closings sealed their sums (``unsealed``)."""
    found = SealedMonths()
    checked = []
    for closed in sealed.closings(day_from, day_to):
        if seal_version(closed) == SEAL_V1:
            found.unsealed.append(closed)
        elif problem := seal_problem(closed):
            found.problems.append(sealed.Disagreement(closed.month, "record", sealed=problem))
        else:
            checked.append(closed)
    slugs = None if establishments is None else {e.slug for e in establishments}
    ids = None if establishments is None else [e.pk for e in establishments]
    for closed in checked:  # a month at a time: the months between them may be open, and long
        begins = max(closed.month, day_from or closed.month)
        ends = min(sealed.month_end(closed.month), day_to or sealed.month_end(closed.month))

        def within(row):
            return (begins.isoformat() <= row["day"] <= ends.isoformat()
                    and (slugs is None or row["establishment"] in slugs))

        was = {kind: [row for row in closed.totals.get(kind, ()) if within(row)] for kind in ("ledger", "variance")}
        is_ = sealed.totals(begins, ends, ids)
        found.problems += sealed.compare(closed.month, was, is_)
        found.covered.add(closed.month)
        for row in was["ledger"]:
            day = found.ledger.setdefault((datetime.date.fromisoformat(row["day"]), row["currency"]),
                                          {"expected": Decimal("0.00"), "collected": Decimal("0.00")})
            day["expected"] += Decimal(row["expected"])
            day["collected"] += Decimal(row["collected"])
        for row in was["variance"]:
            day = found.reconciled.setdefault(datetime.date.fromisoformat(row["day"]), {"tables": 0, "variance": 0})
            day["tables"] += int(row["tables"])
            day["variance"] += int(row["variance"])
    return found
