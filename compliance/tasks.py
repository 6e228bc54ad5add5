"""Compliance tasks: the nightly validation of everything (and on-demand runs from a worker)."""

import datetime

from celery import shared_task

from cardroom.permissions import SYSTEM
from fees.ledger import previous_gaming_day

from . import services


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
    again (``cardroom.conditions.condition_recorded``), so that the inbox says what the print gate already judges."""
    validate_establishment.delay(record.establishment_id, user.pk if user else None)


@shared_task
def validate_establishment(establishment_id, user_id=None):
    """The room's postings and approvals as of today, started by ``user_id`` (the installation when None)."""
    from django.contrib.auth import get_user_model

    from cardroom.models import Establishment

    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    run = services.run_establishment(user or SYSTEM, Establishment.objects.get(pk=establishment_id))
    return {"run": run.pk, "errors": run.errors, "warnings": run.warnings, "infos": run.infos}


@shared_task
def send_daily_digest(since=None):
    """Daily (CELERY_BEAT_SCHEDULE): each room's compliance officers are emailed the error findings first found
    since ``since`` (by default the day before: the digest runs once a day) that still stand, and the approvals
    of the room or its jurisdiction expiring within 30 days. Nothing to say, no email; no address, no email."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.mail import send_mail
    from django.db.models import Q
    from django.urls import reverse
    from django.utils import timezone

    from cardroom.models import Approval, Establishment, Role
    from cardroom.moments import format_moment
    from compliance.rules.postings import EXPIRING_WITHIN

    from . import inbox

    now = timezone.now()
    since = datetime.datetime.fromisoformat(since) if since else now - datetime.timedelta(days=1)
    today = timezone.localdate()
    users = get_user_model().objects.filter(is_active=True).exclude(email="")
    sent = 0
    for room in Establishment.objects.select_related("jurisdiction").order_by("name"):
        officers = list(users.filter(memberships__role=Role.COMPLIANCE_OFFICER, memberships__establishment=room)
                        .distinct())
        if not officers:
            continue
        errors = list(inbox.standing(room, now).filter(severity="error", found_at__gt=since)
                      .select_related("finding", "table").order_by("position"))
        expiring = list(Approval.objects.filter(jurisdiction_id=room.jurisdiction_id)
                        .filter(Q(establishment__isnull=True) | Q(establishment=room))
                        .exclude(status__in=Approval.ENDED)
                        .filter(expires_on__gte=today, expires_on__lte=today + EXPIRING_WITHIN)
                        .select_related("game").order_by("expires_on", "key"))
        if not (errors or expiring):
            continue
        base = settings.PUBLIC_BASE_URL.rstrip("/")
        lines = [f"{room.name}: the compliance digest of {today.isoformat()}.", ""]
        if errors:
            lines.append(f"{len(errors)} new error finding{'s' if len(errors) != 1 else ''} since "
                         f"{format_moment(since, room.zone)}:")
            lines += [f"  - {f'table {s.table.label}: ' if s.table else ''}{s.finding.message}" for s in errors]
            lines += [f"  {base}{reverse('console:compliance-findings', args=[room.slug])}?severity=error", ""]
        if expiring:
            lines.append(f"{len(expiring)} approval{'s' if len(expiring) != 1 else ''} expiring within 30 days:")
            lines += [f"  - {a.game.name} ({a.reference}): expires {a.expires_on.isoformat()}" for a in expiring]
            lines += [f"  {base}{reverse('console:compliance-approvals', args=[room.slug])}", ""]
        subject = (f"{room.name}: {len(errors)} new error finding{'s' if len(errors) != 1 else ''}, "
                   f"{len(expiring)} approval{'s' if len(expiring) != 1 else ''} expiring soon")
        for officer in officers:
            send_mail(subject, "\n".join(lines), None, [officer.email])
            sent += 1
    return {"sent": sent, "since": since.isoformat()}
