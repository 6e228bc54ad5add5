"""One judgement of a table now: what its posting's findings are at a moment, from the data as it stands.

``judge_postings(postings, at)`` checks each posting with the rules of ``compliance.rules`` (``check_posting``, the
one evaluator) on the facts read now (``compliance.facts``: the schedule version in force, with the interpretations
approved for it; the dated rule parameters; the approvals and where their conditions stand at the room), as of the
day of ``at`` (or of the posting's own first day, for a posting still to come). It also looks ahead: each day in
the next 30 on which something the posting stands on changes (a published version of its schedule, a rule
parameter, an approval starting, expiring or ending its trial) it is checked again, and a problem that first
appears then is kept as a dated finding ("from 1 December 2026: ..."), until a later posting of the table takes over.

Everything that says whether a sign may print or what is wrong at a table reads this, never a stored run: the print
gate (``signage.postings.print_permission``), the postings page, the floor, the regulator's room and the validation
runs themselves (``compliance.checking``), which store a record of it. Any number of postings is judged in a fixed
few queries (the catalog, the postings, their schedules' published versions and the postings still to come).

What is judged for today is kept (``compliance.kept``) and read back in one query while the data it was judged from
and the day stay the same, so a page of 200 tables judges only what changed since it was last judged; the pages that
show many tables read only what they show of each (``glance_postings``).
"""

from __future__ import annotations

import dataclasses
import datetime
import re

from django.utils import timezone

from cardroom import generation
from fees.models import TablePosting

from . import identity, kept
from .facts import Catalog, posting_facts
from .glance import Glance
from .rules import ERROR, WARNING, check_posting
from .rules.base import Finding

# How far ahead a posting is judged against what comes into force.
HORIZON = datetime.timedelta(days=30)
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def day_words(day):
    """'1 December 2026'."""
    return f"{day.day} {day:%B %Y}"


@dataclasses.dataclass(frozen=True)
class Dated:
    """A problem that first appears on ``day``, within the next 30 days: the finding the rules will make then."""

    day: datetime.date
    finding: Finding

    @property
    def severity(self):
        return self.finding.severity

    @property
    def rule(self):
        return self.finding.rule

    @property
    def citation(self):
        return self.finding.citation

    @property
    def blocks(self):
        """An error from that day: the sign may not be printed then."""
        return self.finding.severity == ERROR

    @property
    def message(self):
        when = f"From {day_words(self.day)}"
        if self.blocks:
            return f"{when}, an error that will block the table's sign: {self.finding.message}"
        return f"{when}: {self.finding.message}"

    def as_finding(self):
        """The finding a validation run records for it today: a warning (nothing is wrong yet) saying the day."""
        return dataclasses.replace(self.finding, severity=WARNING, message=self.message,
                                   subject={**self.finding.subject, "from": self.day.isoformat()})


@dataclasses.dataclass(frozen=True)
class Judgement:
    """One posting judged at a moment: ``findings`` (as ``check_posting`` returns them, each citing its rule and
    source), the posting's values ``judged`` in words (``identity.posting_facts``), and the ``upcoming`` dated
    problems of the next 30 days, soonest first."""

    posting_id: int
    at: datetime.datetime
    day: datetime.date
    judged: dict
    findings: tuple
    upcoming: tuple
    postings: object = dataclasses.field(repr=False, compare=False)  # a TablePosting, or _Postings holding it

    @property
    def posting(self):
        return self.postings if isinstance(self.postings, TablePosting) else self.postings.get(self.posting_id)

    @property
    def errors(self):
        """The findings that block printing."""
        return tuple(f for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self):
        return tuple(f for f in self.findings if f.severity == WARNING)

    @property
    def blocked(self):
        return bool(self.errors)

    @property
    def blocked_from(self):
        """The first day within the next 30 on which an error appears (None if none does)."""
        return next((d.day for d in self.upcoming if d.blocks), None)

    def errors_on(self, day):
        """The dated errors that first appear on ``day``."""
        return [d for d in self.upcoming if d.blocks and d.day == day]

    def error_list(self):
        """The errors as plain data (what a blocked print says and an override keeps)."""
        return [{"rule": f.rule, "message": f.message, "citation": f.citation} for f in self.errors]


def _key(finding):
    """A finding's problem, whatever day it names: the same problem found on a later day is not a new one."""
    return finding.rule, finding.severity, ISO_DAY.sub("", finding.message)


def _start_of(day):
    moment = datetime.datetime.combine(day, datetime.time.min)
    return timezone.make_aware(moment)


def _loaded(postings):
    """The postings with what the facts read, in one query and a prefetch, in the order given."""
    ids = [p if isinstance(p, int) else p.pk for p in postings]
    # The schedule's own place and source are read once per schedule version (the catalog keeps its facts), so
    # they are not joined to every row: a 200-table floor built 1,600 objects for them.
    found = {p.pk: p for p in TablePosting.objects.filter(pk__in=ids).select_related(
        "table__establishment__jurisdiction", "schedule").prefetch_related("bonus_limits")}
    return [found[pk] for pk in dict.fromkeys(ids) if pk in found]


def _same_facts(posting, facts):
    """What a posting check reads, less the posting's own subject: postings alike (the same option, limits and
    bonus bets on the same day in the same room) are checked once (a 200-table floor has a few dozen kinds)."""
    house = (posting.rules_id, posting.decks, posting.aggregate_payout_limit,
             tuple((b.bet, b.paytable_id) for b in posting.bonus_limits.all()))
    return (id(facts.schedule), facts.option_number, facts.min_wager, facts.max_wager, facts.seats,
            facts.bonus_limits, facts.game.slug, facts.establishment, facts.establishment_kind, facts.jurisdiction,
            facts.as_of, house)


def _checked(posting, facts, catalog, memo):
    """``check_posting``'s findings, shared between postings alike when every finding is about the posting itself
    (its subject), given each posting's own subject."""
    key = _same_facts(posting, facts)
    if key in memo:
        return [dataclasses.replace(f, subject=facts.subject) for f in memo[key]]
    found = check_posting(facts, catalog.params)
    if all(f.subject == facts.subject for f in found):
        memo[key] = found
    return found


def _change_days(posting, facts, catalog, first, last):
    """The days after ``first`` up to ``last`` on which something the posting stands on changes."""
    days = catalog.params.days_between(facts.jurisdiction, first, last)
    if posting.schedule_id is not None:
        days |= {v.effective_from for v in catalog.published(posting.schedule_id)
                 if v.effective_from is not None and first < v.effective_from <= last}
    for approval in facts.approvals:
        start = approval.effective_from or approval.decided_on
        ends = [d + datetime.timedelta(days=1) for d in (approval.expires_on, approval.trial_ends_on) if d]
        days |= {d for d in [start, *ends] if d is not None and first < d <= last}
    return days


class _Postings:
    """The postings of judgements read back as kept, loaded together when one of them is first asked for (the
    pages that show a floor read only the findings: they load their own rows)."""

    def __init__(self, ids):
        self.ids, self.found = ids, None

    def get(self, pk):
        if self.found is None:
            self.found = {p.pk: p for p in TablePosting.objects.filter(pk__in=self.ids).select_related(
                "table__establishment__jurisdiction", "schedule")}
        return self.found[pk]


def judge_postings(postings, at=None, *, catalog=None, fresh=False):
    """``{posting id: Judgement}`` of ``postings`` (postings or their ids) at the moment ``at`` (now); a posting still
    to come is judged as of its own first moment. A fixed few queries whatever their number.

    What was judged for today under the data as it stands is read back as kept (``compliance.kept``): three queries
    when all of them are; the rest is judged, and what is for today kept. ``fresh``: judge them all, keep nothing
    (what a kept judgement is tested against)."""
    at = at or timezone.now()
    number = None if fresh else generation.read()  # before anything judged is read: compliance.kept says why
    given = {p.pk: p for p in postings if isinstance(p, TablePosting)}
    ids = list(dict.fromkeys(p.pk if isinstance(p, TablePosting) else p for p in postings))
    starts = dict(TablePosting.objects.filter(pk__in=ids).values_list("pk", "effective_from"))
    ids = [pk for pk in ids if pk in starts]
    moments = {pk: max(at, starts[pk]) for pk in ids}
    days = {pk: timezone.localdate(moment) for pk, moment in moments.items()}
    found = {} if number is None or not ids else kept.read(days, number)
    lazy = _Postings([pk for pk in found if pk not in given])
    judged = {pk: Judgement(posting_id=pk, postings=given.get(pk, lazy), at=moments[pk], day=days[pk],
                            judged=found[pk][2], findings=found[pk][0],
                            upcoming=tuple(Dated(day, finding) for day, finding in found[pk][1]))
              for pk in found}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        fresh_ones = _judged(_loaded(missing), moments, catalog or Catalog())
        judged.update(fresh_ones)
        if number is not None:
            today = timezone.localdate()
            kept.keep([j for j in fresh_ones.values() if j.day == today], number)
    return {pk: judged[pk] for pk in ids}


def _judged(postings, moments, catalog):
    """``judge_postings``' work for the postings it found nothing kept for."""
    catalog.know_versions({p.schedule_id for p in postings})
    later = {}  # table id: the moments its later postings start, within the horizon
    for table_id, start in (TablePosting.objects.filter(
            table__in={p.table_id for p in postings}, effective_from__gt=min(p.effective_from for p in postings),
            effective_from__lte=max(moments.values()) + HORIZON + datetime.timedelta(days=1))
            .order_by("effective_from").values_list("table_id", "effective_from")):
        later.setdefault(table_id, []).append(start)
    judged, memo = {}, {}
    for posting in postings:
        moment = moments[posting.pk]
        day = timezone.localdate(moment)
        facts = posting_facts(posting, day, catalog)
        findings = tuple(_checked(posting, facts, catalog, memo))
        ends = next((s for s in later.get(posting.table_id, ()) if s > posting.effective_from), None)
        seen, upcoming = {_key(f) for f in findings}, []
        for then in sorted(_change_days(posting, facts, catalog, day, day + HORIZON)):
            if ends is not None and _start_of(then) >= ends:
                break  # the table's next posting is shown by then
            for found in _checked(posting, posting_facts(posting, then, catalog), catalog, memo):
                if found.severity in (ERROR, WARNING) and _key(found) not in seen:
                    seen.add(_key(found))
                    upcoming.append(Dated(then, found))
        judged[posting.pk] = Judgement(posting_id=posting.pk, postings=posting, at=moment, day=day,
                                       judged=identity.posting_facts(facts), findings=findings,
                                       upcoming=tuple(upcoming))
    return judged


def judge(table, at=None, *, catalog=None, fresh=False):
    """The judgement of the posting in force at ``table`` at ``at`` (now), or None when nothing is posted there."""
    at = at or timezone.now()
    posting = TablePosting.objects.in_force(table, at)
    return None if posting is None else judge_postings([posting], at, catalog=catalog, fresh=fresh)[posting.pk]


def glance_postings(postings, at=None):
    """``{posting id: Glance}`` (``compliance.glance``: what the pages show of a judgement) of ``postings`` (their
    ids) at ``at`` (now), in the order given. Two queries when every one is kept for the day under the data as it
    stands; the rest are judged (``judge_postings``, which keeps them) and glanced at."""
    at = at or timezone.now()
    ids = list(dict.fromkeys(postings))
    found = kept.glances(ids, generation.read(), at) if ids else {}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        found.update({pk: Glance.of(j.findings, j.upcoming) for pk, j in judge_postings(missing, at).items()})
    return {pk: found[pk] for pk in ids if pk in found}


def judge_tables(tables, at=None, *, catalog=None):
    """``{table id: Judgement}`` of the postings in force at ``tables`` at ``at`` (tables with none left out)."""
    at = at or timezone.now()
    postings = dict(TablePosting.objects.in_force_at(at).filter(table__in=tables).values_list("pk", "table_id"))
    return {judgement.posting.table_id: judgement
            for judgement in judge_postings(list(postings), at, catalog=catalog).values()}


__all__ = ["HORIZON", "Dated", "Judgement", "day_words", "glance_postings", "judge", "judge_postings", "judge_tables"]
