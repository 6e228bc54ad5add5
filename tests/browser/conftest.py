"""Browser tests: Playwright drives the system's Chromium (Debian's package; nothing is downloaded) against
pytest-django's live server. Every test here is marked ``browser``.

Each page is watched for requests that leave the live server (the card room's network may be offline: nothing
may come from another host) and checked with axe-core (axe-playwright-python) for serious violations.
"""

import os
import shutil
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe

from cardroom.models import Role
from tests.second_factor import app_of, code_for

HERE = os.path.dirname(__file__)
# Playwright's sync API runs an event loop in the test's thread; the ORM calls the tests make beside it are
# ordinary synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
PASSWORD = "browser-test-password"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        if str(item.path).startswith(HERE):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.fail("The browser tests need Chromium: apt-get install chromium (bin/test installs it)")
    return {**browser_type_launch_args, "executable_path": chromium}


@pytest.fixture
def site(live_server, reseed, transactional_db):
    """The live server with the seed data, and people with passwords who log in through the login page."""
    from tests.conftest import People

    people = People()
    for user in (people.admin, people.compliance, people.compliance_2, people.floor, people.regulator_ca,
                 people.compliance_wa):
        user.set_password(PASSWORD)
        user.save()
        if user is not people.floor:  # as the demo: every role but the floor's has an authenticator app
            app_of(user)
    people.url = live_server.url
    people.Role = Role
    return people


@pytest.fixture
def offsite_requests(page, live_server):
    """Every request the page makes to a host other than the live server's (there must be none)."""
    host = urlsplit(live_server.url).netloc
    seen = []
    page.on("request", lambda request: seen.append(request.url)
            if urlsplit(request.url).scheme in ("http", "https", "ws", "wss")
            and urlsplit(request.url).netloc != host else None)
    return seen


def password_step(page, url, username, password=PASSWORD):
    """The login page's first step: the username and password."""
    page.goto(f"{url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()


def log_in(page, url, username, password=PASSWORD):
    """A whole login: the password, then the second factor when the login asks for one."""
    password_step(page, url, username, password)
    second_factor_step(page, username)
    return page


@pytest.fixture
def login(page, site, offsite_requests):
    yield lambda user: log_in(page, site.url, user.get_username())
    assert offsite_requests == []


def second_factor_step(page, username):
    """After the password: the code of the user's authenticator app (the demo's secret, tests/second_factor.py)
    when the login asks for one."""
    from django.contrib.auth import get_user_model

    if urlsplit(page.url).path == "/login/second-factor/":
        page.get_by_label("Code").fill(code_for(get_user_model().objects.get(username=username)))
        page.get_by_role("button", name="Verify").click()
        page.wait_for_load_state()


AXE = Axe()


def serious_violations(page):
    """axe-core's serious and critical findings on the page as it stands: (rule id, first target) pairs."""
    results = AXE.run(page)
    return [(v["id"], v["nodes"][0]["target"]) for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")]
