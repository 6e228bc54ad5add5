"""System checks: the root of trust against the recorded keys and the log's origin against the checkpoints signed
(both need the database: ``manage.py check --database default``; ``bin/migrate`` runs it), and a witness's key."""

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


@checks.register(checks.Tags.database)
def log_origin(app_configs=None, databases=None, **kwargs):
    """AUDIT_LOG_ORIGIN against the checkpoints already signed: the log keeps the name it was first signed under
    (``cardroom.transparency.origin_problem``); a new one is an error (the service also refuses to sign under it)."""
    if not databases:
        return []
    from django.db import connection

    from .models import AuditCheckpoint
    from .transparency import origin_problem

    try:
        if AuditCheckpoint._meta.db_table not in connection.introspection.table_names():
            return []  # not migrated yet: nothing signed
        problem = origin_problem()
    except DatabaseError:
        return []
    return [checks.Error(problem, hint="docs/audit.md, 'The log's name'", id="cardroom.E003")] if problem else []


@checks.register()
def witness_key(app_configs=None, **kwargs):
    """A witness (WITNESS_NAME set) whose key cannot be loaded, or is the signing key, would answer its first
    submission with a server error: said by the checks instead (manage.py check, runserver, migrate; bin/migrate runs them)."""
    from django.core.exceptions import ImproperlyConfigured

    from .witness import keys

    if not keys.enabled():
        return []
    try:
        keys.witness_key()
    except ImproperlyConfigured as error:
        return [checks.Error(str(error), hint="docs/audit.md, 'Running a witness'", id="cardroom.E002")]
    return []
