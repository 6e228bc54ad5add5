"""The test database, made once per run of bin/test and copied into each test process.

Migrating and seeding a database takes a test process 15-20 s; bin/test's passes start seven such processes. So
bin/test makes one template first (``python -m tests.template_database``: migrated, seeded, the tests' people made)
and names it in ``CARDROOM_TEST_TEMPLATE``; each process's ``django_db_setup`` (tests/conftest.py) copies it:
SQLite into the process's in-memory database with SQLite's backup, PostgreSQL with ``CREATE DATABASE ... TEMPLATE``.
Without ``CARDROOM_TEST_TEMPLATE`` (pytest run by hand) each process migrates and seeds its own, as before.

The template lives for one run (bin/test makes it anew each time), so it can never be older than the code.
"""

import os
import sqlite3
import time

from django.conf import settings
from django.db import connections

ENV = "CARDROOM_TEST_TEMPLATE"


def named():
    """The template bin/test made for this run: a SQLite file's path or a PostgreSQL database's name; or None."""
    return os.environ.get(ENV) or None


def copy_into_test_database(template, alias="default"):
    """Make the test database of ``alias`` a copy of the template, and point the connection at it (what Django's
    create_test_db does, but copying instead of migrating). Returns the test database's name."""
    connection = connections[alias]
    if connection.vendor not in ("sqlite", "postgresql"):
        raise RuntimeError(f"{ENV} is set but {connection.vendor} has no template copy here")
    test_name = connection.creation._get_test_db_name()
    connection.close()
    _point(connection, alias, test_name)
    _copy(connection, template)
    return test_name


def reset(alias="default"):
    """After a transactional test, instead of Django's flush (which empties every table, on PostgreSQL a TRUNCATE of
    each, seconds long, after which the seed data had to be loaded again): the test database becomes the template's
    copy again, seed data and people included."""
    _copy(connections[alias], named())


def _copy(connection, template):
    """The connection's database made the template's copy: SQLite's copied in place (into the in-memory database the
    connection keeps open), PostgreSQL's dropped and made again from it."""
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        with sqlite3.connect(template) as source:
            source.backup(connection.connection)
        return
    name = connection.settings_dict["NAME"]
    connection.close()
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _create_from(cursor, name, template)


def drop(test_name, alias="default"):
    connection = connections[alias]
    if connection.vendor == "postgresql":
        connection.close()
        with connection._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{test_name}" WITH (FORCE)')


def _point(connection, alias, name):
    settings.DATABASES[alias]["NAME"] = name
    connection.settings_dict["NAME"] = name


def _create_from(cursor, name, template):
    # Two processes copying one template at the same moment: PostgreSQL refuses the second while the first reads
    # the template ("source database is being accessed by other users"); it is a matter of a second.
    for attempt in range(30):
        try:
            cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            return
        except Exception as error:  # psycopg's ObjectInUse, wrapped by Django
            if "being accessed by other users" not in str(error) or attempt == 29:
                raise
            time.sleep(1)


def make():
    """``python -m tests.template_database``: migrate and seed the database DATABASE_URL names (made anew), and make
    the tests' people in it. bin/test runs it once per database and passes the name on in CARDROOM_TEST_TEMPLATE."""
    from django.core.management import call_command

    connection = connections["default"]
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        if os.path.exists(name):
            os.remove(name)
    else:
        with connection._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            cursor.execute(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0)
    call_command("load_seed_data", verbosity=0)
    from tests.conftest import People

    People()
    connection.close()
    print(name)


if __name__ == "__main__":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    django.setup()
    make()
