from cardroom.access import scope_of

from .access import roles_of


def navigation(request):
    """The role pages the navigation offers: only those the user may open."""
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {"nav_roles": []}
    return {"nav_roles": roles_of(scope_of(request))}
