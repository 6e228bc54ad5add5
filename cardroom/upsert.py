"""Create-or-update that writes only when something changed, so re-running an import is a no-op
(no new history rows, no audit entries)."""


def upsert(model, lookup, values, *, reason="Seed data import"):
    """Return (instance, created, changed)."""
    instance = model.objects.filter(**lookup).first()
    if instance is None:
        instance = model(**lookup, **values)
        instance._change_reason = reason
        instance.save()
        return instance, True, True
    changed = [name for name, value in values.items() if getattr(instance, name) != value]
    if changed:
        for name in changed:
            setattr(instance, name, values[name])
        instance._change_reason = f"{reason}: {', '.join(changed)} changed"
        instance.save()
    return instance, False, bool(changed)
