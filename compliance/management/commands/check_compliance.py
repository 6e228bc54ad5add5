import json

from django.core.management.base import CommandError
from django.utils import timezone

from cardroom import values
from cardroom.management.base import BaseCommand
from cardroom.models import Establishment
from cardroom.permissions import SYSTEM
from compliance import services


class Command(BaseCommand):
    help = (
        "Validate an establishment's current table postings (--establishment), or everything: postings, approvals "
        "and every published schedule version. Stores the run and its findings. Runs as the installation itself "
        "(cardroom.permissions.SYSTEM): whoever may run manage.py on the server."
    )

    def add_arguments(self, parser):
        parser.add_argument("--establishment", help="Slug or id; default: everything.")
        parser.add_argument("--as-of", help="YYYY-MM-DD; default today.")
        parser.add_argument("--json", action="store_true", help="Print the run and its findings as JSON.")

    def handle(self, *args, establishment=None, as_of=None, json=False, **options):
        day = timezone.localdate() if not as_of else values.named("--as-of", values.day, as_of)
        if establishment:
            place = Establishment.objects.by_key(establishment)
            if place is None:
                raise CommandError(f"Unknown establishment {establishment!r}")
            run = services.run_establishment(SYSTEM, establishment=place, as_of=day)
        else:
            run = services.run_everything(SYSTEM, as_of=day)
        findings = list(run.findings.order_by("id"))
        if json:
            self.stdout.write(_json({
                "run": run.pk, "kind": run.kind, "as_of": run.as_of.isoformat(), "ok": run.ok,
                "counts": {"error": run.errors, "warning": run.warnings, "info": run.infos},
                "findings": [{"id": f.pk, "rule": f.rule, "severity": f.severity, "subject": f.subject,
                              "message": f.message, "citation": f.citation, "parameters": f.parameters}
                             for f in findings],
            }))
            return
        for f in findings:
            self.stdout.write(f"{f.severity.upper():8} {f.rule:34} {f.message}  [{f.citation}]")
        self.stdout.write(self.style.SUCCESS(
            f"Run {run.pk} as of {run.as_of}: {run.postings_checked} posting(s), {run.options_linted} option(s); "
            f"{run.errors} error(s), {run.warnings} warning(s), {run.infos} info."
        ))


def _json(data):
    return json.dumps(data, indent=2, default=str)
