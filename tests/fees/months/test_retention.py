"""Removing closed months' archives once their retention ends (fees.months.retention, manage.py remove_old_archives):
never without the setting, never silently (printed, in the audit log), a dry run first; the closing's record then says
so, and reopen_month says why it cannot read the files back. The files are the record's own: no partition needed."""

import datetime
import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from cardroom.models import AuditLogEntry
from fees.models import ClosedMonth
from fees.months import retention
from fees.months import services as months

pytestmark = pytest.mark.django_db

FILES = ["audit-casino-marysville-2024-06-01-to-2024-06-30.zip", "fees_roundofplay_2024_06.copy.gz",
         "fees_collectionentry_2024_06.copy.gz"]


def closed_month(people, folder, first, days_ago, **more):
    """A closed month's record and the files it names, closed ``days_ago`` days ago."""
    folder.mkdir(parents=True)
    for name in FILES:
        (folder / name).write_bytes(b"archived")
    closed = ClosedMonth.objects.create(
        month=first, archive_dir=str(folder), archived=True, closed_by="close_month (command line)",
        closed_at=timezone.now() - datetime.timedelta(days=days_ago),
        bundles=[{"establishment": "casino-marysville", "file": FILES[0], "sha256": "0" * 64, "bytes": 8}],
        partitions=[{"table": "fees_roundofplay", "partition": FILES[1].split(".")[0], "file": FILES[1]},
                    {"table": "fees_collectionentry", "partition": FILES[2].split(".")[0], "file": FILES[2]}],
        **more)
    closed.establishments.set([people.marysville])
    return closed


def remove(*args):
    out = io.StringIO()
    call_command("remove_old_archives", *args, stdout=out, stderr=out)
    return out.getvalue()


def test_old_archives_are_removed_only_once_the_retention_is_set_said_and_logged(people, tmp_path, settings,
                                                                                 client):
    june = closed_month(people, tmp_path / "2024-06", datetime.date(2024, 6, 1), days_ago=40)
    july = closed_month(people, tmp_path / "2024-07", datetime.date(2024, 7, 1), days_ago=10)
    reopened = closed_month(people, tmp_path / "2024-05", datetime.date(2024, 5, 1), days_ago=90,
                            reopened_at=timezone.now(), reopened_by="reopen_month (command line)")

    settings.LEDGER_ARCHIVE_RETENTION_DAYS = None
    assert "archives are kept for good. Nothing was removed." in remove()
    settings.LEDGER_ARCHIVE_RETENTION_DAYS = 30
    said = remove("--dry-run")
    assert f"would remove 2024-06's archive (closed {june.closed_at:%Y-%m-%d}): {tmp_path / '2024-06'}, 3 files" in said
    assert "2024-07" not in said and "2024-05" not in said and "nothing was removed" in said
    assert all((tmp_path / "2024-06" / name).is_file() for name in FILES)
    assert not AuditLogEntry.objects.filter(action="ledger.month_archive_removed").exists()

    said = remove()
    assert f"removed 2024-06's archive (closed {june.closed_at:%Y-%m-%d}): 3 files from {tmp_path / '2024-06'}" in said
    assert "1 archive(s) older than 30 days removed." in said
    assert not (tmp_path / "2024-06").exists()
    assert (tmp_path / "2024-07").is_dir() and (tmp_path / "2024-05").is_dir()  # not due; reopened
    june.refresh_from_db()
    assert june.archive_removed_at is not None and june.archive_removed_by == retention.LABEL
    assert str(june) == f"2024-06 (closed, archived files removed on {june.archive_removed_at:%Y-%m-%d})"
    (entry,) = AuditLogEntry.objects.filter(action="ledger.month_archive_removed")
    assert entry.establishment == people.marysville and entry.actor_label == retention.LABEL
    assert entry.data["month"] == "2024-06" and sorted(entry.data["removed"]) == sorted(FILES)
    assert entry.data["retention_days"] == 30
    assert "No closed month's archive is older than 30 days" in remove()  # once
    july.refresh_from_db()
    reopened.refresh_from_db()
    assert july.archive_removed_at is None and reopened.archive_removed_at is None
    client.force_login(people.admin)
    assert "archived files removed on" in client.get("/admin/fees/closedmonth/").text


def test_a_folder_with_other_files_stays_with_them_and_a_missing_file_is_said(people, tmp_path, settings):
    settings.LEDGER_ARCHIVE_RETENTION_DAYS = 30
    june = closed_month(people, tmp_path / "2024-06", datetime.date(2024, 6, 1), days_ago=40)
    (tmp_path / "2024-06" / FILES[1]).unlink()
    (tmp_path / "2024-06" / "notes.txt").write_text("the operator's own")
    said = remove()
    assert f"not there: {FILES[1]}" in said and "the folder holds other files and stays" in said
    assert sorted(p.name for p in (tmp_path / "2024-06").iterdir()) == ["notes.txt"]
    june.refresh_from_db()
    assert june.archive_removed_at is not None
    (entry,) = AuditLogEntry.objects.filter(action="ledger.month_archive_removed")
    assert entry.data["not_there"] == [FILES[1]] and entry.data["folder_left"] == str(tmp_path / "2024-06")


def test_reopening_a_month_whose_archive_was_removed_says_so(people, tmp_path, settings, monkeypatch):
    settings.LEDGER_ARCHIVE_RETENTION_DAYS = 30
    closed_month(people, tmp_path / "2024-06", datetime.date(2024, 6, 1), days_ago=40)
    remove()
    with monkeypatch.context() as patched:  # on SQLite too: the refusal comes before any partition is touched
        patched.setattr(connection, "vendor", "postgresql")
        patched.setattr(months, "database_role", lambda: ("the owner", True))  # asked of PostgreSQL's catalogue
        with pytest.raises(CommandError, match=r"2024-06 is not reopened: its archived files were removed on "
                                               r"\d{4}-\d\d-\d\d \(remove_old_archives \(command line\)\), its "
                                               r"retention period over"):
            call_command("reopen_month", "--month", "2024-06", stdout=io.StringIO())
