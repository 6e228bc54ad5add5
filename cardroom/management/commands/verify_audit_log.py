from django.core.management.base import CommandError

from cardroom.audit import verify_chains
from cardroom.management.base import BaseCommand
from cardroom.models import Establishment


class Command(BaseCommand):
    help = (
        "Walk the audit log's hash chains (one per establishment, one for the installation) and report the first "
        "entry where each breaks: content altered, previous-hash link broken, position missing or out of order, "
        "or entries missing at the end compared with the recorded chain head. Fails when any chain is broken."
    )

    def add_arguments(self, parser):
        parser.add_argument("--establishment", metavar="SLUG", help="Only this establishment's chain.")

    def handle(self, *args, establishment=None, **options):
        place = None
        if establishment is not None:
            place = Establishment.objects.filter(slug=establishment).first()
            if place is None:
                raise CommandError(f"No establishment with the slug {establishment!r}.")
        reports = verify_chains(place)
        for report in reports:
            if report.ok and options["verbosity"]:
                self.stdout.write(report.describe())
        broken = [report for report in reports if not report.ok]
        if broken:
            raise CommandError(
                f"The audit log is broken in {len(broken)} of {len(reports)} chain(s):\n"
                + "\n".join(report.describe() for report in broken)
            )
        if not reports and options["verbosity"]:
            self.stdout.write("OK: the audit log has no entries.")
