"""Two-person review: one mechanism for every change that takes effect only once a second person approves it.

Schedule publication and interpretations (``fees.services``) and print overrides (``signage.services``) each declare
a ``Workflow``: how their model's status values read as the states below, who asked for it and who else made it.
Their services take every step through ``Workflow.step``, which refuses a step the state does not allow
(``ReviewConflict``, a 409) and an approval or refusal by the wrong person (``NotAllowed``, a 403)::

    draft --ask--> awaiting a second person --approve--> approved
                      |        |--refuse---> refused    (a schedule version: a draft again)
                      |        '--withdraw-> withdrawn  (a schedule version: a draft again)
    approved --withdraw--> withdrawn                    (only where the workflow allows it: an interpretation)

Whoever asked for it, started it or changed it cannot approve it; whoever asked for it cannot refuse it either.
Each step is kept with who took it, when and why (the workflow's own columns or rows) and in the audit log.

Lock order, the same for every step of every workflow, so that two steps never wait on each other: the document
(only to number a new draft), then the subject (the schedule version, the posting), then the review's own row (the
interpretation, the override). A service locks before it reads the state it checks.

Reviewable kinds also register here (``register_kind``) so that the inbox and the emails (``cardroom.inbox``,
``cardroom.notify``) list and announce them without importing the apps that own them.
"""

import dataclasses
from collections.abc import Callable, Mapping

from . import values
from .exceptions import BadInput, NotAllowed, StateConflict

# The states every workflow reads its own status values as.
DRAFT, AWAITING, APPROVED, REFUSED, WITHDRAWN = "draft", "awaiting", "approved", "refused", "withdrawn"
# The steps, and the state each leads to.
ASK, APPROVE, REFUSE, WITHDRAW = "ask", "approve", "refuse", "withdraw"
LEADS_TO = {ASK: AWAITING, APPROVE: APPROVED, REFUSE: REFUSED, WITHDRAW: WITHDRAWN}
STARTS_FROM = {ASK: frozenset({DRAFT}), APPROVE: frozenset({AWAITING}), REFUSE: frozenset({AWAITING}),
               WITHDRAW: frozenset({AWAITING})}
REASON_MAX = 2000


class ReviewConflict(StateConflict):
    """The step does not fit the state of what is reviewed (a 409): approving what awaits nobody, asking twice."""


class ReviewInputError(BadInput):
    """A step's input that cannot be taken (a 400); ``field`` names the input at fault."""

    def __init__(self, message, field=None):
        super().__init__(message)
        self.field = field


def require_second_person(user, involved, what):
    """Raise NotAllowed if ``user`` is among ``involved`` (user ids of those who wrote, changed or asked)."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise NotAllowed(f"{what} needs a second person signed in to approve it.")
    if user.pk in {pk for pk in involved if pk is not None}:
        raise NotAllowed(f"{what} needs a second person: you wrote, changed or asked for it, so someone else must "
                         "approve it.")


def read_reason(value, *, minimum=1, saying="why"):
    """The reason given for a step: text of ``minimum`` characters or more (``ReviewInputError`` otherwise)."""
    try:
        text = values.text(value, max_length=REASON_MAX, required=True, single_line=False)
    except values.Invalid as error:
        raise ReviewInputError(f"reason {error}", "reason") from None
    if len(text) < minimum:
        raise ReviewInputError(f"reason must say {saying} ({minimum} characters or more).", "reason")
    return text


def person(user):
    """The user as recorded beside a step: None for a command or an anonymous caller."""
    return user if getattr(user, "is_authenticated", False) else None


@dataclasses.dataclass(frozen=True)
class Workflow:
    """One kind of two-person review, as its model stores it.

    ``states``: each status value of the model -> the state it is (DRAFT, AWAITING, ...); ``lands``: the status a
    step leaves behind where it is not the state's own (a refused publication leaves a draft); ``also``: further
    states a step may start from (an approved interpretation may be withdrawn); ``asker`` / ``makers``: who asked
    for it, and who else started or changed it (user ids), from the locked row; ``label``: a status value as read in
    a sentence; ``conflict``: the error a step the state does not allow raises (a ``StateConflict``).
    """

    states: Mapping[str, str]
    asker: Callable
    makers: Callable = lambda obj: set()
    lands: Mapping[str, str] = dataclasses.field(default_factory=dict)
    also: Mapping[str, frozenset] = dataclasses.field(default_factory=dict)
    label: Callable = str
    conflict: type = ReviewConflict

    def status_after(self, step):
        """The status value ``step`` leaves the model in."""
        if step in self.lands:
            return self.lands[step]
        return next(status for status, state in self.states.items() if state == LEADS_TO[step])

    def involved(self, obj):
        """Ids of whoever asked for ``obj``, started it or changed it: none of them may approve it."""
        return {self.asker(obj), *self.makers(obj)} - {None}

    def step(self, obj, step, *, user, what, status=None):
        """Check that ``user`` may take ``step`` on ``obj`` (locked by the caller; ``status``: its status, when not
        ``obj.status``) and return the status it leads to; ``what`` names it in a refusal ("GEGA-002888 v2")."""
        status = obj.status if status is None else status
        allowed = STARTS_FROM[step] | self.also.get(step, frozenset())
        if self.states[status] not in allowed:
            wanted = " or ".join(self.label(s) for s, state in self.states.items() if state in allowed)
            already = "already " if self.states[status] in (APPROVED, REFUSED, WITHDRAWN) else ""
            raise self.conflict(f"{what} is {already}{self.label(status)}; this step needs it {wanted}.")
        if step == APPROVE:
            require_second_person(user, self.involved(obj), f"Approving {what}")
        elif step == REFUSE:
            require_second_person(user, {self.asker(obj)}, f"Refusing {what}")
        return self.status_after(step)


# -- the kinds the inbox lists and the emails announce ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Kind:
    """A reviewable kind as the inbox and the emails see it, registered by the app that owns it.

    ``waiting(user, scope, establishment)``: a queryset of what awaits ``user`` (the inbox unions them into one
    query); ``items(pks, user, scope, establishment)``: those rows as ``cardroom.inbox.Awaiting``; ``what(obj)``,
    ``path(obj)``: the thing in words and the page where it is answered; ``approvers(obj)``: who is told it awaits
    them; ``role(obj)``: what they are asked as; ``asked(obj)``: (who asked, their reason); ``answered(obj)``: (who
    answered, their reason); ``outcomes``: what approved and refused mean, in words.
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


KINDS = {}


def register_kind(kind):
    """Called from the owning app's ``AppConfig.ready``; registering twice (a test's reload) replaces it."""
    KINDS[kind.name] = kind
    return kind
