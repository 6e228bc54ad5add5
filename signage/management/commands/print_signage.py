from django.core.management.base import CommandError

from cardroom.management.base import BaseCommand
from cardroom.models import Establishment, Job, Table
from cardroom.permissions import SYSTEM

from ... import render, tasks


class Command(BaseCommand):
    help = (
        "Print the signs of an establishment's tables (or the chosen ones) into one PDF, through the same batch "
        "job as the API, as the installation itself (cardroom.permissions.SYSTEM): every sign is recorded as a "
        "print (or reprint) and logged. Tables with no posting in force, or with error findings and no compliance "
        "override, are listed and left out."
    )

    def add_arguments(self, parser):
        parser.add_argument("--establishment", required=True, help="The establishment's slug, e.g. casino-marysville.")
        parser.add_argument("--table", action="append", default=[], metavar="LABEL",
                            help="A table's label, e.g. 7 (repeat for several; default: every active table).")
        parser.add_argument("--layout", choices=render.LAYOUTS, default="letter",
                            help="letter: US Letter portrait; tent: folded tabletop tent (default: letter).")
        parser.add_argument("-o", "--output", required=True, help="Where to write the PDF.")

    def handle(self, *args, establishment, table, layout, output, **options):
        place = Establishment.objects.filter(slug=establishment).first()
        if place is None:
            raise CommandError(f"No establishment {establishment!r}.")
        table_ids = []
        for label in table:
            found = Table.objects.filter(establishment=place, label=label).first()
            if found is None:
                raise CommandError(f"{place} has no table {label!r}.")
            table_ids.append(found.pk)

        def follow(job):
            if job.status == Job.Status.QUEUED:
                self.stdout.write(f"Job {job.uuid}: printing {layout} signs for {place}.")
            else:
                self.stdout.write(f"  {job.percent:3d}%  {job.done}/{job.total} tables  {job.stage}")

        job = tasks.start_batch(SYSTEM, establishment=place, layout=layout, tables=table_ids or None,
                                label="print_signage (command line)", follow=follow)
        if job.status != Job.Status.DONE:
            raise CommandError(f"The batch failed: {job.error}")
        with job.file.open("rb") as source, open(output, "wb") as target:
            target.write(source.read())
        result = job.result
        for skipped in result.get("skipped", []):
            self.stderr.write(f"Table {skipped['table']} left out: {skipped['reason']}")
        self.stdout.write(self.style.SUCCESS(
            f"Wrote {output}: {result['pages']} sign(s), {result['reprints']} reprint(s), "
            f"{len(result.get('skipped', []))} table(s) left out. SHA-256 {result['sha256']}."
        ))
