"""Every action that changes a schedule's versions or readings: one function each, called by every door (the API,
the pages, the admin, commands).

Each takes who acts (``actor``), the target and input already read; checks a named permission
(``cardroom.permissions``); locks (in ``cardroom.review``'s order: document, version, reading); changes; writes the
audit entry; and raises only ``BadInput``, ``NotAllowed`` or ``StateConflict`` (subclasses of them). The two-person
steps go through the one review mechanism (``cardroom.review``, workflows in ``fees.schedules.reviews``).

- drafts: ``start_draft``, ``discard_draft``;
- publication: ``request_publication``, then a second officer's ``approve_publication`` or ``refuse_publication``,
  or the asker's ``withdraw_publication`` (an administrator's too);
- interpretations: ``propose_interpretation``, then ``approve_interpretation`` / ``refuse_interpretation``, or
  ``withdraw_interpretation`` (a proposal taken back, or an approved reading retired).

Reconciling the ledger is the ledger's (``fees.ledger.services``).
"""

from django.db import IntegrityError, transaction
from django.utils import timezone

from cardroom import changes, generation, notify, permissions, review
from cardroom.audit import log_action
from cardroom.exceptions import BadInput, NotAllowed

from ..models import Interpretation, ScheduleVersion, VersionReview, VersionStateError
from ..models.publication import earliest_problem, publication_problems, said
from . import interpretations as readings
from .reviews import INTERPRETATION, PUBLICATION

EDIT, APPROVE = "fees.edit_schedule", "fees.approve_schedule"


def _version_locked(version):
    """The version's row, locked (the subject of its reviews); ``version`` takes its stored state."""
    locked = ScheduleVersion.objects.select_for_update().select_related("document").get(pk=version.pk)
    for field in ("status", "effective_from", "retroactive", "retroactive_reason", "publication_reason",
                  "review_requested_by_id", "review_requested_at", "published_by_id", "published_at"):
        setattr(version, field, getattr(locked, field))
    return version


def _named(version):
    return f"{version.document.code} v{version.number}"


# -- drafts -----------------------------------------------------------------------------------------------------------


@transaction.atomic
def start_draft(actor, *, based_on, reason, effective_from):
    """A new draft holding a copy of ``based_on`` (its options, tiers and approved readings), to edit and publish."""
    document = based_on.document
    permissions.require(actor, EDIT, document)
    # The date a publication would be refused for, refused now (every door: the page, the API, the admin), so no
    # draft (nor its impact preview) ever reaches back to a date no version of the schedule could take effect on.
    if problem := earliest_problem(document, effective_from):
        raise BadInput(problem, field="effective_from")
    draft = document.new_draft(based_on=based_on, user=actor, reason=reason, effective_from=effective_from)
    log_action("schedule.new_draft", actor=actor, obj=draft, establishment=document.establishment,
               jurisdiction=document.jurisdiction,
               data={"code": document.code, "version": draft.number, "based_on": based_on.number})
    return draft


@transaction.atomic
def discard_draft(actor, *, version):
    """Delete a draft, with its readings (each kept in the history). A published version, one awaiting a second
    officer, one another draft was started from and one with a review record (asked for once) are kept."""
    document = version.document
    permissions.require(actor, EDIT, document)
    _version_locked(version)
    if version.is_locked:
        raise VersionStateError(f"{version} is {version.get_status_display().lower()} and cannot be discarded.")
    if version.reviews.exists():
        raise VersionStateError(f"{version} was asked for publication before: the record of that review is kept, "
                                "so the draft cannot be discarded. Edit it, or leave it unpublished.")
    dropped = list(version.interpretations.order_by("id"))
    dropped_ids = [reading.pk for reading in dropped]
    for reading in dropped:  # they read a version that goes; their history and audit entries stay
        reading._change_reason = f"Draft {_named(version)} discarded"
        reading._history_user = review.person(actor)
        reading.delete()
    number = version.number
    version.delete()  # one another draft was started from refuses (VersionStateError)
    log_action("schedule.discard_draft", actor=actor, obj=document, establishment=document.establishment,
               jurisdiction=document.jurisdiction,
               data={"code": document.code, "version": number, "interpretations": dropped_ids})


# -- publication ------------------------------------------------------------------------------------------------------


def _record(version, step, *, actor, reason, data=None):
    version.record_step(step, user=actor, actor_label="", reason=reason, data=data)


@transaction.atomic
def request_publication(actor, *, version, reason, effective_from, retroactive=False, retroactive_reason=""):
    """Set the draft's effective date (when it changes) and ask a second officer to publish it. It is checked as
    every door checks it (``publication_problems``: a ``BadInput``, 400, saying each problem), then frozen until
    approved, refused or withdrawn. Nothing is saved when refused."""
    permissions.require(actor, EDIT, version.document)
    _version_locked(version)
    status = PUBLICATION.step(version, review.ASK, user=actor, what=str(version))
    asked = {"effective_from": effective_from, "publication_reason": reason or "", "retroactive": retroactive,
             "retroactive_reason": retroactive_reason or ""}
    if problems := publication_problems(version, **asked):
        raise problems[0] if len(problems) == 1 else BadInput(said(problems))
    if version.effective_from != effective_from:
        version.effective_from = effective_from
        changes.save(version, user=actor, reason=f"Effective date set when asking for publication: {reason}")
    version.publication_reason, version.retroactive, version.retroactive_reason = (
        asked["publication_reason"], retroactive, asked["retroactive_reason"])
    version.status = status
    version.review_requested_by, version.review_requested_at = review.person(actor), timezone.now()
    _record(version, VersionReview.Step.REQUESTED, actor=actor, reason=version.publication_reason)
    notify.asked("schedule", version)
    return version


@transaction.atomic
def approve_publication(actor, *, version, reason):
    """A second officer publishes the version asked for; whoever asked for it, started it or changed it cannot."""
    permissions.require(actor, APPROVE, version.document)
    reason = review.read_reason(reason)
    _version_locked(version)
    PUBLICATION.step(version, review.APPROVE, user=actor, what=_named(version))
    version.mark_published(user=actor, reason=reason)
    notify.answered("schedule", version, True)
    return version


@transaction.atomic
def refuse_publication(actor, *, version, reason):
    """A second officer sends the version asked for back to draft, saying why (not whoever asked)."""
    permissions.require(actor, APPROVE, version.document)
    reason = review.read_reason(reason)
    _version_locked(version)
    version.status = PUBLICATION.step(version, review.REFUSE, user=actor, what=_named(version))
    _record(version, VersionReview.Step.REFUSED, actor=actor, reason=reason)
    notify.answered("schedule", version, False)
    return version


@transaction.atomic
def withdraw_publication(actor, *, version, reason):
    """Take back a request for publication, so the draft can be edited again: whoever asked for it, or an
    administrator (the audit entry says for whom, and they are told)."""
    permissions.require(actor, EDIT, version.document)
    reason = review.read_reason(reason)
    _version_locked(version)
    version.status = PUBLICATION.step(version, review.WITHDRAW, user=actor, what=_named(version))
    for_asker = PUBLICATION.for_asker(version, actor)
    _record(version, VersionReview.Step.WITHDRAWN, actor=actor, reason=reason, data=for_asker)
    if for_asker:
        notify.withdrawn("schedule", version, actor, reason)
    return version


@transaction.atomic
def publish_without_review(version, *, reason, actor_label, retroactive=None, retroactive_reason=None):
    """Publish with no person's approval: for the seed loader and other commands only (``actor_label`` names
    them), from a draft or a version awaiting a second officer; people go through the two-person steps above."""
    _version_locked(version)
    if version.is_published:
        raise VersionStateError(f"{version} is already published; it never changes: start a new draft from it.")
    version.publication_reason = version.publication_reason or reason
    if retroactive is not None:
        version.retroactive = retroactive
    if retroactive_reason is not None:
        version.retroactive_reason = retroactive_reason
    return version.mark_published(user=None, reason=reason, actor_label=actor_label)


# -- interpretations --------------------------------------------------------------------------------------------------


@transaction.atomic
def propose_interpretation(actor, *, version, option, tier, field, value, statement, decided_on, citation,
                           source=None):
    """Propose reading one field of ``version`` (an option's basis when ``tier`` is None, else a row's field) as
    ``value``: on any version, published ones included (the printed data never changes). One live (proposed or
    approved) reading per field."""
    permissions.require(actor, EDIT, version.document)
    if review.person(actor) is None:
        raise NotAllowed("An interpretation is proposed by a person signed in.")
    given = readings.read_proposal(version, option, tier, field, value, statement, decided_on, citation, source,
                                   lock=lambda: _version_locked(version))
    live = Interpretation.objects.filter(version=version, option_number=given["option_number"],
                                         tier_order=given["tier_order"], field=field,
                                         status__in=readings.LIVE).first()
    place = (f"{version} {readings.where(given['option_number'], given['tier_order'])}'s "
             f"{readings.FIELD_LABELS.get(field, field)}")
    if live is not None:
        raise readings.InterpretationConflict(
            f"{place} already has a reading {INTERPRETATION.label(live.status)} (#{live.pk}: read as "
            f"“{readings.label(field, live.value, version.document.currency)}”); withdraw it before proposing "
            "another.")
    printed = given.pop("printed")
    reading = Interpretation(version=version, recorded_by=actor, recorded_at=timezone.now(), **given)
    try:
        with transaction.atomic():
            readings.save(reading, actor, f"Interpretation proposed: {reading.statement}")
    except IntegrityError:  # proposed at the same moment by someone else
        raise readings.InterpretationConflict(f"{place} was given a reading at the same moment; reload and "
                                              "look.") from None
    readings.log(reading, "proposed", actor, printed=printed)
    notify.asked("interpretation", reading)
    return reading


def _reading_locked(reading):
    """The reading's version, then the reading, locked (the one order); the reading as stored."""
    _version_locked(reading.version)
    return Interpretation.objects.select_for_update().select_related("version__document").get(pk=reading.pk)


def _answer(actor, *, reading, step, reason):
    """A second officer's answer to a proposed reading: the reading, locked, and its new status."""
    permissions.require(actor, APPROVE, reading.version.document)
    reading = _reading_locked(reading)
    status = INTERPRETATION.step(reading, step, user=actor, what=f"Interpretation #{reading.pk}")
    return reading, status, readings.read_reason(reason)


def _answered(reading, actor, status, reason):
    reading.status = status
    reading.reviewed_by, reading.reviewed_at, reading.review_reason = review.person(actor), timezone.now(), reason


@transaction.atomic
def approve_interpretation(actor, *, reading, reason):
    """A second officer approves a proposed reading: from now on the engine, validation and signs use it."""
    reading, status, reason = _answer(actor, reading=reading, step=review.APPROVE, reason=reason)
    try:
        printed = readings.printed_value(reading.version, reading.option_number, reading.tier_order, reading.field)
    except BadInput as error:  # a draft's row removed since it was proposed
        raise readings.InterpretationConflict(f"Interpretation #{reading.pk} no longer fits its version: {error} "
                                              "Withdraw it.") from None
    _answered(reading, actor, status, reason)
    readings.save(reading, actor, f"Interpretation approved: {reason}")
    generation.bump()  # quotes read the value as approved from its commit on
    readings.log(reading, "approved", actor, printed=printed, reason=reason)
    notify.answered("interpretation", reading, True)
    return reading


@transaction.atomic
def refuse_interpretation(actor, *, reading, reason):
    """A second officer refuses a proposed reading, with the reason; the field may be proposed again."""
    reading, status, reason = _answer(actor, reading=reading, step=review.REFUSE, reason=reason)
    _answered(reading, actor, status, reason)
    readings.save(reading, actor, f"Interpretation refused: {reason}")
    readings.log(reading, "refused", actor, reason=reason)
    notify.answered("interpretation", reading, False)
    return reading


@transaction.atomic
def withdraw_interpretation(actor, *, reading, reason):
    """Take back a proposal, or retire an approved reading (the value is read as printed again), with the reason:
    whoever proposed it, or an administrator (the audit entry says for whom, and they are told)."""
    permissions.require(actor, EDIT, reading.version.document)
    reading = _reading_locked(reading)
    was = reading.status
    status = INTERPRETATION.step(reading, review.WITHDRAW, user=actor, what=f"Interpretation #{reading.pk}")
    reason = readings.read_reason(reason)
    for_asker = INTERPRETATION.for_asker(reading, actor)
    _answered(reading, actor, status, reason)
    readings.save(reading, actor, f"Interpretation withdrawn: {reason}")
    generation.bump()  # an approved reading retired: quotes read the printed value again
    readings.log(reading, "withdrawn", actor, reason=reason, was=was, **for_asker)
    if for_asker:
        # A proposal awaited a second officer (they are told it awaits them no longer); an approved reading did not.
        notify.withdrawn("interpretation", reading, actor, reason,
                         awaited=was == Interpretation.Status.PROPOSED)
    return reading
