from django.db import models
from simple_history.models import HistoricalRecords

from .guards import NeverDeleted
from .sources import Cited


class Approval(NeverDeleted, Cited):
    """A regulator's approval of a game in a jurisdiction, and in one establishment where it is given per site."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        TRIAL = "trial", "Trial"
        APPROVED = "approved", "Approved"
        WITHDRAWN = "withdrawn", "Withdrawn"
        REVOKED = "revoked", "Revoked"
        SUPERSEDED = "superseded", "Superseded by a later approval"

    # Statuses an approval leaves the record by: it is never deleted (cardroom.services.set_approval_status).
    ENDED = (Status.WITHDRAWN, Status.REVOKED, Status.SUPERSEDED)

    class Scope(models.TextChoices):
        ALL = "all", "All operators"
        COMMERCIAL = "commercial", "Commercial card rooms"
        TRIBAL = "tribal", "Tribal casinos"

    key = models.SlugField(max_length=80, unique=True, help_text="Stable name, e.g. one-for-the-money-wa-2014.")
    game = models.ForeignKey("cardroom.Game", on_delete=models.PROTECT, related_name="approvals")
    jurisdiction = models.ForeignKey("cardroom.Jurisdiction", on_delete=models.PROTECT, related_name="approvals")
    establishment = models.ForeignKey(
        "cardroom.Establishment", null=True, blank=True, on_delete=models.PROTECT, related_name="approvals",
        help_text="Blank where the approval covers the whole jurisdiction.",
    )
    scope = models.CharField(max_length=16, choices=Scope.choices, default=Scope.ALL)
    status = models.CharField(max_length=16, choices=Status.choices)
    reference = models.CharField(max_length=200, help_text="Letter, registration or trial reference.")
    decided_on = models.DateField(null=True, blank=True, help_text="Date of the letter or decision.")
    effective_from = models.DateField(null=True, blank=True, help_text="Blank where the source states no date.")
    expires_on = models.DateField(null=True, blank=True)
    trial_ends_on = models.DateField(null=True, blank=True, help_text="For trials; blank where no end is stated.")
    licensee = models.CharField(max_length=200, blank=True, help_text="Who the approval was granted to.")
    notes = models.TextField(blank=True)
    status_reason = models.TextField(
        blank=True, help_text="Why the status is what it is (the letter that withdrew or superseded it).",
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["jurisdiction", "game", "establishment"]

    def __str__(self):
        where = self.establishment or self.jurisdiction
        return f"{self.game.name} in {where}: {self.get_status_display()}"


class ApprovalCondition(NeverDeleted):
    class Status(models.TextChoices):
        OUTSTANDING = "outstanding", "Outstanding"
        MET = "met", "Met"
        NOT_APPLICABLE = "not_applicable", "Not applicable"
        WITHDRAWN = "withdrawn", "Withdrawn"

    approval = models.ForeignKey(Approval, on_delete=models.PROTECT, related_name="conditions")
    order = models.PositiveSmallIntegerField()
    text = models.TextField()
    applies_to = models.CharField(max_length=16, choices=Approval.Scope.choices, default=Approval.Scope.ALL)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OUTSTANDING)
    citation = models.CharField(max_length=500)
    status_reason = models.TextField(blank=True, help_text="Why the status is what it is.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["approval", "order"]
        constraints = [models.UniqueConstraint(fields=["approval", "order"], name="unique_condition_order")]

    def __str__(self):
        return self.text[:80]
