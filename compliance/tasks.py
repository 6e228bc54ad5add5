"""Compliance tasks: the nightly validation of everything (and on-demand runs from a worker)."""

import datetime

from celery import shared_task

from . import checking
from .models import ValidationRun


@shared_task
def validate_everything(as_of=None):
    """Nightly: every table's current posting, every approval and every published schedule version."""
    day = datetime.date.fromisoformat(as_of) if as_of else None
    run = checking.run_everything(as_of=day, trigger=ValidationRun.Trigger.NIGHTLY)
    return {"run": run.pk, "as_of": run.as_of.isoformat(), "errors": run.errors, "warnings": run.warnings,
            "infos": run.infos}
