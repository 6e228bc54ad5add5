"""The end of a closed month's archive (``manage.py remove_old_archives``): once ``LEDGER_ARCHIVE_RETENTION_DAYS``
have passed since a month was closed, the files its closing wrote (the signed bundles and the partition files, as
its record names them) are removed, then the folder if nothing else is left in it. Never silently: each removal is
said and logged (``ledger.month_archive_removed`` in the audit log of each of the month's rooms), and the
``ClosedMonth`` keeps when and by whom (``archive_removed_at``), so the pages and ``reopen_month`` say "archived files
removed on ..." rather than missing a file. Without the setting, archives are kept for good.

Only months closed and not reopened are considered (a reopened month's rows are back in the database; its folder is
left to the operator), and only files the record names are removed.
"""

import dataclasses
import datetime
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from cardroom.audit import log_actions

from ..models import ClosedMonth

LABEL = "remove_old_archives (command line)"


@dataclasses.dataclass
class Removal:
    """One month's archive removed (or, in a dry run, that would be)."""

    month: str
    directory: str
    closed_at: datetime.datetime
    files: list  # the files there, by name
    missing: list  # the files the record names that are not there
    removed: bool = False
    problems: list = dataclasses.field(default_factory=list)  # files that could not be removed
    left: str = ""  # the folder, when other files keep it there


def _files(closed):
    return ([b["file"] for b in closed.bundles] + [p["file"] for p in closed.partitions if p.get("file")])


def due(now=None, retention_days=None):
    """The closed months whose archive has outlived its retention, oldest first (none when it is not set)."""
    days = settings.LEDGER_ARCHIVE_RETENTION_DAYS if retention_days is None else retention_days
    if not days:
        return ClosedMonth.objects.none()
    before = (now or timezone.now()) - datetime.timedelta(days=days)
    return (ClosedMonth.objects.filter(archived=True, reopened_at__isnull=True, archive_removed_at__isnull=True,
                                       closed_at__lt=before).prefetch_related("establishments__jurisdiction")
            .order_by("month"))


def remove_old_archives(*, now=None, retention_days=None, dry_run=False, say=lambda line: None):
    """Remove the archives due (``due``); ``dry_run``: only say what would go. Returns the Removals."""
    now = now or timezone.now()
    days = settings.LEDGER_ARCHIVE_RETENTION_DAYS if retention_days is None else retention_days
    done = []
    for closed in due(now, days):
        directory = Path(closed.archive_dir)
        names = _files(closed)
        removal = Removal(f"{closed.month:%Y-%m}", str(directory), closed.closed_at,
                          [n for n in names if (directory / n).is_file()],
                          [n for n in names if not (directory / n).is_file()])
        done.append(removal)
        if dry_run:
            say(f"would remove {removal.month}'s archive (closed {closed.closed_at:%Y-%m-%d}): {directory}, "
                f"{len(removal.files)} files" + (f"; not there: {', '.join(removal.missing)}" if removal.missing
                                                 else ""))
            continue
        _remove(closed, removal, directory, now, days, say)
    return done


def _remove(closed, removal, directory, now, days, say):
    gone = []
    for name in removal.files:
        try:
            (directory / name).unlink()
            gone.append(name)
        except OSError as error:
            removal.problems.append(f"{name}: {error}")
    try:
        directory.rmdir()  # only when empty: anything else there is not the closing's
    except FileNotFoundError:
        pass
    except OSError:
        removal.left = str(directory)  # other files than the closing's: the folder stays with them
    removal.removed = not removal.problems
    with transaction.atomic():
        if removal.removed:
            closed.archive_removed_at, closed.archive_removed_by = now, LABEL
            closed.save(update_fields=["archive_removed_at", "archive_removed_by"])
        log_actions([("ledger.month_archive_removed", {
            "actor_label": LABEL, "obj": closed, "establishment": e, "jurisdiction": e.jurisdiction,
            "data": {"month": removal.month, "directory": removal.directory, "removed": gone,
                     "not_there": removal.missing, "problems": removal.problems,
                     "folder_left": removal.left, "retention_days": days}})
            for e in closed.establishments.all()])
    say(f"removed {removal.month}'s archive (closed {closed.closed_at:%Y-%m-%d}): {len(gone)} files from "
        f"{directory}" + (f"; not there: {', '.join(removal.missing)}" if removal.missing else "")
        + (f"; not removed: {'; '.join(removal.problems)}" if removal.problems else "")
        + ("; the folder holds other files and stays" if removal.left else ""))
