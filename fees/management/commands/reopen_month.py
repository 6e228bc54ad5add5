from cardroom.management.base import BaseCommand

from ...months.services import read_month, reopen


class Command(BaseCommand):
    help = (
        "Attach a closed month of the ledger again (PostgreSQL): check each archived file's SHA-256, read its rows "
        "back into a table like the parent, attach it as the month's partition and lift the month's CHECKs. The "
        "rows come back as they were, ids included. Run it as the database's owner."
    )

    def add_arguments(self, parser):
        parser.add_argument("--month", required=True, help="The month, YYYY-MM.")
        parser.add_argument("--archive-dir", dest="archive_dir",
                            help="Where the partition files are, if they moved since the month was closed.")

    def handle(self, *args, month, archive_dir, **options):
        reopen(read_month(month), archive_dir=archive_dir, say=self.stdout.write)
