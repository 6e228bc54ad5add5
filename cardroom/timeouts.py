"""A web request's database statements are stopped after settings.STATEMENT_TIMEOUT_MS (PostgreSQL's
statement_timeout), and the request answered 503 in its own format (an API error, a page), where it would
otherwise run until gunicorn killed its worker and the client got a bare 500.

Only a process that serves web requests sets it on its connections: ``cardroom.wsgi`` (gunicorn, and runserver,
which loads it too) calls ``serve_web``. Celery workers and management commands never do: an export or a month's
reconciliation runs as long as it needs. SQLite has no such setting."""

from django.conf import settings
from django.db import OperationalError
from django.db.backends.signals import connection_created

QUERY_CANCELED = "57014"  # SQLSTATE of a statement stopped by statement_timeout (or cancelled by an operator)
MESSAGE = ("The database took too long over this request and stopped it{limit}. Ask for less at once (fewer gaming "
           "days, one table, a smaller page), or try again later.")


def set_timeout(sender, connection, **kwargs):
    """A web connection's settings: the timeout, and no JIT. A request's queries read a page of rows; over the
    ledger's partitions the planner's costs are large enough to JIT-compile them, which took 10 s for a page of
    entries that runs in 14 ms without (issue 32; reconciliation switches it off for the same reason)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false), set_config('jit', 'off', false)",
                           [str(settings.STATEMENT_TIMEOUT_MS)])


def serve_web():
    """This process answers web requests: every database connection it opens from now on gets the timeout."""
    connection_created.connect(set_timeout, dispatch_uid="cardroom.timeouts")


def timed_out(error):
    """Whether ``error`` is a statement the database stopped (statement_timeout): Django's OperationalError
    around psycopg's QueryCanceled."""
    return isinstance(error, OperationalError) and getattr(error.__cause__, "sqlstate", None) == QUERY_CANCELED


def message():
    seconds = settings.STATEMENT_TIMEOUT_MS / 1000
    return MESSAGE.format(limit=f" (one query may run for {seconds:g} s here)" if seconds else "")
