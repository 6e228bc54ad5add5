from cardroom.management.base import BaseCommand

from ...installation import export_to_file


class Command(BaseCommand):
    help = (
        "Export what an establishment (or a whole jurisdiction) was approved for, posted and collected, and every "
        "change, for a period, as a signed bundle (zip): PDF report, a CSV file per kind described in columns.json, "
        "signed manifest. Runs through the same job as the API, as the installation itself "
        "(cardroom.permissions.SYSTEM), and shows its progress. Check a bundle with verify_export."
    )

    def add_arguments(self, parser):
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("--establishment", help="The establishment's slug, e.g. casino-marysville.")
        where.add_argument("--jurisdiction", help="A jurisdiction code, e.g. CA: every establishment in it.")
        parser.add_argument("--from", dest="start", help="First day of the period, YYYY-MM-DD.")
        parser.add_argument("--to", dest="end", help="Last day of the period (inclusive), YYYY-MM-DD.")
        parser.add_argument("--as-of", dest="as_of", help="Instead of a period: everything up to this day.")
        parser.add_argument("-o", "--output", required=True, help="Where to write the bundle (.zip).")

    def handle(self, *args, establishment, jurisdiction, start, end, as_of, output, **options):
        request = {"establishment": establishment, "jurisdiction": jurisdiction, "from": start, "to": end,
                   "as_of": as_of}
        wrote = export_to_file({k: v for k, v in request.items() if v}, output, say=self.stdout.write)
        self.stdout.write(self.style.SUCCESS(wrote))
