"""Emails for the two-person review: those who may approve are told when something awaits them, the author when it
is approved or refused, or withdrawn by someone else (an administrator); and a person whose API tokens and sessions
a role granted to them revoked (``cardroom.credentials``). Sent through ``django.core.mail``
(EMAIL_BACKEND in settings) once the step's transaction commits, so a step rolled back sends nothing; people without
an email address are skipped.

Called from the one place each step happens (the services: ``fees.schedules.services``, ``signage.services``;
``cardroom.credentials.revoke``), never from views. What each kind is in words, where it is answered and who approves it, its app says when it registers the
kind (``cardroom.registry.InboxKind``): this module imports no feature app.
"""

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

from . import registry
from .registry import InboxKind

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


def _asked(what, by, reason, path, who):
    return (f"{by.get_username() if by else 'Someone'} asks you, as {who}, to approve or refuse:\n\n  {what}\n\n"
            f"Their reason: {reason}\n\nOpen it: {_link(path)}\n")


def _answered(what, step, by, reason, path):
    """"Publication of ... was refused by compliance-2; it is a draft again.": the step ("refused: it is a draft
    again", ``InboxKind.outcomes``) said with who took it before what follows from it."""
    verb, _, follows = step.partition(": ")
    return (f"{what} was {verb} by {by.get_username() if by else 'a command'}{f'; {follows}' if follows else ''}."
            f"\n\nTheir reason: {reason}\n\nOpen it: {_link(path)}\n")


def asked(kind, obj):
    """Tell those who may approve ``obj`` (of the registered ``kind``) that it awaits them."""
    kind = registry.entry(InboxKind, kind)
    what = kind.what(obj)
    by, reason = kind.asked(obj)
    _send(kind.approvers(obj), f"Awaiting your approval: {what}", _asked(what, by, reason, kind.path(obj),
                                                                          kind.role(obj)))


def answered(kind, obj, approved):
    """Tell whoever asked for ``obj`` that it is approved or refused, by whom and why."""
    kind = registry.entry(InboxKind, kind)
    what = kind.what(obj)
    asker, _ = kind.asked(obj)
    by, reason = kind.answered(obj)
    step = kind.outcomes[0 if approved else 1]
    _send([asker], f"{'Approved' if approved else 'Refused'}: {what}", _answered(what, step, by, reason,
                                                                                kind.path(obj)))


def withdrawn(kind, obj, by, reason, *, awaited=True):
    """Tell whoever asked for ``obj`` that ``by`` (an administrator, not they) withdrew it, and why; and, when it
    was awaiting a decision (``awaited``: not an approved reading retired), those it awaited (the officers asked to
    review it, told when it was asked) that it awaits them no longer."""
    kind = registry.entry(InboxKind, kind)
    what = kind.what(obj)
    asker, _ = kind.asked(obj)
    who = by.get_username() if by else "a command"
    _send([asker], f"Withdrawn: {what}",
          f"{what} was withdrawn by {who}, an administrator, not by you.\n\n"
          f"Their reason: {reason}\n\nOpen it: {_link(kind.path(obj))}\n")
    if not awaited:
        return
    asked_to_review = [p for p in kind.approvers(obj) if p is not None and p.pk not in (
        getattr(asker, "pk", None), getattr(by, "pk", None))]
    _send(asked_to_review, f"No longer awaiting you: {what}",
          f"{what}, asked of you as {kind.role(obj)} by {asker.get_username() if asker else 'someone'}, was "
          f"withdrawn by {who}, an administrator: there is nothing for you to approve or refuse.\n\n"
          f"Their reason: {reason}\n\nOpen it: {_link(kind.path(obj))}\n")


def credentials_revoked(user, *, by, reason, tokens, sessions):
    """Tell ``user`` that a role granted to them ended the API tokens and sessions made with a password alone."""
    ended = " and ".join(part for part in (
        f"{tokens} API token{'s' if tokens != 1 else ''}" if tokens else "",
        f"{sessions} session{'s' if sessions != 1 else ''} (you were signed out)" if sessions else "") if part)
    _send([user], "Your API token and sessions were revoked: your role needs a second factor",
          f"You were {reason}, by {by.get_username() if by else 'an administrator'}.\n\n"
          f"What you had signed in with a password alone was revoked: {ended}.\n\n"
          f"Sign in again: {_link('/login/')} (you will be asked to set up a second factor if you have none). Then "
          f"make a new API token on your account page, {_link('/account/')}, if you need one. HTTP Basic (your "
          "password alone) is no longer accepted for your account.\n")
