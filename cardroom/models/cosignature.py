"""Witnesses' cosignatures of the signed checkpoints, and how each configured witness last answered
(``cardroom.witnessing``, docs/audit.md "Submitting to witnesses")."""

from django.db import models

from .audit import AuditCheckpoint


class CheckpointCosignature(models.Model):
    """A witness's cosignature (C2SP tlog-cosignature) of a signed checkpoint, verified with the witness's configured
    key before it was stored. It covers the checkpoint's body (origin, size, root), so it stands beside every note
    of the same body: the export's files carry it appended to their checkpoints."""

    checkpoint = models.ForeignKey(AuditCheckpoint, on_delete=models.PROTECT, related_name="cosignatures")
    witness = models.CharField(max_length=200, help_text="The witness's name, as its verifier key names it.")
    key_id = models.CharField(max_length=8, help_text="The cosignature's key id (hex, 4 bytes).")
    timestamp = models.PositiveBigIntegerField(help_text="When the witness cosigned (POSIX seconds, its own clock).")
    line = models.TextField(help_text="The signature line, as the witness answered it (without its newline).")
    received_at = models.DateTimeField()

    class Meta:
        ordering = ["checkpoint", "witness"]
        constraints = [models.UniqueConstraint(fields=["checkpoint", "witness", "key_id"],
                                               name="cardroom_cosignature_once")]

    def __str__(self):
        return f"{self.witness} on {self.checkpoint}"


class WitnessState(models.Model):
    """How a configured witness last answered: since when it has been down (no answer, or a 5xx), and its refusal
    standing (a 409 from a size this log cannot prove from, 403, 404, 422) until it cosigns again."""

    witness = models.CharField(max_length=200, unique=True)
    cosigned_at = models.DateTimeField(null=True, blank=True, help_text="When it last cosigned.")
    down_since = models.DateTimeField(null=True, blank=True, help_text="Unanswered since; empty when it answers.")
    down_reason = models.TextField(blank=True)
    down_logged = models.BooleanField(default=False, help_text="Whether the audit log says it is down.")
    refused_at = models.DateTimeField(null=True, blank=True, help_text="When it refused; empty unless it stands.")
    refusal = models.TextField(blank=True, help_text="What it refused and what it said.")

    class Meta:
        ordering = ["witness"]

    def __str__(self):
        return self.witness
