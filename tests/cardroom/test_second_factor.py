"""A second factor (issue 32): required of administrators and regulators, of compliance officers where the
installation says so, optional for floor supervisors; a session that owes it reaches nothing else, the admin
included; a wrong code is refused and throttled; a recovery code works once; HTTP Basic is refused to those who
must have one, and tokens are made only after passing it."""

import base64
import datetime

import pytest
from django.test import Client
from django.urls import reverse
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.authtoken.models import Token

from cardroom import second_factor
from cardroom.models import AuditLogEntry
from tests.second_factor import RECOVERY_CODES, app_of, code_for

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-passphrase"
API = "/api/v1/schedules/"


@pytest.fixture
def person(people):
    """Log someone in with their password at the login page (as a browser does): (client, user)."""
    def log_in(user, url="/login/"):
        user.set_password(PASSWORD)
        user.save()
        client = Client()
        answer = client.post(url, {"username": user.get_username(), "password": PASSWORD})
        assert answer.status_code == 302, answer
        return client
    return log_in


def enrol_url(next_page="/"):
    return f"{reverse('console:second-factor-enrol')}?next={next_page.replace('/', '%2F')}"


def verify_url(next_page="/"):
    return f"{reverse('console:second-factor')}?next={next_page.replace('/', '%2F')}"


def basic(user):
    return "Basic " + base64.b64encode(f"{user.get_username()}:{PASSWORD}".encode()).decode()


# -- who must have one -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("role, required", [("admin", True), ("regulator_ca", True), ("compliance", True),
                                            ("floor", False), ("outsider", False)])
def test_who_must_have_a_second_factor(people, settings, role, required):
    settings.MFA_REQUIRED_FOR_COMPLIANCE = True
    assert second_factor.required(getattr(people, role)) is required


def test_compliance_officers_only_where_the_installation_says_so(people, settings):
    settings.MFA_REQUIRED_FOR_COMPLIANCE = False
    assert not second_factor.required(people.compliance)
    assert second_factor.required(people.admin) and second_factor.required(people.regulator_wa)


def test_the_setting_is_on_by_default_without_debug(monkeypatch):
    import importlib

    import project.settings as module
    monkeypatch.setenv("DEBUG", "False")
    monkeypatch.setenv("SECRET_KEY", "k" * 30 + "abcdefghijklmnopqrstu")
    monkeypatch.delenv("MFA_REQUIRED_FOR_COMPLIANCE", raising=False)
    try:
        assert importlib.reload(module).MFA_REQUIRED_FOR_COMPLIANCE is True
        monkeypatch.setenv("DEBUG", "True")
        assert importlib.reload(module).MFA_REQUIRED_FOR_COMPLIANCE is False
    finally:
        monkeypatch.undo()
        importlib.reload(module)


# -- enrolment forced at the next login ------------------------------------------------------------------------

@pytest.mark.parametrize("role, home", [("admin", "/admin-home/"), ("regulator_ca", "/regulator/"),
                                        ("compliance", "/compliance/")])
def test_who_must_and_has_none_is_taken_to_enrolment_and_can_do_nothing_else(person, people, settings, role, home):
    settings.MFA_REQUIRED_FOR_COMPLIANCE = True
    user = getattr(people, role)
    client = person(user)
    for page in (home, "/floor/", "/admin/", "/account/", "/jobs/00000000-0000-0000-0000-000000000000/"):
        answer = client.get(page)
        assert answer.status_code == 302 and answer["Location"] == enrol_url(page), page
    # The API refuses the session, in its own format.
    answer = client.get(API)
    assert answer.status_code == 401
    assert "second factor" in answer.json()["error"]["message"]
    # Enrolment: the page shows the secret; a code from it confirms it and shows ten recovery codes.
    page = client.get(enrol_url(home))
    assert page.status_code == 200
    secret = page.context["secret"]
    assert client.post(reverse("console:second-factor-enrol"), {"code": "000000", "next": home}).status_code == 400
    answer = client.post(reverse("console:second-factor-enrol"), {"code": code_for(user, secret), "next": home})
    assert answer.status_code == 200 and len(answer.context["codes"]) == 10
    assert StaticToken.objects.filter(device__user=user).count() == 10
    assert client.get(home).get("Location", "") != enrol_url(home)
    assert client.get(API).status_code == 200


def test_a_floor_supervisor_without_a_second_factor_goes_straight_on(person, people):
    client = person(people.floor)
    assert "second-factor" not in client.get("/floor/").get("Location", "")
    assert Client().get(API, HTTP_AUTHORIZATION=basic(people.floor)).status_code == 200


def test_a_floor_supervisor_who_set_one_up_is_asked_for_it(person, people):
    app_of(people.floor)
    client = person(people.floor)
    answer = client.get("/floor/")
    assert answer.status_code == 302 and answer["Location"] == verify_url("/floor/")
    assert client.post(reverse("console:second-factor"),
                       {"code": code_for(people.floor), "next": "/floor/"})["Location"] == "/floor/"
    assert "second-factor" not in client.get("/floor/").get("Location", "")


# -- signing in with it --------------------------------------------------------------------------------------

@pytest.mark.parametrize("role", ["admin", "regulator_ca", "compliance", "floor"])
def test_signing_in_with_the_app(person, people, settings, role):
    settings.MFA_REQUIRED_FOR_COMPLIANCE = True
    user = getattr(people, role)
    app_of(user)
    client = person(user)
    assert client.get("/")["Location"] == verify_url("/")
    answer = client.post(reverse("console:second-factor"), {"code": code_for(user), "next": "/"})
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert client.get("/")["Location"] != verify_url("/")
    assert client.get(API).status_code == 200


def test_the_admins_own_login_is_no_way_around_it(person, people):
    app_of(people.admin)
    client = person(people.admin, url="/admin/login/")
    answer = client.get("/admin/")
    assert answer.status_code == 302 and answer["Location"] == verify_url("/admin/")
    assert client.get("/admin/cardroom/membership/")["Location"] == verify_url("/admin/cardroom/membership/")
    client.post(reverse("console:second-factor"), {"code": code_for(people.admin), "next": "/admin/"})
    assert client.get("/admin/").status_code == 200


def test_the_admin_site_itself_refuses_a_session_that_owes_it(rf, people):
    from django.contrib import admin
    from django.contrib.sessions.backends.db import SessionStore

    request = rf.get("/admin/")
    request.user, request.session = people.admin, SessionStore()
    request.user.is_verified = lambda: False
    assert not admin.site.has_permission(request)
    request.user.is_verified = lambda: True
    assert admin.site.has_permission(request)


def test_a_recovery_code_works_once(person, people):
    user = people.regulator_ca
    app_of(user)
    second_factor.new_recovery_codes(user, RECOVERY_CODES)
    client = person(user)
    answer = client.post(reverse("console:second-factor"), {"code": RECOVERY_CODES[0], "next": "/regulator/"})
    assert answer["Location"] == "/regulator/"
    assert second_factor.recovery_codes_left(user) == len(RECOVERY_CODES) - 1
    TOTPDevice.objects.filter(user=user).update(throttling_failure_count=0)
    again = person(user)  # another browser: the same code no longer works
    answer = again.post(reverse("console:second-factor"), {"code": RECOVERY_CODES[0], "next": "/regulator/"})
    assert answer.status_code == 400
    assert "already used" in answer.context["error"]
    assert again.get("/regulator/")["Location"] == verify_url("/regulator/")


def test_a_wrong_code_is_refused_and_throttled(person, people):
    user = people.admin
    app_of(user)
    client = person(user)
    answer = client.post(reverse("console:second-factor"), {"code": "123456", "next": "/"})
    if answer.status_code == 302:  # the one chance in a million that it was right
        pytest.skip("the wrong code was the right one")
    assert answer.status_code == 400 and "wrong" in answer.context["error"]
    # Straight after, even the right code is not checked: the device waits (1 s, then 2, 4, 8...).
    answer = client.post(reverse("console:second-factor"), {"code": code_for(user), "next": "/"})
    assert answer.status_code == 400 and answer.context["error"].startswith("Too many wrong codes: try again in")
    device = TOTPDevice.objects.get(user=user)
    assert device.throttling_failure_count == 1
    # Once the wait is over, the right code works.
    TOTPDevice.objects.filter(pk=device.pk).update(
        throttling_failure_timestamp=device.throttling_failure_timestamp - datetime.timedelta(seconds=2))
    assert client.post(reverse("console:second-factor"), {"code": code_for(user), "next": "/"}).status_code == 302


def test_each_wrong_code_doubles_the_wait(people, rf):
    device = app_of(people.admin)
    for failures in range(1, 6):
        TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_count=failures,
                                                       throttling_failure_timestamp=datetime.datetime.now(
                                                           datetime.timezone.utc))
        device.refresh_from_db()
        allowed, details = device.verify_is_allowed()
        assert not allowed
        wait = (details["locked_until"] - device.throttling_failure_timestamp).total_seconds()
        assert wait == 2 ** (failures - 1)


# -- the API: Basic refused to those who must have one, tokens only after passing it ---------------------------

@pytest.mark.parametrize("role", ["admin", "regulator_ca"])
def test_basic_is_refused_to_those_who_must_have_a_second_factor(people, role):
    user = getattr(people, role)
    user.set_password(PASSWORD)
    user.save()
    answer = Client().get(API, HTTP_AUTHORIZATION=basic(user))
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == 'Basic realm="cardroom"'
    message = answer.json()["error"]["message"]
    assert "HTTP Basic is not accepted for this account" in message and "Authorization: Token <key>" in message


def test_a_token_is_made_on_the_account_page_only_after_the_second_factor(person, people):
    user = people.regulator_ca
    app_of(user)
    client = person(user)
    answer = client.post("/account/", {"action": "token"})
    assert answer.status_code == 302 and answer["Location"].startswith(reverse("console:second-factor"))
    assert not Token.objects.filter(user=user).exists()
    client.post(reverse("console:second-factor"), {"code": code_for(user), "next": "/account/"})
    answer = client.post("/account/", {"action": "token"})
    key = answer.context["new_token"]
    assert Token.objects.get(user=user).key == key
    assert Client().get(API, HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    entry = AuditLogEntry.objects.filter(action="authtoken.token.create").latest("pk")
    assert key not in str(entry.data)
    # Listed without its key, replaced, revoked.
    page = client.get("/account/").content.decode()
    assert f"…{key[-4:]}" in page and key not in page
    client.post("/account/", {"action": "revoke-token"})
    assert not Token.objects.filter(user=user).exists()
    assert Client().get(API, HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_the_token_service_refuses_a_session_that_did_not_pass(rf, people):
    from django.contrib.sessions.backends.db import SessionStore

    from cardroom import tokens
    from cardroom.exceptions import NotAllowed

    request = rf.post("/account/")
    request.user, request.session = people.admin, SessionStore()
    request.user.is_verified = lambda: False
    with pytest.raises(NotAllowed):
        tokens.issue(request.user)


def test_the_admin_makes_tokens_only_for_accounts_that_need_no_second_factor(client, people):
    client.force_login(people.admin)
    url = reverse("admin:authtoken_tokenproxy_add")
    answer = client.post(url, {"user": people.regulator_ca.pk, "change_reason": "for a script"})
    assert answer.status_code == 200
    assert "must use a second factor" in answer.content.decode()
    assert not Token.objects.filter(user=people.regulator_ca).exists()
    answer = client.post(url, {"user": people.floor.pk, "change_reason": "the floor terminal"})
    assert answer.status_code == 302
    token = Token.objects.get(user=people.floor)
    first = client.get(reverse("admin:authtoken_tokenproxy_changelist")).content.decode()
    assert token.key in first  # "... was added": shown once, to hand over
    listing = client.get(reverse("admin:authtoken_tokenproxy_changelist")).content.decode()
    assert "t-floor" in listing and f"…{token.key[-4:]}" in listing and token.key not in listing


# -- WebAuthn keys (django-otp-webauthn): the ceremonies start for the page's own host --------------------------

def test_a_key_is_registered_for_the_host_the_page_was_opened_at(client, people):
    client.force_login(people.admin)
    answer = client.post("/account/webauthn/registration/begin/", content_type="application/json",
                         HTTP_HOST="localhost")
    assert answer.status_code == 200, answer.content
    assert answer.json()["rp"] == {"id": "localhost", "name": "cardroom"}


def test_registering_a_key_needs_the_second_factor_passed_once_one_is_held(client, people):
    app_of(people.admin)
    client.force_login(people.admin, second_factor=False)
    answer = client.post("/account/webauthn/registration/begin/", content_type="application/json")
    assert answer.status_code == 403


def test_no_passwordless_login_with_a_key(client):
    answer = client.post("/account/webauthn/authentication/begin/", content_type="application/json")
    assert answer.status_code == 403
