"""Credentials follow roles, as a state machine (cardroom.credentials), tested against a model of the rules.

One person, a floor supervisor at first, with a password. Hypothesis grants and revokes their roles (floor supervisor,
compliance officer, regulator, administrator) through the doors that grant them (``roles.appoint``, the admin's
membership page, the admin's user page for the superuser flag, a service saving a membership), sets up and removes
their second factor (as an administrator removes it after a lost phone), has them sign in at the login page and pass
their second factor, and make an API token (on their account page, or in the admin by an administrator), in any
order, with MFA_REQUIRED_FOR_COMPLIANCE on or off. After every step the person tries the API with each credential
they hold (HTTP Basic, their token, their browser's session), through the real authentication classes, and no
request succeeds with a credential that the account's current roles and second factor do not allow:

- HTTP Basic acts only for an account with no second factor, required or chosen;
- a token acts only while it is not revoked (every grant of a role that must have a second factor revokes it) and its
  account does not need a second factor it has none of;
- a session acts once it passed its second factor, or for an account that needs none and had none at its login; a
  grant of a role that must have one ends it.

Each example runs in a savepoint rolled back at its end, inside the test's transaction (SQLite and PostgreSQL).
"""

import base64
import os

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client, override_settings
from django.urls import reverse
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, \
    run_state_machine_as_test
from rest_framework.authtoken.models import Token

from cardroom import generation, second_factor
from cardroom.models import Membership, Role
from cardroom.roles import appoint
from tests.cardroom.test_credentials import NO_ROLES_CHANGED
from tests.conftest import People
from tests.second_factor import SECRET

pytestmark = pytest.mark.django_db
API = "/api/v1/schedules/"
PASSWORD = "a-long-test-passphrase"
ROLES = ("floor", "compliance", "regulator", "admin")
GRANT_DOORS = ("appoint", "admin membership page", "a service")
CODES = [f"machine-code-{n}" for n in range(40)]


class Credentials(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        generation.forget()  # ids come back after a rollback: forget what the process remembered
        self.savepoint = transaction.savepoint()
        self.people = People()
        self.places = {"floor": {"establishment": self.people.marysville},
                       "compliance": {"establishment": self.people.marysville},
                       "regulator": {"jurisdiction": self.people.marysville.jurisdiction}, "admin": {}}
        self.person = get_user_model().objects.create_user("t-subject", password=PASSWORD)
        appoint(self.person, Role.FLOOR_SUPERVISOR, **self.places["floor"])
        self.administrator = Client()
        self.administrator.force_login(self.people.admin)
        self.browser = Client()
        self.codes = iter(CODES)
        self.rule_for_officers = None
        # The model.
        self.roles = {"floor"}
        self.device = False
        self.token = None  # the key the person holds; None: none made, or revoked
        self.session = None  # None: signed out (or ended); else {"passed": bool, "had_device": bool}

    def teardown(self):
        if self.rule_for_officers is not None:
            self.rule_for_officers.disable()
        transaction.savepoint_rollback(self.savepoint)
        generation.forget()

    # -- the model --------------------------------------------------------------------------------------------------

    def required(self):
        return bool({"admin", "regulator"} & self.roles) or (
            "compliance" in self.roles and self.officers_need_one)

    def session_acts(self):
        if self.session is None:
            return False
        return self.session["passed"] or not (self.required() or self.session["had_device"])

    def granted(self, role):
        """Apply a grant to the model: a role that must have a second factor revokes the credentials held."""
        self.roles.add(role)
        if role in ("admin", "regulator") or (role == "compliance" and self.officers_need_one):
            self.token, self.session = None, None

    # -- roles -------------------------------------------------------------------------------------------------------

    @initialize(officers_need_one=st.booleans())
    def installation(self, officers_need_one):
        self.officers_need_one = officers_need_one
        self.rule_for_officers = override_settings(MFA_REQUIRED_FOR_COMPLIANCE=officers_need_one)
        self.rule_for_officers.enable()

    @rule(role=st.sampled_from(ROLES), door=st.sampled_from(GRANT_DOORS + ("admin user page",)))
    def grant(self, role, door):
        if role in self.roles:
            return
        if door == "admin user page" and role != "admin":
            door = "appoint"
        self.grant_through(role, door)
        self.granted(role)

    def grant_through(self, role, door):
        value = {"floor": Role.FLOOR_SUPERVISOR, "compliance": Role.COMPLIANCE_OFFICER, "regulator": Role.REGULATOR,
                 "admin": Role.ADMIN}[role]
        where = self.places[role]
        if door == "appoint":
            appoint(self.person, value, by=self.people.admin, **where)
        elif door == "a service":
            Membership.objects.create(user=self.person, role=value, **where)
        elif door == "admin membership page":
            form = {"user": self.person.pk, "role": value, "change_reason": "the machine",
                    **{name: place.pk for name, place in where.items()}}
            answer = self.administrator.post(reverse("admin:cardroom_membership_add"), form)
            assert answer.status_code == 302, answer.content.decode()[:1000]
        else:  # the superuser flag on the admin's user page
            answer = self.administrator.post(reverse("admin:auth_user_change", args=[self.person.pk]), {
                "username": self.person.username, "is_active": "on", "is_staff": "on", "is_superuser": "on",
                "date_joined_0": "2026-01-05", "date_joined_1": "09:00:00", "change_reason": "the machine",
                **NO_ROLES_CHANGED})
            assert answer.status_code == 302, answer.context["adminform"].form.errors
        self.person.refresh_from_db()

    @rule(role=st.sampled_from(ROLES))
    def revoke(self, role):
        if role not in self.roles:
            return
        value = {"floor": Role.FLOOR_SUPERVISOR, "compliance": Role.COMPLIANCE_OFFICER, "regulator": Role.REGULATOR,
                 "admin": Role.ADMIN}[role]
        Membership.objects.filter(user=self.person, role=value).delete()
        if role == "admin":
            self.person.is_superuser = self.person.is_staff = False
            self.person.save(update_fields=["is_superuser", "is_staff"])
        self.roles.discard(role)  # fewer roles: nothing is revoked, nothing more is needed

    # -- the second factor -------------------------------------------------------------------------------------------

    @rule()
    def set_up_a_second_factor(self):
        second_factor.set_up_app(self.person, SECRET)
        second_factor.new_recovery_codes(self.person, CODES)
        self.device = True

    @rule()
    def an_administrator_removes_it(self):
        TOTPDevice.objects.filter(user=self.person).delete()
        StaticDevice.objects.filter(user=self.person).delete()
        self.device = False
        if self.session is not None:
            self.session["passed"] = False  # a session passed with a device that is gone owes it again (django-otp)

    # -- signing in, and making a token ------------------------------------------------------------------------------

    @rule()
    def sign_in(self):
        self.browser = Client()
        answer = self.browser.post("/login/", {"username": self.person.username, "password": PASSWORD})
        assert answer.status_code == 302, answer
        self.session = {"passed": False, "had_device": self.device}

    @precondition(lambda self: self.session is not None)
    @rule()
    def give_a_recovery_code(self):
        owes_it = not self.session_acts() and not self.session["passed"]
        answer = self.browser.post(reverse("console:second-factor"), {"code": next(self.codes), "next": "/account/"})
        if owes_it and self.device and (self.required() or self.session["had_device"]):
            assert answer.status_code == 302 and answer["Location"] == "/account/", answer
            self.session["passed"] = True
        else:
            assert answer.status_code in (302, 400), answer  # nothing owed, or no device to take it: not passed

    @rule(door=st.sampled_from(("account page", "admin")))
    def make_a_token(self, door):
        made = Token.objects.filter(user=self.person).first()
        if door == "account page":
            self.browser.post("/account/", {"action": "token"})
            may = self.session_acts() and (self.session["passed"] or not (self.required() or self.device))
        else:
            self.administrator.post(reverse("admin:authtoken_tokenproxy_add"),
                                    {"user": self.person.pk, "change_reason": "the machine"})
            may = made is None and not (self.required() or self.device)  # the admin adds; it does not replace
        now = Token.objects.filter(user=self.person).first()
        if may:
            assert now is not None and now != made
            self.token = now.key
        else:
            assert now == made, door

    # -- what every credential may do now ----------------------------------------------------------------------------

    @invariant()
    def no_credential_acts_beyond_what_the_account_allows(self):
        if self.rule_for_officers is None:
            return  # before the installation's rule is set
        basic = base64.b64encode(f"{self.person.username}:{PASSWORD}".encode()).decode()
        answer = Client().get(API, HTTP_AUTHORIZATION=f"Basic {basic}")
        assert answer.status_code == (401 if self.required() or self.device else 200), ("basic", answer.content)
        assert Token.objects.filter(user=self.person).exists() == (self.token is not None)
        if self.token is not None:
            answer = Client().get(API, HTTP_AUTHORIZATION=f"Token {self.token}")
            assert answer.status_code == (401 if self.required() and not self.device else 200), ("token",
                                                                                                 answer.content)
        answer = self.browser.get(API)
        assert answer.status_code == (200 if self.session_acts() else 401), ("session", self.session, answer.content)


@pytest.mark.long
def test_no_credential_acts_beyond_what_the_accounts_roles_allow(db):
    run_state_machine_as_test(Credentials, settings=settings(
        max_examples=int(os.environ.get("CREDENTIALS_EXAMPLES", 8)), stateful_step_count=12, deadline=None,
        database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))
