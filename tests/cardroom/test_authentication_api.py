"""401 or 403 on the API: missing or wrong credentials answer 401 with a challenge (a client then knows to
log in), a logged-in user who may not do something answers 403. Session, Basic and Token all still work."""

import base64

import pytest
from rest_framework.authtoken.models import Token

from tests.second_factor import token_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/schedules/"
CHALLENGE = 'Basic realm="cardroom"'


def basic(username, password):
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def assert_unauthenticated(response):
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == CHALLENGE
    error = response.json()["error"]
    assert error["status"] == 401 and error["code"] in ("not_authenticated", "authentication_failed")


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def compliance(people):
    people.compliance.set_password("the-password")
    people.compliance.save()
    return people.compliance


def test_no_credentials_answer_401_with_a_challenge(client):
    assert_unauthenticated(client.get(URL))
    assert_unauthenticated(client.post("/api/v1/fees/quote", {}, content_type="application/json"))


def test_wrong_credentials_answer_401_with_a_challenge(client, compliance):
    assert_unauthenticated(client.get(URL, HTTP_AUTHORIZATION=basic("t-compliance", "not-the-password")))
    assert_unauthenticated(client.get(URL, HTTP_AUTHORIZATION=basic("nobody", "the-password")))
    assert_unauthenticated(client.get(URL, HTTP_AUTHORIZATION="Token " + "0" * 40))
    assert_unauthenticated(client.get(URL, HTTP_AUTHORIZATION="Basic not-base64!"))


def test_session_basic_and_token_all_authenticate(client, compliance, settings):
    settings.MFA_REQUIRED_FOR_COMPLIANCE = False  # where they need no second factor, Basic is theirs too
    assert client.get(URL, HTTP_AUTHORIZATION=basic("t-compliance", "the-password")).status_code == 200
    token = Token.objects.create(user=compliance)
    assert client.get(URL, HTTP_AUTHORIZATION=f"Token {token.key}").status_code == 200
    client.force_login(compliance)
    assert client.get(URL).status_code == 200


def test_a_forbidden_action_by_a_logged_in_user_stays_403(client, people):
    # A regulator must have a second factor: the API is theirs through a token (HTTP Basic is refused them).
    token = token_for(people.regulator_ca)
    response = client.post("/api/v1/compliance/runs/run/", {"everything": True}, content_type="application/json",
                           HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 403
    assert "WWW-Authenticate" not in response
    assert response.json()["error"]["code"] == "permission_denied"
