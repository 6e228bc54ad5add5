"""Two people: a change that one person asks for takes effect only when a second person approves it.

Used for publishing a schedule version, a compliance override of a posting and an interpretation of a source:
whoever wrote or last changed the thing, or asked for it, cannot be the one who approves it.
"""

from .exceptions import NotAllowed


def require_second_person(user, involved, what):
    """Raise NotAllowed if ``user`` is among ``involved`` (user ids of those who wrote, changed or asked)."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise NotAllowed(f"{what} needs a second person signed in to approve it.")
    if user.pk in {pk for pk in involved if pk is not None}:
        raise NotAllowed(f"{what} needs a second person: you wrote, changed or asked for it, so someone else must "
                         "approve it.")
