"""Judgements kept (issue 43): a table's judgement now is read in one query, not judged again on every view.

The postings page and the regulator's room spent ~320 ms of processor time each at 200 tables judging every posting
(with its 30-day look-ahead) on every view. Now ``compliance.judgement.judge_postings`` keeps what it judged for
today in ``KeptJudgement`` (one row per posting), labelled with the data generation it was judged under
(``cardroom.generation``'s number), and reads it back while both still hold:

- **the data**: every change that a judgement reads (``JUDGED``: approvals and their conditions, games, rules,
  paytables and bet limits, schedules, their versions, options, tiers and interpretations, postings, rule parameters,
  the rooms and tables) draws a new number in its own transaction (``generation.bump_on_change``; publications and
  interpretations draw one in their services too). A judgement labelled with an older number is never read again;
- **the day**: a kept judgement is for the day it was judged as of; on the next day it is judged again on first read.

Why a kept judgement never answers from data older than the number it is labelled with: the number is read before
anything the judgement reads (``judge_postings``), each later statement sees at least what was committed then, and
the number of a committed change is drawn in that change's transaction. A judgement computed while a change commits
is labelled with the number before it, which the change has replaced: it is never read. (``cardroom.generation``
says the same of quotes.)

Writing on a read is a cache's write: two requests keeping the same postings write the same answer; a request that
cannot keep (a lock, a deadlock) answers all the same and keeps nothing.
"""

import datetime
import logging

from django.db import DatabaseError, transaction
from django.db.models.signals import m2m_changed
from django.utils import timezone

from cardroom import generation

from .glance import Glance
from .models import KeptJudgement
from .rules.base import Finding

log = logging.getLogger(__name__)

# Everything a judgement reads (compliance.facts' Catalog and judgement._loaded). A model added to what it reads
# belongs here: tests/compliance/test_kept_judgement.py names every model of these apps as judged or not.
JUDGED = (
    "cardroom.Approval", "cardroom.ApprovalCondition", "cardroom.ConditionFulfilment", "cardroom.BetLimit",
    "cardroom.Game", "cardroom.GameRules", "cardroom.Paytable", "cardroom.PaytableLine", "cardroom.StatedHouseEdge",
    "cardroom.Jurisdiction", "cardroom.Establishment", "cardroom.Table", "cardroom.Source",
    "fees.ScheduleDocument", "fees.ScheduleVersion", "fees.FeeOption", "fees.FeeTier", "fees.Interpretation",
    "fees.TablePosting", "fees.PostingBonusLimit",
    "compliance.RuleParameter",
)


def register():
    """Draw a new generation on every change of what a judgement reads (ComplianceConfig.ready)."""
    from fees.models import ScheduleDocument

    for label in JUDGED:
        generation.bump_on_change(label)
    m2m_changed.connect(generation.bump, sender=ScheduleDocument.games.through, weak=False,
                        dispatch_uid="compliance.kept.schedule_games")


def read(days, number):
    """``{posting id: (findings, upcoming, judged)}`` kept under ``number`` for ``days`` ({posting id: day})."""
    rows = KeptJudgement.objects.filter(posting_id__in=list(days), generation=number, glance__isnull=False).values_list(
        "posting_id", "day", "findings", "upcoming", "judged")
    return {posting: (tuple(Finding.from_dict(f) for f in findings),
                      tuple((datetime.date.fromisoformat(d["day"]), Finding.from_dict(d["finding"])) for d in upcoming),
                      judged)
            for posting, day, findings, upcoming, judged in rows if days[posting] == day}


def glances(ids, number, at):
    """``{posting id: Glance}`` kept under ``number`` for the day each of ``ids`` is judged as of at ``at`` (its own
    first day for a posting still to come), in one query: only the glances are read, not the whole judgements."""
    rows = KeptJudgement.objects.filter(posting_id__in=list(ids), generation=number, glance__isnull=False).values_list(
        "posting_id", "day", "posting__effective_from", "glance")
    zone = timezone.get_current_timezone()  # once: asking for it per row was half the time
    return {posting: Glance.from_dict(glance) for posting, day, starts, glance in rows
            if day == max(at, starts).astimezone(zone).date()}


def keep(judgements, number):
    """Keep ``judgements`` (judged under ``number``), replacing what each posting had kept."""
    rows = [KeptJudgement(posting_id=j.posting_id, generation=number, day=j.day,
                          findings=[f.as_dict() for f in j.findings],
                          upcoming=[{"day": d.day.isoformat(), "finding": d.finding.as_dict()} for d in j.upcoming],
                          judged=j.judged, glance=Glance.of(j.findings, j.upcoming).as_dict())
            for j in sorted(judgements, key=lambda j: j.posting_id)]  # one order: concurrent keeps do not deadlock
    if not rows:
        return
    try:
        with transaction.atomic():
            KeptJudgement.objects.bulk_create(
                rows, update_conflicts=True, unique_fields=["posting"],
                update_fields=["generation", "day", "findings", "upcoming", "judged", "glance", "judged_at"])
    except DatabaseError as error:  # a lock held elsewhere: the answer stands, it is only not kept
        log.warning("Judgements of %d postings not kept: %s", len(rows), error)
