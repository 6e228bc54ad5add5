"""Logging in, and each role's landing page."""

from django.contrib.auth import views as auth_views
from django.shortcuts import redirect, render

from cardroom.access import scope_of
from cardroom.inbox import awaiting

from ..access import floor_establishments, roles_of

HOMES = {"floor": "console:floor-home", "compliance": "console:compliance-home",
         "regulator": "console:regulator-home", "admin": "console:admin-home"}


class LoginView(auth_views.LoginView):
    template_name = "console/login.html"
    redirect_authenticated_user = True


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


def admin_home(request):
    """An administrator's home: the admin, and every role's pages."""
    scope = scope_of(request)
    if not request.user.is_authenticated:
        return redirect("console:login")
    if not scope.is_admin:
        return render(request, "console/no_role.html", status=403)
    return render(request, "console/admin_home.html", {"establishments": floor_establishments(scope),
                                                       "awaiting": awaiting(request.user, scope=scope)})
