"""Compliance tasks: the nightly validation of everything (and on-demand runs from a worker), the daily digest."""

import datetime

from celery import shared_task

from cardroom.permissions import SYSTEM
from fees.ledger import previous_gaming_day

from . import digest, services


@shared_task
def validate_everything(as_of=None):
    """Nightly, after the gaming day closes: the postings, approvals and schedule versions in force on the
    gaming day that just ended, and the rounds played on it (player-dealer rotation)."""
    day = datetime.date.fromisoformat(as_of) if as_of else previous_gaming_day()
    run = services.run_everything(SYSTEM, as_of=day, trigger=services.NIGHTLY)  # the scheduler
    return {"run": run.pk, "as_of": run.as_of.isoformat(), "errors": run.errors, "warnings": run.warnings,
            "infos": run.infos}


def check_room_after_condition(record, user, **kwargs):
    """A condition met or withdrawn changes whether the room's tables may offer the game: check the room's postings
    again (a listener of ``cardroom.conditions.RECORDED``), so that the inbox says what the print gate already judges."""
    validate_establishment.delay(record.establishment_id, user.pk if user else None)


@shared_task
def validate_establishment(establishment_id, user_id=None):
    """The room's postings and approvals as of today, started by ``user_id`` (the installation when None)."""
    from django.contrib.auth import get_user_model

    from cardroom.models import Establishment

    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    run = services.run_establishment(user or SYSTEM, establishment=Establishment.objects.get(pk=establishment_id))
    return {"run": run.pk, "errors": run.errors, "warnings": run.warnings, "infos": run.infos}


@shared_task
def send_daily_digest(since=None):
    """Daily (CELERY_BEAT_SCHEDULE): each room's digest (``compliance.digest``) of what is new since ``since`` (ISO
    text; by default the day before)."""
    return digest.send(datetime.datetime.fromisoformat(since) if since else None)
