from django.conf import settings
from django.db import connection

from cardroom.management.base import BaseCommand

from ...months.retention import remove_old_archives
from ...months.services import need_owner


class Command(BaseCommand):
    help = (
        "Remove the archive folders of closed months older than LEDGER_ARCHIVE_RETENTION_DAYS (counted from the "
        "closing): the signed bundles and partition files each closing wrote, then the folder if nothing else is "
        "in it. Each removal is printed, written in the audit log of the month's rooms and kept on the closing's "
        "record (the month can then no longer be reopened from them). Without the setting nothing is removed. "
        "Run it as the database's owner, as close_month."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", dest="dry_run",
                            help="Print what would be removed; remove nothing.")

    def handle(self, *args, dry_run, **options):
        if connection.vendor == "postgresql" and not dry_run:
            need_owner("remove_old_archives")  # before a file goes: the closing's record says it went
        days = settings.LEDGER_ARCHIVE_RETENTION_DAYS
        if not days:
            self.stdout.write("LEDGER_ARCHIVE_RETENTION_DAYS is not set: closed months' archives are kept for good. "
                              "Nothing was removed.")
            return
        removals = remove_old_archives(dry_run=dry_run, say=self.stdout.write)
        if not removals:
            self.stdout.write(f"No closed month's archive is older than {days} days. Nothing was removed.")
        elif dry_run:
            self.stdout.write(f"Dry run: {len(removals)} archive(s) older than {days} days would be removed; "
                              f"nothing was removed.")
        else:
            failed = [r.month for r in removals if not r.removed]
            done = f"{len(removals) - len(failed)} archive(s) older than {days} days removed"
            if failed:
                self.stderr.write(f"{done}; not all files of {', '.join(failed)} could be removed (see above).")
            else:
                self.stdout.write(self.style.SUCCESS(f"{done}."))
