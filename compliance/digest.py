"""The daily digest (the task ``compliance.tasks.send_daily_digest``, from the beat): each room's compliance
officers are emailed the error findings first found since the last digest that still stand, and the approvals of
the room or its jurisdiction expiring within 30 days. Nothing to say, no email; no address, no email."""

import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db.models import Q
from django.utils import timezone

from cardroom.models import Approval, Establishment, Role
from cardroom.moments import format_moment

from . import inbox, links
from .rules.postings import EXPIRING_WITHIN


def send(since=None):
    """Email each room's digest of what is new since ``since`` (by default a day ago: the digest runs once a
    day). Returns {"sent": emails sent, "since": ``since`` as ISO text}."""
    now = timezone.now()
    since = since or now - datetime.timedelta(days=1)
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
            lines += [f"  {base}{links.FINDINGS.path(room=room.slug)}?severity=error", ""]
        if expiring:
            lines.append(f"{len(expiring)} approval{'s' if len(expiring) != 1 else ''} expiring within 30 days:")
            lines += [f"  - {a.game.name} ({a.reference}): expires {a.expires_on.isoformat()}" for a in expiring]
            lines += [f"  {base}{links.APPROVALS.path(room=room.slug)}", ""]
        subject = (f"{room.name}: {len(errors)} new error finding{'s' if len(errors) != 1 else ''}, "
                   f"{len(expiring)} approval{'s' if len(expiring) != 1 else ''} expiring soon")
        for officer in officers:
            send_mail(subject, "\n".join(lines), None, [officer.email])
            sent += 1
    return {"sent": sent, "since": since.isoformat()}
