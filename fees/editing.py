"""Changing schedules from the role pages, through the same audited paths as the API and the admin.

- ``start_draft``: a new draft from a version (``ScheduleDocument.new_draft``, logged as the API logs it);
- ``discard_draft``: a draft deleted (as the API's DELETE);
- ``save_tiers``: one option's tiers saved from a grid, each row through ``cardroom.changes`` with the reason
  (as the admin's inline rows), so every change reaches the history and the hash-chained audit log;
- ``request_publication``: the effective date set (``cardroom.changes``, as the API's PATCH) and publication
  asked for (``ScheduleVersion.request_publication``), in one transaction: a refused request changes nothing. A
  second officer then approves (``ScheduleVersion.approve_publication``) or refuses it.
"""

from django.db import transaction

from cardroom import changes
from cardroom.audit import log_action

from .models import FeeTier, ImmutableVersionError

# A row number no tier is printed at, for the moment two rows swap places (the pair must stay unique).
RENUMBER_FROM = 30000


def start_draft(document, based_on, *, user, reason, effective_from):
    draft = document.new_draft(based_on=based_on, user=user, reason=reason, effective_from=effective_from)
    log_action("schedule.new_draft", actor=user, obj=draft, establishment=document.establishment,
               jurisdiction=document.jurisdiction, data={"code": document.code, "version": draft.number,
                                                         "based_on": based_on.number})
    return draft


@transaction.atomic
def discard_draft(version, *, user):
    document = version.document
    number = version.number
    version.delete()  # a published version, or one another draft is based on, refuses (StateConflict)
    log_action("schedule.discard_draft", actor=user, obj=document, establishment=document.establishment,
               jurisdiction=document.jurisdiction, data={"code": document.code, "version": number})


@transaction.atomic
def save_tiers(option, formset, *, user, reason):
    """Save a valid ``fees.forms.tier_formset`` of a draft's option. Returns (changed, added, removed)."""
    if option.owning_version().is_published:
        raise ImmutableVersionError(f"{option.version} is published; its tiers cannot be changed.")
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


def retroactive_problem(effective_from, retroactive, today):
    """Why ``retroactive`` cannot be confirmed (None when it can): only a version dated before ``today`` reaches
    back, and a flag kept on any other would tell whoever reads its history something that did not happen. The
    form and the API both ask here."""
    if not retroactive or (effective_from is not None and effective_from < today):
        return None
    when = "with no effective date" if effective_from is None else (
        f"effective on {effective_from}, {'today' if effective_from == today else 'a future date'},")
    return (f"A version {when} is not retroactive: untick the retroactive confirmation "
            f"(only a date before today, {today}, needs it).")


@transaction.atomic
def request_publication(version, *, user, reason, effective_from, retroactive=False, retroactive_reason=""):
    """Set the draft's effective date (when it changes) and ask a second officer to publish it; raises
    StateConflict (nothing saved)."""
    if version.effective_from != effective_from:
        version.effective_from = effective_from
        changes.save(version, user=user, reason=f"Effective date set when asking for publication: {reason}")
    return version.request_publication(user=user, reason=reason, retroactive=retroactive,
                                       retroactive_reason=retroactive_reason)
