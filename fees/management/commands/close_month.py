from cardroom.management.base import BaseCommand

from ...months.services import close, read_month


class Command(BaseCommand):
    help = (
        "Close a month of the ledger (PostgreSQL): freeze it, export and verify a signed audit bundle per "
        "establishment into the archive folder, detach the month's partitions, write each to a file beside the "
        "bundles (gzipped COPY, with its SHA-256) and drop it. The month is read-only until reopen_month attaches "
        "it again. Every establishment with rows in the month must be named: the partitions are shared. "
        "Run it as the database's owner (as bin/migrate), after the month's last nightly reconciliation."
    )

    def add_arguments(self, parser):
        parser.add_argument("--month", required=True, help="The month, YYYY-MM.")
        parser.add_argument("--establishment", action="append", dest="establishments", required=True,
                            metavar="SLUG", help="An establishment's slug; repeat it for each one with rows.")
        parser.add_argument("--archive-dir", dest="archive_dir",
                            help="Where to write the bundles and partition files (default: "
                                 "LEDGER_ARCHIVE_DIR/<YYYY-MM>, var/archive/<YYYY-MM> unless set).")

    def handle(self, *args, month, establishments, archive_dir, **options):
        closed = close(read_month(month), establishments, archive_dir=archive_dir, say=self.stdout.write)
        rows = ", ".join(f"{part['partition']} {part['rows']:,} rows" for part in closed.partitions)
        self.stdout.write(self.style.SUCCESS(f"{month} closed: {rows}; archive in {closed.archive_dir}."))
