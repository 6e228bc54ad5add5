"""The second officer's inbox: what awaits this user's approval now, of every kind a second person approves (each
registered by the app that owns it: ``cardroom.registry.InboxKind``), and who may approve a schedule's.

Who may approve is what the review steps check (the named permissions ``fees.approve_schedule``,
``signage.override_print``), less the author: whoever asked for it cannot approve it (``cardroom.review``).
"""

import dataclasses
import datetime

from django.contrib.auth import get_user_model
from django.db.models import Q, Value

from . import permissions, registry
from .access import Scope
from .models import Establishment, Membership, Role
from .registry import InboxKind


@dataclasses.dataclass(frozen=True)
class Awaiting:
    """One thing awaiting a second person, in words."""

    kind: str  # a registered kind's name: "schedule", "override", "interpretation"
    what: str
    asked_by: str
    asked_at: datetime.datetime
    path: str  # the page where it is approved or refused
    establishment_id: int | None

    @property
    def kind_label(self):
        return registry.entry(InboxKind, self.kind).label

    @property
    def alert(self):
        return registry.entry(InboxKind, self.kind).alert


def room_slug(document, scope, establishment=None):
    """The room whose pages show a document: its own, or (a jurisdiction's shared one) the page's or one of yours."""
    if document.establishment_id:
        return document.establishment.slug
    if establishment is not None and establishment.jurisdiction_id == document.jurisdiction_id:
        return establishment.slug
    rooms = Establishment.objects.filter(jurisdiction_id=document.jurisdiction_id).order_by("name")
    room = permissions.rows(scope, "console.view_floor", rooms).first() or rooms.first()  # one where you work, if any
    return room.slug if room else None


def concerning(establishment, prefix):
    """The schedules' steps (rows reached through ``prefix``, e.g. "document__") that concern ``establishment``: its
    own schedules' and its jurisdiction's shared ones'; every one when it is None. Who may approve them is
    ``fees.approve_schedule`` (``permissions.rows``)."""
    if establishment is None:
        return Q()
    return Q(**{f"{prefix}establishment": establishment}) | Q(
        **{f"{prefix}establishment__isnull": True, f"{prefix}jurisdiction_id": establishment.jurisdiction_id})


def _waiting(user, establishment, scope, one_each=False):
    """``(kinds, {kind name: pks}, scope)`` of what awaits ``user`` (one query), or None when nothing can;
    ``one_each``: a pk per item, for the kinds that group their rows (``InboxKind.one_each``)."""
    scope = scope or Scope(user)
    kinds = registry.entries(InboxKind)
    if not (scope.is_admin or scope.compliance_establishments) or not kinds:
        return None
    waiting = [kind.one_each(kind.waiting(user, scope, establishment).order_by()).values_list(Value(kind.name), "first")
               if one_each and kind.one_each else
               kind.waiting(user, scope, establishment).order_by().values_list(Value(kind.name), "pk")
               for kind in kinds]
    found = {kind.name: set() for kind in kinds}
    for name, pk in waiting[0].union(*waiting[1:], all=True):
        found[name].add(pk)
    return kinds, found, scope


def awaiting(user, establishment=None, scope=None):
    """What ``user`` may approve now, oldest first; only what concerns ``establishment`` when one is given (its own
    items and its jurisdiction's shared schedules). One query when nothing awaits; ``scope``: the request's, when
    at hand."""
    waiting = _waiting(user, establishment, scope)
    if waiting is None:
        return []
    kinds, found, scope = waiting
    items = []
    for kind in kinds:
        if found[kind.name]:
            items.extend(kind.items(found[kind.name], user, scope, establishment))
    return sorted(items, key=lambda i: i.asked_at)


def awaiting_count(user, scope=None):
    """``len(awaiting(user))``, as the navigation shows it on every page: a kind that makes one item of many rows
    counts its items in the same query (``InboxKind.one_each``: a room's open errors are hundreds of rows at 200
    tables, a few problems)."""
    waiting = _waiting(user, None, scope, one_each=True)
    if waiting is None:
        return 0
    kinds, found, scope = waiting
    return sum((len(found[kind.name]) if kind.one_each else len(kind.items(found[kind.name], user, scope, None)))
               for kind in kinds if found[kind.name])


def schedule_approvers(document, exclude=()):
    """The people who may approve a schedule's publication or readings: the room's compliance officers for its own
    schedules, the administrators for a jurisdiction's shared ones; ``exclude``: user ids (the author)."""
    users = get_user_model().objects.filter(is_active=True)
    if document.establishment_id:
        users = users.filter(memberships__role=Role.COMPLIANCE_OFFICER,
                             memberships__establishment_id=document.establishment_id)
    else:
        users = admins(users)
    return list(users.exclude(pk__in=[pk for pk in exclude if pk]).distinct().order_by("username"))


def room_approvers(establishment, exclude=()):
    """The compliance officers of a room (those who approve its print overrides), less ``exclude``."""
    users = get_user_model().objects.filter(
        is_active=True, memberships__role=Role.COMPLIANCE_OFFICER, memberships__establishment=establishment)
    return list(users.exclude(pk__in=[pk for pk in exclude if pk]).distinct().order_by("username"))


def admins(users=None):
    users = users if users is not None else get_user_model().objects.filter(is_active=True)
    return users.filter(Q(is_superuser=True) | Q(pk__in=Membership.objects.filter(role=Role.ADMIN).values("user")))

