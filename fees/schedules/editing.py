"""Editing a draft's content, through the same audited paths at every door (drafts and their publication are
``fees.schedules.services``).

- ``may_edit``: the rule every door follows: a version's content (its dates, reason, provisions, options and
  tiers) is changed only while it is a draft, by those who may edit its schedule (the admin shows the rest
  read-only);
- ``edit_draft``: a draft's own fields changed (the API's PATCH, the admin's form), through ``cardroom.changes``;
- ``save_tiers``: one option's tiers saved from a grid, each row through ``cardroom.changes`` with the reason
  (as the admin's inline rows), so every change reaches the history and the hash-chained audit log;
- ``retroactive_problem``: whether a version may be confirmed as retroactive (``fees.schedules.services.request_publication``
  asks, for every door; the publish form asks it too, to say so beside the field).
"""

import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

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


def earliest_problem(document, effective_from, version=None, today=None):
    """Why a version of ``document`` cannot take effect on ``effective_from`` (None when it can): never before the
    schedule's first dated version, nor before its source was issued, and never further back than
    RETROACTIVE_MAX_DAYS before today (a date such as 1900-01-01 reaches back to no fee this room ever charged, and
    would reprice every round ever recorded). Every door's request for publication asks here."""
    if effective_from is None:
        return None
    # The first version in the record's timeline: one whose source states no date is in force from the beginning
    # (fees.models.in_force), and then no version bounds the date; a later, dated one never does.
    published = document.versions.filter(status="published").exclude(pk=getattr(version, "pk", None))
    first = (None if published.filter(effective_from__isnull=True).exists() else
             published.order_by("effective_from").values_list("effective_from", "number").first())
    if first is not None and effective_from < first[0]:
        return (f"{document.code} cannot take effect on {effective_from}: its record starts with version {first[1]}, "
                f"in force from {first[0]}. Give a date on or after it.")
    issued = document.source.issued_on if document.source_id else None
    if issued is not None and effective_from < issued:
        return (f"{document.code} cannot take effect on {effective_from}, before its source was issued "
                f"({document.source.title}, {issued}). Give a date on or after it.")
    today = today or timezone.localdate()
    furthest = today - datetime.timedelta(days=settings.RETROACTIVE_MAX_DAYS)
    if effective_from < furthest:
        return (f"{effective_from} reaches back more than {settings.RETROACTIVE_MAX_DAYS} days, to before "
                f"{furthest}: a change may take effect at most that far back (RETROACTIVE_MAX_DAYS), since it "
                f"reprices every round recorded since. Give a later date.")
    return None


def retroactive_problem(effective_from, retroactive, today):
    """Why ``retroactive`` cannot be confirmed (None when it can): only a version dated before ``today`` reaches
    back, and a flag kept on any other would tell whoever reads its history something that did not happen. Every
    door's request for publication asks here (``fees.schedules.services.request_publication``)."""
    if not retroactive or (effective_from is not None and effective_from < today):
        return None
    when = "with no effective date" if effective_from is None else (
        f"effective on {effective_from}, {'today' if effective_from == today else 'a future date'},")
    return (f"A version {when} is not retroactive: untick the retroactive confirmation "
            f"(only a date before today, {today}, needs it).")
