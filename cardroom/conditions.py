"""Approval conditions met per establishment: the one way to record, correct or withdraw that an establishment
met a condition of an approval (API, pages, the demo), and to read where each condition stands.

A condition of kind ``prerequisite`` (the WSGC letter's "submit their internal controls and receive approval
from the Commission prior to implementing"; for tribal casinos the TGA's approval and the state's concurrence)
is met at each establishment it concerns (its approval's jurisdiction or establishment, and ``applies_to`` /
the approval's scope fitting the establishment's kind). A record says on which day, the reference of the
evidence, who recorded it and when. Records are never changed or deleted: a correction is a new record that
names the one it corrects, with a reason; a withdrawal is a record saying the condition is not met, with a
reason. Each goes to the history and to the establishment's hash-chained audit log.

Compliance officers record for their own establishments (administrators anywhere); regulators and floor
supervisors read (``cardroom.access.Scope``).
"""

from django.db import transaction
from django.utils import timezone

from . import permissions, registry, values
from .audit import log_action
from .exceptions import BadInput, StateConflict
from .models import ApprovalCondition, ConditionFulfilment, Establishment
from .models.approvals import operator_scopes

EVIDENCE_MAX = 500
NOTE_MAX = 2000
REASON_MAX = 2000


class ConditionConflict(StateConflict):
    """The record asked for contradicts what is recorded now (met already, corrected already): a 409."""


def recordable_establishments(scope):
    """The establishments this user may record conditions met at (``cardroom.record_condition``'s, as a query)."""
    return permissions.rows(scope, "cardroom.record_condition", Establishment.objects.select_related("jurisdiction"))


def standing(condition, establishment):
    """The record standing for ``condition`` at ``establishment`` (the last of its chain), or None."""
    return (ConditionFulfilment.objects.current().filter(condition=condition, establishment=establishment)
            .select_related("recorded_by").order_by("-recorded_at", "-id").first())


def why_not_recordable(condition, establishment):
    """Why this condition cannot be recorded as met at this establishment (a sentence), or None."""
    approval = condition.approval
    where = f"{approval.key} condition {condition.order}"
    if not condition.concerns(establishment):
        return (f"{where} does not apply at {establishment.name} (a {establishment.get_kind_display().lower()} in "
                f"{establishment.jurisdiction.code}): it is for {condition.get_applies_to_display().lower()} "
                f"under an approval for {approval.establishment or approval.jurisdiction.code}.")
    if condition.kind != ApprovalCondition.Kind.PREREQUISITE:
        return (f"{where} is not met once: it is of the kind '{condition.get_kind_display()}'. Only a "
                "prerequisite is recorded as met.")
    if condition.status != ApprovalCondition.Status.OUTSTANDING:
        return (f"{where} is recorded from its source as {condition.get_status_display().lower()} everywhere; "
                "there is nothing to record per establishment.")
    return None


def _text(value, field, *, max_length, required, single_line=True, minimum=0):
    text = values.named(field, values.text, value, max_length=max_length, required=required, single_line=single_line)
    if required and len(text) < minimum:
        raise BadInput(f"{field} must say why ({minimum} characters or more).", field=field)
    return text


def _reason(value):
    return _text(value, "reason", max_length=REASON_MAX, required=True, single_line=False, minimum=3)


# Told once a record (met, corrected or withdrawn) has committed (``cardroom.registry.tell``, with the record and
# who made it): whatever judges the room's postings against its conditions listens (compliance checks the room's
# postings again, so its inbox follows at once; a ``cardroom.registry.Listener`` it registers).
RECORDED = "cardroom.condition_recorded"


def _announce(record, user):
    transaction.on_commit(lambda: registry.tell(RECORDED, record=record, user=user))


def _log(record, user, verb, data):
    establishment = record.establishment
    log_action(f"approval.condition_{verb}", actor=user, obj=record, establishment=establishment,
               jurisdiction=establishment.jurisdiction, data={
                   "approval": record.condition.approval.key, "condition": record.condition.order,
                   "establishment": establishment.slug, **data})


def _locked(condition):
    """The condition's row, locked until the end of the transaction: one writer per condition at a time, so
    that two officers recording at once cannot both start a chain (the second sees the first's record)."""
    return (ApprovalCondition.objects.select_for_update(of=("self",))
            .select_related("approval__jurisdiction", "approval__establishment").get(pk=condition.pk))


@transaction.atomic
def record_condition_met(user, *, condition, establishment, met_on, evidence, note="", corrects=None, reason=""):
    """Record that ``establishment`` met ``condition`` on ``met_on`` (a date or YYYY-MM-DD), with the reference of
    the evidence. Where a record stands already, this must correct it: ``corrects`` names it (its id) and
    ``reason`` says why; after a withdrawal, a new record needs neither.

    Raises BadInput (bad or missing values, a condition that does not apply there) or
    ConditionConflict (met already and not corrected, or the record named is no longer the standing one), or
    NotAllowed (``cardroom.record_condition`` at ``establishment``)."""
    permissions.require(user, "cardroom.record_condition", establishment)
    condition = _locked(condition)
    problem = why_not_recordable(condition, establishment)
    if problem:
        raise BadInput(problem, field="condition")
    met_on = values.named("met_on", values.day, met_on)
    today = timezone.localdate(timezone.now(), establishment.zone)
    if met_on > today:
        raise BadInput(f"The day it was met, {met_on.isoformat()}, is after today ({today.isoformat()} at "
                       f"{establishment.name}): record a condition once it is met.", field="met_on")
    approval = condition.approval
    granted = approval.decided_on or approval.effective_from
    if granted is not None and met_on < granted:
        raise BadInput(f"The day it was met, {met_on.isoformat()}, is before the approval it is a "
                       f"condition of ({approval.reference}, {granted.isoformat()}): a condition is met "
                       f"on or after its approval.", field="met_on")
    evidence = _text(evidence, "evidence", max_length=EVIDENCE_MAX, required=True)
    note = _text(note, "note", max_length=NOTE_MAX, required=False, single_line=False)
    current = standing(condition, establishment)
    if corrects not in (None, ""):
        corrects_id = corrects.pk if isinstance(corrects, ConditionFulfilment) else corrects
        if isinstance(corrects_id, bool) or not isinstance(corrects_id, int):
            raise BadInput(f"corrects must be the id of a record, not {corrects!r}.", field="corrects")
        named = ConditionFulfilment.objects.filter(pk=corrects_id, condition=condition,
                                                   establishment=establishment).first()
        if named is None:
            raise BadInput(f"corrects: there is no record {corrects_id} of this condition at "
                           f"{establishment.name}.", field="corrects")
        if current is None or named.pk != current.pk:
            raise ConditionConflict(f"Record {named.pk} has been corrected or withdrawn already; the record standing "
                                    f"is {current.pk if current else 'none'}.")
    if current is not None and not current.withdrawn:
        if corrects in (None, ""):
            raise ConditionConflict(
                f"{condition.approval.key} condition {condition.order} is recorded as met at {establishment.name} "
                f"on {current.met_on.isoformat()} (record {current.pk}, by {current.recorded_by}); to correct it, "
                f"name that record in corrects and give a reason.")
        reason = _reason(reason)
    else:
        reason = _text(reason, "reason", max_length=REASON_MAX, required=False, single_line=False)
    record = ConditionFulfilment(condition=condition, establishment=establishment, met_on=met_on, evidence=evidence,
                                 note=note, corrects=current, reason=reason, recorded_by=user,
                                 recorded_at=timezone.now())
    record._change_reason = reason or f"Met on {met_on.isoformat()}: {evidence}"
    record.save()
    _log(record, user, "met", {"met_on": met_on, "evidence": evidence, "note": note,
                               "corrects": current.pk if current else None, "reason": reason})
    _announce(record, user)
    return record


@transaction.atomic
def withdraw_condition_met(user, *, record, reason):
    """Say, with a reason, that the condition is not met at the record's establishment after all (the record was
    wrong, or the approval it relied on was withdrawn). Raises BadInput (no reason) or
    ConditionConflict (the record is not the one standing, or is a withdrawal itself), or NotAllowed."""
    permissions.require(user, "cardroom.record_condition", record)
    condition = _locked(record.condition)
    reason = _reason(reason)
    record = ConditionFulfilment.objects.select_related("establishment__jurisdiction").get(pk=record.pk)
    current = standing(condition, record.establishment)
    if current is None or current.pk != record.pk:
        raise ConditionConflict(f"Record {record.pk} has been corrected or withdrawn already; the record standing is "
                                f"{current.pk if current else 'none'}.")
    if record.withdrawn:
        raise ConditionConflict(f"Record {record.pk} is a withdrawal: the condition is not recorded as met.")
    withdrawal = ConditionFulfilment(condition=condition, establishment=record.establishment, met_on=None,
                                     evidence="", withdrawn=True, corrects=record, reason=reason, recorded_by=user,
                                     recorded_at=timezone.now())
    withdrawal._change_reason = f"Withdrawn: {reason}"
    withdrawal.save()
    _log(withdrawal, user, "withdrawn", {"withdraws": record.pk, "reason": reason})
    _announce(withdrawal, user)
    return withdrawal


# Where a condition stands at an establishment: the one reading every page shows (the compliance officer's approvals
# page and the regulator's establishment page render it with templates/console/_conditions.html).
MET, OUTSTANDING, NOT_HERE, SETTLED, WHILE_OFFERED, NOTICE = (
    "met", "outstanding", "not_here", "settled", "while_offered", "notice")


def _why_not_here(condition, establishment):
    """Why a condition does not concern ``establishment``, in words (``ApprovalCondition.concerns`` is False)."""
    approval = condition.approval
    kind = establishment.get_kind_display().lower()
    if approval.jurisdiction_id != establishment.jurisdiction_id:
        return f"Its approval is for {approval.jurisdiction.name}, not {establishment.jurisdiction.name}."
    if approval.establishment_id not in (None, establishment.pk):
        return f"Its approval is for {approval.establishment.name} only."
    if approval.scope not in operator_scopes(establishment.kind):
        return f"Its approval is for {approval.get_scope_display().lower()}; {establishment.name} is a {kind}."
    return f"It is for {condition.get_applies_to_display().lower()}; {establishment.name} is a {kind}."


def state_at(condition, establishment, record):
    """Where ``condition`` stands at ``establishment``, given the record standing there (or None): a dict of
    ``state`` (one of MET, OUTSTANDING, NOT_HERE, SETTLED, WHILE_OFFERED, NOTICE), ``words`` (the badge),
    ``tone`` (ok | error | plain) and ``why`` (a sentence where nothing is recorded here, else "")."""
    if not condition.concerns(establishment):
        return {"state": NOT_HERE, "words": "not for this room", "tone": "plain",
                "why": _why_not_here(condition, establishment)}
    if condition.status != ApprovalCondition.Status.OUTSTANDING:
        status = condition.get_status_display().lower()
        return {"state": SETTLED, "words": status, "tone": "ok" if condition.status == "met" else "plain",
                "why": f"Its source records it as {status} for every establishment: nothing is recorded here."}
    if condition.kind == ApprovalCondition.Kind.OPERATING:
        return {"state": WHILE_OFFERED, "words": "while offered", "tone": "plain",
                "why": "It applies for as long as the game is offered: it is not met once."}
    if condition.kind == ApprovalCondition.Kind.OTHER_PARTY:
        return {"state": NOTICE, "words": "notice / other party", "tone": "plain",
                "why": "A notice, or a duty of someone else (the manufacturer, the applicant): nothing is recorded "
                       "here."}
    if record is not None and not record.withdrawn:
        return {"state": MET, "words": "met here", "tone": "ok", "why": ""}
    return {"state": OUTSTANDING, "words": "outstanding here", "tone": "error", "why": ""}


def conditions_at(establishment, approvals):
    """For the pages: for each approval (conditions and their fulfilments prefetched), each condition with where
    it stands at ``establishment``: [(approval, [row])], each row ``state_at``'s dict and ``condition``,
    ``record`` (the standing record, met or withdrawn, or None), ``applies``, ``recordable`` (a prerequisite
    recorded per establishment here) and ``met``."""
    out = []
    for approval in approvals:
        rows = []
        for condition in approval.conditions.all():
            condition.approval = approval  # already in hand: no query per condition
            applies = condition.concerns(establishment)
            record = condition.current_fulfilments().get(establishment.pk) if applies else None
            row = {"condition": condition, "record": record, "applies": applies,
                   **state_at(condition, establishment, record)}
            row["recordable"] = row["state"] in (MET, OUTSTANDING)
            row["met"] = row["state"] == MET
            rows.append(row)
        out.append((approval, rows))
    return out
