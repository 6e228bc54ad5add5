"""Logging in, and each role's landing page."""

from django.contrib.auth import views as auth_views
from django.shortcuts import redirect, render

from cardroom import permissions
from cardroom.access import scope_of
from cardroom.inbox import awaiting

from ..access import asks, floor_establishments, public, roles_of

HOMES = {"floor": "console:floor-home", "compliance": "console:compliance-home",
         "regulator": "console:regulator-home", "admin": "console:admin-home"}


class LoginView(auth_views.LoginView):
    permission_name = permissions.PUBLIC
    template_name = "console/login.html"
    redirect_authenticated_user = True


@public  # everyone is sent on: to the login page, or to the home their permissions open
def home(request):
    """Where a login lands: the user's own home, or the login page."""
    if not request.user.is_authenticated:
        return redirect("console:login")
    roles = roles_of(scope_of(request))
    if not roles:
        return render(request, "console/no_role.html", status=403)
    if "admin" in roles:
        return redirect(HOMES["admin"])
    return redirect(HOMES[roles[0]])


@asks("console.view_admin")
def admin_home(request):
    """An administrator's home: the admin, and every role's pages."""
    if not request.user.is_authenticated:
        return redirect("console:login")
    if not permissions.allowed(request.user, "console.view_admin"):
        return render(request, "console/no_role.html", status=403)
    scope = scope_of(request)
    return render(request, "console/admin_home.html", {"establishments": floor_establishments(scope),
                                                       "awaiting": awaiting(request.user, scope=scope)})
