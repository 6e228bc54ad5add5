import os

import pytest
from django.conf import settings
from django.core.management import call_command

from . import factories, template_database


def pytest_sessionstart(session):
    """When the run is meant for the real services (bin/test's second pass, CI), refuse anything else."""
    if os.environ.get("CARDROOM_REQUIRE_SERVICES") != "True":
        return
    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine:
        pytest.exit(f"CARDROOM_REQUIRE_SERVICES is set but the database engine is {engine}", returncode=3)
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.exit("CARDROOM_REQUIRE_SERVICES is set but CELERY_BROKER_URL is not a Redis URL", returncode=3)


# Fixtures through which a test reaches the database; a test with none of them (and no django_db mark) cannot
# (pytest-django refuses it), so its result does not depend on the database.
_DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback",
                      "live_server"}


def pytest_collection_modifyitems(config, items):
    """The long tests first (marked long or migrations), so that the test processes, handed tests in this order,
    end together rather than one of them running a long test alone at the end.

    CARDROOM_DATABASE_TESTS_ONLY (bin/test's PostgreSQL pass): leave out the tests that never reach a database;
    the SQLite pass has just run them, and a second run on another database could not tell anything new."""
    items.sort(key=lambda item: not (item.get_closest_marker("long") or item.get_closest_marker("migrations")))
    if os.environ.get("CARDROOM_DATABASE_TESTS_ONLY") != "True":
        return
    kept, left = [], []
    for item in items:
        reaches = item.get_closest_marker("django_db") or _DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
        (kept if reaches else left).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


@pytest.fixture(scope="session")
def django_db_setup(request, django_test_environment, django_db_blocker, django_db_modify_db_settings):
    """Every test starts from the published seed data and the people below; each test's own changes are rolled
    back. Under bin/test the database is a copy of the run's template (tests/template_database.py); otherwise it is
    migrated and seeded here, as pytest-django's own fixture would."""
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        if template_database.named():
            made = template_database.copy_into_test_database(template_database.named())
        else:
            databases = setup_databases(verbosity=0, interactive=False, aliases={"default"}, serialized_aliases=set())
            call_command("load_seed_data", verbosity=0)
            People()  # made once for the run: each test finds them (and rolls back what it changes)
    yield
    with django_db_blocker.unblock():
        if template_database.named():
            template_database.drop(made)
        else:
            teardown_databases(databases, verbosity=0)


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher():
    """Passwords are hashed with a fast hasher in the tests (as Django advises): the browser tests set six per test
    and log in through the page. The live stage runs the service's own (production settings, bin/test-live)."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def fresh_memory():
    """Each test rolls back, so an id can come back with other content: forget what the process remembered for
    quotes (cardroom.generation; in production an id is never reused, so the memory stays right)."""
    from cardroom import generation

    generation.forget()
    yield
    generation.forget()


@pytest.fixture(autouse=True)
def force_login_passes_the_second_factor(monkeypatch):
    """``client.force_login(user)`` is a whole login, second factor included (tests/second_factor.py); a test of the
    second factor itself asks for ``force_login(user, second_factor=False)``. The requirement is never switched off."""
    from django.test import Client

    from .second_factor import pass_second_factor

    force_login = Client.force_login

    def login(self, user, backend=None, *, second_factor=True):
        force_login(self, user, backend)
        if second_factor:
            pass_second_factor(self, user)

    monkeypatch.setattr(Client, "force_login", login)


@pytest.fixture
def reseed(django_db_blocker):
    """For transactional tests: the flush at the end of an earlier one removed the seed data, so load it first.

    (Loading it again at the end would not help: pytest-django's flush is torn down after this fixture.)
    """
    if template_database.named():
        return  # every transactional test ended by making the database the template's copy again (below)
    with django_db_blocker.unblock():
        call_command("load_seed_data", verbosity=0)


@pytest.fixture(scope="session", autouse=True)
def transactional_tests_end_on_the_template():
    """Under bin/test a transactional test ends with the test database made the template's copy again, instead of
    Django's flush and a reload of the seed data (tests/template_database.py)."""
    from django.test import TransactionTestCase

    if not template_database.named():
        yield
        return
    flush = TransactionTestCase._fixture_teardown
    TransactionTestCase._fixture_teardown = lambda self: template_database.reset()
    yield
    TransactionTestCase._fixture_teardown = flush


class People:
    """One user per role, inside and outside the establishment, as healthchecks' base test case does. They are made
    once, with the seed data (``django_db_setup``), and found by every test after; a test that flushed the database
    (a transactional one) makes them again."""

    def __init__(self):
        from django.contrib.auth import get_user_model

        from cardroom.models import Establishment, Jurisdiction, Role
        from cardroom.roles import appoint

        User = get_user_model()
        self.marysville = Establishment.objects.get(slug="casino-marysville")
        self.washington = Jurisdiction.objects.get(code="WA")
        self.wa_room, _ = Establishment.objects.get_or_create(
            slug="test-wa-room",
            defaults={"name": "Test WA Room", "jurisdiction": self.washington, "kind": "card_room", "is_demo": True},
        )

        def make(username, role=None, **where):
            user = User.objects.filter(username=username).first()
            if user is None:
                user = User.objects.create_user(username)  # no password: tests log in with force_login
                if role:
                    appoint(user, role, **where)
            return user

        self.admin = make("t-admin", Role.ADMIN)
        self.compliance = make("t-compliance", Role.COMPLIANCE_OFFICER, establishment=self.marysville)
        # A second officer of the same room: the one who approves what the first asks for.
        self.compliance_2 = make("t-compliance-2", Role.COMPLIANCE_OFFICER, establishment=self.marysville)
        self.floor = make("t-floor", Role.FLOOR_SUPERVISOR, establishment=self.marysville)
        self.regulator_ca = make("t-regulator-ca", Role.REGULATOR, jurisdiction=self.marysville.jurisdiction)
        self.regulator_wa = make("t-regulator-wa", Role.REGULATOR, jurisdiction=self.washington)
        self.compliance_wa = make("t-compliance-wa", Role.COMPLIANCE_OFFICER, establishment=self.wa_room)
        self.compliance_wa_2 = make("t-compliance-wa-2", Role.COMPLIANCE_OFFICER, establishment=self.wa_room)
        self.outsider = make("t-outsider")


@pytest.fixture
def people(db):
    return People()


@pytest.fixture
def table(people):
    """Table 7 at Casino Marysville: seven seats of Face Up Pai Gow Poker, nothing posted yet."""
    return factories.make_table(people.marysville)


@pytest.fixture
def draft(people):
    """A draft v2 of GEGA-002888 from v1, started by the compliance officer, effective 1 January 2030."""
    return factories.make_draft(user=people.compliance)


@pytest.fixture
def clock(time_machine):
    """``clock(moment)`` stops the clock at ``moment`` (an aware datetime). A posting starts now or later, so a
    test that posts a table for a day of the past first puts the clock back to just before it."""

    def set_to(moment):
        time_machine.move_to(moment, tick=False)

    return set_to


@pytest.fixture
def api():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture(autouse=True)
def jobs_in_process(request, settings):
    """Jobs run in-process in every test but those marked ``services``, which start a real worker: with a
    broker configured (bin/test's second pass) a queued job would otherwise wait for a worker that is not there."""
    if request.node.get_closest_marker("services"):
        yield
        return
    from project.celery import app

    before = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture(autouse=True)
def signing_key_file(settings, tmp_path_factory):
    """Exports are signed with a key made for the test run, never the installation's var/signing-key.pem."""
    if not getattr(settings, "SIGNING_KEY", ""):
        settings.SIGNING_KEY_FILE = tmp_path_factory.getbasetemp() / "signing-key.pem"
