"""Appointing people to roles. A Membership says where a role is held (cardroom.access reads them); only the
administrator role opens the Django admin. Every appointment goes to the audit log. A role that must use a second
factor revokes the API tokens and sessions its person made without one (cardroom.credentials, wherever a membership
is saved)."""

from django.db import transaction

from .audit import log_action
from .models import Membership, Role


@transaction.atomic
def appoint(user, role, *, establishment=None, jurisdiction=None, by=None, actor_label=""):
    """Give ``user`` a role where it is held. ``by`` is who appointed them (None for a command)."""
    where = {"user": user, "role": role, "establishment": establishment, "jurisdiction": jurisdiction}
    membership = Membership.objects.filter(**where).first()
    created = membership is None
    if created:
        membership = Membership(**where)
        membership.full_clean()
        if by is not None:  # its history, and cardroom.credentials' revocation, name who appointed
            membership._history_user = by
        membership.save()
    if role == Role.ADMIN and not (user.is_superuser and user.is_staff):
        user.is_superuser = user.is_staff = True
        user.save(update_fields=["is_superuser", "is_staff"])
    if created:
        log_action("role.appoint", actor=by, actor_label=actor_label or ("" if by else "appoint"), obj=membership,
                   establishment=establishment, jurisdiction=jurisdiction or (establishment and
                                                                              establishment.jurisdiction),
                   data={"user": user.get_username(), "role": role})
    return membership
