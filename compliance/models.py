"""Compliance data: dated rule parameters, stored validation runs and their findings.

- ``RuleParameter``: one dated value of a rule's limit, count or cap (e.g. Washington's maximum single wager
  in a house-banked game, $300 from 2009), with its citation and how sure we are of it. Changing a limit is
  a new row with a later ``effective_from``, never a code change.
- ``ValidationRun``: one run of the rules over an establishment's postings, a schedule version or everything.
- ``Finding``: what the run found. Findings are never changed except to be acknowledged, with a reason, by a
  compliance officer; the history table keeps who did it and when.
"""

from django.conf import settings
from django.db import models
from simple_history.models import HistoricalRecords

from cardroom.models import Cited
from cardroom.models.guards import NeverDeleted


class RuleParameter(NeverDeleted, Cited):
    class Status(models.TextChoices):
        CONFIRMED = "confirmed", "Confirmed in the regulation's text"
        SECONDARY = "secondary", "From a secondary source"
        CHECK = "check", "To be checked"

    jurisdiction = models.ForeignKey("cardroom.Jurisdiction", on_delete=models.PROTECT, related_name="+")
    key = models.SlugField(max_length=60, help_text="e.g. house_banked_max_wager")
    value = models.DecimalField(max_digits=12, decimal_places=2)
    unit = models.CharField(max_length=12, help_text="USD, count or percent.")
    effective_from = models.DateField(help_text="In force from this day until the next value's date.")
    status = models.CharField(max_length=12, choices=Status.choices)
    note = models.TextField(blank=True, help_text="e.g. 'the day is not stated; 2009-01-01 used'.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["jurisdiction", "key", "effective_from"]
        constraints = [
            models.UniqueConstraint(fields=["jurisdiction", "key", "effective_from"], name="unique_parameter_value")
        ]

    def __str__(self):
        return f"{self.jurisdiction.code} {self.key} = {self.value} {self.unit} from {self.effective_from}"


class RunQuerySet(models.QuerySet):
    def latest_posting_checks(self, postings):
        """``{posting id: (run id, errors, warnings)}``: each posting's own latest check (one query)."""
        latest = (self.filter(posting__in=postings, kind=ValidationRun.Kind.POSTING).order_by()
                  .values("posting").annotate(latest=models.Max("id")).values("latest"))
        return {posting: (run, errors, warnings) for run, posting, errors, warnings in
                self.filter(pk__in=latest).values_list("pk", "posting_id", "errors", "warnings")}


class ValidationRun(models.Model):
    class Kind(models.TextChoices):
        ESTABLISHMENT = "establishment", "An establishment's table postings"
        SCHEDULE = "schedule", "A schedule version"
        POSTING = "posting", "A table posting, when it was saved"
        EVERYTHING = "everything", "Everything"

    class Trigger(models.TextChoices):
        ON_DEMAND = "on_demand", "On demand"
        NIGHTLY = "nightly", "Nightly"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    trigger = models.CharField(max_length=12, choices=Trigger.choices, default=Trigger.ON_DEMAND)
    as_of = models.DateField(help_text="The day the rules were applied for.")
    establishment = models.ForeignKey(
        "cardroom.Establishment", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    schedule_version = models.ForeignKey(
        "fees.ScheduleVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    posting = models.ForeignKey(
        "fees.TablePosting", null=True, blank=True, on_delete=models.PROTECT, related_name="validation_runs"
    )
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    postings_checked = models.PositiveIntegerField(default=0)
    options_linted = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    warnings = models.PositiveIntegerField(default=0)
    infos = models.PositiveIntegerField(default=0)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        what = self.establishment or self.schedule_version or "everything"
        return f"run {self.pk} over {what} as of {self.as_of}: {self.errors} error(s), {self.warnings} warning(s)"

    @property
    def ok(self):
        return self.errors == 0


class Finding(models.Model):
    class Severity(models.TextChoices):
        ERROR = "error", "Error"
        WARNING = "warning", "Warning"
        INFO = "info", "Info"

    run = models.ForeignKey(ValidationRun, on_delete=models.CASCADE, related_name="findings")
    rule = models.CharField(max_length=60, db_index=True)
    severity = models.CharField(max_length=8, choices=Severity.choices)
    subject_type = models.CharField(max_length=24, help_text="posting, schedule_option, approval or table.")
    subject = models.JSONField(default=dict)
    message = models.TextField()
    citation = models.CharField(max_length=500)
    parameters = models.JSONField(default=list, blank=True, help_text="The dated values used, with their status.")
    # Where it belongs, for scoping and for the admin's per-table and per-schedule lists.
    jurisdiction = models.ForeignKey("cardroom.Jurisdiction", null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    establishment = models.ForeignKey("cardroom.Establishment", null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="+")
    table = models.ForeignKey("cardroom.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    posting = models.ForeignKey("fees.TablePosting", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="+")
    schedule = models.ForeignKey("fees.ScheduleDocument", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+")
    schedule_version = models.ForeignKey("fees.ScheduleVersion", null=True, blank=True, on_delete=models.PROTECT,
                                         related_name="+")
    option_number = models.PositiveIntegerField(null=True, blank=True)
    approval = models.ForeignKey("cardroom.Approval", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+")
    acknowledged_at = models.DateTimeField(null=True, blank=True, db_index=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    acknowledgement_reason = models.TextField(blank=True)
    # Its identity across runs (compliance.identity): an acknowledgement holds while the facts judged are the same.
    identity = models.CharField(max_length=64, blank=True, db_index=True,
                                help_text="The rule, where and the thing checked, hashed.")
    facts = models.JSONField(default=dict, blank=True, help_text="The facts judged, in words.")
    fingerprint = models.CharField(max_length=64, blank=True, help_text="The facts judged, hashed.")
    acknowledgement_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The finding first acknowledged, when this one carries the same acknowledgement (facts unchanged).")
    changes = models.TextField(blank=True, help_text="What changed since the same finding was acknowledged.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["run", "id"]

    def __str__(self):
        """"Error, Number of collection rates (California): ...": the rule's title, never its code (this is how
        the audit log's "To what" and the admin name a finding)."""
        from .rules.words import rule_title

        return f"{self.get_severity_display()}, {rule_title(self.rule)}: {self.message[:80]}"

    @property
    def acknowledged(self):
        return self.acknowledged_at is not None

    # The names compliance.inbox.InboxFinding reads as plain columns, so one template serves both.
    @property
    def table_label(self):
        return self.table.label if self.table_id else None

    @property
    def schedule_code(self):
        return self.schedule.code if self.schedule_id else None

    @property
    def version_number(self):
        return self.schedule_version.number if self.schedule_version_id else None


class StandingState(models.Model):
    """When an establishment's standing findings (``StandingFinding``) were worked out, and from what: they hold
    while no validation run is made, no finding acknowledged and no posting of the room comes into force
    (``compliance.inbox.standing``). Derived data: it can be dropped at any time and is worked out again."""

    establishment = models.OneToOneField("cardroom.Establishment", primary_key=True, on_delete=models.CASCADE,
                                         related_name="+")
    at = models.DateTimeField(help_text="The moment the findings were worked out for.")
    last_run = models.BigIntegerField(help_text="The latest validation run then (any run may change them).")
    acknowledged = models.PositiveIntegerField(help_text="How many findings were acknowledged then (acknowledgements "
                                                         "are never undone, so a new one changes the count).")


class StandingFinding(models.Model):
    """One finding that stands for an establishment, once each, at its place in the inbox's order (errors first,
    newest first): what ``compliance.inbox.current_findings`` works out, kept so that the pages count and page
    through them in SQL."""

    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField()
    finding = models.ForeignKey(Finding, on_delete=models.CASCADE, related_name="+")
    earlier = models.ForeignKey(Finding, null=True, on_delete=models.CASCADE, related_name="+",
                                help_text="The same finding acknowledged when an earlier run found it.")
    severity = models.CharField(max_length=8, choices=Finding.Severity.choices)
    table = models.ForeignKey("cardroom.Table", null=True, on_delete=models.CASCADE, related_name="+")
    found_at = models.DateTimeField()

    class Meta:
        ordering = ["establishment", "position"]
        constraints = [models.UniqueConstraint(fields=["establishment", "position"], name="one_standing_per_place")]


class KeptJudgement(models.Model):
    """A posting's judgement now (``compliance.judgement``), kept so that pages, the print gate and runs read it in
    one query instead of judging every posting on every view (issue 43). It holds while the data it was judged from
    is unchanged (``generation``: ``cardroom.generation``'s number, drawn anew in the transaction of every change a
    judgement reads: ``compliance.kept.JUDGED``) and the day it was judged for is the day asked about; otherwise it
    is judged again on first read and kept anew. Never a record: validation runs are the record."""

    posting = models.OneToOneField("fees.TablePosting", on_delete=models.CASCADE, primary_key=True, related_name="+")
    generation = models.BigIntegerField(help_text="The data generation it was judged under (cardroom.generation).")
    day = models.DateField(help_text="The day it was judged as of.")
    findings = models.JSONField(help_text="The findings on that day (compliance.rules.base.Finding.as_dict).")
    upcoming = models.JSONField(help_text="The problems first appearing within the next 30 days: [{day, finding}].")
    judged = models.JSONField(help_text="The posting's values judged, in words (compliance.identity.posting_facts).")
    glance = models.JSONField(null=True, help_text="What the pages show of it (compliance.glance.Glance.as_dict); "
                                                   "none in a row kept before glances were (judged again).")
    judged_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "kept judgement"

    def __str__(self):
        return f"judgement of posting {self.posting_id} on {self.day}"
