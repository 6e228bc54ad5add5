"""What quotes read, remembered per process, and the one number that says when to forget it.

A quote reads published schedule versions (which never change), the requester's token, the requester's roles and
whether they have a second factor. Each process keeps them in memory (``Memory``) for as long as the one row of
``cardroom_generation`` holds the same number; every change that can alter a quote's answer or who may ask for one
draws a new number (``bump``) in the same transaction: a publication (a retroactive one too), an interpretation
approved or withdrawn, a token made or revoked, a role granted or revoked, a second factor set up or removed, a user
changed or deactivated, a schedule document, source or establishment changed. A quote request reads the number once (one primary-key read) and starts an empty memory when it moved.

Why a quote never answers from a version that a committed publication has replaced:

- the change and its new number commit together, or not at all;
- a request reads the number first and everything else after, each statement seeing at least what was committed
  when it started: what it reads (and remembers under that number) is at least as new as the number;
- so a memory labelled with a number holds nothing older than the changes that number covers, and a request that
  starts after a publication committed reads that publication's number (or a later one), never an older memory's;
- the number is random, not counted: a transaction that drew one and rolled back leaves a memory labelled with a
  number no committed change ever has, so it is never used again (a counter would hand the same number to the next
  change). Within one transaction every change comes before its bump (``bump`` last), so nothing remembered
  between a change and its bump is labelled with the number that commits.

A row saved outside a transaction commits before its bump: for that moment a request can read the new row under
the old number (newer than its label: harmless, and the bump then drops it).

Only what was found is remembered (a token that exists, a schedule with published versions), each table bounded:
requests with made-up tokens or codes cannot grow it.
"""

import secrets

from django.conf import settings
from django.db import connection
from django.db.models.signals import post_delete, post_save

from .models import Generation

TABLE = Generation._meta.db_table
READ_SQL = f"SELECT number FROM {TABLE} WHERE id = 1"
# One statement on both databases; it also puts the row back after a flush (transactional tests).
BUMP_SQL = f"INSERT INTO {TABLE} (id, number) VALUES (1, %s) ON CONFLICT (id) DO UPDATE SET number = excluded.number"
LIMIT = 10_000  # entries per table; past it the table starts again (real tokens and users are far fewer)


class Memory:
    """What this process remembers under one generation number: named tables of answers found.

    A memory with no number (the row is missing) remembers nothing.
    """

    def __init__(self, number):
        self.number = number
        self._tables = {}

    def get(self, table, key):
        return self._tables.get(table, {}).get(key)

    def keep(self, table, key, value):
        """Remember ``value`` (found in the database after this memory's number was read) and return it."""
        if self.number is not None:
            entries = self._tables.setdefault(table, {})
            if len(entries) >= LIMIT:
                entries.clear()
            entries[key] = value
        return value

    def size(self, table):
        return len(self._tables.get(table, {}))


_memory = Memory(None)


def read():
    """The generation number as committed (or as this transaction changed it); None when the row is missing."""
    with connection.cursor() as cursor:
        cursor.execute(READ_SQL)
        row = cursor.fetchone()
    return row[0] if row else None


def current():
    """The process's memory for the generation in the database now (one query): the same one while the number
    stays, an empty one when it moved."""
    global _memory
    number = read()
    if number is None:
        return Memory(None)
    memory = _memory
    if memory.number != number:
        memory = _memory = Memory(number)
    return memory


def of_request(request):
    """``current()``, read once per request (the authentication and the view share it)."""
    request = getattr(request, "_request", request)  # DRF's Request wraps Django's
    memory = getattr(request, "_cardroom_memory", None)
    if memory is None:
        memory = request._cardroom_memory = current()
    return memory


def bump(**kwargs):
    """Draw a new number: call it after the change, inside its transaction. (Takes a signal's arguments too.)"""
    with connection.cursor() as cursor:
        cursor.execute(BUMP_SQL, [secrets.randbits(63)])


def forget():
    """Forget everything this process remembered (tests: a rolled-back test's ids come back with other content)."""
    global _memory
    _memory = Memory(None)


def bump_on_change(sender, *, unless=None):
    """Bump whenever a ``sender`` row is saved or deleted, by any door (the admin, a command, DRF's own token views);
    ``unless(instance, update_fields)`` names the saves that cannot matter."""
    def saved(instance, update_fields=None, **kwargs):
        if unless is None or not unless(instance, update_fields):
            bump()

    uid = f"cardroom.generation.{sender}"
    post_save.connect(saved, sender=sender, weak=False, dispatch_uid=uid)
    post_delete.connect(bump, sender=sender, weak=False, dispatch_uid=uid)


def _login_only(user, update_fields):
    return update_fields is not None and set(update_fields) <= {"last_login"}


# Rows a quote's answer or its requester's rights are read from, with doors besides the services (the admin,
# commands, DRF's token views). Memberships: cardroom.access. Publications and interpretations: fees.schedules.services.
bump_on_change("authtoken.Token")
bump_on_change(settings.AUTH_USER_MODEL, unless=_login_only)  # a login's last_login changes nothing quoted
bump_on_change("cardroom.Establishment")  # its jurisdiction decides who sees its schedules
bump_on_change("cardroom.Source")  # its title is in every quote's citation
# Whether a token's account has a second factor (cardroom.credentials): a device set up or removed. (A device is
# also saved when it checks a code: a login's new number, harmless.)
bump_on_change("otp_totp.TOTPDevice")
bump_on_change("otp_static.StaticDevice")
bump_on_change("django_otp_webauthn.WebAuthnCredential")
