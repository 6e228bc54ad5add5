"""The API's one permission class: it asks the named-permission registry (cardroom.permissions).

A view declares the permission each of its actions needs, held anywhere (the view, or the service it calls, asks
again for the record itself)::

    permission_names = {"*": "cardroom.view_records", "acknowledge": "compliance.acknowledge_finding"}

keyed by viewset action (``list``, ``retrieve``, ``create``, a custom ``@action``'s name) or, for a plain APIView,
by HTTP method in lower case (``"signage:post"``: one action's one method), with ``"*"`` for the rest.
``NamedPermission("exports.verify_bundle")`` in ``permission_classes`` names one for the whole view instead. Anonymous requests get DRF's 401; a refusal is a 403
with the permission's own sentence. tests/project/test_permission_registry.py fails on a view that declares nothing.
"""

from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from cardroom import permissions

READ = "cardroom.view_records"


def permission_name(view, action, method=None):
    """The name ``view`` (a class or an instance) declares for ``action`` (an action or a lower-case method);
    an action answering two methods may name one per method (``"signage:post"``)."""
    named = getattr(view, "permission_names", None) or {}
    return named.get(f"{action}:{method}") or named.get(action) or named.get("*")


class NamedPermission(BasePermission):
    def __init__(self, name=None):
        self.name = name

    def __call__(self):
        return self  # DRF instantiates each entry of permission_classes: an instance stands for itself

    def name_for(self, request, view):
        if self.name:
            return self.name
        action = getattr(view, "action", None) or request.method.lower()
        if request.method == "OPTIONS" or action == "metadata":
            return READ
        # Undeclared: signed in, as before (tests/project/test_permission_registry.py finds it).
        return permission_name(view, action, request.method.lower()) or READ

    def has_permission(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return False  # DRF answers 401 with its challenge
        name = self.name_for(request, view)
        if not permissions.allowed(request.user, name):
            raise exceptions.PermissionDenied(permissions.refusal(name))
        return True
