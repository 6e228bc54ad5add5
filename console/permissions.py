"""The role pages' named permissions: each home and the pages under it (``cardroom.permissions``; registered in
``ConsoleConfig.ready``)."""

import rules

from cardroom.permissions import (is_administrator, is_compliance_officer_of_establishment, is_regulator, is_staff_of,
                                  on_scope)
from cardroom.registry import Permission


@on_scope
def has_any_role(scope, obj):
    return scope.is_admin or bool(scope.staff_establishments or scope.regulated_jurisdictions)


PERMISSIONS = (
    Permission("console.view_pages", has_any_role, "These pages are for the roles of this card room."),
    Permission("console.view_compliance", is_compliance_officer_of_establishment,
               "This page is for the compliance role."),
    Permission("console.view_floor", is_staff_of, "This page is for the floor role."),
    Permission("console.view_regulator", is_regulator, "This page is for the regulator role."),
    Permission("console.view_admin", is_administrator, "This page is for the admin role."),
    Permission("console.manage_sign_in", rules.is_authenticated & rules.is_active,
               "Sign in to manage your second factor and API token."),
)
