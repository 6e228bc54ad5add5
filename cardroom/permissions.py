"""Named permissions: the one registry of who may do what (django-rules, on top of ``cardroom.access.Scope``).

Every door asks here: services (``require``), DRF permission classes, the pages, templates (``{% has_perm %}``)
and the admin. Access comes from membership (a role in an establishment or a jurisdiction), not per-object rows.
"""

import rules

from .exceptions import NotAllowed


def require(user, name, obj=None):
    """Raise ``NotAllowed`` (with the permission's own sentence) unless ``user`` has permission ``name`` on ``obj``."""
    if not user.has_perm(name, obj):
        raise NotAllowed(refusal(name))


def allowed(user, name, obj=None):
    return user.has_perm(name, obj)


_REFUSALS = {}


def refusal(name):
    """The sentence a refused person reads: what the permission is and who holds it."""
    return _REFUSALS.get(name, "You may not do this.")


def add(name, predicate, refusal):
    """Register permission ``name`` ('app.verb_noun'), the predicate that grants it and the sentence for a refusal."""
    rules.add_perm(name, predicate)
    _REFUSALS[name] = refusal
