"""Editing a draft's content, through the same audited paths at every door (drafts and their publication are
``fees.schedules.services``).

- ``may_edit``: the rule every door follows: a version's content (its dates, reason, provisions, options and
  tiers) is changed only while it is a draft, by those who may edit its schedule (the admin shows the rest
  read-only);
- ``edit_draft``: a draft's own fields changed (the API's PATCH, the admin's form), through ``cardroom.changes``;
- ``save_tiers``: one option's tiers saved from a grid, each row through ``cardroom.changes`` with the reason
  (as the admin's inline rows), so every change reaches the history and the hash-chained audit log.

Whether a draft may be published, and from which date, is ``fees.models.publication``'s.
"""

from django.db import transaction

from cardroom import changes, permissions

from ..models import FeeTier, ImmutableVersionError

EDIT = "fees.edit_schedule"
# A draft's own fields a door may change (its options and tiers are rows of their own).
DRAFT_FIELDS = ("effective_from", "reason", "provisions")
# A row number no tier is printed at, for the moment two rows swap places (the pair must stay unique).
RENUMBER_FROM = 30000


def may_edit(user, version):
    """Whether ``user`` may change ``version``'s content: a draft, of a schedule they may edit."""
    return not version.is_locked and permissions.allowed(user, EDIT, version.document)


def _editable(user, *, version):
    """``may_edit``, said: NotAllowed for whoever may not edit the schedule, ImmutableVersionError (409) for a
    version no one may change."""
    permissions.require(user, EDIT, version.document)
    if version.is_published:
        raise ImmutableVersionError(f"{version} is published and cannot be changed; start a new draft from it "
                                    "instead.")
    if version.is_locked:
        raise ImmutableVersionError(f"{version} is awaiting a second officer and cannot be changed; withdraw the "
                                    "request first.")


@transaction.atomic
def edit_draft(user, *, version, fields, why):
    """Change a draft's ``DRAFT_FIELDS`` to ``fields`` ({name: value}, read by the door's form or serializer),
    the change logged with ``why``. Returns the version."""
    _editable(user, version=version)
    for field, value in fields.items():
        setattr(version, field, value)
    return changes.save(version, user=user, reason=why)


@transaction.atomic
def save_tiers(user, *, option, formset, reason):
    """Save a valid ``fees.forms.tier_formset`` of a draft's option. Returns (changed, added, removed)."""
    _editable(user, version=option.owning_version())
    rows = formset.save(commit=False)
    removed = list(formset.deleted_objects)
    for tier in removed:
        changes.delete(tier, user=user, reason=reason)
    stored = dict(FeeTier.objects.filter(option=option).values_list("pk", "order"))
    held = {order: pk for pk, order in stored.items()}
    moving = [t for t in rows if t.pk is None or stored.get(t.pk) != t.order]
    if any(held.get(t.order) not in (None, t.pk) for t in moving):
        # Rows trade places: move the renumbered ones out of the way first (logged too, as what they are).
        for offset, tier in enumerate(t for t in moving if t.pk is not None):
            final, tier.order = tier.order, RENUMBER_FROM + offset
            changes.save(tier, user=user, reason=f"{reason} (renumbering)")
            tier.order = final
    for tier in rows:
        tier.option = option
        changes.save(tier, user=user, reason=reason)
    return len(formset.changed_objects), len(formset.new_objects), len(removed)
