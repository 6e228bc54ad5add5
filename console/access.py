"""Who reaches which page: the named permissions (cardroom.permissions) on the same Scope the API uses, and the
one place a page's errors become its answer.

A page names the permission it needs (``@requires("console.view_floor")``, or ``@page(role)`` for a role's pages);
a user without it gets 403 (or the login page when anonymous), and an establishment or jurisdiction outside the
user's scope is a 404, exactly as in the API. What a service raises and the view does not answer itself becomes:
``BadInput`` a 400 page, ``NotAllowed`` the 403 page, ``StateConflict`` a 409 page, each with its message.
"""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from cardroom import permissions
from cardroom.access import scope_of
from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.models import Establishment, Jurisdiction
from cardroom.permissions import public  # noqa: F401  (the pages' public declaration, here with the rest)
from cardroom.responses import error_response


def roles_of(scope):
    """The homes a user may open, in the order the navigation shows them; the first is where a login lands."""
    # Compliance officers work the floor too (they print and post): console.view_floor is theirs as well.
    return [role for role in ("compliance", "floor", "regulator", "admin")
            if permissions.allowed(scope.user, f"console.view_{role}")]


def requires(name):
    """Decorate a page that needs the named permission (held anywhere; the view asks again for the record it
    shows): it receives the request's Scope as ``scope``. The view's ``permission_name`` says which, for the test
    that walks every address (tests/project/test_permission_registry.py)."""
    def decorate(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            try:
                permissions.require(request.user, name)
                return view(request, *args, scope=scope_of(request), **kwargs)
            except (BadInput, NotAllowed, StateConflict) as error:
                return answer(request, error)
        wrapped.permission_name = name
        return wrapped
    return decorate


def page(role):
    """Decorate a view for one role's pages ("any": every role's): ``requires("console.view_<role>")``."""
    return requires("console.view_pages" if role == "any" else f"console.view_{role}")


def asks(name):
    """Declare a page that asks the registry for ``name`` itself (its refusal is a page of its own)."""
    def decorate(view):
        view.permission_name = name
        return view
    return decorate


def answer(request, error):
    """A service's error as the page's answer: 400 or 409 with its message, the 403 page for NotAllowed."""
    if isinstance(error, NotAllowed):
        raise PermissionDenied(str(error)) from None
    if isinstance(error, StateConflict):
        return error_response(request, 409, "conflict", str(error))
    return error_response(request, 400, "error", str(error))


def _rooms():
    return Establishment.objects.select_related("jurisdiction").order_by("name")


def floor_establishments(scope):
    return permissions.rows(scope, "console.view_floor", _rooms())


def compliance_establishments(scope):
    return permissions.rows(scope, "console.view_compliance", _rooms())


def regulated_jurisdictions(scope):
    return permissions.rows(scope, "console.view_regulator", Jurisdiction.objects.order_by("name"))


def regulated_establishments(scope):
    return permissions.rows(scope, "console.view_regulator", _rooms())


def establishment_or_404(queryset, slug):
    return get_object_or_404(queryset, slug=slug)
