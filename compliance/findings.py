"""Acknowledging a finding: a compliance officer says, with a reason, that it has been seen and handled.

The one way to do it (API, admin, pages): the finding is locked so that two officers cannot both acknowledge
it, and the acknowledgement goes to the history and the hash-chained audit log.
"""

from django.db import transaction
from django.utils import timezone

from cardroom import permissions, values
from cardroom.audit import log_action
from cardroom.exceptions import BadInput, StateConflict

from .models import Finding


class AlreadyAcknowledged(StateConflict):
    pass


@transaction.atomic
def acknowledge(user, *, finding, reason, scope=None):
    """Raises NotAllowed (``compliance.acknowledge_finding``: compliance officers of the finding's establishment, or
    of its jurisdiction for a jurisdiction-wide one), BadInput (a missing or bad reason, naming ``reason``) or
    AlreadyAcknowledged. ``scope`` is not read (the registry asks): it stays for old callers until they drop it."""
    permissions.require(user, "compliance.acknowledge_finding", finding)
    reason = values.named("reason", values.text, reason, max_length=2000, single_line=False)
    if len(reason) < 3:
        raise BadInput("reason must say how the finding was handled (3 characters or more).", field="reason")
    finding = Finding.objects.select_for_update().get(pk=finding.pk)
    if finding.acknowledged_at is not None:
        raise AlreadyAcknowledged(f"Finding {finding.pk} was acknowledged on {finding.acknowledged_at:%Y-%m-%d} by "
                                  f"{finding.acknowledged_by}.")
    finding.acknowledged_at, finding.acknowledged_by, finding.acknowledgement_reason = timezone.now(), user, reason
    finding._change_reason = f"Acknowledged: {reason}"
    finding.save(update_fields=["acknowledged_at", "acknowledged_by", "acknowledgement_reason"])
    log_action("compliance.acknowledge", actor=user, obj=finding, establishment=finding.establishment,
               jurisdiction=finding.jurisdiction,
               data={"finding": finding.pk, "rule": finding.rule, "severity": finding.severity, "reason": reason})
    return finding
