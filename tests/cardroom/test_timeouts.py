"""SQLite's "database is locked", should a request wait its whole time for the write lock and not get it, is a 503
that says so, in the request's own format, at each layer an error can come from (issue 41): an API view, a page, a
middleware after the view (Django's last resort). Never a 500. (The waiting itself, which makes this rare:
test_second_factor_concurrent.py.)"""

import sqlite3

import pytest
from django.contrib.sessions.middleware import SessionMiddleware
from django.db import OperationalError
from django.test import Client

from cardroom import timeouts
from cardroom.api.views import JurisdictionViewSet

pytestmark = pytest.mark.django_db


def locked_error(tmp_path):
    """SQLite's own "database is locked" as Django raises it: its OperationalError around sqlite3's."""
    path = tmp_path / "locked.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    waiter = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        holder.execute("BEGIN IMMEDIATE")
        waiter.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        wrapped = OperationalError(*error.args)
        wrapped.__cause__ = error
        return wrapped
    finally:
        holder.close()
        waiter.close()
    raise AssertionError("the second writer got the lock")


@pytest.fixture
def locked(tmp_path):
    error = locked_error(tmp_path)
    assert str(error) == "database is locked"

    def raise_it(*args, **kwargs):
        raise error

    return raise_it


def assert_busy_page(answer):
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert answer["Content-Type"].startswith("text/html")
    page = answer.content.decode()
    assert "Service Unavailable" in page and "The database is busy with other changes" in page


def test_the_api_answers_503_in_its_format(client, people, locked, monkeypatch):
    monkeypatch.setattr(JurisdictionViewSet, "scope_queryset", locked)
    client.force_login(people.floor)
    answer = client.get("/api/v1/jurisdictions/")
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert answer.json()["error"] == {
        "status": 503, "code": "busy",
        "message": "The database is busy with other changes and this request waited too long for its turn: "
                   "nothing of it was saved. Try again in a moment."}


def test_a_page_answers_a_503_page(client, people, locked, monkeypatch):
    from console.views import floor

    monkeypatch.setattr(floor, "_floor_rows", locked)
    client.force_login(people.floor)
    assert_busy_page(client.get("/floor/casino-marysville/", HTTP_ACCEPT="text/html"))


def test_after_the_view_too(people, locked, monkeypatch):
    """A middleware's work after the view (the session's save, here): Django's handler500 is the last resort."""
    monkeypatch.setattr(SessionMiddleware, "process_response", locked)
    answer = Client(raise_request_exception=False).get("/login/", HTTP_ACCEPT="text/html")
    assert_busy_page(answer)


def test_only_a_lock_not_had_or_a_stopped_statement_is_a_503(tmp_path):
    assert timeouts.unavailable(locked_error(tmp_path))[0] == "busy"
    assert timeouts.unavailable(OperationalError("database is locked")) is None  # no SQLite error behind it
    try:
        sqlite3.connect(":memory:").execute("SELECT * FROM nowhere")
    except sqlite3.OperationalError as error:
        other = OperationalError(*error.args)
        other.__cause__ = error
    assert timeouts.unavailable(other) is None  # a real fault stays one (a 500, logged)
