"""Saving and deleting records by hand (the admin, a draft edited through the API): validated, kept in the
history with the reason, and written to the hash-chained audit log with what changed, old and new.

Operations with rules of their own (publishing a version, posting a table, acknowledging a finding, recording
collections) have their own services; this is the one way for everything else, so that no change of
regulatory data, from any door, bypasses ``log_action``.
"""

from django.db import transaction

from .audit import log_action

# Never written to the log: a password's hash, an API token.
SECRET_FIELDS = {"password", "key"}
# Followed from a record to the place (establishment or jurisdiction) whose audit chain its changes go to.
PARENTS = ("document", "version", "option", "approval", "posting", "table", "paytable", "run")


def place_of(obj):
    """(establishment, jurisdiction) a record belongs to; (None, None) for installation-wide records (games,
    sources, users)."""
    from .models import Establishment, Jurisdiction

    for _ in range(len(PARENTS) + 1):
        if isinstance(obj, Establishment):
            return obj, obj.jurisdiction
        if isinstance(obj, Jurisdiction):
            return None, obj
        establishment = getattr(obj, "establishment", None)
        if establishment is not None:
            return establishment, establishment.jurisdiction
        jurisdiction = getattr(obj, "jurisdiction", None)
        if isinstance(jurisdiction, Jurisdiction):
            return None, jurisdiction
        parent = next((getattr(obj, name) for name in PARENTS if getattr(obj, name, None) is not None), None)
        if parent is None:
            return None, None
        obj = parent
    return None, None


def snapshot(obj):
    """The record's stored values by column, secrets masked."""
    values = {}
    for field in obj._meta.concrete_fields:
        value = getattr(obj, field.attname)
        values[field.name] = "(hidden)" if field.name in SECRET_FIELDS and value else value
    return values


def differences(before, after):
    return {name: [before.get(name), value] for name, value in after.items() if before.get(name) != value}


def _action(obj, verb):
    return f"{obj._meta.app_label}.{obj._meta.model_name}.{verb}"


@transaction.atomic
def save(obj, *, user, reason, actor_label=""):
    """Save ``obj`` (already validated by its form or serializer) and log what changed and why."""
    created = obj._state.adding
    before = {} if created else snapshot(type(obj)._base_manager.get(pk=obj.pk))
    obj._change_reason = reason
    _record_who(obj, user)
    obj.save()
    changed = differences(before, snapshot(obj))
    if created or changed:
        establishment, jurisdiction = place_of(obj)
        log_action(_action(obj, "create" if created else "change"), actor=user, actor_label=actor_label, obj=obj,
                   establishment=establishment, jurisdiction=jurisdiction,
                   data={"reason": reason, "changes": changed})
    return obj


@transaction.atomic
def save_related(obj, field, *, user, reason):
    """After a many-to-many field of ``obj`` was set: log its new members."""
    members = sorted(str(member) for member in getattr(obj, field).all())
    establishment, jurisdiction = place_of(obj)
    log_action(_action(obj, "change"), actor=user, obj=obj, establishment=establishment, jurisdiction=jurisdiction,
               data={"reason": reason, "changes": {field: members}})


@transaction.atomic
def delete(obj, *, user, reason):
    """Delete ``obj`` (records that may never be deleted refuse, see cardroom.models.guards) and log what it was."""
    establishment, jurisdiction = place_of(obj)
    log_action(_action(obj, "delete"), actor=user, obj=obj, establishment=establishment, jurisdiction=jurisdiction,
               data={"reason": reason, "removed": snapshot(obj)})
    obj._change_reason = reason
    _record_who(obj, user)
    obj.delete()


def _record_who(obj, user):
    """The history names the person even outside a request (a command, a service called directly)."""
    if getattr(user, "is_authenticated", False):
        obj._history_user = user
