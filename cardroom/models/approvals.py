from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from simple_history.models import HistoricalRecords

from cardroom.exceptions import StateConflict

from .guards import NeverDeleted, NeverDeletedQuerySet
from .sources import Cited


def operator_scopes(establishment_kind):
    """The approval scopes (and condition ``applies_to``) that concern an establishment of this kind: a tribal
    casino is concerned by "all" and "tribal", any other establishment (a commercial card room, a casino) by "all"
    and "commercial". The same reading as ``compliance.rules.postings.scopes_for``."""
    return ("all", "tribal") if establishment_kind == "tribal_casino" else ("all", "commercial")


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
    """A condition of an approval, as written. ``status`` is what the source says of the condition itself
    (outstanding unless the source says it was met, is not applicable or was withdrawn); whether an establishment
    has met a ``prerequisite`` is recorded per establishment (``ConditionFulfilment``)."""

    class Status(models.TextChoices):
        OUTSTANDING = "outstanding", "Outstanding"
        MET = "met", "Met"
        NOT_APPLICABLE = "not_applicable", "Not applicable"
        WITHDRAWN = "withdrawn", "Withdrawn"

    class Kind(models.TextChoices):
        PREREQUISITE = "prerequisite", "To be met at each establishment before the game is offered"
        OPERATING = "operating", "Applies while the game is offered"
        OTHER_PARTY = "other_party", "A notice, or a duty of someone else (the manufacturer, the applicant)"

    approval = models.ForeignKey(Approval, on_delete=models.PROTECT, related_name="conditions")
    order = models.PositiveSmallIntegerField()
    text = models.TextField()
    applies_to = models.CharField(max_length=16, choices=Approval.Scope.choices, default=Approval.Scope.ALL)
    kind = models.CharField(
        max_length=16, choices=Kind.choices, default=Kind.PREREQUISITE,
        help_text="Only a prerequisite is recorded as met, per establishment; while it is outstanding at an "
                  "establishment, a posting of the game there is an error.",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OUTSTANDING)
    citation = models.CharField(max_length=500)
    status_reason = models.TextField(blank=True, help_text="Why the status is what it is.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["approval", "order"]
        constraints = [models.UniqueConstraint(fields=["approval", "order"], name="unique_condition_order")]

    def __str__(self):
        return self.text[:80]

    def concerns(self, establishment):
        """Whether this condition applies at ``establishment``: its approval covers it (the jurisdiction, or that
        establishment alone) and both the approval's scope and ``applies_to`` fit its kind."""
        approval = self.approval
        scopes = operator_scopes(establishment.kind)
        return (approval.jurisdiction_id == establishment.jurisdiction_id
                and approval.establishment_id in (None, establishment.pk)
                and approval.scope in scopes and self.applies_to in scopes)

    def current_fulfilments(self):
        """The record standing for each establishment (the last of its chain of corrections), from
        ``fulfilments.all()`` so that a prefetch serves it: {establishment id: ConditionFulfilment}."""
        records = list(self.fulfilments.all())
        corrected = {r.corrects_id for r in records if r.corrects_id}
        return {r.establishment_id: r for r in records if r.pk not in corrected}


class FulfilmentImmutableError(StateConflict):
    """A record of a condition met is never changed or deleted: a correction or a withdrawal is a new record."""


class FulfilmentQuerySet(NeverDeletedQuerySet):
    def update(self, **kwargs):
        raise FulfilmentImmutableError("Records of conditions met are never changed: record a correction or a "
                                       "withdrawal, with a reason.")

    def current(self):
        """The records no later record corrects or withdraws: one per condition and establishment at most."""
        return self.filter(corrections__isnull=True)


class ConditionFulfilment(NeverDeleted):
    """That an establishment met a condition of an approval: on which day, the evidence, who recorded it and when.

    Append-only and never deleted: a mistake is put right by a new record that ``corrects`` this one (with a
    reason), and a record found wrong is withdrawn by a record with ``withdrawn`` set (with a reason). What stands
    for a condition at an establishment is the last record of that chain (``cardroom.conditions``)."""

    condition = models.ForeignKey(ApprovalCondition, on_delete=models.PROTECT, related_name="fulfilments")
    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.PROTECT,
                                      related_name="condition_fulfilments")
    met_on = models.DateField(null=True, blank=True, help_text="The day the condition was met (blank on a withdrawal).")
    evidence = models.CharField(
        max_length=500, blank=True,
        help_text="Reference of the evidence, e.g. the Commission's letter approving the internal controls.",
    )
    note = models.TextField(blank=True)
    withdrawn = models.BooleanField(default=False, help_text="This record withdraws the one it corrects: the "
                                                             "condition is not met (any more) at the establishment.")
    corrects = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections",
                                 help_text="The record this one corrects or withdraws.")
    reason = models.TextField(blank=True, help_text="Why this record corrects or withdraws the one before.")
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    history = HistoricalRecords()

    objects = FulfilmentQuerySet.as_manager()

    class Meta:
        ordering = ["condition", "establishment", "recorded_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["corrects"], condition=Q(corrects__isnull=False),
                                    name="condition_fulfilment_corrected_once"),
            models.CheckConstraint(
                condition=Q(withdrawn=True, met_on__isnull=True, corrects__isnull=False)
                | (Q(withdrawn=False, met_on__isnull=False) & ~Q(evidence="")),
                name="condition_fulfilment_met_with_evidence_or_withdrawn",
            ),
        ]
        indexes = [models.Index(fields=["establishment", "condition"], name="condition_fulfilment_place")]

    def __str__(self):
        # In words: people read this in the audit log and the admin ("demo-evergreen-card-room" is an address).
        where = (f"Condition {self.condition.order} of {self.condition.approval.game.name} "
                 f"({self.condition.approval.reference}) at {self.establishment.name}")
        return f"{where}: withdrawn" if self.withdrawn else f"{where}: met on {self.met_on}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise FulfilmentImmutableError(f"Record {self.pk} of a condition met is never changed: record a "
                                           "correction or a withdrawal, with a reason.")
        super().save(*args, **kwargs)
