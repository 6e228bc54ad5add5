"""Print overrides and the record of every sign printed."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class PrintOverride(models.Model):
    """A compliance override of the print gate, made by two people: one compliance officer asks, with a reason, that a
    posting with error findings be printed anyway; a second one approves or refuses it, with theirs. Only an
    approved override lets the sign be printed (``signage.postings``). Its asker may withdraw it while it awaits an
answer (``decided_by`` then says who withdrew it). Kept whatever the answer (``cardroom.review``)."""

    class Status(models.TextChoices):
        REQUESTED = "requested", "Asked for: awaiting a second officer"
        APPROVED = "approved", "Approved"
        REFUSED = "refused", "Refused"
        WITHDRAWN = "withdrawn", "Withdrawn"

    posting = models.ForeignKey("fees.TablePosting", on_delete=models.PROTECT, related_name="print_overrides")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.REQUESTED)
    reason = models.TextField(help_text="Why the sign may be printed despite the errors, as asked (kept in the audit "
                                        "log).")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    findings = models.JSONField(default=list, help_text="The error findings overridden, as they stood.")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+",
                                   help_text="The second officer, who approved or refused it (or who withdrew it).")
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True, help_text="Why it was approved, refused or withdrawn.")

    class Meta:
        ordering = ["-requested_at", "-id"]
        constraints = [
            # One request at a time awaits a second officer: two asked at the same moment cannot both be kept.
            models.UniqueConstraint(fields=["posting"], condition=models.Q(status="requested"),
                                    name="one_override_request_per_posting"),
            models.CheckConstraint(
                condition=models.Q(status="requested", decided_by__isnull=True, decided_at__isnull=True)
                | (~models.Q(status="requested") & models.Q(decided_by__isnull=False, decided_at__isnull=False)),
                name="override_decided_once_answered"),
        ]

    def __str__(self):
        return f"override of posting {self.posting_id} asked by {self.requested_by} ({self.get_status_display()})"

    @property
    def is_approved(self):
        return self.status == self.Status.APPROVED


class SignPrint(models.Model):
    """One sign printed for one posting: the first is the original, every later one a reprint."""

    class Channel(models.TextChoices):
        API = "api", "API"
        ADMIN = "admin", "Admin"
        COMMAND = "command", "Command line"
        BATCH = "batch", "Batch job"

    posting = models.ForeignKey("fees.TablePosting", on_delete=models.PROTECT, related_name="prints")
    layout = models.CharField(max_length=10)
    number = models.PositiveIntegerField(help_text="1 for the first sign of this posting, 2 for the first reprint, ...")
    channel = models.CharField(max_length=10, choices=Channel.choices)
    printed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    printed_label = models.CharField(max_length=150, help_text="Username, or the command that printed.")
    printed_at = models.DateTimeField(default=timezone.now, db_index=True)
    job = models.ForeignKey("cardroom.Job", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    override = models.ForeignKey(PrintOverride, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    schedule_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The number of the posting's schedule version in force when it was printed, "
                                         "whose fees the sign shows (blank for a posting without a schedule).")

    class Meta:
        ordering = ["-printed_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["posting", "number"], name="unique_print_number")]

    def __str__(self):
        kind = "reprint" if self.is_reprint else "print"
        return f"{kind} {self.number} of posting {self.posting_id} ({self.layout})"

    @property
    def is_reprint(self):
        return self.number > 1
