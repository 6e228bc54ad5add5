"""Storing the findings of a validation run: ``Recorder`` turns each finding into a ``Finding`` row (its
subject's schedule, version, establishment, jurisdiction, table; its identity and fingerprint), and
``carry_acknowledgements`` carries earlier acknowledgements over to the new rows before they are saved."""

import collections

from django.utils import timezone

from cardroom.models import Establishment, Jurisdiction, Table
from fees.models import ScheduleDocument

from . import identity
from .models import Finding
from .rules import ERROR, INFO, WARNING


class Recorder:
    def __init__(self, run, catalog):
        self.run = run
        self.catalog = catalog
        self.rows = []
        self.tables = {}
        self.documents = {}
        self.versions = {}
        self.jurisdictions = {j.code: j for j in Jurisdiction.objects.all()}
        self.establishments = {}

    def add(self, finding, *, table=None, posting=None, establishment=None, judged=None):
        """``judged``: the posting's values the finding judged (``identity.posting_facts``)."""
        subject = finding.subject
        document = version = None
        if "schedule" in subject:
            document = self.documents.get(subject["schedule"])
            if document is None:
                document = ScheduleDocument.objects.filter(code=subject["schedule"]).first()
                self.documents[subject["schedule"]] = document
            if document is not None and subject.get("version"):
                key = (document.pk, subject["version"])
                if key not in self.versions:
                    self.versions[key] = document.versions.filter(number=subject["version"]).first()
                version = self.versions[key]
        slug = subject.get("establishment")
        if establishment is None and slug:
            if slug not in self.establishments:
                self.establishments[slug] = Establishment.objects.filter(slug=slug).first()
            establishment = self.establishments[slug]
        jurisdiction = (establishment.jurisdiction if establishment is not None
                        else document.jurisdiction if document is not None
                        else self.jurisdictions.get(subject.get("jurisdiction")))
        approval_id = self.catalog.approval_ids.get(subject.get("approval"))
        if table is None and subject.get("type") == "table" and establishment is not None:
            table = Table.objects.filter(establishment=establishment, label=subject.get("table")).first()
        parameters = [p.as_dict() for p in finding.parameters]
        facts = identity.facts_of(subject, finding.message, parameters, judged)
        self.rows.append(Finding(
            run=self.run, rule=finding.rule, severity=finding.severity, subject_type=subject.get("type", ""),
            subject=subject, message=finding.message, citation=finding.citation[:500],
            parameters=parameters, jurisdiction=jurisdiction,
            establishment=establishment, table=table, posting=posting, schedule=document, schedule_version=version,
            option_number=subject.get("option"), approval_id=approval_id,
            identity=identity.identity(finding.rule, subject, establishment.pk if establishment else None,
                                       jurisdiction.pk if jurisdiction else None),
            facts=facts, fingerprint=identity.fingerprint(facts),
        ))

    def save(self):
        carry_acknowledgements(self.rows)
        Finding.objects.bulk_create(self.rows, batch_size=500)
        run = self.run
        run.errors = sum(1 for r in self.rows if r.severity == ERROR)
        run.warnings = sum(1 for r in self.rows if r.severity == WARNING)
        run.infos = sum(1 for r in self.rows if r.severity == INFO)
        run.save(update_fields=["errors", "warnings", "infos", "postings_checked", "options_linted"])
        return run


def carry_acknowledgements(rows):
    """Before new findings are stored: each whose identity was acknowledged before carries that acknowledgement
    when the facts it judged are those acknowledged (any acknowledgement of them holds); otherwise it stays open,
    saying what changed since the latest acknowledgement (one query)."""
    several = collections.Counter(row.identity for row in rows if row.identity)
    wanted = set(several)
    if not wanted:
        return
    # Only the acknowledgements people made (not the copies runs carried: those grow with every run).
    earlier = {}  # identity: {fingerprint: the first acknowledgement of those facts, None: the latest}
    wanted = sorted(wanted)
    for start in range(0, len(wanted), 500):
        for done in (Finding.objects.filter(identity__in=wanted[start:start + 500], acknowledged_at__isnull=False,
                                            acknowledgement_of__isnull=True)
                     .select_related("acknowledged_by").order_by("acknowledged_at", "id")):
            mine = earlier.setdefault(done.identity, {})
            mine.setdefault(done.fingerprint, done)
            mine[None] = done
    for row in rows:
        mine = earlier.get(row.identity)
        if not mine:
            continue
        same = mine.get(row.fingerprint)
        if same is not None:
            row.acknowledged_at, row.acknowledged_by = same.acknowledged_at, same.acknowledged_by
            row.acknowledgement_reason = same.acknowledgement_reason
            row.acknowledgement_of_id = same.pk
            continue
        if several[row.identity] > 1:
            continue  # the rule found more than one thing here (say two bonus bets): which one changed is unknown
        latest = mine[None]
        when = timezone.localtime(latest.acknowledged_at)
        row.changes = (f"Acknowledged on {when:%Y-%m-%d} by {latest.acknowledged_by} "
                       f"(\u201c{latest.acknowledgement_reason}\u201d); since then "
                       f"{identity.changes(latest.facts, row.facts) or 'the facts judged changed'}.")
