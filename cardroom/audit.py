"""The one way to write to the audit log."""

from .models import AuditLogEntry


def log_action(action, *, actor=None, actor_label="", obj=None, establishment=None, jurisdiction=None, data=None):
    if actor is not None and not getattr(actor, "is_authenticated", False):
        actor = None
    label = actor_label or (actor.get_username() if actor else "system")
    return AuditLogEntry.objects.create(
        action=action,
        actor=actor,
        actor_label=label,
        object_type=obj._meta.label if obj is not None else "",
        object_id=str(obj.pk) if obj is not None else "",
        object_repr=str(obj)[:300] if obj is not None else "",
        establishment=establishment,
        jurisdiction=jurisdiction,
        data=data or {},
    )
