"""Appointing people to roles. A Membership says where a role is held (cardroom.access reads them); only the
administrator role opens the Django admin. Every appointment goes to the audit log."""

from django.db import transaction

from .audit import log_action
from .models import Membership, Role


@transaction.atomic
def appoint(user, role, *, establishment=None, jurisdiction=None, by=None, actor_label=""):
    """Give ``user`` a role where it is held. ``by`` is who appointed them (None for a command)."""
    membership, created = Membership.objects.get_or_create(
        user=user, role=role, establishment=establishment, jurisdiction=jurisdiction
    )
    membership.full_clean()
    if role == Role.ADMIN and not (user.is_superuser and user.is_staff):
        user.is_superuser = user.is_staff = True
        user.save(update_fields=["is_superuser", "is_staff"])
    if created:
        log_action("role.appoint", actor=by, actor_label=actor_label or ("" if by else "appoint"), obj=membership,
                   establishment=establishment, jurisdiction=jurisdiction or (establishment and
                                                                              establishment.jurisdiction),
                   data={"user": user.get_username(), "role": role})
    return membership
