"""The service's database role inside a test (PostgreSQL): made and granted as ``grant_service_role`` grants it,
then taken on for a block, as gunicorn and Celery connect. Made in the test's transaction, so its rollback takes the
role away again; the test's own role (the tables' owner, as ``bin/migrate`` runs) is the owner."""

import contextlib
import uuid

from django.core.management import call_command
from django.db import connection, transaction


def make_service_role():
    """A new role holding what ``grant_service_role`` grants the service, and nothing else; its name."""
    role = f"cardroom_service_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {role}")
    call_command("grant_service_role", role, verbosity=0)
    return role


@contextlib.contextmanager
def acting_as(role):
    """The block runs as ``role`` (``SET LOCAL ROLE`` in a savepoint). An error inside rolls the savepoint back, the
    role with it, and leaves the test's transaction usable; a block that ends well takes the owner's role back."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {role}")
        yield
        cursor.execute("RESET ROLE")
