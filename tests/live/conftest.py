"""What the tests against the live service share. bin/test's live stage (bin/test-live) starts it as production
runs it: gunicorn with DEBUG off and a Celery worker, both connected as the PostgreSQL service role to a database
of their own (cardroom_live) holding the seed and demo data, migrated by the owner role.

Every test in this directory is marked ``live``: bin/test's first two passes leave them out and its live stage
selects them (``pytest -m live tests/live``). Without the stage's variables they fail; they are never skipped.

Password logins all come from 127.0.0.1 here: LOGIN_FAILURE_LIMIT (5) failures lock an account out for the
cool-off, LOGIN_ADDRESS_FAILURE_LIMIT (50) every account: a test that fails logins on purpose asks for
``clear_failed_logins``.
"""

import os
from pathlib import Path

import psycopg
import pytest

from demo.management.commands.load_demo import DEMO_USERS

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.live)
    # The fuzzers write whatever the API and the pages let them into the live database: they run after every
    # other test, the page fuzzer before the schema fuzzer.
    items.sort(key=lambda item: (item.path == HERE / "test_schema_fuzz.py", item.path == HERE / "test_page_fuzz.py"))


def live_setting(name):
    if not os.environ.get(name):
        pytest.fail(f"{name} is not set: the live tests run in bin/test's live stage (bin/test-live)")
    return os.environ[name]


@pytest.fixture(scope="session")
def live_url():
    """Where the live service answers, e.g. http://127.0.0.1:8765 (no trailing slash)."""
    return live_setting("LIVE_URL").rstrip("/")


@pytest.fixture(scope="session")
def service_database_url():
    """The live database as the service role, the one gunicorn and the worker connect as."""
    return live_setting("LIVE_DATABASE_URL")


@pytest.fixture(scope="session")
def owner_database_url():
    """The live database as the owner role, the one that migrated it."""
    return live_setting("LIVE_OWNER_DATABASE_URL")


@pytest.fixture(scope="session")
def demo_users():
    """The README's demo accounts, loaded by load_demo: username -> password."""
    return {username: password for username, password, *_ in DEMO_USERS}


@pytest.fixture
def clear_failed_logins(service_database_url):
    """Forget the failed logins a test made (and the locks they set), so later tests can log in."""
    yield
    with psycopg.connect(service_database_url, autocommit=True) as connection:
        connection.execute("DELETE FROM axes_accessattempt")
