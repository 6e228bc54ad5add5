"""Print overrides and the record of every sign printed."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class PrintOverride(models.Model):
    """A compliance officer's decision that a posting with error findings may be printed anyway, and why."""

    posting = models.ForeignKey("fees.TablePosting", on_delete=models.PROTECT, related_name="print_overrides")
    reason = models.TextField(help_text="Why the sign may be printed despite the errors (kept in the audit log).")
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    granted_at = models.DateTimeField(auto_now_add=True)
    findings = models.JSONField(default=list, help_text="The error findings overridden, as they stood.")

    class Meta:
        ordering = ["-granted_at", "-id"]

    def __str__(self):
        return f"override for posting {self.posting_id} by {self.granted_by}"


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

    class Meta:
        ordering = ["-printed_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["posting", "number"], name="unique_print_number")]

    def __str__(self):
        kind = "reprint" if self.is_reprint else "print"
        return f"{kind} {self.number} of posting {self.posting_id} ({self.layout})"

    @property
    def is_reprint(self):
        return self.number > 1
