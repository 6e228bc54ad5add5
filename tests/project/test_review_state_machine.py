"""The two-person review as a state machine (cardroom.review.TRANSITIONS), tested against a model of it.

Hypothesis picks, step after step, one of four people of Casino Marysville (its two compliance officers, an
administrator, a floor supervisor) and a door they use (the API, the page, the admin where it has the action) to ask
for, edit, refuse, withdraw or approve the publication of a draft of the room's own schedule, and to propose,
approve, refuse or withdraw an interpretation of its published version. The model says what each step should do,
read from the same table the services use (who may take it, and whether taking it makes its taker one who may not
approve); after every step the database, the inboxes and the emails sent must agree with it, and:

- no sequence of allowed steps leaves a request that nobody in the room may decide;
- whoever asked never approves or refuses their own request;
- only whoever asked (or an administrator, for them) withdraws;
- every step tells whom it should: those who may approve when asked, the asker when answered or withdrawn by another.

Each example runs in a savepoint rolled back at its end, inside the test's transaction (SQLite and PostgreSQL).
"""

import datetime

import pytest
from django.core import mail
from django.db import transaction
from django.test import Client, TestCase
from django.urls import reverse
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, \
    run_state_machine_as_test
from rest_framework.test import APIClient

from cardroom import generation, permissions, review
from cardroom.inbox import awaiting
from cardroom.models import AuditLogEntry
from fees.models import Interpretation, ScheduleDocument, ScheduleVersion, VersionReview
from fees.schedules import services
from fees.schedules.reviews import INTERPRETATION, PUBLICATION

from tests.conftest import People
from tests.factories import change_a_fee

pytestmark = pytest.mark.django_db
ROOM, CODE = "casino-marysville", "CMV-CA-FEES-PAI-GOW"
SCHEDULE = f"/api/v1/schedules/{CODE}/"
READINGS = f"{SCHEDULE}interpretations/"
OFFICERS = ("compliance", "compliance_2")
PEOPLE = (*OFFICERS, "admin", "floor")
DECIDERS = (*OFFICERS, "admin")  # who holds fees.approve_schedule on the room's schedule
EFFECTIVE = "2030-01-01"
REASON = "Read against the Bureau's letter"
# What the doors answer: done, refused (NotAllowed), out of step (StateConflict). A floor supervisor may be refused
# before the schedule's drafts are even looked up (403) or not find them (404).
DONE = {"api": {200, 201}, "page": {302}, "admin": {302}}
REFUSED = {403, 404}
CONFLICT = {"api": {409}, "page": {409}, "admin": {302}}  # the admin says it in a message on the change page

# The steps a state allows are drawn by rules of their own (so that asking, refusing and asking again happen within
# a dozen steps), by the room's deciders; any step in any state, by anyone, is drawn too (conflicts, refusals).
anyone = st.sampled_from(PEOPLE)
decider = st.sampled_from(DECIDERS)
door = st.sampled_from(("api", "page"))
any_door = st.sampled_from(("api", "page", "admin"))


def row(step, state):
    """The table's row for ``step`` from the model's ``state`` (None: the state does not allow it)."""
    return next((t for t in review.TRANSITIONS if t.step == step and t.source == state and not t.optional), None)


def admits(transition, name, asker, makers):
    """The model's reading of the table: whether ``name`` holds one of the roles ``transition`` admits."""
    roles = {review.ANYONE, review.ADMIN} if name == "admin" else {review.ANYONE}
    if name == asker:
        roles.add(review.ASKER)
    else:
        roles.add(review.OTHER)
        if name not in makers:
            roles.add(review.SECOND)
    return bool(roles & transition.who)


class ReviewMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        generation.forget()  # ids come back after a rollback (SQLite): forget what the process remembered
        self.savepoint = transaction.savepoint()
        self.people = People()
        self.users = {name: getattr(self.people, name) for name in PEOPLE}
        for user in self.users.values():
            user.email = f"{user.username}@example.test"
            user.save(update_fields=["email"])
        self.document = ScheduleDocument.objects.get(code=CODE)
        self.published = self.document.versions.get(number=1)
        self.api, self.client, self.admin_site = APIClient(), Client(), Client()
        self.admin_site.force_login(self.users["admin"])
        # The model: the draft's state, who asked for it, who started or changed it; the reading's likewise.
        self.version, self.state, self.asker, self.makers = None, None, None, set()
        self.reading, self.reading_state, self.proposer = None, None, None

    def teardown(self):
        transaction.savepoint_rollback(self.savepoint)
        generation.forget()

    # -- taking a step through a door -------------------------------------------------------------------------------

    def send(self, name, door, path_api, body_api, path_page=None, body_page=None, method="post"):
        """One request by ``name`` through ``door``; the status answered and the emails it sent, as (to, subject)."""
        mail.outbox = []
        user = self.users[name]
        with TestCase.captureOnCommitCallbacks(execute=True):
            if door == "api":
                self.api.force_authenticate(user)
                answer = getattr(self.api, method)(path_api, body_api, format="json")
                self.api.force_authenticate(None)
            elif door == "admin":
                answer = self.admin_site.post(path_page, body_page)
            else:
                self.client.force_login(user)
                answer = self.client.post(path_page, body_page)
        sent = sorted((m.to[0].split("@")[0], m.subject.split(":")[0]) for m in mail.outbox)
        return answer.status_code, sent

    def expect(self, name, door, transition_admits, state_fits, status):
        """Whether the step should be done, from the model; and that the door answered so."""
        if name == "floor":
            assert status in REFUSED, status
            return False
        if not state_fits:
            assert status in CONFLICT[door], status
            return False
        if not transition_admits:
            assert status in REFUSED, status
            return False
        assert status in DONE[door], status
        return True

    def version_paths(self, step):
        api = f"{SCHEDULE}versions/{self.version.number}/{'publication-request' if step == 'ask' else step}/"
        page = reverse("console:compliance-publish", args=[ROOM, CODE, self.version.number])
        return api, page

    def mailed(self, *names):
        return sorted((self.users[n].username, subject) for n, subject in names)

    # -- a schedule version's publication ----------------------------------------------------------------------------

    @initialize(creator=st.sampled_from(DECIDERS))
    def start_a_draft(self, creator):
        self.new_draft(creator)

    def new_draft(self, creator):
        self.version = services.start_draft(self.users[creator],
                                            based_on=self.document.versions.order_by("number").last(),
                                            reason="Bureau letter", effective_from=datetime.date(2030, 1, 1))
        change_a_fee(self.version)  # a draft that changes nothing is refused on the page (issue 42)
        self.state, self.asker, self.makers = review.DRAFT, None, {creator}

    @precondition(lambda self: self.state == review.APPROVED)
    @rule(creator=st.sampled_from(DECIDERS))
    def start_another_draft(self, creator):
        self.new_draft(creator)

    @precondition(lambda self: self.state == review.DRAFT)
    @rule(name=decider)
    def edit_the_draft(self, name):
        self.edit(name)

    def edit(self, name):
        """Change the draft's reason through the API (a content edit: its author may not approve it)."""
        status, sent = self.send(name, "api", f"{SCHEDULE}versions/{self.version.number}/",
                                 {"reason": f"Bureau letter, as {name} reads it"}, method="patch")
        if self.expect(name, "api", True, self.state == review.DRAFT, status):
            self.makers.add(name)
        assert sent == []

    @precondition(lambda self: self.state == review.DRAFT)
    @rule(name=decider, door=any_door)
    def ask_for_publication(self, name, door):
        self.ask(name, door)

    def ask(self, name, door):
        door = "admin" if door == "admin" and name == "admin" and self.state == review.DRAFT else \
            "api" if door == "admin" else door
        api, page = self.version_paths("ask")
        if door == "admin":
            page = reverse("admin:fees_scheduleversion_publish", args=[self.version.pk])
        status, sent = self.send(name, door, api, {"reason": REASON}, page,
                                 {"step": "request", "reason": REASON, "effective_from": EFFECTIVE})
        transition = row(review.ASK, review.DRAFT)
        if self.expect(name, door, admits(transition, name, self.asker, self.makers), self.state == review.DRAFT,
                       status):
            self.state, self.asker = transition.target, name
            # Those who may approve are told: the room's officers who neither asked for it nor made it.
            told = [(o, "Awaiting your approval") for o in OFFICERS if o != name and o not in self.makers]
            assert sent == self.mailed(*told)
        else:
            assert sent == []

    def answer(self, step, name, door):
        api, page = self.version_paths(step)
        if door == "admin":
            page = reverse("admin:fees_scheduleversion_publish", args=[self.version.pk])
        status, sent = self.send(name, door, api, {"reason": f"{step}: {REASON}"}, page,
                                 {"step": step, "reason": f"{step}: {REASON}"})
        transition = row(step, review.AWAITING)
        fits = self.state == review.AWAITING
        done = self.expect(name, door, fits and admits(transition, name, self.asker, self.makers), fits, status)
        if not done:
            assert sent == []
            return
        asker, self.state = self.asker, transition.target
        if transition.authors:
            self.makers.add(name)
        last = self.version.reviews.last()
        assert last.by == self.users[name]
        if step in (review.APPROVE, review.REFUSE):
            assert name != asker  # the requester never decides their own request
            assert sent == self.mailed((asker, "Approved" if step == review.APPROVE else "Refused"))
        else:
            assert name == asker or name == "admin"  # only the requester, or an administrator, withdraws
            # An administrator's withdrawal tells the asker, and the officers it awaited (issue 42).
            assert sent == ([] if name == asker else self.mailed((asker, "Withdrawn"), *[
                (o, "No longer awaiting you") for o in OFFICERS if o != asker and o not in self.makers]))
        if self.state != review.APPROVED:
            self.state = review.DRAFT  # refused or withdrawn: a draft again (PUBLICATION.lands)

    def approve(self, name, door):
        door = "admin" if door == "admin" and name == "admin" and self.state == review.AWAITING else \
            "api" if door == "admin" else door
        self.answer(review.APPROVE, name, door)

    @precondition(lambda self: self.state == review.AWAITING)
    @rule(name=decider, door=any_door, step=st.sampled_from((review.APPROVE, review.REFUSE, review.WITHDRAW)))
    def answer_the_request(self, name, door, step):
        if step == review.APPROVE:
            self.approve(name, door)
        else:
            self.answer(step, name, "api" if door == "admin" else door)

    @rule(name=anyone, door=any_door, step=st.sampled_from(("edit", review.ASK, review.APPROVE, review.REFUSE,
                                                            review.WITHDRAW)))
    def any_step_on_the_version(self, name, door, step):
        """Any step in whatever state, by anyone: out of step (409) or refused (403) unless the state allows it."""
        if step == "edit":
            self.edit(name)
        elif step == review.ASK:
            self.ask(name, door)
        elif step == review.APPROVE:
            self.approve(name, door)
        else:
            self.answer(step, name, "api" if door == "admin" else door)

    # -- an interpretation of the published version -----------------------------------------------------------------

    def reading_paths(self, step):
        api = READINGS if step == "propose" else f"{READINGS}{self.reading.pk}/{step}/"
        return api, reverse("console:compliance-interpretations", args=[ROOM, CODE, 1])

    @precondition(lambda self: self.reading_state not in (review.AWAITING, review.APPROVED))
    @rule(name=decider, door=door)
    def propose_a_reading(self, name, door):
        self.propose(name, door)

    def propose(self, name, door):
        api, page = self.reading_paths("propose")
        statement = f"Each player's total base wager, as {name} reads it."
        status, sent = self.send(
            name, door, api, {"version": 1, "option": 1, "tier": 1, "field": "measure", "value": "player_wager",
                              "statement": statement, "decided_on": "2026-01-05", "citation": "Bureau answer"},
            page, {"step": "propose", "place": "1:1", "field": "measure", "choice": "player_wager", "amount": "",
                   "statement": statement, "decided_on": "2026-01-05", "citation": "Bureau answer", "source": ""})
        free = self.reading_state not in (review.AWAITING, review.APPROVED)  # one live reading per field
        if self.expect(name, door, True, free, status):
            self.reading = Interpretation.objects.filter(version=self.published).latest("id")
            self.reading_state, self.proposer = review.AWAITING, name
            assert sent == self.mailed(*[(o, "Awaiting your approval") for o in OFFICERS if o != name])
        else:
            assert sent == []

    def decide_reading(self, step, name, door):
        api, page = self.reading_paths(step)
        prefix = f"r{self.reading.pk}"
        status, sent = self.send(name, door, api, {"reason": f"{step}: {REASON}"}, page,
                                 {"step": step, "reading": self.reading.pk, f"{prefix}-reason": f"{step}: {REASON}"})
        transition = next((t for t in INTERPRETATION.transitions(step) if t.source == self.reading_state), None)
        done = self.expect(name, door, transition is not None and admits(transition, name, self.proposer, set()),
                           transition is not None, status)
        if not done:
            assert sent == []
            return
        was, self.reading_state = self.reading_state, transition.target
        if step == review.WITHDRAW:
            assert name == self.proposer or name == "admin"
            awaited = was == review.AWAITING  # a proposal, not an approved reading retired
            assert sent == ([] if name == self.proposer else self.mailed((self.proposer, "Withdrawn"), *[
                (o, "No longer awaiting you") for o in OFFICERS if o != self.proposer and awaited]))
        else:
            assert name != self.proposer
            assert sent == self.mailed((self.proposer, "Approved" if step == review.APPROVE else "Refused"))

    @precondition(lambda self: self.reading is not None)
    @rule(name=anyone, door=door, step=st.sampled_from((review.APPROVE, review.REFUSE, review.WITHDRAW)))
    def answer_the_reading(self, name, door, step):
        self.decide_reading(step, name, door)

    # -- what must hold after every step -----------------------------------------------------------------------------

    @invariant()
    def the_database_agrees_with_the_model(self):
        if self.version is None:
            return
        version = ScheduleVersion.objects.get(pk=self.version.pk)
        status = {review.DRAFT: "draft", review.AWAITING: "in_review", review.APPROVED: "published"}[self.state]
        assert version.status == status
        if self.state == review.AWAITING:
            assert version.review_requested_by == self.users[self.asker]
        if self.reading is not None:
            reading = Interpretation.objects.get(pk=self.reading.pk)
            assert INTERPRETATION.states[reading.status] == self.reading_state

    @invariant()
    def someone_in_the_room_may_decide_and_the_inbox_says_who(self):
        """Whoever may approve is who the model says (the room's officers and the administrator, less whoever asked
        or made it), their inbox lists it and nobody else's does; and someone always may decide it."""
        if self.version is None or self.state != review.AWAITING:
            return
        version = ScheduleVersion.objects.get(pk=self.version.pk)
        approvers, deciders = set(), set()
        for name in PEOPLE:
            user = self.users[name]
            permitted = permissions.allowed(user, services.APPROVE, self.document)
            if permitted and PUBLICATION.may(version, review.APPROVE, user):
                approvers.add(name)
            if permitted and PUBLICATION.may(version, review.REFUSE, user):
                deciders.add(name)
            listed = any(a.kind == "schedule" and a.what.startswith(f"{CODE} v{version.number}:")
                         for a in awaiting(user))
            assert listed == (name in approvers), name
        assert approvers == {n for n in DECIDERS if n != self.asker and n not in self.makers}
        assert deciders == {n for n in DECIDERS if n != self.asker}
        assert deciders, "nobody in the room may decide it"
        assert self.asker not in approvers | deciders

    @invariant()
    def only_the_asker_or_an_administrator_for_them_withdrew(self):
        if self.version is None:
            return
        steps = list(VersionReview.objects.filter(version__document=self.document, version__number__gt=1)
                     .order_by("id").values_list("version_id", "step", "by__username"))
        askers = {}
        for version_id, step, by in steps:
            if step == VersionReview.Step.REQUESTED:
                askers[version_id] = by
            elif step in (VersionReview.Step.APPROVED, VersionReview.Step.REFUSED):
                assert by != askers[version_id]
            elif step == VersionReview.Step.WITHDRAWN:
                assert by in (askers[version_id], self.users["admin"].username)
        for entry in AuditLogEntry.objects.filter(action="schedule.withdrawn", object_id=str(self.version.pk)):
            if entry.actor == self.users["admin"] and "on_behalf_of" in entry.data:
                assert entry.data["as"] == "administrator"


@pytest.mark.long
def test_the_review_mechanism_holds_whatever_people_do(db, mailoutbox):
    run_state_machine_as_test(ReviewMachine, settings=settings(
        max_examples=15, stateful_step_count=12, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))
