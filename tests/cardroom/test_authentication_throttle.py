"""Failed logins are throttled per account and per address at every door that checks a password: the admin's
login, the session login and HTTP Basic on the API. A locked-out login answers 429 with Retry-After and its
password is not checked (guessers used to slow every request down by keeping the password hasher busy)."""

import base64
import datetime

import pytest
import time_machine
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.db.models import F
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db

LIMIT = 5  # settings.AXES_FAILURE_LIMIT by default
COOL_OFF = datetime.timedelta(minutes=15)
HERE, ELSEWHERE = "192.0.2.10", "198.51.100.20"
RIGHT, WRONG = "the-right-password", "a-wrong-guess"


class CountingHasher(MD5PasswordHasher):
    """Counts every password hashed or checked, so a test can tell whether a login reached the hasher."""

    uses = 0

    def encode(self, password, salt):
        CountingHasher.uses += 1
        return super().encode(password, salt)


@pytest.fixture(autouse=True)
def counting_hasher(settings):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    CountingHasher.uses = 0


@pytest.fixture
def victim(db):
    return get_user_model().objects.create_user("victim", password=RIGHT, is_staff=True)


@pytest.fixture
def neighbour(db):
    return get_user_model().objects.create_user("neighbour", password=RIGHT, is_staff=True)


def form_login(url):
    def login(username, password, address):
        return Client(REMOTE_ADDR=address).post(url, {"username": username, "password": password})
    return login


def basic_login(username, password, address):
    credentials = base64.b64encode(f"{username}:{password}".encode()).decode()
    return Client(REMOTE_ADDR=address).get("/api/v1/schedules/", HTTP_AUTHORIZATION=f"Basic {credentials}")


# door: (log in, status of a success, status of a wrong password)
DOORS = {
    "admin": (form_login("/admin/login/"), 302, 200),
    "pages": (form_login("/login/"), 302, 200),
    "session": (form_login("/api-auth/login/"), 302, 200),
    "basic": (basic_login, 200, 401),
}


@pytest.fixture(params=DOORS)
def door(request):
    return DOORS[request.param]


def lock(login, username="victim", address=HERE):
    """Fail LIMIT times: the last failure locks the account."""
    for _ in range(LIMIT):
        response = login(username, WRONG, address)
    assert response.status_code == 429
    return response


def let_time_pass(delta):
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - delta)


def assert_refused(response):
    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert 0 < wait <= COOL_OFF.total_seconds()
    if response.wsgi_request.path.startswith("/api/"):
        error = response.json()["error"]
        assert (error["status"], error["code"]) == (429, "throttled")
        assert f"try again in {wait} seconds" in error["message"]
        assert "manage.py axes_reset_username <user>" in error["message"]  # how an administrator clears it
    else:
        assert response["Content-Type"].startswith("text/plain")
        assert "Too many failed logins" in response.content.decode()
        assert "manage.py axes_reset_username <user>" in response.content.decode()
    return wait


def test_failures_below_the_limit_are_answered_as_failures(door, victim):
    login, _, failed = door
    for _ in range(LIMIT - 1):
        assert login("victim", WRONG, HERE).status_code == failed


def test_the_attempt_after_the_limit_is_refused_without_checking_the_password(door, victim):
    login, _, _ = door
    lock(login)
    checked = CountingHasher.uses
    for password in (WRONG, RIGHT):
        assert_refused(login("victim", password, HERE))
    assert CountingHasher.uses == checked


def test_guesses_at_one_account_do_not_lock_another_out_of_the_same_address(door, victim, neighbour):
    """Five wrong guesses at "floor" used to lock "admin" out from the same address for the cool-off: an account
    is locked, and so from every address; the address itself only at its own, much higher limit."""
    login, succeeded, _ = door
    lock(login)
    assert login("neighbour", RIGHT, HERE).status_code == succeeded
    # The locked account is locked wherever it comes from.
    assert_refused(login("victim", RIGHT, HERE))
    assert login("victim", RIGHT, ELSEWHERE).status_code == 429


def test_an_address_is_locked_across_accounts_at_its_own_limit(door, victim, neighbour, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 12
    login, succeeded, _ = door
    with time_machine.travel(timezone.now(), tick=False):  # the whole cool-off is left, however slow the machine
        for n in range(11):  # a different made-up account each time: no account reaches its limit
            assert login(f"nobody-{n}", WRONG, HERE).status_code != 429
        wait = assert_refused(login("nobody-else", WRONG, HERE))
    assert wait == 900
    assert_refused(login("neighbour", RIGHT, HERE))
    assert login("neighbour", RIGHT, ELSEWHERE).status_code == succeeded


def test_the_right_password_works_after_the_cool_off(door, victim):
    login, succeeded, _ = door
    lock(login)
    let_time_pass(datetime.timedelta(minutes=10))
    assert 299 <= int(login("victim", RIGHT, HERE)["Retry-After"]) <= 300
    let_time_pass(COOL_OFF - datetime.timedelta(minutes=10) + datetime.timedelta(seconds=1))
    assert login("victim", RIGHT, HERE).status_code == succeeded


@pytest.mark.parametrize("url", ["/admin/login/", "/login/", "/api-auth/login/"])
def test_a_session_login_clears_the_failures(url, victim):
    login = form_login(url)
    for _ in range(LIMIT - 1):
        login("victim", WRONG, HERE)
    assert login("victim", RIGHT, HERE).status_code == 302
    assert not AccessAttempt.objects.exists()
    for _ in range(LIMIT - 1):
        assert login("victim", WRONG, HERE).status_code == 200


def test_a_basic_success_does_not_clear_the_failures(victim):
    """Basic succeeds on every request: were each success to clear the count, someone guessing beside a
    legitimate client would get a fresh allowance each time it made a request."""
    for _ in range(LIMIT - 1):
        basic_login("victim", WRONG, HERE)
    assert basic_login("victim", RIGHT, HERE).status_code == 200
    assert basic_login("victim", WRONG, HERE).status_code == 429


def test_tokens_keep_working_from_a_locked_address(victim, people, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = LIMIT
    lock(basic_login)
    assert_refused(basic_login("neighbour", RIGHT, HERE))  # the address is locked
    token = Token.objects.create(user=people.compliance)
    response = Client(REMOTE_ADDR=HERE).get("/api/v1/schedules/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 200


@pytest.mark.parametrize("url", ["/admin/login/", "/login/", "/api-auth/login/"])
def test_a_success_clears_only_its_own_accounts_failures(url, victim, neighbour):
    """Four guesses at one account, then a good login as another from the same address: the success used to
    clear every failure from the address, so repeating it gave unlimited guesses. The fifth guess must lock."""
    login = form_login(url)
    for _ in range(LIMIT - 1):
        assert login("victim", WRONG, HERE).status_code == 200
    assert login("neighbour", RIGHT, HERE).status_code == 302
    assert_refused(login("victim", WRONG, HERE))
    assert_refused(login("victim", RIGHT, HERE))
    assert_refused(login("victim", RIGHT, ELSEWHERE))


def test_a_success_leaves_its_accounts_failures_from_elsewhere(victim):
    """The owner logging in here says nothing about who is guessing elsewhere: that count goes on."""
    login = form_login("/login/")
    for _ in range(LIMIT - 1):
        login("victim", WRONG, ELSEWHERE)
    assert login("victim", RIGHT, HERE).status_code == 302
    assert_refused(login("victim", WRONG, ELSEWHERE))
