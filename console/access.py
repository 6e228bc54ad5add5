"""Who reaches which page: the same Scope the API uses (cardroom.access), one place for the role pages.

A page names the role it serves; a user without it gets 403 (or the login page when anonymous), and an
establishment or jurisdiction outside the user's scope is a 404, exactly as in the API.
"""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from cardroom.access import scope_of
from cardroom.models import Establishment, Jurisdiction


def roles_of(scope):
    """The homes a user may open, in the order the navigation shows them; the first is where a login lands."""
    homes = []
    if scope.compliance_establishments or scope.is_admin:
        homes.append("compliance")
    if scope.staff_establishments or scope.is_admin:
        homes.append("floor")  # compliance officers work the floor too (they print and post)
    if scope.regulated_jurisdictions or scope.is_admin:
        homes.append("regulator")
    if scope.is_admin:
        homes.append("admin")
    return homes


def page(role):
    """Decorate a view for one role ("any": every role): it receives the request's Scope as ``scope``."""
    def decorate(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            scope = scope_of(request)
            if not roles_of(scope) or (role != "any" and role not in roles_of(scope)):
                raise PermissionDenied(f"This page is for the {role} role.")
            return view(request, *args, scope=scope, **kwargs)
        return wrapped
    return decorate


def floor_establishments(scope):
    qs = Establishment.objects.select_related("jurisdiction").order_by("name")
    return qs if scope.is_admin else qs.filter(pk__in=scope.staff_establishments)


def compliance_establishments(scope):
    qs = Establishment.objects.select_related("jurisdiction").order_by("name")
    return qs if scope.is_admin else qs.filter(pk__in=scope.compliance_establishments)


def regulated_jurisdictions(scope):
    qs = Jurisdiction.objects.order_by("name")
    return qs if scope.is_admin else qs.filter(pk__in=scope.regulated_jurisdictions)


def regulated_establishments(scope):
    qs = Establishment.objects.select_related("jurisdiction").order_by("name")
    return qs if scope.is_admin else qs.filter(jurisdiction__in=scope.regulated_jurisdictions)


def establishment_or_404(queryset, slug):
    return get_object_or_404(queryset, slug=slug)
