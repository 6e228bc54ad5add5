from django.core.management.base import CommandError

from cardroom import jobs
from cardroom.access import Scope
from cardroom.management.base import BaseCommand
from cardroom.models import Job

from ... import tasks
from ...requests import params_of, read_request


class _Everything(Scope):
    """The command runs with the installation's own authority."""

    def __init__(self):
        super().__init__(None)
        self.is_admin = True


class Command(BaseCommand):
    help = (
        "Export what an establishment (or a whole jurisdiction) was approved for, posted and collected, and every "
        "change, for a period, as a signed bundle (zip): PDF report, a CSV file per kind described in columns.json, "
        "signed manifest. Runs through the same job as the API and shows its progress. Check a bundle with "
        "verify_export."
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
        export_scope = read_request({k: v for k, v in request.items() if v}, scope=_Everything())
        place = export_scope.establishments[0] if export_scope.jurisdiction is None else None
        job = Job.objects.create(kind=Job.Kind.AUDIT_EXPORT, establishment=place,
                                 jurisdiction=export_scope.jurisdiction or place.jurisdiction,
                                 requested_label="export_audit (command line)", params=params_of(export_scope))
        self.stdout.write(f"Job {job.uuid}: exporting {export_scope.describe()}.")
        job = jobs.run_or_follow(job, tasks.export_audit, tasks.build_export, self.progress)
        if job.status != Job.Status.DONE:
            raise CommandError(f"The export failed: {job.error}")
        with job.file.open("rb") as source, open(output, "wb") as target:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                target.write(chunk)
        result = job.result
        rows = ", ".join(f"{name} {count:,}" for name, count in result["rows"].items() if count)
        self.stdout.write(self.style.SUCCESS(
            f"Wrote {output}: {result['bytes']:,} bytes, SHA-256 {result['sha256']}; rows: {rows}. "
            f"Signed with {result['signing_key']}."))

    def progress(self, job):
        self.stdout.write(f"  {job.percent:3d}%  {job.done}/{job.total} files  {job.stage}")
