"""Role groups and appointments. A Membership says where a role is held; the matching Django group gives
the admin permissions (regulators get view permissions only)."""

from django.contrib.auth.models import Group, Permission
from django.db import transaction

from .models import Membership, Role

VIEW_ALL_APPS = ("cardroom", "fees", "compliance", "signage")
# What compliance officers maintain (model names, app-qualified).
COMPLIANCE_MAINTAINS = (
    "cardroom.table", "cardroom.game", "cardroom.gamerules", "cardroom.betlimit", "cardroom.paytable",
    "cardroom.paytableline", "cardroom.statedhouseedge", "cardroom.approval", "cardroom.approvalcondition",
    "fees.scheduledocument", "fees.scheduleversion", "fees.feeoption", "fees.feetier",
)
# What floor supervisors and compliance officers both do: post tables (printing needs no model permission).
STAFF_POST = ("fees.tableposting", "fees.postingbonuslimit")
GROUP_NAMES = {
    Role.COMPLIANCE_OFFICER: "Compliance officers",
    Role.FLOOR_SUPERVISOR: "Floor supervisors",
    Role.REGULATOR: "Regulators",
}


def _permissions(actions, models=None):
    permissions = Permission.objects.filter(content_type__app_label__in=VIEW_ALL_APPS)
    chosen = []
    for permission in permissions.select_related("content_type"):
        action, _, _ = permission.codename.partition("_")
        label = f"{permission.content_type.app_label}.{permission.content_type.model}"
        if action in actions and (models is None or label in models):
            chosen.append(permission)
    return chosen


@transaction.atomic
def ensure_role_groups():
    view = _permissions({"view"})
    wanted = {
        Role.COMPLIANCE_OFFICER: view + _permissions({"add", "change", "delete"}, COMPLIANCE_MAINTAINS)
        + _permissions({"add"}, STAFF_POST + ("signage.printoverride",)),
        Role.FLOOR_SUPERVISOR: view + _permissions({"add"}, STAFF_POST),
        Role.REGULATOR: view,
    }
    for role, permissions in wanted.items():
        group, _ = Group.objects.get_or_create(name=GROUP_NAMES[role])
        if set(group.permissions.all()) != set(permissions):
            group.permissions.set(permissions)


@transaction.atomic
def appoint(user, role, *, establishment=None, jurisdiction=None):
    """Give ``user`` a role where it is held, with the admin access that goes with it."""
    membership, _ = Membership.objects.get_or_create(
        user=user, role=role, establishment=establishment, jurisdiction=jurisdiction
    )
    membership.full_clean()
    if role == Role.ADMIN:
        user.is_superuser = True
    else:
        ensure_role_groups()
        user.groups.add(Group.objects.get(name=GROUP_NAMES[role]))
    if not user.is_staff:
        user.is_staff = True
    user.save()
    return membership
