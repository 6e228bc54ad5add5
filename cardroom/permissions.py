"""Named permissions: the one registry of who may do what (django-rules, on top of ``cardroom.access.Scope``).

Every door asks here: services (``require``), DRF permission classes (``cardroom.api.permissions``), the pages
(``console.access.requires``), templates (``{% has_perm %}``) and the admin. Access comes from membership (a role in
an establishment or a jurisdiction), not per-object rows, so every predicate reads the user's Scope, which is
computed once per request and kept on the user object (``cardroom.access.scope_for``).

A permission asked with no object (``obj=None``) answers whether the user holds it anywhere: what a door checks
before it has the record, and what a page asks to decide whether to show a button at all. Asked with an object it
answers for that record. Objects are duck-typed (``establishment_id``, ``jurisdiction_id``): core imports no app.

Which rows may I see, change, approve: the same names answer it (``rows(scope, name, queryset)``, as pretix's
``get_events_with_permission``). A place-based predicate is written once, as the Places where a user holds it
(``on_places``), and answers both for one object and, as one filter, for every row of a model; a door never writes
``qs if scope.is_admin else qs.filter(...)`` itself. tests/project/test_permission_registry.py holds the two halves
to the same answer.

Names read ``app.verb_noun``; docs/architecture.md lists them with who holds them and the doors that ask.
"""

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import reduce
from operator import or_

import rules
from django.db.models import Q

from . import registry
from .access import scope_for
from .exceptions import NotAllowed
from .models import Establishment, Job, Jurisdiction
from .registry import JobKind, Permission


class _Installation:
    def __repr__(self):
        return "SYSTEM"


# The installation acting itself, with no person: the scheduler's tasks and a command an operator runs on the server.
# Services take it as their actor and record no person; no door passes it (a door passes the request's user).
SYSTEM = _Installation()


def require(user, name, obj=None):
    """Raise ``NotAllowed`` (with the permission's own sentence) unless ``user`` has permission ``name`` on ``obj``
    (``SYSTEM`` holds every permission)."""
    if user is SYSTEM:
        return
    if not allowed(user, name, obj):
        raise NotAllowed(refusal(name, obj))


def require_of(scope, name, obj=None):
    """``require`` for the user of a Scope in hand; a Scope with no user is the installation acting itself (a
    command run with its own authority, ``is_admin``), which holds every permission it was given."""
    if scope.user is None:
        if not scope.is_admin:
            raise NotAllowed(refusal(name, obj))
        return
    require(scope.user, name, obj)


def allowed(user, name, obj=None):
    if registry.find(Permission, name) is None:
        raise KeyError(f"No permission named {name!r} (cardroom.permissions).")
    # The registry itself, not user.has_perm: Django's ModelBackend would answer a "no" with two queries for the
    # model permissions nothing here uses. (user.has_perm(name, obj) gives the same answer, through rules' backend.)
    return bool(user is not None and rules.has_perm(name, user, obj))


def rows(scope, name, queryset, via=""):
    """The selector half: the rows of ``queryset`` on which the user of ``scope`` holds permission ``name`` (those
    ``allowed`` says yes for), as one filter read from the same Scope. ``via``: the relation from a row to what the
    permission is asked of ("posting__table": an override's table). It takes the Scope a door that lists rows has at
    hand (``scope_of(request)``); a command's, with no user and ``is_admin``, is the installation's: every row."""
    return queryset.filter(where(scope, name, queryset.model, via))


def where(scope, name, model, via=""):
    """``rows`` as a Q over ``model``'s rows, for a door that combines it with another."""
    select = getattr(getattr(registry.find(Permission, name), "predicate", None), "select", None)
    if select is None:
        raise KeyError(f"No permission named {name!r} answers which rows (cardroom.permissions).")
    if not (scope.is_admin or _signed_in(scope.user)):
        return NO_ROW
    return select(scope, PlacePaths(model, via))


PUBLIC = "public"  # what a door that needs no permission declares (login, health, the keys file, the API docs)


def public(view):
    """Declare a page anyone may open (the login page, a sign's QR page): the test of every door accepts it."""
    view.permission_name = PUBLIC
    return view


def declares(name):
    """Declare the permission a door asks (an admin action, a function view): the test of every door reads it."""
    def declare(door):
        door.permission_name = name
        return door
    return declare


def refusal(name, obj=None):
    """The sentence a refused person reads: what the permission is and who holds it."""
    permission = registry.find(Permission, name)
    sentence = permission.refusal if permission is not None else "You may not do this."
    return sentence(obj) if callable(sentence) else sentence


def names():
    """Every registered permission name (``cardroom.registry.Permission``, each app's own), sorted."""
    return sorted(p.name for p in registry.entries(Permission))


def selectors():
    """Every permission name that answers which rows (``rows``): its predicate knows which rows it grants
    (``on_places``), sorted."""
    return sorted(p.name for p in registry.entries(Permission) if hasattr(p.predicate, "select"))


def _signed_in(user):
    return user is not None and user.is_authenticated and user.is_active


def on_scope(test):
    """A predicate from ``test(scope, obj)``; inactive and anonymous users hold nothing."""
    @rules.predicate(name=test.__name__)
    def predicate(user, obj=None):
        if not _signed_in(user):
            return False
        return bool(test(scope_for(user), obj))
    return predicate


def on_places(places):
    """A predicate from ``places(scope)``, the Places where a user holds it, with its selector half
    (``predicate.select(scope, paths)``: the same Places as one filter over a model's rows)."""
    def test(scope, obj):
        return places(scope).hold(obj)
    test.__name__ = places.__name__
    predicate = on_scope(test)
    predicate.places = places
    predicate.select = lambda scope, paths: places(scope).q(paths)
    return predicate


# -- where an object belongs -------------------------------------------------------------------------------------

def establishment_id(obj):
    """The establishment an object belongs to (an Establishment, a table, a posting's table, a finding...), or None."""
    if isinstance(obj, Establishment):
        return obj.pk
    if hasattr(obj, "establishment_id"):
        return obj.establishment_id
    table = getattr(obj, "table", None)
    return getattr(table, "establishment_id", None)


def establishment_jurisdiction_id(obj):
    """The jurisdiction of the establishment an object belongs to, or None."""
    if isinstance(obj, Establishment):
        return obj.jurisdiction_id
    holder = obj if hasattr(obj, "establishment_id") else getattr(obj, "table", None)
    return getattr(getattr(holder, "establishment", None), "jurisdiction_id", None)


def jurisdiction_id(obj):
    if isinstance(obj, Jurisdiction):
        return obj.pk
    return getattr(obj, "jurisdiction_id", None)


class PlacePaths:
    """Where the rows of a model belong, as query paths: what ``establishment_id``, ``establishment_jurisdiction_id``
    and ``jurisdiction_id`` read from one row, for rows reached through ``via`` ("posting__table": an override's
    table). ``prefix`` leads from the queried model to them."""

    def __init__(self, model, via=""):
        for name in via.split("__") if via else ():
            model = model._meta.get_field(name).related_model
        self.model, self.prefix = model, f"{via}__" if via else ""
        fields = {field.name for field in model._meta.concrete_fields}
        self.establishment = self.establishment_jurisdiction = self.jurisdiction = None
        if model is Establishment:
            self.establishment, self.establishment_jurisdiction = via or "pk", f"{self.prefix}jurisdiction"
            return
        if model is Jurisdiction:
            self.jurisdiction = via or "pk"
            return
        if "establishment" in fields:
            self.establishment = f"{self.prefix}establishment"
        elif "table" in fields:
            self.establishment = f"{self.prefix}table__establishment"
        if self.establishment:
            self.establishment_jurisdiction = f"{self.establishment}__jurisdiction"
        if "jurisdiction" in fields:
            self.jurisdiction = f"{self.prefix}jurisdiction"


# Every row and no row, as filters that keep their meaning when combined (an empty Q() drops out of an OR): Django
# compiles an empty IN to "no row" without asking the database, and its negation to no condition at all.
EVERY_ROW, NO_ROW = ~Q(pk__in=[]), Q(pk__in=[])


@dataclass(frozen=True)
class Places:
    """Where a user holds a permission, read from their Scope: the rows of these establishments, the rows of every
    establishment in these jurisdictions, and the jurisdiction-wide rows (no establishment) of these jurisdictions.
    An administrator holds it everywhere. One description, two halves: ``hold`` answers for one object, ``q`` for
    every row of a model at once."""

    establishments: AbstractSet = frozenset()
    in_jurisdictions: AbstractSet = frozenset()
    jurisdiction_wide: AbstractSet = frozenset()
    everywhere: bool = False

    @classmethod
    def of(cls, scope, **places):
        return cls(everywhere=True) if scope.is_admin else cls(**places)

    def hold(self, obj):
        """Whether the permission is held on ``obj`` (None: anywhere)."""
        if self.everywhere:
            return True
        if obj is None:
            return bool(self.establishments or self.in_jurisdictions or self.jurisdiction_wide)
        place = establishment_id(obj)
        if place is None:
            return jurisdiction_id(obj) in self.jurisdiction_wide
        return place in self.establishments or bool(
            self.in_jurisdictions and establishment_jurisdiction_id(obj) in self.in_jurisdictions)

    def q(self, paths):
        """The rows it is held on, as one filter over the rows whose ``PlacePaths`` are given: no row is asked about
        alone."""
        if self.everywhere:
            return EVERY_ROW
        held = []
        if paths.establishment and self.establishments:
            held.append(Q(**{f"{paths.establishment}__in": self.establishments}))
        if paths.establishment_jurisdiction and self.in_jurisdictions:
            held.append(Q(**{f"{paths.establishment_jurisdiction}__in": self.in_jurisdictions}))
        if paths.jurisdiction and self.jurisdiction_wide:
            wide = {f"{paths.jurisdiction}__in": self.jurisdiction_wide}
            if paths.establishment:
                wide[f"{paths.establishment}__isnull"] = True
            held.append(Q(**wide))
        return reduce(or_, held) if held else NO_ROW


# -- the predicates ----------------------------------------------------------------------------------------------

@on_places
def is_administrator(scope):
    return Places.of(scope)


@on_places
def is_staff_of(scope):
    """Floor supervisors and compliance officers of the object's establishment."""
    return Places.of(scope, establishments=scope.staff_establishments)


@on_places
def is_compliance_officer_of(scope):
    """Compliance officers of the object's establishment; of its jurisdiction for a jurisdiction-wide row (a finding,
    a jurisdiction's shared schedule: compliance officers maintain their establishment's schedules and their
    jurisdiction's shared ones)."""
    return Places.of(scope, establishments=scope.compliance_establishments,
                     jurisdiction_wide=scope.compliance_jurisdictions)


@on_places
def is_compliance_officer_of_establishment(scope):
    """Compliance officers of the object's establishment only (a jurisdiction-wide row: administrators)."""
    return Places.of(scope, establishments=scope.compliance_establishments)


def regulated(scope, **places):
    """The regulators' Places (every row of their jurisdictions), and ``places`` besides."""
    return Places.of(scope, in_jurisdictions=scope.regulated_jurisdictions,
                     jurisdiction_wide=scope.regulated_jurisdictions, **places)


@on_places
def is_regulator(scope):
    """Regulators of the object's jurisdiction (an establishment's, or a jurisdiction-wide row's)."""
    return regulated(scope)


# Reading. A record belongs where it is placed (Scope.placed_q): its establishment's staff and its jurisdiction's
# regulators see it, and a jurisdiction-wide one everyone with a role in that jurisdiction. A job is seen as its kind
# says (``cardroom.registry.JobKind``: ``places``, and whoever asked for it where ``asker`` is set); a kind that says
# neither (a ledger import) by administrators only.

def _records(scope):
    return Places.of(scope, establishments=scope.staff_establishments, in_jurisdictions=scope.regulated_jurisdictions,
                     jurisdiction_wide=scope.jurisdictions)


def nowhere(scope):
    return Places()


def _sees(scope, obj):
    if scope.is_admin:
        return True
    if isinstance(obj, Job):
        kind = registry.find(JobKind, obj.kind)
        if kind is None:
            return False
        return (kind.asker and obj.requested_by_id == scope.user.pk) or (kind.places or nowhere)(scope).hold(obj)
    return _records(scope).hold(obj)


@rules.predicate
def sees_record(user, obj=None):
    """Anyone signed in reads (None), every answer limited to what they may see, without their Scope being read (a
    quote seen before answers from its cache alone); a record or a job: as above."""
    return _signed_in(user) and (obj is None or _sees(scope_for(user), obj))


def _select_records(scope, paths):
    if scope.is_admin:
        return EVERY_ROW
    if paths.model is not Job:
        return _records(scope).q(paths)
    kinds = []
    for kind in registry.entries(JobKind):
        if not (kind.asker or kind.places):
            continue
        readers = (kind.places or nowhere)(scope).q(paths)
        if kind.asker:
            readers = Q(**{f"{paths.prefix}requested_by": scope.user}) | readers
        kinds.append(Q(**{f"{paths.prefix}kind": kind.value}) & readers)
    return reduce(or_, kinds) if kinds else NO_ROW


sees_record.select = _select_records


# -- the core's own: each app registers its own (its permissions module, from its AppConfig.ready) -------------------

# Reading: every API list and page answers only what the user's memberships let them see (``sees_record``).
PERMISSIONS = (
    Permission("cardroom.view_records", sees_record,
               "Sign in to read: every answer is limited to the establishments and jurisdictions you hold a role in."),
    Permission("cardroom.use_admin", is_administrator,
               "The admin is for administrators: work through the API and your role's pages."),
    Permission("cardroom.record_condition", is_compliance_officer_of_establishment,
               lambda obj: "Only compliance officers of this establishment withdraw its records." if obj is not None
               and not isinstance(obj, Establishment) else "Only compliance officers of the establishment record "
                                                           "approval conditions met."),
)

