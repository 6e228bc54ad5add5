"""Compliance tasks: the nightly validation of everything (and on-demand runs from a worker)."""

import datetime

from celery import shared_task

from fees.ledger import previous_gaming_day

from . import checking
from .models import ValidationRun


@shared_task
def validate_everything(as_of=None):
    """Nightly, after the gaming day closes: the postings, approvals and schedule versions in force on the
    gaming day that just ended, and the rounds played on it (player-dealer rotation)."""
    day = datetime.date.fromisoformat(as_of) if as_of else previous_gaming_day()
    run = checking.run_everything(as_of=day, trigger=ValidationRun.Trigger.NIGHTLY)
    return {"run": run.pk, "as_of": run.as_of.isoformat(), "errors": run.errors, "warnings": run.warnings,
            "infos": run.infos}
