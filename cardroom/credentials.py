"""May this credential act for this account now: the one answer every door asks (issue 41).

Three credentials reach the service. Each is checked on every request against the account as it is now (its roles,
its second factor), never as it was when the credential was made:

- a **password alone** (HTTP Basic on the API) acts only for an account with no second factor: not for one that must
  have one (``second_factor.required``), nor for one whose person chose one (a floor supervisor who set up an app):
  either would be served on one factor where it has, or must have, two. They send a token instead;
- an **API token** acts for any account but one that must have a second factor and has none set up (a role granted
  by a door that revoked nothing, a device an administrator removed after a lost phone): tokens are made after
  passing the second factor (``cardroom.tokens``), and the grant that makes an account need one revokes those made
  before it (below);
- a **session** acts once it has passed the second factor its account has or must have (``second_factor.owed``): a
  browser is sent to pass it, the API and the admin refuse it.

The doors that ask: ``cardroom.authentication`` (the API's Basic, token and session), ``cardroom.middleware`` (the
pages), the admin site, and ``cardroom.tokens`` (an administrator makes a token only for an account that a password
alone may act for: such a token never passed a second factor).

**Credentials follow roles.** Every grant of a role that must have a second factor (an administrator's or
regulator's role, a compliance officer's where MFA_REQUIRED_FOR_COMPLIANCE, the superuser flag), and the account made
active again with such roles, revokes its API tokens and ends its sessions: they were made for the reach the account
had then, and a credential never gains a reach its person did not sign in for. Logged (``auth.credentials_revoked``)
and the person emailed (``cardroom.notify``). It happens where the row is saved (``Membership`` and the user, by
signal), so every door that grants is covered alike: ``cardroom.roles.appoint``, the admin's membership and user
pages, a service, a shell. Saving a membership again unchanged grants nothing.
"""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.utils import timezone
from rest_framework.authtoken.models import Token

from . import notify, second_factor
from .access import Scope
from .audit import log_action
from .models import Membership

PASSWORD, TOKEN, SESSION = "password", "token", "session"

BASIC_REQUIRED = ("HTTP Basic is not accepted for this account: it must use a second factor. Sign in at /login/, "
                  "make an API token on your account page (/account/) and send it as 'Authorization: Token <key>'.")
BASIC_CHOSEN = ("HTTP Basic is not accepted for this account: it has a second factor, and a password alone would "
                "pass over it. Sign in at /login/, make an API token on your account page (/account/) and send it as "
                "'Authorization: Token <key>'.")
TOKEN_WITHOUT = ("This token is not accepted: its account must use a second factor and has none set up. Sign in at "
                 "/login/ to set one up; then this token works again, or make a new one on your account page "
                 "(/account/).")
SESSION_OWES = "This session has not passed its second factor yet: finish signing in at /login/."


@dataclass(frozen=True)
class Refusal:
    """Why a credential may not act for its account now, in a sentence that says what to do instead."""

    reason: str
    owed: str | None = None  # a session's: what it still owes (second_factor.ENROL or VERIFY)


def refusal(user, credential, *, request=None, memory=None):
    """Why ``credential`` (PASSWORD, TOKEN or SESSION; a session needs its ``request``) may not act for ``user``
    now, or None when it may. ``memory`` (``cardroom.generation``): where a token's door remembers per process
    whether an account has a second factor."""
    if credential == SESSION:
        owed = second_factor.owed(request)
        return Refusal(SESSION_OWES, owed) if owed else None
    if credential == PASSWORD:
        if second_factor.required(user):
            return Refusal(BASIC_REQUIRED)
        return Refusal(BASIC_CHOSEN) if second_factor.has_device(user) else None
    if credential == TOKEN:
        if second_factor.required(user) and not _has_device(user, memory):
            return Refusal(TOKEN_WITHOUT)
        return None
    raise ValueError(f"no such credential: {credential!r}")


def _has_device(user, memory):
    if memory is None:
        return second_factor.has_device(user)
    found = memory.get("second_factor", user.pk)
    if found is None:  # remembered while no device changes (cardroom.generation bumps on them)
        found = memory.keep("second_factor", user.pk, second_factor.has_device(user))
    return found


# -- credentials follow roles ----------------------------------------------------------------------------------

@transaction.atomic
def revoke(user, *, by=None, reason):
    """Revoke ``user``'s API tokens and end their sessions, because ``reason``; log it and tell them by email.
    Returns (tokens, sessions) ended; nothing is logged or sent when there was nothing to end."""
    tokens = Token.objects.filter(user=user)
    revoked = len(tokens)
    for token in tokens:
        token.delete()  # every client using it is refused from the next request on (cardroom.generation)
    ended = end_sessions(user)
    if revoked or ended:
        log_action("auth.credentials_revoked", actor=by, obj=user,
                   data={"user": user.get_username(), "reason": reason, "tokens": revoked, "sessions": ended})
        notify.credentials_revoked(user, by=by, reason=reason, tokens=revoked, sessions=ended)
    return revoked, ended


def end_sessions(user):
    """End every session of ``user`` (the database's sessions: SESSION_ENGINE's default). Sessions are not indexed
    by person, so each live one is read: a few hundred at most here, and this runs only when a role is granted."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get(SESSION_KEY) == str(user.pk):
            session.delete()
            ended += 1
    return ended


def _stored(user_id):
    """The account as the database has it now (before a save takes effect), or None."""
    return get_user_model().objects.filter(pk=user_id).first()


def _requires(user):
    return user is not None and second_factor.required_by(Scope(user))


def _granted(user, instance, reason):
    """After a membership or user saved that granted a role which must have a second factor: revoke."""
    revoke(user, by=getattr(instance, "_history_user", None), reason=reason)


def _grant(membership):
    """What a membership grants: its role and place (a membership saved unchanged grants nothing new)."""
    return membership.role, membership.establishment_id, membership.jurisdiction_id


def _membership_saving(sender, instance, raw=False, **kwargs):
    if not raw:
        stored = Membership.objects.filter(pk=instance.pk).first() if instance.pk is not None else None
        instance._granted_before = stored is not None and _grant(stored) == _grant(instance)


def _membership_saved(sender, instance, raw=False, **kwargs):
    if raw or instance._granted_before:
        return
    user = _stored(instance.user_id)
    if user is not None and second_factor.role_requires(instance.role):
        where = instance.establishment or instance.jurisdiction or "everywhere"
        _granted(user, instance,
                 f"appointed {instance.get_role_display()} ({where}), a role that must use a second factor")


def _user_saving(sender, instance, raw=False, update_fields=None, **kwargs):
    """What the save may grant, read before it: nothing for a new account (it has no credentials yet) or a login's
    last_login (Django's one partial save of a user)."""
    instance._grants = None
    if raw or instance.pk is None or (update_fields is not None and set(update_fields) <= {"last_login"}):
        return
    stored = _stored(instance.pk)
    if stored is not None:
        instance._grants = {"superuser": not stored.is_superuser, "required": not _requires(stored)}


def _user_saved(sender, instance, raw=False, **kwargs):
    grants = getattr(instance, "_grants", None)
    if raw or grants is None:
        return
    if grants["superuser"] and instance.is_superuser:
        _granted(instance, instance, "made a superuser (an administrator), who must use a second factor")
    elif grants["required"] and _requires(instance):
        _granted(instance, instance, "made active again, with roles that must use a second factor")


pre_save.connect(_membership_saving, sender=Membership, dispatch_uid="cardroom.credentials.membership")
post_save.connect(_membership_saved, sender=Membership, dispatch_uid="cardroom.credentials.membership")
pre_save.connect(_user_saving, sender=settings.AUTH_USER_MODEL, dispatch_uid="cardroom.credentials.user")
post_save.connect(_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="cardroom.credentials.user")
