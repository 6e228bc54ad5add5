"""A month the nightly close left open, in the inbox (``cardroom.inbox``) of its rooms' compliance officers and the
administrators, saying why, until the month is closed.

What it reads is the audit log, the record the nightly close writes anyway: ``ledger.month_held`` (the month and its
reasons, one entry in each room's chain, ``fees.months.nightly``). An item stands while no later entry of the room
for the same month says it closed (``ledger.month_closed``, whoever closed it: the nightly run or ``close_month``)
or was held again (the later one stands instead). No store of its own: the kind is registered with the inbox
(``cardroom.registry.InboxKind``, from ``FeesConfig.ready``) as the reviews are.
"""

from django.db.models import Exists, OuterRef

from cardroom import inbox, permissions
from cardroom.models import AuditLogEntry
from cardroom.registry import InboxKind

from .. import links

HELD, CLOSED = "ledger.month_held", "ledger.month_closed"
KIND = "month_held"
# Who sees the item: whoever may open the room's compliance pages (its compliance officers; administrators everywhere).
PERMISSION = "console.view_compliance"


def standing():
    """The held entries that stand: no later entry of their room closes or holds the same month again."""
    later = AuditLogEntry.objects.filter(establishment=OuterRef("establishment"), data__month=OuterRef("data__month"),
                                         action__in=(HELD, CLOSED), pk__gt=OuterRef("pk"))
    return AuditLogEntry.objects.filter(action=HELD).exclude(Exists(later))


def what(entry):
    reasons = entry.data.get("reasons") or []
    return f"{entry.data.get('month')} stays open: {'; '.join(reasons)}"


def path(entry):
    # The room's variance page: where its days are reconciled again.
    return links.VARIANCE.path(room=entry.establishment.slug)


def _waiting(user, scope, establishment):
    entries = standing()
    if establishment is not None:
        return permissions.rows(scope, PERMISSION, entries.filter(establishment=establishment))
    return permissions.rows(scope, PERMISSION, entries)


def _items(pks, user, scope, establishment):
    return [inbox.Awaiting(KIND, what(entry), entry.actor_label, entry.created_at, path(entry),
                           entry.establishment_id)
            for entry in AuditLogEntry.objects.filter(pk__in=pks).select_related("establishment")]


def _officers(entry):
    return inbox.room_approvers(entry.establishment) + list(inbox.admins().distinct().order_by("username"))


MONTH_HELD_KIND = InboxKind(
    name=KIND, label="Month left open", waiting=_waiting, items=_items, what=what, path=path, approvers=_officers,
    role=lambda entry: f"a compliance officer of {entry.establishment.name} or an administrator",
    asked=lambda entry: (None, "; ".join(entry.data.get("reasons") or [])), answered=lambda entry: (None, ""),
    outcomes=("closed", "left open"), alert=True,
)
