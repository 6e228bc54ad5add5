"""Emails for the two-person review: those who may approve are told when something awaits them, the author when it
is approved or refused. Sent through ``django.core.mail`` (EMAIL_BACKEND in settings) once the step's transaction
commits, so a step rolled back sends nothing; people without an email address are skipped.

Called from the one place each step happens (``ScheduleVersion``'s review methods, ``fees.interpretations``,
``signage.postings``), never from views.
"""

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse

from . import inbox

log = logging.getLogger(__name__)


def _link(path):
    return settings.PUBLIC_BASE_URL.rstrip("/") + path


def _send(people, subject, body):
    addresses = sorted({p.email for p in people if p is not None and p.email})
    if not addresses:
        return

    def send():
        # One email each: the recipients need not see who else was told.
        for address in addresses:
            try:
                send_mail(subject, body, None, [address])
            except Exception:  # a mail server that is down must not undo a step already committed
                log.exception("Could not send %r to %s", subject, address)

    transaction.on_commit(send)


def _version_path(version):
    slug = inbox._room_slug(version.document, inbox.Scope(None))
    return reverse("console:compliance-publish", args=[slug, version.document.code, version.number]) if slug else ""


def _reading_path(reading):
    document = reading.version.document
    slug = inbox._room_slug(document, inbox.Scope(None))
    return (reverse("console:compliance-interpretations", args=[slug, document.code, reading.version.number])
            if slug else "")


def _override_path(override):
    room = override.posting.table.establishment
    return reverse("console:compliance-override", args=[room.slug, override.posting_id])


def _role(document):
    return (f"a second compliance officer of {document.establishment.name}" if document.establishment_id
            else "an administrator")


def _asked(what, by, reason, path, who):
    return (f"{by.get_username() if by else 'Someone'} asks you, as {who}, to approve or refuse:\n\n  {what}\n\n"
            f"Their reason: {reason}\n\nOpen it: {_link(path)}\n")


def _answered(what, step, by, reason, path):
    return (f"{what} was {step} by {by.get_username() if by else 'a command'}.\n\nTheir reason: {reason}\n\n"
            f"Open it: {_link(path)}\n")


def publication_requested(version):
    document = version.document
    what = f"Publication of {document.code} v{version.number} ({document.title})"
    people = inbox.schedule_approvers(document, exclude=version.editors() | {version.review_requested_by_id})
    _send(people, f"Awaiting your approval: {what}",
          _asked(what, version.review_requested_by, version.publication_reason, _version_path(version),
                 _role(document)))


def publication_answered(version, approved, by, reason):
    document = version.document
    what = f"Publication of {document.code} v{version.number} ({document.title})"
    step = "approved: it is published" if approved else "refused: it is a draft again"
    _send([version.review_requested_by], f"{'Approved' if approved else 'Refused'}: {what}",
          _answered(what, step, by, reason, _version_path(version)))


def interpretation_proposed(reading):
    document = reading.version.document
    what = f"Interpretation #{reading.pk}: {reading}"
    _send(inbox.schedule_approvers(document, exclude={reading.recorded_by_id}), f"Awaiting your approval: {what}",
          _asked(what, reading.recorded_by, reading.statement, _reading_path(reading),
                 _role(document)))


def interpretation_answered(reading, approved):
    what = f"Interpretation #{reading.pk}: {reading}"
    step = "approved: it is in use" if approved else "refused"
    _send([reading.recorded_by], f"{'Approved' if approved else 'Refused'}: {what}",
          _answered(what, step, reading.reviewed_by, reading.review_reason, _reading_path(reading)))


def override_requested(override):
    posting = override.posting
    room = posting.table.establishment
    what = f"Print override of table {posting.table.label}'s sign at {room.name} (posting {posting.pk})"
    _send(inbox.room_approvers(room, exclude={override.requested_by_id}), f"Awaiting your approval: {what}",
          _asked(what, override.requested_by, override.reason, _override_path(override),
                 f"a second compliance officer of {room.name}"))


def override_answered(override, approved):
    posting = override.posting
    room = posting.table.establishment
    what = f"Print override of table {posting.table.label}'s sign at {room.name} (posting {posting.pk})"
    step = "approved: the sign may be printed" if approved else "refused: the sign stays blocked"
    _send([override.requested_by], f"{'Approved' if approved else 'Refused'}: {what}",
          _answered(what, step, override.decided_by, override.decision_reason, _override_path(override)))
