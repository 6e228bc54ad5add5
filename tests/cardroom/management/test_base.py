"""Every command run as a role that may not do its work says so in one sentence, exit status 2, never a traceback
(issue 41): ``cardroom.management.base``, the commands' one mapping of what refuses them. Tried as the service's
database role (``grant_service_role``'s) on PostgreSQL, in the test's transaction and, once, as a process of its own
connected as that role, as an operator would run it."""

import io
import os
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class
from django.db import connection
from django.utils import timezone

from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.management.base import BaseCommand
from tests.database_roles import acting_as, make_service_role

ROOT = Path(__file__).resolve().parents[3]
ROLE_REFUSED = 2  # the exit status of a role refused (cardroom.management.base.ROLE_REFUSED)
# Last month: over, and with partitions of its own (the migrations make the months around today), so that closing
# it goes as far as the database's refusal when nothing stops it before.
LAST_MONTH = f"{timezone.localdate().replace(day=1) - timedelta(days=1):%Y-%m}"
PROJECT_APPS = {"cardroom", "fees", "compliance", "signage", "exports", "console", "demo"}

# What the service's role is refused, and the sentence that says so (each command with the arguments its work needs).
REFUSED = {
    ("close_month", "--month", LAST_MONTH, "--establishment", "casino-marysville"):
        r"The database role cardroom_service_\w+ may not run close_month: .*tables' owner "
        r"\(DATABASE_URL=\$MIGRATE_DATABASE_URL.*Nothing was changed\.",
    ("reopen_month", "--month", LAST_MONTH): r"may not run reopen_month: .*Nothing was changed\.",
    ("close_due_months",): r"may not run close_due_months: .*Nothing was changed\.",
    ("remove_old_archives",): r"may not run remove_old_archives: .*Nothing was changed\.",
    ("record_signing_key",): r"The database role cardroom_service_\w+ may not do what record_signing_key does "
                             r"\(permission denied for table cardroom_signingkey\)\. Run it as the tables' owner",
    ("grant_service_role", "cardroom_other"): r"does not own the tables \(\w+ does\), so it may not grant them: .*"
                                              r"Nothing was changed\.",
    ("create_database_roles", "--database", "cardroom_probe"):
        r"may not create roles and databases: run create_database_roles as a PostgreSQL superuser",
}


class Refusing(BaseCommand):
    def __init__(self, error):
        super().__init__()
        self.error = error

    def handle(self, *args, **options):
        raise self.error


class Driver(Exception):
    """What psycopg raises when the database refuses a role its privilege (SQLSTATE 42501)."""

    sqlstate = "42501"


def test_every_command_of_the_project_stands_on_the_one_mapping():
    ours = {name: app for name, app in get_commands().items() if app.split(".")[-1] in PROJECT_APPS}
    assert {"close_month", "reopen_month", "grant_service_role", "create_database_roles"} <= set(ours)
    strays = [name for name, app in ours.items() if not isinstance(load_command_class(app, name), BaseCommand)]
    assert strays == []


@pytest.mark.parametrize("error, status", [
    (NotAllowed("The database role x may not run close_month."), ROLE_REFUSED),
    (BadInput("--month '2024-13': give the month as YYYY-MM."), 1),
    (StateConflict("2024-06 is being closed by another run."), 1),
])
def test_a_services_refusal_is_its_sentence_and_a_role_refused_exits_2(error, status):
    with pytest.raises(CommandError) as refused:
        call_command(Refusing(error))
    assert str(refused.value) == str(error) and refused.value.returncode == status


def test_the_databases_refusal_of_a_privilege_is_a_sentence_naming_who_may(db):
    wrapped = RuntimeError("wrapped")
    wrapped.__cause__ = Driver("permission denied for table fees_closedmonth\nDETAIL: ...")
    with pytest.raises(CommandError) as refused:
        call_command(Refusing(wrapped))
    assert refused.value.returncode == ROLE_REFUSED
    assert str(refused.value).endswith("may not do what test_base does (permission denied for table "
                                       "fees_closedmonth). Run it as the tables' owner "
                                       "(DATABASE_URL=$MIGRATE_DATABASE_URL, as bin/migrate runs).")
    with pytest.raises(RuntimeError, match="not a refusal"):  # anything else is not turned into a sentence
        call_command(Refusing(RuntimeError("not a refusal")))


@pytest.mark.services
@pytest.mark.django_db
def test_each_command_that_alters_or_owns_says_the_service_role_may_not(settings, tmp_path):
    assert connection.vendor == "postgresql", "roles are PostgreSQL's (bin/test's second pass)"
    settings.LEDGER_ARCHIVE_RETENTION_DAYS = 1
    role = make_service_role()
    for (name, *arguments), said in REFUSED.items():
        with pytest.raises(CommandError, match=said) as refused, acting_as(role):
            call_command(name, *arguments, stdout=io.StringIO())
        assert refused.value.returncode == ROLE_REFUSED, name
    # What only reads is the service's to run: the archives that would go, listed.
    with acting_as(role):
        call_command("remove_old_archives", "--dry-run", stdout=io.StringIO())


@pytest.mark.services
@pytest.mark.long
def test_run_as_the_service_role_a_command_exits_2_with_one_sentence(django_db_setup, django_db_blocker, tmp_path):
    """The door an operator uses: ``manage.py close_month`` and ``reopen_month`` in a process of their own, connected
    as a service role granted by grant_service_role (committed, then dropped)."""
    assert connection.vendor == "postgresql", "roles are PostgreSQL's (bin/test's second pass)"
    role = f"cardroom_service_{uuid.uuid4().hex[:8]}"
    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE ROLE {role} LOGIN")
        try:
            call_command("grant_service_role", role, verbosity=0)
            where = connection.settings_dict
            url = f"postgres://{role}@{where['HOST'] or '127.0.0.1'}:{where['PORT'] or 5432}/{where['NAME']}"
            env = {**os.environ, "DATABASE_URL": url, "SIGNING_KEY_FILE": str(tmp_path / "key.pem")}
            env.pop("CELERY_BROKER_URL", None)
            for command in (["close_month", "--month", LAST_MONTH, "--establishment", "casino-marysville"],
                            ["reopen_month", "--month", LAST_MONTH]):
                done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env,
                                      capture_output=True, text=True, timeout=120)
                assert done.returncode == ROLE_REFUSED, done.stdout + done.stderr
                assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
                assert done.stderr.startswith(f"CommandError: The database role {role} may not run {command[0]}: ")
        finally:
            with connection.cursor() as cursor:
                cursor.execute(f"DROP OWNED BY {role}")
                cursor.execute(f"DROP ROLE {role}")
