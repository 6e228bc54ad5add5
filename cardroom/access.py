"""Who may see and change what. Every queryset the API or admin serves passes through here.

- admin (superuser or the admin role): everything;
- compliance officer, floor supervisor: their establishment, and the jurisdiction-wide data of its
  jurisdiction (e.g. GEGA-002888 for a California card room); compliance officers alone see drafts and
  may change schedules;
- regulator: every establishment in their jurisdiction, read-only; published data only;
- anyone else: nothing.
"""

import copy
import itertools

from django.db.models import Q
from django.db.models.signals import post_delete, post_save

from . import generation
from .models import Jurisdiction, Membership, Role

# Bumped whenever a membership is saved or deleted: a Scope kept on a user object is recomputed after that, so a
# test (or an admin request) that changes memberships between two questions never reads a stale answer.
_generation = itertools.count()
_current = next(_generation)


def _memberships_changed(**kwargs):
    global _current
    _current = next(_generation)
    generation.bump()  # and in every process: a role granted or revoked changes who may quote what


post_save.connect(_memberships_changed, sender=Membership, dispatch_uid="cardroom.access.memberships")
post_delete.connect(_memberships_changed, sender=Membership, dispatch_uid="cardroom.access.memberships")


def scope_for(user):
    """``user``'s Scope, kept on the user object: one membership query per request (the request's user object
    lives as long as the request), recomputed when memberships change or the user's own flags do."""
    key = (_current, getattr(user, "pk", None), getattr(user, "is_active", False), getattr(user, "is_superuser", False))
    cached = getattr(user, "_cardroom_scope", None)
    if cached is None or cached[0] != key:
        cached = (key, Scope(user))
        if user is not None:
            user._cardroom_scope = cached
    return cached[1]


def remembered_scope(user, memory):
    """``scope_for``, remembered in ``memory`` (``cardroom.generation``: forgotten when a membership or the user
    changes), and kept on the user object as ``scope_for`` keeps it, so the permission registry reads it too."""
    if not (user and user.is_authenticated):
        return scope_for(user)
    key = (_current, user.pk, user.is_active, user.is_superuser)
    scope = memory.get("scope", key[1:])
    if scope is None:
        scope = memory.keep("scope", key[1:], Scope(user))
    scope = copy.copy(scope)  # the sets are shared (never changed after reading); the user is this request's
    scope.user = user
    user._cardroom_scope = (key, scope)
    return scope


def scope_of(request):
    """The requesting user's Scope, computed once per request (admin, API, pages and the permission registry)."""
    return scope_for(request.user)


class Scope:
    """What one user may see, computed once per request."""

    def __init__(self, user):
        self.user = user
        self.is_admin = False
        self.staff_establishments = set()  # establishment ids with a staff role
        self.compliance_establishments = set()
        self.regulated_jurisdictions = set()  # jurisdiction ids with the regulator role
        self.jurisdictions = set()
        self.compliance_jurisdictions = set()
        if not (user and user.is_authenticated and user.is_active):
            return
        if user.is_superuser:
            self.is_admin = True
            return
        staff_jurisdictions = set()
        self.compliance_jurisdictions = set()
        # One query: this runs on every API request.
        for role, establishment_id, jurisdiction_id, establishment_jurisdiction_id in Membership.objects.filter(
            user=user
        ).values_list("role", "establishment_id", "jurisdiction_id", "establishment__jurisdiction_id"):
            if role == Role.ADMIN:
                self.is_admin = True
            elif role == Role.REGULATOR:
                self.regulated_jurisdictions.add(jurisdiction_id)
            else:
                self.staff_establishments.add(establishment_id)
                staff_jurisdictions.add(establishment_jurisdiction_id)
                if role == Role.COMPLIANCE_OFFICER:
                    self.compliance_establishments.add(establishment_id)
                    self.compliance_jurisdictions.add(establishment_jurisdiction_id)
        self.jurisdictions = self.regulated_jurisdictions | staff_jurisdictions

    def sees_placed(self, establishment_id, establishment_jurisdiction_id, jurisdiction_id):
        """``placed_q`` for one row already in hand: an establishment's row, or a jurisdiction-wide one."""
        if self.is_admin:
            return True
        if establishment_id is None:
            return jurisdiction_id in self.jurisdictions
        return (
            establishment_id in self.staff_establishments
            or establishment_jurisdiction_id in self.regulated_jurisdictions
        )

    def establishments_q(self, prefix=""):
        """Q for rows whose establishment (reached through ``prefix``) this user may see."""
        if self.is_admin:
            return Q()
        return Q(**{f"{prefix}pk__in": self.staff_establishments}) | Q(
            **{f"{prefix}jurisdiction__in": self.regulated_jurisdictions}
        )

    def placed_q(self, prefix=""):
        """Q for rows that belong to an establishment, or to a whole jurisdiction when that is blank."""
        if self.is_admin:
            return Q()
        return self.establishments_q(f"{prefix}establishment__") | Q(
            **{f"{prefix}establishment__isnull": True, f"{prefix}jurisdiction__in": self.jurisdictions}
        )

    def jurisdictions_qs(self):
        qs = Jurisdiction.objects.all()
        return qs if self.is_admin else qs.filter(pk__in=self.jurisdictions)

    def games_q(self, prefix=""):
        """A game is visible where it is approved, scheduled or set up at a table the user may see."""
        if self.is_admin:
            return Q()
        return (
            self.placed_q(f"{prefix}approvals__")
            | self.placed_q(f"{prefix}schedules__")
            | self.establishments_q(f"{prefix}tables__establishment__")
        )
