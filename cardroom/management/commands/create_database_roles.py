import argparse
import re

from django.core.management.base import CommandError
from django.db import connection

from cardroom.exceptions import NotAllowed
from cardroom.management.base import BaseCommand


def role_name(value):
    """Plain lower-case PostgreSQL names only, so that quoting them is all it takes to put them in SQL."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", value):
        raise argparse.ArgumentTypeError(f"{value!r} is not a plain lower-case PostgreSQL name")
    return value


class Command(BaseCommand):
    run_as = "a PostgreSQL superuser (DATABASE_URL=postgres://postgres@<host>/postgres)"
    help = (
        "Create, where they do not exist yet, the owner role (owns the tables, runs the migrations), the service "
        "role (owns nothing: gunicorn, Celery and the commands connect as it) and the database, owned by the owner. "
        "Run as a PostgreSQL superuser, with DATABASE_URL pointing at an existing database such as postgres; then "
        "bin/migrate. Passwords are left to you (ALTER ROLE ... PASSWORD, or whatever pg_hba.conf asks for)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--database", type=role_name, default="cardroom")
        parser.add_argument("--owner", type=role_name, default="cardroom_owner")
        parser.add_argument("--service", type=role_name, default="cardroom_service")

    def handle(self, *args, database, owner, service, **options):
        if connection.vendor != "postgresql":
            raise CommandError("Roles are PostgreSQL's: point DATABASE_URL at a PostgreSQL superuser.")
        if owner == service:
            raise CommandError("The owner and the service must be two different roles.")
        quote = connection.ops.quote_name
        say = self.stdout.write if options["verbosity"] else (lambda message: None)
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user, rolsuper OR (rolcreaterole AND rolcreatedb) FROM pg_roles "
                           "WHERE rolname = current_user")
            user, may = cursor.fetchone()
            if not may:
                raise NotAllowed(f"The database role {user} may not create roles and databases: run "
                                 f"create_database_roles as {self.run_as}. Nothing was changed.")
            for role in (owner, service):
                cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
                if not cursor.fetchone():
                    cursor.execute(f"CREATE ROLE {quote(role)} LOGIN")
                    say(f"Created the role {role}.")
            cursor.execute(
                "SELECT rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls OR pg_has_role(%s, %s, 'MEMBER') "
                "FROM pg_roles WHERE rolname = %s", [service, owner, service],
            )
            if cursor.fetchone()[0]:
                raise CommandError(
                    f"The role {service} is a superuser, may create roles or databases, bypasses row security or "
                    f"is a member of {owner}: the service role must be a plain role that owns nothing."
                )
            cursor.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", [database])
            found = cursor.fetchone()
            if found is None:
                cursor.execute(f"CREATE DATABASE {quote(database)} OWNER {quote(owner)}")
                say(f"Created the database {database}, owned by {owner}.")
            elif found[0] != owner:
                raise CommandError(
                    f"The database {database} belongs to {found[0]}, not {owner}: its tables must belong to the "
                    f"owner role for the service role to own nothing (ALTER DATABASE / REASSIGN OWNED)."
                )
        say(f"Roles {owner} (owner) and {service} (service) and the database {database} are ready: bin/migrate.")
