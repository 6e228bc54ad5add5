"""The commands' one mapping of what refuses them, so that none ends in a traceback: every command of the project
is a ``BaseCommand`` of this module (``tests/cardroom/management/test_base.py`` holds them to it).

- A ``BadInput`` or a ``StateConflict`` of a service is the command's ``CommandError``: its sentence on stderr and
  exit status 1, as the API's 400 and 409 and the pages' message.
- A role that may not do the command's work, exit status 2 (``ROLE_REFUSED``): a ``NotAllowed`` (the service's own
  sentence: who may, e.g. ``fees.months.services.need_owner``), or the database refusing the role it connected as
  (psycopg's ``InsufficientPrivilege``, SQLSTATE 42501: "permission denied for table ...", "must be owner of table
  ..."), said as "The database role ... may not do what <command> does (...). Run it as <``run_as``>."
"""

from django.core.management.base import BaseCommand as DjangoBaseCommand
from django.core.management.base import CommandError
from django.db import connection

from cardroom.exceptions import BadInput, NotAllowed, StateConflict

ROLE_REFUSED = 2  # the exit status of a command whose role may not do its work
INSUFFICIENT_PRIVILEGE = "42501"  # PostgreSQL's SQLSTATE for every "permission denied" and "must be owner"


def refused_privilege(error):
    """The driver's error behind ``error`` (Django wraps psycopg's) when the database refused the role its
    privilege; None otherwise."""
    for _ in range(5):  # an error, the one it was raised from, and so on: never a long chain
        if error is None:
            return None
        if getattr(error, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
            return error
        error = error.__cause__ or error.__context__
    return None


def _role():
    """The role connected, as the database names it (its settings' when the connection cannot answer now)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            return cursor.fetchone()[0]
    except Exception:  # noqa: BLE001 - a transaction the refusal left aborted: the settings say who connected
        return connection.settings_dict.get("USER") or "connected"


class BaseCommand(DjangoBaseCommand):
    # Who may run the command, said when the database refuses the role it ran as.
    run_as = "the tables' owner (DATABASE_URL=$MIGRATE_DATABASE_URL, as bin/migrate runs)"

    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except NotAllowed as error:
            raise CommandError(str(error), returncode=ROLE_REFUSED) from None
        except (BadInput, StateConflict) as error:
            raise CommandError(str(error)) from None
        except Exception as error:
            refused = refused_privilege(error)
            if refused is None:
                raise
            said = str(refused).strip().splitlines()[0] if str(refused).strip() else type(refused).__name__
            name = type(self).__module__.rsplit(".", 1)[-1]
            raise CommandError(f"The database role {_role()} may not do what {name} does ({said}). Run it as "
                               f"{self.run_as}.", returncode=ROLE_REFUSED) from None
