"""The live service answers as production does: gunicorn with DEBUG off, the API behind authentication and the
failed-login throttle, a Celery worker, all connected as the PostgreSQL service role."""

import base64
import json
import urllib.error
import urllib.request

import psycopg
import pytest


def fetch(url, credentials=None):
    """(status, headers, body) of a GET; error statuses are answers like any other."""
    request = urllib.request.Request(url)
    if credentials:
        request.add_header("Authorization", "Basic " + base64.b64encode(":".join(credentials).encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_without_credentials_the_api_answers_401_with_a_challenge(live_url):
    status, headers, body = fetch(f"{live_url}/api/v1/schedules/")
    assert status == 401
    assert headers["WWW-Authenticate"] == 'Basic realm="cardroom"'
    assert json.loads(body)["error"]["status"] == 401


def test_a_demo_user_reads_the_schedules(live_url, demo_users):
    status, _, body = fetch(f"{live_url}/api/v1/schedules/", ("floor", demo_users["floor"]))
    assert status == 200
    assert "GEGA-002888" in {schedule["code"] for schedule in json.loads(body)["results"]}


def test_basic_is_refused_to_an_account_that_must_have_a_second_factor(live_url, demo_users):
    """With DEBUG off, compliance officers must have one (MFA_REQUIRED_FOR_COMPLIANCE's default): a token instead."""
    status, headers, body = fetch(f"{live_url}/api/v1/schedules/", ("compliance", demo_users["compliance"]))
    assert status == 401
    assert "Authorization: Token <key>" in json.loads(body)["error"]["message"]


def test_pages_carry_the_production_headers_and_secure_cookies(live_url):
    status, headers, _ = fetch(f"{live_url}/admin/login/")
    assert status == 200
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert all("Secure" in cookie for cookie in headers.get_all("Set-Cookie"))


def test_guessing_a_password_is_throttled(live_url, demo_users, clear_failed_logins):
    for _ in range(5):
        status, headers, body = fetch(f"{live_url}/api/v1/schedules/", ("compliance", "a-wrong-guess"))
    assert status == 429
    assert 0 < int(headers["Retry-After"]) <= 15 * 60
    assert json.loads(body)["error"]["code"] == "throttled"
    # The account is locked, not the address: another account, with its right password, still reads.
    assert fetch(f"{live_url}/api/v1/schedules/", ("compliance", demo_users["compliance"]))[0] == 429
    assert fetch(f"{live_url}/api/v1/schedules/", ("floor", demo_users["floor"]))[0] == 200


@pytest.mark.services  # a real worker: tests/conftest.py leaves tasks to the broker
def test_the_service_and_its_worker_connect_as_the_service_role(live_url, demo_users, service_database_url):
    from cardroom.tasks import worker_health

    assert fetch(f"{live_url}/api/v1/games/", ("floor", demo_users["floor"]))[0] == 200
    seen = worker_health.delay().get(timeout=60)
    with psycopg.connect(service_database_url, autocommit=True) as service:
        assert seen["games"] == service.execute("SELECT count(*) FROM cardroom_game").fetchone()[0]
        roles = service.execute(
            "SELECT DISTINCT usename FROM pg_stat_activity "
            "WHERE datname = current_database() AND backend_type = 'client backend'"
        ).fetchall()
    assert {role for role, in roles} - {"cardroom_owner"} == {"cardroom_service"}
