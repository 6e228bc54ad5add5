"""API tokens ("Authorization: Token <key>", DRF's authtoken): one per person, made only for someone who passed the
second factor that their account needs, listed and revoked in the admin and on the person's own account page.

A person makes (or replaces) and revokes their own on their account page, in a session that passed its second
factor. An administrator makes them in the admin only for accounts with no second factor, required or chosen (a
floor terminal, an integration); one for an account that has or needs one would be a second factor never passed.
Either door writes the audit log through ``cardroom.changes`` (never the key itself). Whether a token may act for
its account at each request, and the role grants that revoke tokens, are ``cardroom.credentials``'.
"""

from django.db import transaction
from rest_framework.authtoken.models import Token

from . import changes, credentials, second_factor
from .exceptions import NotAllowed


def refusal_for(user):
    """Why an administrator may not make ``user`` a token in the admin, or None. Such a token never passed a second
    factor: it is made only for an account that a password alone may act for (``cardroom.credentials``)."""
    if credentials.refusal(user, credentials.PASSWORD) is not None:
        why = "must use" if second_factor.required(user) else "has"
        return (f"{user.get_username()} {why} a second factor: they make their own token on their account page "
                "(/account/) after passing it.")
    return None


def of(user):
    return Token.objects.filter(user=user).first()


@transaction.atomic
def issue(user):
    """A new token for ``user`` (the person signed in, making their own), replacing the one they had; its key is
    shown to them once."""
    if (second_factor.required(user) or second_factor.has_device(user)) and not second_factor.passed(user):
        raise NotAllowed("A token is made only in a session that passed your second factor: sign in again.")
    old = of(user)
    if old is not None:
        changes.delete(old, user=user, reason="replaced by a new token on the account page")
    return changes.save(Token(user=user), user=user, reason="made on the account page")


@transaction.atomic
def revoke(user):
    """Revoke ``user``'s own token: every client using it is refused from the next request on."""
    token = of(user)
    if token is not None:
        changes.delete(token, user=user, reason="revoked on the account page")
    return token
