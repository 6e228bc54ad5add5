"""Print overrides on the one two-person mechanism (``cardroom.review``): the workflow ``signage.services`` steps
through, and the kind the inbox lists and the emails announce (registered in ``SignageConfig.ready``)."""

from cardroom import inbox, permissions, review
from cardroom.registry import InboxKind

from . import links
from .models import PrintOverride

Status = PrintOverride.Status


class OverrideStateError(review.ReviewConflict):
    """An override step that does not fit the posting's overrides: asking while one is approved or awaits a second
    officer, answering when none awaits one (a 409)."""


OVERRIDE = review.Workflow(
    states={Status.REQUESTED: review.AWAITING, Status.APPROVED: review.APPROVED, Status.REFUSED: review.REFUSED,
            Status.WITHDRAWN: review.WITHDRAWN},
    asker=lambda override: override.requested_by_id,
    label=lambda status: str(Status(status).label).split(":")[0].lower(),
    conflict=OverrideStateError,
)


def _path(override, *args):
    room = override.posting.table.establishment
    return links.OVERRIDE.path(room=room.slug, posting=override.posting_id)


def _what(override):
    posting = override.posting
    return (f"Print override of table {posting.table.label}'s sign at {posting.table.establishment.name} "
            f"(posting {posting.pk})")


def _waiting(user, scope, establishment):
    overrides = PrintOverride.objects.filter(status=Status.REQUESTED).exclude(requested_by=user)
    if establishment is not None:
        return overrides.filter(posting__table__establishment=establishment)
    return permissions.rows(scope, "signage.override_print", overrides, via="posting__table")


def _items(pks, user, scope, establishment):
    items = []
    for o in PrintOverride.objects.filter(pk__in=pks).select_related("posting__table__establishment", "requested_by"):
        room = o.posting.table.establishment
        items.append(inbox.Awaiting("override", f"Print table {room.name} {o.posting.table.label}'s sign despite "
                                    f"{len(o.findings)} error finding{'s' if len(o.findings) != 1 else ''}",
                                    o.requested_by.get_username(), o.requested_at, _path(o), room.pk))
    return items


OVERRIDE_KIND = InboxKind(
    name="override", label="Print override", waiting=_waiting, items=_items, what=_what, path=_path,
    role=lambda o: f"a second compliance officer of {o.posting.table.establishment.name}",
    approvers=lambda o: inbox.room_approvers(o.posting.table.establishment, exclude=OVERRIDE.involved(o)),
    asked=lambda o: (o.requested_by, o.reason), answered=lambda o: (o.decided_by, o.decision_reason),
    outcomes=("approved: the sign may be printed", "refused: the sign stays blocked"),
)
