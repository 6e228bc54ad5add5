"""Two-person review: one mechanism for every change that takes effect only once a second person approves it.

Schedule publication and interpretations (``fees.schedules.services``) and print overrides (``signage.services``) each declare
a ``Workflow``: how their model's status values read as the states below, who asked for it and who else made it.
Their services take every step through ``Workflow.step``, which refuses a step the state does not allow
(``ReviewConflict``, a 409) and a step by someone the table does not admit (``NotAllowed``, a 403, with a sentence);
the pages and the admin ask ``Workflow.may`` to show only the buttons a person can use.

The states, the steps and who may take each one are the table ``TRANSITIONS`` below, the one place they are said::

    draft --ask--> awaiting a second person --approve--> approved
                      |        |--refuse---> refused    (a schedule version: a draft again)
                      |        '--withdraw-> withdrawn  (a schedule version: a draft again)
    approved --withdraw--> withdrawn                    (only where the workflow allows it: an interpretation)

Who may decide: whoever asked for it, and whoever started or changed it (the workflow's ``makers``: a schedule
version's content history), may not approve it; whoever asked may not refuse it. Asking makes the asker one who may
not decide (the table's ``authors``); deciding and withdrawing do not: refusing is a decision, not authorship, so the
officer who refused may approve the corrected version asked for again. Only whoever asked withdraws, or an
administrator (said in the audit log, and the asker is told). Each step is kept with who took it, when and why (the
workflow's own columns or rows) and in the audit log.

Lock order, the same for every step of every workflow, so that two steps never wait on each other: the document
(only to number a new draft), then the subject (the schedule version, the posting), then the review's own row (the
interpretation, the override). A service locks before it reads the state it checks.

Reviewable kinds also register here (``register_kind``) so that the inbox and the emails (``cardroom.inbox``,
``cardroom.notify``) list and announce them without importing the apps that own them.
"""

import dataclasses
from collections.abc import Callable, Mapping

from django.contrib.auth import get_user_model

from . import values
from .access import scope_for
from .exceptions import BadInput, NotAllowed, StateConflict

# The states every workflow reads its own status values as.
DRAFT, AWAITING, APPROVED, REFUSED, WITHDRAWN = "draft", "awaiting", "approved", "refused", "withdrawn"
FINISHED = frozenset({APPROVED, REFUSED, WITHDRAWN})
# The steps.
ASK, APPROVE, REFUSE, WITHDRAW = "ask", "approve", "refuse", "withdraw"
# Who takes a step, as the table names them (``ROLES`` says how each is recognised).
ANYONE = "anyone"  # whom the step's named permission admits (the service checks it): asking
ASKER = "asker"  # whoever asked for it
OTHER = "other"  # a person signed in who did not ask for it
SECOND = "second"  # a person signed in who did not ask for it, start it or change it
ADMIN = "administrator"
REASON_MAX = 2000


@dataclasses.dataclass(frozen=True)
class Transition:
    """One row of the table: ``step`` from ``source`` leads to ``target``; ``who``: the roles that may take it (any
    one of them); ``authors``: taking it makes its taker one who may not approve the request (asking does: the
    workflow reads who through ``asker``; deciding and withdrawing do not, so they are never counted as edits, and
    tests/project/test_review_state_machine.py's model reads this column); ``optional``: only in a workflow that names it in ``Workflow.allows``; ``refusal``: the
    sentence for someone the roles do not admit ({what}: the thing, {asker}: who asked)."""

    step: str
    source: str
    target: str
    who: frozenset
    authors: bool = False
    optional: bool = False
    refusal: str = ""


_DECIDER = "{verb} {what} needs a second person: you {did}, so someone else must {step} it."
_WITHDRAWER = ("Withdrawing {what} is for whoever asked for it ({asker}) or an administrator: ask them to withdraw "
               "it, or refuse it if you may.")

TRANSITIONS = (
    Transition(ASK, DRAFT, AWAITING, frozenset({ANYONE}), authors=True),
    Transition(APPROVE, AWAITING, APPROVED, frozenset({SECOND}),
               refusal=_DECIDER.format(verb="Approving", what="{what}", did="wrote, changed or asked for it",
                                       step="approve")),
    Transition(REFUSE, AWAITING, REFUSED, frozenset({OTHER}),
               refusal=_DECIDER.format(verb="Refusing", what="{what}", did="asked for it", step="refuse")),
    Transition(WITHDRAW, AWAITING, WITHDRAWN, frozenset({ASKER, ADMIN}), refusal=_WITHDRAWER),
    # An approved interpretation is retired by withdrawing it (INTERPRETATION allows it).
    Transition(WITHDRAW, APPROVED, WITHDRAWN, frozenset({ASKER, ADMIN}), optional=True, refusal=_WITHDRAWER),
)


def _signed_in(user):
    return user is not None and getattr(user, "is_authenticated", False)


# How each role is recognised: (workflow, the locked row, the user) -> bool.
ROLES = {
    ANYONE: lambda workflow, obj, user: True,
    ASKER: lambda workflow, obj, user: _signed_in(user) and user.pk == workflow.asker(obj),
    OTHER: lambda workflow, obj, user: _signed_in(user) and user.pk != workflow.asker(obj),
    SECOND: lambda workflow, obj, user: _signed_in(user) and user.pk not in workflow.involved(obj),
    ADMIN: lambda workflow, obj, user: _signed_in(user) and scope_for(user).is_admin,
}


class ReviewConflict(StateConflict):
    """The step does not fit the state of what is reviewed (a 409): approving what awaits nobody, asking twice."""


def read_reason(value, *, minimum=1, saying="why"):
    """The reason given for a step: text of ``minimum`` characters or more (``BadInput`` naming it otherwise)."""
    text = values.named("reason", values.text, value, max_length=REASON_MAX, required=True, single_line=False)
    if len(text) < minimum:
        raise BadInput(f"reason must say {saying} ({minimum} characters or more).", field="reason")
    return text


def person(user):
    """The user as recorded beside a step: None for a command or an anonymous caller."""
    return user if getattr(user, "is_authenticated", False) else None


def _username(pk):
    name = get_user_model().objects.filter(pk=pk).values_list("username", flat=True).first() if pk else None
    return name or "nobody recorded"


@dataclasses.dataclass(frozen=True)
class Workflow:
    """One kind of two-person review, as its model stores it.

    ``states``: each status value of the model -> the state it is (DRAFT, AWAITING, ...); ``lands``: the status a
    step leaves behind where it is not the state's own (a refused publication leaves a draft); ``allows``: the
    optional rows of ``TRANSITIONS`` it takes, as (step, source state) (an approved interpretation may be withdrawn);
    ``asker`` / ``makers``: who asked for it, and who else started or changed it (user ids), from the locked row;
    ``label``: a status value as read in a sentence; ``conflict``: the error a step the state does not allow raises
    (a ``StateConflict``).
    """

    states: Mapping[str, str]
    asker: Callable
    makers: Callable = lambda obj: set()
    lands: Mapping[str, str] = dataclasses.field(default_factory=dict)
    allows: frozenset = frozenset()
    label: Callable = str
    conflict: type = ReviewConflict

    def transitions(self, step):
        """The table's rows for ``step`` that this workflow takes."""
        return [t for t in TRANSITIONS if t.step == step and (not t.optional or (t.step, t.source) in self.allows)]

    def transition(self, step, status):
        """The row ``step`` takes from ``status`` (a status value), or None when the state does not allow it."""
        state = self.states[status]
        return next((t for t in self.transitions(step) if t.source == state), None)

    def status_after(self, step):
        """The status value ``step`` leaves the model in."""
        if step in self.lands:
            return self.lands[step]
        target = self.transitions(step)[0].target
        return next(status for status, state in self.states.items() if state == target)

    def involved(self, obj):
        """Ids of whoever asked for ``obj``, started it or changed it: none of them may approve it."""
        return {self.asker(obj), *self.makers(obj)} - {None}

    def admits(self, transition, obj, user):
        """Whether ``user`` holds one of the roles ``transition`` names, toward ``obj``."""
        return any(ROLES[role](self, obj, user) for role in sorted(transition.who))

    def may(self, obj, step, user, *, status=None):
        """Whether ``user`` may take ``step`` on ``obj`` now, as far as the review goes (the service checks the named
        permission too): what a page or the admin asks before it shows a button."""
        transition = self.transition(step, obj.status if status is None else status)
        return transition is not None and self.admits(transition, obj, user)

    def step(self, obj, step, *, user, what, status=None):
        """Check that ``user`` may take ``step`` on ``obj`` (locked by the caller; ``status``: its status, when not
        ``obj.status``) and return the status it leads to; ``what`` names it in a refusal ("GEGA-002888 v2")."""
        status = obj.status if status is None else status
        transition = self.transition(step, status)
        if transition is None:
            sources = {t.source for t in self.transitions(step)}
            wanted = " or ".join(self.label(s) for s, state in self.states.items() if state in sources)
            already = "already " if self.states[status] in FINISHED else ""
            raise self.conflict(f"{what} is {already}{self.label(status)}; this step needs it {wanted}.")
        if not self.admits(transition, obj, user):
            if not _signed_in(user):
                raise NotAllowed(f"{step.capitalize()} {what}: a person signed in takes this step.")
            raise NotAllowed(transition.refusal.format(what=what, asker=_username(self.asker(obj))))
        return self.status_after(step)

    def for_asker(self, obj, user):
        """What the audit log adds when ``user`` withdraws what someone else asked for (an administrator may):
        ``{"on_behalf_of": their username, "as": "administrator"}``; empty when the asker takes the step. Whoever
        gets it tells the asker (``cardroom.notify.withdrawn``)."""
        asker = self.asker(obj)
        if asker is None or getattr(user, "pk", None) == asker:
            return {}
        return {"on_behalf_of": _username(asker), "as": ADMIN}


# -- the kinds the inbox lists and the emails announce ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Kind:
    """A reviewable kind as the inbox and the emails see it, registered by the app that owns it.

    ``waiting(user, scope, establishment)``: a queryset of what awaits ``user`` (the inbox unions them into one
    query); ``items(pks, user, scope, establishment)``: those rows as ``cardroom.inbox.Awaiting``; ``what(obj)``,
    ``path(obj)``: the thing in words and the page where it is answered; ``approvers(obj)``: who is told it awaits
    them; ``role(obj)``: what they are asked as; ``asked(obj)``: (who asked, their reason); ``answered(obj)``: (who
    answered, their reason); ``outcomes``: what approved and refused mean, in words; ``alert``: a matter that stands
    until it is put right (a witness that refused, a month left open), not a request a second person answers;
    ``one_each(rows)``: the ``waiting`` rows grouped one per item ``items`` would make, each group's first row as
    ``first``, where a kind makes one item of many rows (the navigation counts the items without making them).
    """

    name: str
    label: str
    waiting: Callable
    items: Callable
    what: Callable
    path: Callable
    approvers: Callable
    role: Callable
    asked: Callable
    answered: Callable
    outcomes: tuple = ("approved", "refused")
    alert: bool = False
    one_each: Callable | None = None  # one_each(rows): the waiting rows grouped one per item, the item's first as "first"


KINDS = {}


def register_kind(kind):
    """Called from the owning app's ``AppConfig.ready``; registering twice (a test's reload) replaces it."""
    KINDS[kind.name] = kind
    return kind
