"""Eight people giving a recovery code at the same moment, against the service as ``bin/serve`` runs it (issue 41).

On the embedded default (``runserver``, a thread per request, SQLite) two to five of eight such posts answered 500
"database is locked" (four in the issue): each checks its code in a transaction that reads the device and then deletes the code, and
SQLite refuses at once, without waiting, a transaction that read and then wants to write while another one writes.
Transactions now take SQLite's write lock when they begin and wait for it (settings: DATABASES' OPTIONS), so every
post is answered. The run's own database is served (SQLite: a file copy of it; PostgreSQL: the test database itself).
"""

import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from django.conf import settings
from django.db import connection
from django.contrib.auth import get_user_model
from django.test import Client

from cardroom import second_factor
from cardroom.models import Jurisdiction, Role
from cardroom.roles import appoint
from tests.second_factor import SECRET

pytestmark = [pytest.mark.long, pytest.mark.django_db(transaction=True)]

PEOPLE = 8
ROOT = Path(settings.BASE_DIR)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def served_database(tmp_path):
    """The DATABASE_URL the server reads this test's committed data from."""
    if connection.vendor == "sqlite":
        copy = tmp_path / "db.sqlite3"
        connection.ensure_connection()
        with sqlite3.connect(copy) as target:
            connection.connection.backup(target)
        return f"sqlite:///{copy}"
    db = connection.settings_dict
    who = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return f"postgres://{who}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def server(tmp_path):
    """``manage.py runserver`` (what bin/serve runs), on a free port, over the data this test committed."""
    def start():
        port = free_port()
        env = {**os.environ, "DATABASE_URL": served_database(tmp_path), "DEBUG": "True",
               "SECRET_KEY": settings.SECRET_KEY, "PYTHONUNBUFFERED": "1"}
        env.pop("CELERY_BROKER_URL", None)
        log = open(tmp_path / "server.log", "w")  # noqa: SIM115 - closed below
        process = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload",
                                    "--skip-checks"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        started.append((process, log))
        url = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                requests.get(f"{url}/login/", timeout=5)
                return url
            except requests.ConnectionError:
                assert process.poll() is None, (tmp_path / "server.log").read_text()
                time.sleep(0.25)
        raise AssertionError("runserver did not answer: " + (tmp_path / "server.log").read_text())

    started = []
    yield start
    for process, log in started:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def signed_in_with_a_password(user):
    """A session that passed the password and owes its second factor: its cookie (force_login stores it)."""
    client = Client()
    client.force_login(user, second_factor=False)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_eight_recovery_codes_given_at_once_are_all_answered(reseed, server):
    california = Jurisdiction.objects.get(code="CA")
    people = []
    for n in range(PEOPLE):
        user = get_user_model().objects.create_user(f"t-burst-{n}", email=f"burst-{n}@example.org")
        appoint(user, Role.REGULATOR, jurisdiction=california)
        second_factor.set_up_app(user, SECRET)
        second_factor.new_recovery_codes(user, [f"burst-code-{n}"])
        people.append((user, signed_in_with_a_password(user)))
    url = server()

    # Each browser has the page open (its CSRF token) before they all press the button at once.
    browsers = []
    for user, cookie in people:
        browser = requests.Session()
        browser.cookies.set(settings.SESSION_COOKIE_NAME, cookie)
        page = browser.get(f"{url}/login/second-factor/", timeout=30)
        assert page.status_code == 200, page.text[:500]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        browsers.append((browser, token))
    start = threading.Barrier(PEOPLE)
    answers = [None] * PEOPLE

    def give_code(n):
        browser, token = browsers[n]
        start.wait()
        answers[n] = browser.post(f"{url}/login/second-factor/", timeout=60, allow_redirects=False,
                                  data={"code": f"burst-code-{n}", "next": "/regulator/",
                                        "csrfmiddlewaretoken": token},
                                  headers={"Referer": f"{url}/login/second-factor/", "Accept": "text/html"})

    threads = [threading.Thread(target=give_code, args=(n,)) for n in range(PEOPLE)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    said = [(answer.status_code, re.findall(r"<title>(.*?)</title>", answer.text, re.S)) for answer in answers]
    assert [status for status, _ in said] == [302] * PEOPLE, said
    assert all(answer.headers["Location"] == "/regulator/" for answer in answers)
    # Each browser is signed in: its code was taken.
    for browser, _ in browsers:
        assert browser.get(f"{url}/regulator/", allow_redirects=False, timeout=30).status_code == 200

