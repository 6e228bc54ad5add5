"""Named permissions: the one registry of who may do what (django-rules, on top of ``cardroom.access.Scope``).

Every door asks here: services (``require``), DRF permission classes (``cardroom.api.permissions``), the pages
(``console.access.requires``), templates (``{% has_perm %}``) and the admin. Access comes from membership (a role in
an establishment or a jurisdiction), not per-object rows, so every predicate reads the user's Scope, which is
computed once per request and kept on the user object (``cardroom.access.scope_for``).

A permission asked with no object (``obj=None``) answers whether the user holds it anywhere: what a door checks
before it has the record, and what a page asks to decide whether to show a button at all. Asked with an object it
answers for that record. Objects are duck-typed (``establishment_id``, ``jurisdiction_id``): core imports no app.

Names read ``app.verb_noun``; docs/architecture.md lists them with who holds them and the doors that ask.
"""

import rules

from .access import scope_for
from .exceptions import NotAllowed
from .models import Establishment, Jurisdiction


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
    if name not in _REFUSALS:
        raise KeyError(f"No permission named {name!r} (cardroom.permissions).")
    # The registry itself, not user.has_perm: Django's ModelBackend would answer a "no" with two queries for the
    # model permissions nothing here uses. (user.has_perm(name, obj) gives the same answer, through rules' backend.)
    return bool(user is not None and rules.has_perm(name, user, obj))


_REFUSALS = {}
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
    sentence = _REFUSALS.get(name, "You may not do this.")
    return sentence(obj) if callable(sentence) else sentence


def names():
    """Every registered permission name, sorted."""
    return sorted(_REFUSALS)


def add(name, predicate, refusal):
    """Register permission ``name`` ('app.verb_noun'), the predicate that grants it and the sentence for a refusal
    (a string, or a function of the object asked about for a sentence that depends on it)."""
    rules.set_perm(name, predicate)
    _REFUSALS[name] = refusal


def on_scope(test):
    """A predicate from ``test(scope, obj)``; inactive and anonymous users hold nothing."""
    @rules.predicate(name=test.__name__)
    def predicate(user, obj=None):
        if user is None or not user.is_authenticated or not user.is_active:
            return False
        return bool(test(scope_for(user), obj))
    predicate.on = test  # the same question for a Scope in hand: predicates built on one another use it
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


def jurisdiction_id(obj):
    if isinstance(obj, Jurisdiction):
        return obj.pk
    return getattr(obj, "jurisdiction_id", None)


# -- the predicates ----------------------------------------------------------------------------------------------

@on_scope
def is_administrator(scope, obj):
    return scope.is_admin


@on_scope
def has_any_role(scope, obj):
    return scope.is_admin or bool(scope.staff_establishments or scope.regulated_jurisdictions)


@on_scope
def is_staff_of(scope, obj):
    """Floor supervisors and compliance officers of the object's establishment (of some establishment, for None)."""
    if scope.is_admin:
        return True
    if obj is None:
        return bool(scope.staff_establishments)
    return establishment_id(obj) in scope.staff_establishments


@on_scope
def is_compliance_officer_of(scope, obj):
    """Compliance officers of the object's establishment; of its jurisdiction for a jurisdiction-wide row."""
    if scope.is_admin:
        return True
    if obj is None:
        return bool(scope.compliance_establishments)
    place = establishment_id(obj)
    if place is not None:
        return place in scope.compliance_establishments
    return jurisdiction_id(obj) in scope.compliance_jurisdictions


@on_scope
def is_compliance_officer_of_establishment(scope, obj):
    """Compliance officers of the object's establishment only (a jurisdiction-wide row: administrators)."""
    if scope.is_admin:
        return True
    if obj is None:
        return bool(scope.compliance_establishments)
    return establishment_id(obj) in scope.compliance_establishments


@on_scope
def is_regulator(scope, obj):
    return scope.is_admin or bool(scope.regulated_jurisdictions)


@on_scope
def may_verify(scope, obj):
    """Whose job it is to check a bundle (each check unpacks up to a year's export): not floor supervisors."""
    return scope.is_admin or bool(scope.regulated_jurisdictions or scope.compliance_establishments)


# Schedules: the Scope's own rules (``Scope.may_edit_schedule`` / ``may_approve_schedule``), here alone asked.

@on_scope
def may_edit_schedule(scope, document):
    if document is None:
        return scope.is_admin or bool(scope.compliance_establishments)
    return scope.may_edit_schedule(document)


@on_scope
def may_approve_schedule(scope, document):
    if document is None:
        return scope.is_admin or bool(scope.compliance_establishments)
    return scope.may_approve_schedule(document)


@on_scope
def sees_drafts(scope, document):
    """Compliance officers see drafts, each of a schedule they maintain (``fees.edit_schedule``)."""
    return scope.sees_drafts() and (document is None or scope.may_edit_schedule(document))


@on_scope
def may_run_validation(scope, obj):
    """An establishment: its compliance officers. A schedule: compliance officers who maintain it."""
    if scope.is_admin:
        return True
    if not scope.compliance_establishments:
        return False
    if obj is None or isinstance(obj, Establishment):
        return is_compliance_officer_of.on(scope, obj)
    return scope.may_edit_schedule(obj)


@on_scope
def may_export(scope, obj):
    """An establishment: its compliance officers and its jurisdiction's regulators. A jurisdiction: its regulators."""
    if scope.is_admin:
        return True
    if obj is None:
        return bool(scope.compliance_establishments or scope.regulated_jurisdictions)
    if isinstance(obj, Jurisdiction):
        return obj.pk in scope.regulated_jurisdictions
    return obj.pk in scope.compliance_establishments or obj.jurisdiction_id in scope.regulated_jurisdictions


@on_scope
def may_download(scope, job):
    """A job's file: an audit export's for those who may export its place; any other (a sign batch) for whoever
    sees the job (the job list is scoped already)."""
    if scope.is_admin or job is None or getattr(job, "kind", None) != "audit_export":
        return True
    if job.establishment_id is not None:
        return (job.establishment_id in scope.compliance_establishments
                or job.establishment.jurisdiction_id in scope.regulated_jurisdictions)
    return job.jurisdiction_id in scope.regulated_jurisdictions


def _document_code(document):
    return getattr(document, "code", None) or "this schedule"


# -- the registry ------------------------------------------------------------------------------------------------

# Reading: every API list and page answers only what the user's memberships let them see (cardroom.access).
add("cardroom.view_records", rules.is_authenticated & rules.is_active,
    "Sign in to read: every answer is limited to the establishments and jurisdictions you hold a role in.")
add("cardroom.use_admin", is_administrator, "The admin is for administrators: work through the API and your "
                                            "role's pages.")
add("cardroom.record_condition", is_compliance_officer_of_establishment,
    lambda obj: "Only compliance officers of this establishment withdraw its records." if obj is not None and
    not isinstance(obj, Establishment) else "Only compliance officers of the establishment record approval "
                                            "conditions met.")

# Schedules (fees).
add("fees.edit_schedule", may_edit_schedule,
    "Only a compliance officer responsible for this schedule may change it.")
add("fees.approve_schedule", may_approve_schedule,
    "Only a second compliance officer of the establishment (an administrator for a jurisdiction's shared schedule) "
    "may approve or refuse its publication.")
add("fees.view_drafts", sees_drafts, "Drafts are seen by the compliance officers responsible for the schedule.")
add("fees.record_ledger", is_staff_of,
    "Only floor supervisors and compliance officers of the table's establishment may record collections, rounds "
    "and reconciliations.")
add("fees.import_records", is_compliance_officer_of_establishment,
    "Only compliance officers of the establishment import its records (files of rounds and collections) into the "
    "ledger.")

# Compliance.
add("compliance.acknowledge_finding", is_compliance_officer_of,
    "Only a compliance officer of the finding's establishment may acknowledge it.")
add("compliance.run_validation", may_run_validation,
    lambda obj: "Only a compliance officer of this establishment may start a run." if isinstance(obj, Establishment)
    else "Only compliance officers may start a run.")
add("compliance.validate_everything", is_administrator, "Only an administrator may validate everything.")

# Signs and postings (signage).
add("signage.post_table", is_staff_of, "Only floor supervisors and compliance officers post tables.")
add("signage.print_sign", is_staff_of,
    "Only floor supervisors and compliance officers of the table's establishment print signs; GET the same address "
    "for a watermarked preview.")
add("signage.override_print", is_compliance_officer_of_establishment,
    "Only a compliance officer of the table's establishment may ask for, approve or refuse a print override.")

# Audit exports (exports).
add("exports.request_export", may_export,
    lambda obj: "A whole jurisdiction is exported by its regulators." if isinstance(obj, Jurisdiction)
    else "Exports are made by compliance officers of the establishment and regulators of its jurisdiction.")
add("exports.download", may_download,
    "An audit export is downloaded by compliance officers of its establishment and regulators of its jurisdiction.")
add("exports.verify_bundle", may_verify, "Bundles are verified by regulators, compliance officers and administrators.")

# The role pages (console): each home and the pages under it.
add("console.view_pages", has_any_role, "These pages are for the roles of this card room.")
add("console.view_compliance", is_compliance_officer_of_establishment, "This page is for the compliance role.")
add("console.view_floor", is_staff_of, "This page is for the floor role.")
add("console.view_regulator", is_regulator, "This page is for the regulator role.")
add("console.view_admin", is_administrator, "This page is for the admin role.")
add("console.manage_sign_in", rules.is_authenticated & rules.is_active,
    "Sign in to manage your second factor and API token.")
