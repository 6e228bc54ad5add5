import logging
import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application
from django.db import DatabaseError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
application = get_wsgi_application()

# This process serves web requests (gunicorn; runserver loads this module too): its queries are time-limited.
from cardroom import timeouts  # noqa: E402

timeouts.serve_web()


def _check_root_of_trust():
    """Refuse to start when the configured root of trust and the recorded keys disagree (docs/audit.md, "Keys"), or
    when AUDIT_LOG_ORIGIN is not the name the log's checkpoints were signed under ("The log's name"): a service that
    cannot say which keys it trusts, or which log it is, must not verify, nor sign, anything."""
    from cardroom.transparency import origin_problem, root_problems

    try:
        errors, warnings = root_problems()
        renamed = origin_problem()
    except DatabaseError as error:  # the database is not there yet: signing checks the keys again when it signs
        logging.getLogger("cardroom").warning("The root of trust was not checked at start-up: %s", error)
        return
    errors += [renamed] if renamed else []
    for warning in warnings:
        logging.getLogger("cardroom").warning(warning)
    if errors:
        raise ImproperlyConfigured(" ".join(errors))


_check_root_of_trust()
