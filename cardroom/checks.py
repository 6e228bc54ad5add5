"""System checks that need the database (``manage.py check --database default``; ``bin/migrate`` runs it)."""

from django.core import checks
from django.db import DatabaseError


@checks.register(checks.Tags.database)
def root_of_trust(app_configs=None, databases=None, **kwargs):
    """The root of trust in the configuration (SIGNING_ROOT, or the configured key) against the recorded keys: the
    configured key must be trusted from it; a key recorded without a chain of endorsements from it is reported."""
    if not databases:
        return []
    from django.db import connection

    from .models import SigningKey
    from .transparency import root_problems

    try:
        if SigningKey._meta.db_table not in connection.introspection.table_names():
            return []  # not migrated yet (migrate runs this check first): nothing recorded to compare
    except DatabaseError:
        return []

    try:
        errors, warnings = root_problems()
    except DatabaseError:  # not migrated yet: migrate first, then check
        return []
    hint = "docs/audit.md, 'Keys'"
    return ([checks.Error(problem, hint=hint, id="cardroom.E001") for problem in errors]
            + [checks.Warning(problem, hint=hint, id="cardroom.W001") for problem in warnings])
