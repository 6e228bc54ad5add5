"""Printing a sign and the print overrides, one function per step, called by every door (the API, the pages, the
admin, the demo loader).

Printing (``print_sign``, ``print_signs`` for the admin's bulk action; a batch is queued by
``signage.tasks.start_batch``) checks ``signage.print_sign`` on each posting's establishment and prints through
``signage.printing.print_signs``, which writes the print record and its audit entry (``signage.print`` /
``signage.reprint``); the print number is unique per posting, so two prints at once are a ``StateConflict``, not a
lock. A posting with error findings (judged now: ``compliance.judgement``) prints only under an approved override:
that is a state of the posting (``PrintBlocked``, a conflict), not a permission of the printer, at every door. A preview records
nothing and needs no permission beyond seeing the posting.

A posting with error findings prints only under an override made by two people (``cardroom.review``, workflow in
``signage.reviews``): a compliance officer of the table's establishment asks for it with a reason
(``request_override``); a second one approves or refuses it with theirs (``approve_override`` /
``refuse_override``), or it is taken back while it waits (``withdraw_override``). Each step checks
``signage.override_print``, locks the posting and then its override (the one lock order), changes, writes the audit
entry, and raises only ``BadInput``, ``NotAllowed`` or ``StateConflict`` (subclasses of them).
"""

from django.db import IntegrityError, transaction
from django.utils import timezone

from cardroom import notify, permissions, review
from cardroom.audit import log_action
from cardroom.exceptions import BadInput
from fees.models import TablePosting

from . import printing, render
from .models import PrintOverride
from .postings import current_override, error_findings
from .reviews import OVERRIDE, OverrideStateError

PRINT_SIGN, OVERRIDE_PRINT = "signage.print_sign", "signage.override_print"
REASON_MINIMUM = 10


# -- printing ---------------------------------------------------------------------------------------------------------


def print_sign(actor, *, posting, layout, channel, preview=False):
    """Print ``posting``'s sign in ``layout`` (recorded), or with ``preview`` a watermarked preview (nothing
    recorded); returns (render.Rendered, [SignPrint])."""
    return print_signs(actor, postings=[posting], layout=layout, channel=channel, preview=preview)


def print_signs(actor, *, postings, layout, channel, preview=False):
    """Print the signs of ``postings`` into one PDF, each recorded; refused whole when ``actor`` may not print one of
    them, blocked whole (``PrintBlocked``) when one needs an override it lacks."""
    if layout not in render.LAYOUTS:
        raise BadInput(f"layout must be one of {', '.join(render.LAYOUTS)}, not {layout!r}.", field="layout")
    postings = list(postings)
    if not preview:
        for establishment in {posting.table.establishment_id: posting.table.establishment
                              for posting in postings}.values():
            permissions.require(actor, PRINT_SIGN, establishment)
    return printing.print_signs(postings, layout, user=actor, channel=channel, preview=preview)


# -- print overrides --------------------------------------------------------------------------------------------------


def _lock_posting(actor, *, posting):
    permissions.require(actor, OVERRIDE_PRINT, posting.table.establishment)
    TablePosting.objects.select_for_update().filter(pk=posting.pk).first()


def _waiting(posting):
    """The override awaiting a second officer, locked (after its posting); OverrideStateError when none does."""
    asked = (posting.print_overrides.select_for_update().filter(status=PrintOverride.Status.REQUESTED)
             .select_related("requested_by").first())
    if asked is None:
        raise OverrideStateError(f"No override of posting {posting.pk} awaits a second officer: one must be asked "
                                 "for first.")
    return asked


def _what(posting):
    return f"the print override of table {posting.table.label}'s posting {posting.pk}"


@transaction.atomic
def request_override(actor, *, posting, reason):
    """Ask that a posting with error findings be printed anyway; it prints once a second officer approves."""
    _lock_posting(actor, posting=posting)
    reason = review.read_reason(reason, minimum=REASON_MINIMUM,
                                saying="why the sign may be printed despite its errors")
    errors = error_findings(posting)
    if not errors:
        raise BadInput(f"Posting {posting.pk} has no error findings: it prints without an override.")
    if current_override(posting) is not None:
        raise OverrideStateError(f"Posting {posting.pk} already has an approved override: its sign may be printed.")
    waiting = posting.print_overrides.filter(status=PrintOverride.Status.REQUESTED).select_related(
        "requested_by").first()
    if waiting is not None:
        raise OverrideStateError(
            f"An override of posting {posting.pk} asked for by {waiting.requested_by.get_username()} already awaits "
            "a second compliance officer.")
    try:
        with transaction.atomic():
            asked = PrintOverride.objects.create(posting=posting, reason=reason, requested_by=actor, findings=errors)
    except IntegrityError:  # where the lock above is no lock (SQLite): another request took its place
        raise OverrideStateError(
            f"Another override of posting {posting.pk} was asked for at the same moment.") from None
    log_action("signage.print_override_requested", actor=actor, obj=posting,
               establishment=posting.table.establishment,
               data={"override": asked.pk, "reason": reason, "findings": errors})
    notify.asked("override", asked)
    return asked


def _decide(actor, posting, step, reason, saying):
    """Take ``step`` on the override awaiting a second officer: locked, checked, and kept with who, when and why."""
    _lock_posting(actor, posting=posting)
    reason = review.read_reason(reason, minimum=REASON_MINIMUM, saying=saying)
    asked = _waiting(posting)
    asked.status = OVERRIDE.step(asked, step, user=actor, what=_what(posting))
    asked.decided_by, asked.decided_at, asked.decision_reason = actor, timezone.now(), reason
    asked.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
    return asked


def _log(action, actor, posting, asked, **more):
    log_action(action, actor=actor, obj=posting, establishment=posting.table.establishment,
               data={"override": asked.pk, "reason": asked.decision_reason,
                     "requested_by": asked.requested_by.get_username(), "request_reason": asked.reason,
                     "findings": asked.findings, **more})


@transaction.atomic
def approve_override(actor, *, posting, reason):
    """A second officer approves the override asked for: the sign may then be printed."""
    asked = _decide(actor, posting, review.APPROVE, reason, "why the override is approved")
    _log("signage.print_override", actor, posting, asked)
    notify.answered("override", asked, True)
    return asked


@transaction.atomic
def refuse_override(actor, *, posting, reason):
    """A second officer refuses the override asked for: the sign stays blocked (another may be asked for)."""
    asked = _decide(actor, posting, review.REFUSE, reason, "why the override is refused")
    _log("signage.print_override_refused", actor, posting, asked)
    notify.answered("override", asked, False)
    return asked


@transaction.atomic
def withdraw_override(actor, *, posting, reason):
    """Take back the override asked for while it awaits a second officer: whoever asked for it, or an administrator
    (the audit entry says for whom, and they are told). The sign stays blocked, and another may be asked for."""
    asked = _decide(actor, posting, review.WITHDRAW, reason, "why the override is withdrawn")
    for_asker = OVERRIDE.for_asker(asked, actor)
    _log("signage.print_override_withdrawn", actor, posting, asked, **for_asker)
    if for_asker:
        notify.withdrawn("override", asked, actor, asked.decision_reason)
    return asked
