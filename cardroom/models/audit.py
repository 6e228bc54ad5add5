from django.conf import settings
from django.db import models

from cardroom.exceptions import StateConflict


class AppendOnlyError(StateConflict):
    """Raised when code tries to change or remove an audit-log entry."""


class AuditLogQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("The audit log is append-only: entries are never updated.")

    def delete(self):
        raise AppendOnlyError("The audit log is append-only: entries are never deleted.")


class AuditLogEntry(models.Model):
    """One action taken in the system (publish, import, print, export, ...) and who took it.

    Written only through ``cardroom.audit.log_action``; the application never updates or deletes an entry.
    """

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor_label = models.CharField(max_length=150, help_text="Username, or the command that acted.")
    action = models.CharField(max_length=60, db_index=True)
    object_type = models.CharField(max_length=100, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    object_repr = models.CharField(max_length=300, blank=True)
    establishment = models.ForeignKey(
        "cardroom.Establishment", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    jurisdiction = models.ForeignKey(
        "cardroom.Jurisdiction", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    data = models.JSONField(default=dict, blank=True)

    objects = AuditLogQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "audit log entry"
        verbose_name_plural = "audit log"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise AppendOnlyError("The audit log is append-only: entries are never updated.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("The audit log is append-only: entries are never deleted.")

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label} {self.action} {self.object_repr}"
