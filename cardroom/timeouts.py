"""A web request's database statements are stopped after settings.STATEMENT_TIMEOUT_MS (PostgreSQL's
statement_timeout), and the request answered 503 in its own format (an API error, a page), where it would
otherwise run until gunicorn killed its worker and the client got a bare 500.

Only a process that serves web requests sets it on its connections: ``project.wsgi`` (gunicorn, and runserver,
which loads it too) calls ``serve_web``. Celery workers and management commands never do: an export or a month's
reconciliation runs as long as it needs. SQLite has no such setting.

SQLite (the embedded default) has one writer at a time: a transaction takes the write lock when it begins and
waits for it (settings: DATABASES' OPTIONS), so concurrent requests queue rather than fail. One that waited its
whole time without getting it ("database is locked") is answered 503 in words too, never 500 (issue 41).

``unavailable`` is the one place that says which database errors are these, and in what words: the API's errors
(cardroom.api.errors), the pages' (cardroom.middleware) and Django's last resort (handler500) each ask it."""

from django.conf import settings
from django.db import OperationalError
from django.db.backends.signals import connection_created

from .responses import error_response

QUERY_CANCELED = "57014"  # SQLSTATE of a statement stopped by statement_timeout (or cancelled by an operator)
MESSAGE = ("The database took too long over this request and stopped it{limit}. Ask for less at once (fewer gaming "
           "days, one table, a smaller page), or try again later.")
# SQLite's primary result codes for a lock it could not get: SQLITE_BUSY (another connection writes), SQLITE_LOCKED
# (another statement of a connection sharing its cache).
SQLITE_BUSY, SQLITE_LOCKED = 5, 6
BUSY_MESSAGE = ("The database is busy with other changes and this request waited too long for its turn: nothing "
                "of it was saved. Try again in a moment.")
BUSY_RETRY_AFTER = 5  # seconds, in the answer's Retry-After


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


def locked(error):
    """Whether ``error`` is SQLite's "database is locked" (or "database table is locked"): Django's
    OperationalError around sqlite3's, which names its result code (Python 3.11)."""
    code = getattr(error.__cause__, "sqlite_errorcode", None) if isinstance(error, OperationalError) else None
    return code is not None and code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)


def message():
    seconds = settings.STATEMENT_TIMEOUT_MS / 1000
    return MESSAGE.format(limit=f" (one query may run for {seconds:g} s here)" if seconds else "")


def unavailable(error):
    """How to answer ``error`` when the database, not the request, is why it failed: a 503's ``(code, sentence,
    seconds to wait or None)``, or None for any other error."""
    if timed_out(error):
        return "timeout", message(), None
    if locked(error):
        return "busy", BUSY_MESSAGE, BUSY_RETRY_AFTER
    return None


def answer(request, error):
    """``unavailable``'s 503 outside DRF (a page, Django's last resort), in the request's own format; or None."""
    found = unavailable(error)
    if found is None:
        return None
    code, said, wait = found
    return error_response(request, 503, code, said, {"Retry-After": str(wait)} if wait else None)
