from cardroom.access import scope_of
from cardroom.inbox import awaiting_count

from .access import roles_of


def navigation(request):
    """The role pages the navigation offers: only those the user may open; and how many things await the user's
    approval (the count beside Compliance)."""
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {"nav_roles": []}
    scope = scope_of(request)
    roles = roles_of(scope)
    return {"nav_roles": roles, "nav_awaiting": awaiting_count(request.user, scope=scope) if "compliance" in roles
            else 0}
