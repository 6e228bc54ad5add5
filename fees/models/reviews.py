"""The records kept beside a schedule version: the steps of its two-person publication (``VersionReview``) and
the approved readings of what its source leaves open (``Interpretation``)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from simple_history.models import HistoricalRecords

from decimal import Decimal

from cardroom.money import format_money

from .immutability import ImmutableVersionError
from .options import FeeOption, FeeTier

# What a reading's field is called, and each value it can be read as (``fees.schedules.interpretations`` names them too:
# ``FIELD_LABELS``, ``label``): kept here so that a reading's own words (``Interpretation.__str__``, which the audit
# log and the inbox show) say them as the pages do.
FIELD_LABELS = {"basis": "basis", "measure": "what it is measured on", "lower": "lower bound",
                "upper": "upper bound", "fee_kind": "kind of fee", "payer": "who pays", "taken": "when it is taken"}
CHOICES = {"basis": FeeOption.Basis, "measure": FeeTier.Measure, "fee_kind": FeeTier.FeeKind,
           "payer": FeeTier.Payer, "taken": FeeTier.Taken}
BOUNDS = ("lower", "upper")


def value_label(field, text, currency=""):
    """A stored value as a person reads it: the choice's label, "$500.00" (``cardroom.money``), "open" for no bound."""
    if field in BOUNDS:
        if text == "":
            return "open (no bound)" if field == "upper" else "open below (no bound)"
        return format_money(Decimal(text), currency) if currency else f"{Decimal(text):,.2f}"
    choices = CHOICES.get(field)
    return str(choices(text).label) if choices and text in choices.values else text


class VersionReview(models.Model):
    """One step of the two-person publication of a version: asked for, approved, refused or withdrawn, with why."""

    class Step(models.TextChoices):
        REQUESTED = "requested", "Publication requested"
        APPROVED = "approved", "Approved and published"
        REFUSED = "refused", "Refused: back to draft"
        WITHDRAWN = "withdrawn", "Request withdrawn: back to draft"

    version = models.ForeignKey("ScheduleVersion", on_delete=models.PROTECT, related_name="reviews")
    step = models.CharField(max_length=12, choices=Step.choices)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    by_label = models.CharField(max_length=150, help_text="Username, or the command that took the step.")
    at = models.DateTimeField(default=timezone.now)
    reason = models.TextField()

    class Meta:
        ordering = ["at", "id"]

    def __str__(self):
        return f"{self.version}: {self.get_step_display()} by {self.by_label}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ImmutableVersionError("A review step is a record of what happened; it is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableVersionError("A review step is a record of what happened; it is never deleted.")


class Interpretation(models.Model):
    """How the room reads a value its source leaves open, kept beside the value as printed (never over it).

    One field of one option (its basis) or of one tier (measure, bounds, fee kind, payer, when taken) is read as
    ``value``, with the reading in words, its date and its citation (e.g. the Bureau's answer). It takes effect once
    a second compliance officer approves it; the engine, validation and signs then use it and say it is one.
    """

    class Status(models.TextChoices):
        PROPOSED = "proposed", "Proposed: awaiting a second officer"
        APPROVED = "approved", "Approved: in use"
        REFUSED = "refused", "Refused"
        WITHDRAWN = "withdrawn", "Withdrawn"

    OPTION_FIELDS = ("basis",)
    TIER_FIELDS = ("measure", "lower", "upper", "fee_kind", "payer", "taken")

    version = models.ForeignKey("ScheduleVersion", on_delete=models.PROTECT, related_name="interpretations")
    option_number = models.PositiveIntegerField()
    tier_order = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The tier read, by its position in the option; blank for the option itself.",
    )
    field = models.CharField(max_length=20, help_text="The field read: basis (an option) or measure, lower, upper, "
                                                      "fee_kind, payer, taken (a tier).")
    value = models.CharField(max_length=60, blank=True, help_text="The value it is read as; blank for an open bound.")
    statement = models.TextField(help_text="The reading in words, as a player or regulator would be told it.")
    decided_on = models.DateField(help_text="The date of the reading (e.g. of the Bureau's answer).")
    source = models.ForeignKey("cardroom.Source", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    citation = models.CharField(max_length=500, help_text="Where the reading comes from: the answer, letter or rule.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PROPOSED)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_reason = models.TextField(blank=True)
    carried_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                     help_text="The same reading of the version this one was drafted from.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["version", "option_number", "tier_order", "field", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "option_number", "tier_order", "field"],
                condition=Q(status__in=["proposed", "approved"]), name="one_live_interpretation_per_field",
            ),
        ]

    def __str__(self):
        """'GEGA-002888 v2 option 43 tier 1: what it is measured on read as “The player's total base wager”'."""
        document = self.version.document
        where = f"option {self.option_number}" + (f" tier {self.tier_order}" if self.tier_order is not None else "")
        return (f"{document.code} v{self.version.number} {where}: {FIELD_LABELS.get(self.field, self.field)} read as "
                f"“{value_label(self.field, self.value, document.currency)}”")
