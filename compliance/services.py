"""Validation runs, one function each, called by every door (the API, the pages, the ``check_compliance`` command and
the nightly task).

Each takes who acts (``actor``), what to validate and the day to validate as of; checks a named permission
(``compliance.run_validation`` for an establishment or a schedule, ``compliance.validate_everything`` for the whole
installation); runs the checks (``compliance.checking``, which stores the run and its findings in one transaction);
writes the audit entry (``compliance.run``); and raises only ``NotAllowed``. A run is a new row each time (an
earlier run is kept), so nothing is locked.

``SYSTEM`` (``cardroom.permissions``) is the installation acting itself, with no person: the nightly task and a command an operator runs on
the server. It is asked no permission, and the run records no starter.
"""

from django.db import transaction

from cardroom import permissions
from cardroom.audit import log_action
from cardroom.permissions import SYSTEM

from . import checking
from .models import ValidationRun

RUN, EVERYTHING = "compliance.run_validation", "compliance.validate_everything"
ON_DEMAND, NIGHTLY = ValidationRun.Trigger.ON_DEMAND, ValidationRun.Trigger.NIGHTLY




def _person(actor, *, permission, obj=None):
    """The person who starts the run (None for ``SYSTEM``), once allowed to."""
    if actor is SYSTEM:
        return None
    permissions.require(actor, permission, obj)
    return actor


def _logged(run, user, trigger, **where):
    log_action("compliance.run", actor=user, actor_label="" if user else f"validation ({trigger})", obj=run,
               data={"run": run.pk, "kind": run.kind, "as_of": run.as_of.isoformat(), "trigger": trigger,
                     "errors": run.errors, "warnings": run.warnings, "infos": run.infos}, **where)
    return run


@transaction.atomic
def run_establishment(actor, *, establishment, as_of=None, trigger=ON_DEMAND):
    """Validate an establishment's postings in force and its approvals as of ``as_of`` (today)."""
    user = _person(actor, permission=RUN, obj=establishment)
    run = checking.run_establishment(establishment, as_of=as_of, user=user, trigger=trigger)
    return _logged(run, user, trigger, establishment=establishment)


@transaction.atomic
def run_schedule(actor, *, version, as_of=None, trigger=ON_DEMAND):
    """Lint one schedule version and compare it with every other published version."""
    document = version.document
    user = _person(actor, permission=RUN, obj=document)
    run = checking.run_schedule(version, as_of=as_of, user=user, trigger=trigger)
    return _logged(run, user, trigger, establishment=document.establishment, jurisdiction=document.jurisdiction)


@transaction.atomic
def run_everything(actor, *, as_of=None, trigger=ON_DEMAND):
    """Validate every posting, approval and published schedule version as of ``as_of`` (today)."""
    user = _person(actor, permission=EVERYTHING)
    run = checking.run_everything(as_of=as_of, user=user, trigger=trigger)
    return _logged(run, user, trigger)
