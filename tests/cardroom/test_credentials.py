"""Credentials follow roles (issue 41; cardroom.credentials): whether a password alone, a token or a session may act for
an account is decided by the account as it is now, at every door.

The attacks, each through the door its attacker used:
- a floor supervisor makes an API token, an administrator appoints them regulator: the token started an audit export,
  with regulator scope, no second factor ever set up. Now the grant revokes the token and ends the sessions, whatever
  door granted it, logged and the person emailed; and a token of an account that must have a second factor and has
  none set up is refused anyway;
- a floor supervisor who set up an authenticator app was still served over HTTP Basic on the password alone (a sign
  print recorded). Now Basic is refused to anyone with a second factor, chosen or required.
"""

import base64

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.authtoken.models import Token

from cardroom import credentials
from cardroom.models import AuditLogEntry, Job, Membership, Role
from cardroom.roles import appoint
from signage.models import SignPrint
from tests.factories import make_posted_table
from tests.second_factor import app_of

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-passphrase"
EXPORT = {"establishment": "casino-marysville", "from": "2026-03-01", "to": "2026-03-31"}


def basic(user):
    return "Basic " + base64.b64encode(f"{user.get_username()}:{PASSWORD}".encode()).decode()


def with_password(user):
    user.set_password(PASSWORD)
    user.email = f"{user.get_username()}@example.org"
    user.save()
    return user


def token_on_the_account_page(user):
    """The person makes their own token on their account page (after their second factor, if they have one)."""
    client = Client()
    client.force_login(user)
    answer = client.post("/account/", {"action": "token"})
    assert answer.status_code == 200, answer
    return client, answer.context["new_token"]


def export_with(key):
    return Client().post("/api/v1/exports", EXPORT, content_type="application/json",
                         HTTP_AUTHORIZATION=f"Token {key}")


def administrator(people):
    client = Client()
    client.force_login(people.admin)
    return client


# -- the grant: tokens and sessions made without the factor are revoked, by every door that grants ---------------

def grant_in_the_admins_membership_page(people, user):
    answer = administrator(people).post(reverse("admin:cardroom_membership_add"), {
        "user": user.pk, "role": "regulator", "jurisdiction": people.marysville.jurisdiction.pk,
        "change_reason": "Seconded to the Bureau"})
    assert answer.status_code == 302, answer.content.decode()[:2000]


def grant_with_appoint(people, user):
    appoint(user, Role.REGULATOR, jurisdiction=people.marysville.jurisdiction, by=people.admin)


# The user page's roles (its inline of memberships): none listed, so none changed.
NO_ROLES_CHANGED = {"memberships-TOTAL_FORMS": "0", "memberships-INITIAL_FORMS": "0",
                    "memberships-MIN_NUM_FORMS": "0", "memberships-MAX_NUM_FORMS": "1000"}


def grant_in_the_admins_user_page(people, user):
    client = administrator(people)
    url = reverse("admin:auth_user_change", args=[user.pk])
    answer = client.post(url, {
        "username": user.username, "email": user.email, "is_active": "on", "is_staff": "on", "is_superuser": "on",
        "date_joined_0": "2026-01-05", "date_joined_1": "09:00:00", "change_reason": "Runs the installation now",
        **NO_ROLES_CHANGED})
    assert answer.status_code == 302, answer.context["adminform"].form.errors if answer.context else answer


def grant_by_any_service(people, user):
    Membership.objects.create(user=user, role=Role.REGULATOR, jurisdiction=people.marysville.jurisdiction)


GRANTS = {"admin membership page": grant_in_the_admins_membership_page, "roles.appoint": grant_with_appoint,
          "admin user page (superuser)": grant_in_the_admins_user_page, "a service": grant_by_any_service}


@pytest.mark.parametrize("grant", GRANTS.values(), ids=GRANTS.keys())
def test_a_floor_token_does_not_outlive_an_appointment_as_regulator(people, grant, mailoutbox,
                                                                     django_capture_on_commit_callbacks):
    floor = with_password(people.floor)
    session, key = token_on_the_account_page(floor)
    assert Client().get("/api/v1/schedules/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        grant(people, floor)
    # The attack: the token, now of a regulator, starts an audit export.
    answer = export_with(key)
    assert answer.status_code == 401, answer.content
    assert not Job.objects.filter(requested_by=floor).exists()
    assert not Token.objects.filter(user=floor).exists()
    # The session made on the password alone is ended too: the browser is at the login page again.
    assert session.get("/floor/")["Location"].startswith("/login/")
    # Logged, and the person told.
    entry = AuditLogEntry.objects.get(action="auth.credentials_revoked")
    assert entry.data["user"] == "t-floor" and entry.data["tokens"] == 1 and entry.data["sessions"] == 1
    assert "must use a second factor" in entry.data["reason"]
    if grant is not grant_by_any_service:
        assert entry.actor == people.admin
    [email] = [m for m in mailoutbox if m.to == ["t-floor@example.org"]]
    assert "revoked" in email.subject and "/login/" in email.body and "1 API token" in email.body


def test_a_token_of_an_account_that_must_have_a_second_factor_and_has_none_is_refused(people):
    """However it came to be (made by a shell, its device removed by an administrator after a lost phone)."""
    token = Token.objects.create(user=people.regulator_ca)
    answer = export_with(token.key)
    assert answer.status_code == 401
    assert answer.json()["error"]["message"] == credentials.TOKEN_WITHOUT
    assert not Job.objects.exists()
    app_of(people.regulator_ca)  # set up: the token acts again
    assert export_with(token.key).status_code == 202
    TOTPDevice.objects.filter(user=people.regulator_ca).delete()  # removed in the admin
    assert export_with(token.key).status_code == 401


def test_every_grant_of_a_role_that_must_have_a_second_factor_revokes(people):
    """A regulator appointed in a second jurisdiction: the token was made for California alone, and does not gain
    Washington without its person signing in again."""
    app_of(people.regulator_ca)
    _, key = token_on_the_account_page(people.regulator_ca)
    appoint(people.regulator_ca, Role.REGULATOR, jurisdiction=people.washington, by=people.admin)
    assert Client().get("/api/v1/schedules/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401
    assert AuditLogEntry.objects.filter(action="auth.credentials_revoked").exists()
    # Saved again unchanged (the admin's save button), the membership grants nothing new: nothing more is revoked.
    _, key = token_on_the_account_page(people.regulator_ca)
    Membership.objects.get(user=people.regulator_ca, jurisdiction=people.washington).save()
    assert Client().get("/api/v1/schedules/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200


def test_a_floor_supervisor_appointed_again_as_floor_supervisor_keeps_their_token(people):
    _, key = token_on_the_account_page(people.floor)
    appoint(people.floor, Role.FLOOR_SUPERVISOR, establishment=people.wa_room, by=people.admin)
    assert Client().get("/api/v1/schedules/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200


def test_compliance_officers_follow_the_installations_rule(people, settings):
    floor = people.floor
    _, key = token_on_the_account_page(floor)
    settings.MFA_REQUIRED_FOR_COMPLIANCE = False
    appoint(floor, Role.COMPLIANCE_OFFICER, establishment=people.marysville, by=people.admin)
    assert Token.objects.filter(key=key).exists()  # an officer here needs no second factor
    Membership.objects.filter(user=floor, role=Role.COMPLIANCE_OFFICER).delete()
    settings.MFA_REQUIRED_FOR_COMPLIANCE = True
    appoint(floor, Role.COMPLIANCE_OFFICER, establishment=people.marysville, by=people.admin)
    assert not Token.objects.filter(key=key).exists()


def test_only_the_persons_own_sessions_end(people):
    floor, other = Client(), Client()
    floor.force_login(people.floor)
    other.force_login(people.compliance_2)
    appoint(people.floor, Role.REGULATOR, jurisdiction=people.washington, by=people.admin)
    assert floor.get("/floor/")["Location"].startswith("/login/")
    assert other.get("/compliance/casino-marysville/").status_code == 200
    assert Session.objects.count() == 1


# -- HTTP Basic: refused to anyone with a second factor, chosen or required ---------------------------------------

def test_basic_is_refused_to_a_floor_supervisor_who_set_up_an_app(people):
    floor = with_password(people.floor)
    table = make_posted_table(people.marysville)
    url = f"/api/v1/tables/{table.pk}/signage.pdf"
    assert Client().get("/api/v1/schedules/", HTTP_AUTHORIZATION=basic(floor)).status_code == 200
    app_of(floor)
    # The attack: a sign printed (and recorded) on the password alone.
    answer = Client().post(url, HTTP_AUTHORIZATION=basic(floor))
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == 'Basic realm="cardroom"'
    assert answer.json()["error"]["message"] == credentials.BASIC_CHOSEN
    assert "Authorization: Token <key>" in credentials.BASIC_CHOSEN
    assert not SignPrint.objects.exists()
    # A token made after passing it is the API's door for them.
    _, key = token_on_the_account_page(floor)
    assert Client().post(url, HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    assert SignPrint.objects.count() == 1


def test_the_account_page_says_basic_is_refused(people):
    client = Client()
    client.force_login(people.floor)
    assert "HTTP Basic" not in client.get("/account/").content.decode()
    app_of(people.floor)
    client.force_login(people.floor)
    assert "HTTP Basic (your password alone) is not accepted for your account, as it has a second factor" in (
        client.get("/account/").content.decode())


def test_the_admin_makes_no_token_for_a_floor_supervisor_who_set_up_an_app(people):
    app_of(people.floor)
    answer = administrator(people).post(reverse("admin:authtoken_tokenproxy_add"), {
        "user": people.floor.pk, "change_reason": "the floor terminal"})
    assert answer.status_code == 200
    assert "t-floor has a second factor: they make their own token" in answer.content.decode()
    assert not Token.objects.exists()
