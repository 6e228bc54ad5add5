"""The second officer's inbox: what awaits this user's approval now, of the three kinds a second person approves
(a schedule version's publication, a print override, an interpretation), and who may approve a schedule's.

Who may approve is what the review steps check (``Scope.may_approve_schedule``, ``signage.postings.may_override``),
less the author: whoever asked for it cannot approve it (``cardroom.review``).
"""

import dataclasses
import datetime

from django.contrib.auth import get_user_model
from django.db.models import Q, Value
from django.urls import reverse

from .access import Scope
from .models import Establishment, Membership, Role


@dataclasses.dataclass(frozen=True)
class Awaiting:
    """One thing awaiting a second person, in words."""

    kind: str  # "schedule", "override" or "interpretation"
    what: str
    asked_by: str
    asked_at: datetime.datetime
    path: str  # the page where it is approved or refused
    establishment_id: int | None

    @property
    def kind_label(self):
        return KINDS[self.kind]


KINDS = {"schedule": "Publication of a schedule version", "override": "Print override",
         "interpretation": "Interpretation of a schedule"}


def _room_slug(document, scope, establishment=None):
    """The room whose pages show a document: its own, or (a jurisdiction's shared one) the page's or one of yours."""
    if document.establishment_id:
        return document.establishment.slug
    if establishment is not None and establishment.jurisdiction_id == document.jurisdiction_id:
        return establishment.slug
    rooms = Establishment.objects.filter(jurisdiction_id=document.jurisdiction_id).order_by("name")
    if not scope.is_admin:
        rooms = rooms.filter(pk__in=scope.staff_establishments) or rooms
    room = rooms.first()
    return room.slug if room else None


def awaiting(user, establishment=None, scope=None):
    """What ``user`` may approve now, oldest first; only what concerns ``establishment`` when one is given (its own
    items and its jurisdiction's shared schedules). One query when nothing awaits (the navigation counts it on
    every page); ``scope``: the request's, when at hand."""
    from fees.models import Interpretation, ScheduleVersion
    from signage.models import PrintOverride

    scope = scope or Scope(user)
    if not (scope.is_admin or scope.compliance_establishments):
        return []

    def approvable(prefix):
        # Scope.may_approve_schedule in SQL: an administrator anything, an officer their room's own schedules.
        q = Q() if scope.is_admin else Q(**{f"{prefix}establishment__in": scope.compliance_establishments})
        if establishment is not None:
            q &= Q(**{f"{prefix}establishment": establishment}) | Q(
                **{f"{prefix}establishment__isnull": True, f"{prefix}jurisdiction_id": establishment.jurisdiction_id})
        return q

    versions = (ScheduleVersion.objects.filter(approvable("document__"), status=ScheduleVersion.Status.IN_REVIEW)
                .exclude(review_requested_by=user))
    readings = (Interpretation.objects.filter(approvable("version__document__"),
                                              status=Interpretation.Status.PROPOSED).exclude(recorded_by=user))
    overrides = PrintOverride.objects.filter(status=PrintOverride.Status.REQUESTED).exclude(requested_by=user)
    if establishment is not None:
        overrides = overrides.filter(posting__table__establishment=establishment)
    elif not scope.is_admin:
        overrides = overrides.filter(posting__table__establishment__in=scope.compliance_establishments)
    found = {"schedule": set(), "interpretation": set(), "override": set()}
    for kind, pk in versions.order_by().values_list(Value("schedule"), "pk").union(
            readings.order_by().values_list(Value("interpretation"), "pk"),
            overrides.order_by().values_list(Value("override"), "pk"), all=True):
        found[kind].add(pk)
    items = []
    for v in (ScheduleVersion.objects.filter(pk__in=found["schedule"])
              .select_related("document__establishment", "review_requested_by")):
        slug = user.pk not in v.editors() and _room_slug(v.document, scope, establishment)  # editors may not approve
        if slug:
            items.append(Awaiting("schedule", f"{v.document.code} v{v.number}: {v.document.title}",
                                  v.review_requested_by.get_username() if v.review_requested_by else "",
                                  v.review_requested_at or v.created_at,
                                  reverse("console:compliance-publish", args=[slug, v.document.code, v.number]),
                                  v.document.establishment_id))
    for r in (Interpretation.objects.filter(pk__in=found["interpretation"])
              .select_related("version__document__establishment", "recorded_by")):
        document = r.version.document
        slug = _room_slug(document, scope, establishment)
        if slug:
            items.append(Awaiting("interpretation", str(r), r.recorded_by.get_username() if r.recorded_by else "",
                                  r.recorded_at, reverse("console:compliance-interpretations",
                                                         args=[slug, document.code, r.version.number]),
                                  document.establishment_id))
    for o in (PrintOverride.objects.filter(pk__in=found["override"])
              .select_related("posting__table__establishment", "requested_by")):
        room = o.posting.table.establishment
        items.append(Awaiting("override", f"Print table {room.name} {o.posting.table.label}'s sign despite "
                              f"{len(o.findings)} error finding{'s' if len(o.findings) != 1 else ''}",
                              o.requested_by.get_username(), o.requested_at,
                              reverse("console:compliance-override", args=[room.slug, o.posting_id]), room.pk))
    return sorted(items, key=lambda i: i.asked_at)


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

