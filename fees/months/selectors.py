"""What the ledger asks of closed months (``fees.months.services`` closes and reopens them): whether a day is in
one (``closed_for``, ``refuse_closed``; ``MonthClosed``, the refusal), and the seal a closing's record carries
(``seal_statement``, what the installation's key signs; ``seal_problem``, whether the record is still as sealed).
These run everywhere, SQLite too."""

import base64

from cryptography.exceptions import InvalidSignature

from cardroom import transparency
from cardroom.exceptions import BadInput

from ..models import ClosedMonth

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


def refuse_closed(day_from, day_to):
    """Raise MonthClosed if a day from ``day_from`` to ``day_to`` is in a closed month (its rows are not here:
    a reconciliation would find nothing and say so wrongly)."""
    closed = (ClosedMonth.objects.filter(month__gte=day_from.replace(day=1), month__lte=day_to,
                                         reopened_at__isnull=True).order_by("month").first())
    if closed is not None:
        raise MonthClosed(f"{closed.month:%B %Y} is a closed month: its rounds and entries are archived, so "
                          f"there is nothing here to reconcile; its audit bundle holds them. An operator attaches "
                          f"it again with `manage.py reopen_month --month {closed.month:%Y-%m}`.")


# -- the seal: what a reopening may restore ---------------------------------------------------------------------

SEAL = "cardroom/closed-month@v1"


def seal_statement(closed):
    """The bytes the installation's key signs when a month's partitions are archived: which closing, and for each
    file its table, columns, rows and SHA-256, and each bundle's digest. A reopening restores only files that match
    a statement so signed, so whoever may write the closing record (or the files) cannot slip other rows back in."""
    lines = [SEAL, f"month {closed.month:%Y-%m}", f"closing {closed.pk} {closed.closed_at.isoformat()}"]
    lines += [f"partition {p['partition']} of {p['table']} file {p['file']} rows {p['rows']} sha256 {p['sha256']} "
              f"columns {','.join(p['columns'])}" for p in closed.partitions if p.get("file")]
    lines += [f"bundle {b['establishment']} file {b['file']} sha256 {b['sha256']}" for b in closed.bundles]
    return ("\n".join(lines) + "\n").encode()


def seal_problem(closed):
    """Why the closing record is not as the installation sealed it (None when it is): no seal, a key the
    installation does not trust (``transparency.trusted_keys``, rooted in its configuration), or a signature that
    does not cover the record as it now reads."""
    seal = closed.seal if isinstance(closed.seal, dict) else {}
    if not seal.get("signature"):
        return (f"the closing record of {closed.month:%B %Y} carries no seal (it was closed before closings were "
                f"sealed, or the seal was removed)")
    key = transparency.trusted_keys().by_fingerprint(seal.get("key"))
    if key is None:
        return f"its seal names the key {seal.get('key')!r}, which this installation does not trust"
    try:
        key.public_key.verify(base64.b64decode(seal["signature"], validate=True), seal_statement(closed))
    except (InvalidSignature, ValueError, TypeError):
        return (f"the closing record of {closed.month:%B %Y} is not as it was sealed when the month was closed: "
                f"its files, digests, rows or columns were changed since")
    return None
