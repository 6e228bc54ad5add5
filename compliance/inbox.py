"""A compliance officer's findings inbox for one establishment: the findings that stand now, once each.

Every validation run stores its own findings, so the same problem is found again by each run (the posting's
own check when it was saved, "run validation now", the nightly run over everything). The inbox shows:

- the findings of the runs that stand now: the latest run of each kind over each thing checked (the room, each
  posting in force now or to come, each of its schedules, everything), less what a later, wider run covers
  (``_standing_runs``);
- of the findings of the establishment and the jurisdiction-wide ones of its jurisdiction (as the API's
  findings list is scoped);
- once each: a finding found by two of these runs is shown as the latest one; when the same finding was
  acknowledged before (by an earlier run's copy), that acknowledgement is shown with it (``earlier``).

``current_findings`` works this out from the runs (a fixed few queries, but every standing finding read and
matched in Python: about 40 ms for a 200-table room's 620 on PostgreSQL). The pages use what ``standing`` keeps
of it in a table (``StandingFinding``), worked out again only after a run, an acknowledgement or a posting
coming into force, so that they count, filter and page in SQL and read only the findings they show
(``InboxFinding``: plain rows, not model objects). ``open_errors`` counts many establishments at once.
"""

import dataclasses
import datetime
import json

from django.db import transaction
from django.db.models import Count, Exists, Max, Min, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from fees.models import TablePosting

from .models import Finding, StandingFinding, StandingState, ValidationRun

Kind = ValidationRun.Kind
SEVERITIES = ("error", "warning", "info")
# The subjects that are a table's: its posting (each posting check) and the table itself (the room's lint).
TABLE_SUBJECTS = ("posting", "table")
FOUND_BY = {Kind.ESTABLISHMENT: "run over the room", Kind.POSTING: "posting's check",
            Kind.SCHEDULE: "schedule run", Kind.EVERYTHING: "run over everything"}


@dataclasses.dataclass(slots=True)
class InboxFinding:
    """One standing finding as the pages show it (the names match ``Finding``'s properties of the same name)."""

    pk: int
    run_id: int
    severity: str
    rule: str
    subject_type: str
    subject: dict
    message: str
    citation: str
    establishment_id: int | None
    jurisdiction_id: int | None
    posting_id: int | None
    table_id: int | None
    table_label: str | None
    schedule_code: str | None
    version_number: int | None
    option_number: int | None
    found_at: datetime.datetime
    run_kind: str
    run_trigger: str
    acknowledged_at: datetime.datetime | None
    acknowledged_by_name: str | None
    acknowledgement_reason: str
    changes: str  # what changed since the same finding was acknowledged (compliance.recording)
    identity: str  # the same finding in every run that finds it (compliance.identity)
    earlier: "InboxFinding | None" = None
    is_new: bool = False  # set by the page: found since the officer's last look
    may_acknowledge: bool = False  # set by the page, for the user looking

    # Attribute: column (a class attribute, not a field: it has no annotation).
    FIELDS = {"pk": "id", "run_id": "run_id", "severity": "severity", "rule": "rule",
              "subject_type": "subject_type", "subject": "subject", "message": "message", "citation": "citation",
              "establishment_id": "establishment_id", "jurisdiction_id": "jurisdiction_id",
              "posting_id": "posting_id", "table_id": "table_id",
              "table_label": "table__label", "schedule_code": "schedule__code",
              "version_number": "schedule_version__number", "option_number": "option_number",
              "found_at": "run__created_at", "run_kind": "run__kind", "run_trigger": "run__trigger",
              "acknowledged_at": "acknowledged_at", "acknowledged_by_name": "acknowledged_by__username",
              "acknowledgement_reason": "acknowledgement_reason", "changes": "changes", "identity": "identity"}

    @classmethod
    def rows(cls, queryset):
        return [cls(*row) for row in queryset.values_list(*cls.FIELDS.values())]

    @property
    def acknowledged(self):
        return self.acknowledged_at is not None

    @property
    def found_by(self):
        return "nightly run" if self.run_trigger == ValidationRun.Trigger.NIGHTLY else FOUND_BY.get(
            self.run_kind, self.run_kind)

    @property
    def key(self):
        """The same problem has the same key, whichever run found it and however it was reached: a table's problem
        found by checking its posting and by checking the table (the room's run does both: an approval's condition
        outstanding is found at the posting and at each table offering the game) is one problem, of that table."""
        if self.table_id is not None and self.subject_type in TABLE_SUBJECTS:
            return self.rule, self.severity, f"table {self.table_id}", self.message
        return self.rule, json.dumps(self.subject, sort_keys=True, default=str), self.message


# rows() passes the columns by position.
assert list(InboxFinding.FIELDS) == [f.name for f in dataclasses.fields(InboxFinding)][:len(InboxFinding.FIELDS)]


def place_q(establishment, prefix=""):
    """Findings (or runs' findings) of ``establishment``, and the jurisdiction-wide ones of its jurisdiction."""
    return Q(**{f"{prefix}establishment": establishment}) | Q(
        **{f"{prefix}establishment__isnull": True, f"{prefix}jurisdiction_id": establishment.jurisdiction_id})


def _latest_runs(establishments, at):
    """The postings shown at each establishment ({posting id: establishment id}: in force at ``at`` or to come),
    and the latest run of each kind over each thing any of them could stand on (two queries)."""
    ids = [e.pk for e in establishments]
    jurisdictions = {e.jurisdiction_id for e in establishments}
    in_force = TablePosting.objects.in_force_at(at).filter(table__establishment__in=ids).values("pk")
    shown = dict(TablePosting.objects.filter(table__establishment__in=ids)
                 .filter(Q(pk__in=in_force) | Q(effective_from__gt=at)).values_list("pk", "table__establishment_id"))
    documents = (Q(schedule_version__document__jurisdiction_id__in=jurisdictions)
                 & (Q(schedule_version__document__establishment__isnull=True)
                    | Q(schedule_version__document__establishment__in=ids)))
    rows = list(ValidationRun.objects.filter(
        Q(kind=Kind.ESTABLISHMENT, establishment__in=ids) | Q(kind=Kind.POSTING, posting__in=list(shown))
        | Q(kind=Kind.SCHEDULE) & documents | Q(kind=Kind.EVERYTHING)
    ).order_by().values("kind", "establishment_id", "posting_id", "posting__effective_from",
                        "schedule_version__document__jurisdiction_id",
                        "schedule_version__document__establishment_id").annotate(latest=Max("id")))
    return shown, rows


def _standing_runs(rows, establishment, shown, at):
    """The runs whose findings stand for ``establishment``: ``(keep, wide)``, where only the jurisdiction-wide
    findings of run ``wide`` (or None) stand.

    The latest run of each kind over each thing checked; then what a later, wider run covers is left out: a run
    over everything made after the room's run replaces it (and the checks of postings in force and of schedule
    versions made before it); the room's run made after a run over everything replaces that run's findings of
    the room (its jurisdiction-wide findings, schedule lint among them, stay).
    """
    mine = []
    for row in rows:
        kind = row["kind"]
        if kind == Kind.ESTABLISHMENT and row["establishment_id"] != establishment.pk:
            continue
        if kind == Kind.POSTING and shown.get(row["posting_id"]) != establishment.pk:
            continue
        if kind == Kind.SCHEDULE and not (
                row["schedule_version__document__jurisdiction_id"] == establishment.jurisdiction_id
                and row["schedule_version__document__establishment_id"] in (None, establishment.pk)):
            continue
        mine.append(row)
    room = max((r["latest"] for r in mine if r["kind"] == Kind.ESTABLISHMENT), default=0)
    everything = max((r["latest"] for r in mine if r["kind"] == Kind.EVERYTHING), default=0)
    cover = max(room, everything)
    keep = set()
    for row in mine:
        kind, run = row["kind"], row["latest"]
        if kind == Kind.POSTING and run < cover and row["posting__effective_from"] <= at:
            continue  # checked again since, with the room's postings in force
        if kind in (Kind.SCHEDULE, Kind.ESTABLISHMENT) and run < everything:
            continue
        if kind == Kind.EVERYTHING and run < room:
            continue  # only its jurisdiction-wide findings stand
        keep.add(run)
    return keep, (everything if everything and everything < room else None)


def _standing_q(keep, wide, postings):
    # A finding about a posting stands while the posting does (a new posting at the table ends it).
    runs = Q(run_id__in=keep)
    if wide:
        runs |= Q(run_id=wide, establishment__isnull=True)
    return runs & (Q(posting__isnull=True) | Q(posting_id__in=postings))


def _once_each(findings):
    """The latest copy of each finding (``findings`` newest run first)."""
    kept = {}
    for finding in findings:
        kept.setdefault(finding.key, finding)
    return kept


def _first_found(findings):
    """Each finding's ``found_at`` made the moment it was first found: every run finds again what stands (the
    nightly run, "run validation now", a posting's check), and a finding found again is not a new one. One query."""
    by_identity = {}
    for finding in findings:
        if finding.identity:
            by_identity.setdefault(finding.identity, []).append(finding)
    if not by_identity:
        return
    first = (Finding.objects.filter(identity__in=list(by_identity)).order_by().values("identity")
             .annotate(first=Min("run__created_at")).values_list("identity", "first"))
    for identity, moment in first:
        for finding in by_identity[identity]:
            finding.found_at = min(finding.found_at, moment)


def current_findings(establishment, at=None):
    """The inbox: findings that stand now, once each, errors first and newest first within a severity. An open
    finding found before and acknowledged then carries that acknowledgement as ``earlier`` (four queries)."""
    at = at or timezone.now()
    shown, rows = _latest_runs([establishment], at)
    keep, wide = _standing_runs(rows, establishment, shown, at)
    if not keep and not wide:
        return []
    found = (Finding.objects.filter(_standing_q(keep, wide, list(shown))).filter(place_q(establishment))
             .order_by("-run__created_at", "-run_id", "id"))
    kept = _once_each(InboxFinding.rows(found))
    _first_found(kept.values())
    waiting = {key: f for key, f in kept.items() if f.acknowledged_at is None}
    if waiting:
        # Acknowledgements are few (each is a person's reason), so the ones of these rules are read in one go.
        # (Not the copies later runs carried: compliance.recording.carry_acknowledgements.)
        done = (Finding.objects.filter(place_q(establishment), acknowledged_at__isnull=False,
                                       acknowledgement_of__isnull=True, rule__in={f.rule for f in waiting.values()})
                .order_by("-acknowledged_at", "-id"))
        for earlier in InboxFinding.rows(done):
            finding = waiting.get(earlier.key)
            if finding is not None and finding.earlier is None:
                finding.earlier = earlier
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(kept.values(), key=lambda f: order.get(f.severity, len(order)))


def open_errors(establishments, at=None):
    """``{establishment id: count}`` of the error findings that stand and nobody has acknowledged, for many
    establishments at once (a regulator's home): for each, the open errors of ``current_findings(e)``,
    in three queries in all."""
    at = at or timezone.now()
    establishments = list(establishments)
    if not establishments:
        return {}
    shown, rows = _latest_runs(establishments, at)
    chosen = {e.pk: _standing_runs(rows, e, shown, at) for e in establishments}
    runs = set().union(*(keep | {wide} for keep, wide in chosen.values())) - {None}
    jurisdictions = {e.jurisdiction_id for e in establishments}
    errors = InboxFinding.rows(
        Finding.objects.filter(run_id__in=runs, severity=Finding.Severity.ERROR)
        .filter(Q(establishment__in=[e.pk for e in establishments])
                | Q(establishment__isnull=True, jurisdiction__in=jurisdictions))
        .order_by("-run__created_at", "-run_id", "id"))
    counts = {}
    for e in establishments:
        keep, wide = chosen[e.pk]
        mine = (f for f in errors
                if (f.run_id in keep or f.run_id == wide and f.establishment_id is None)
                and (f.establishment_id == e.pk
                     or f.establishment_id is None and f.jurisdiction_id == e.jurisdiction_id)
                and (f.posting_id is None or shown.get(f.posting_id) == e.pk))
        counts[e.pk] = sum(1 for f in _once_each(mine).values() if f.acknowledged_at is None)
    return counts



# -- kept: the standing findings in a table, for the pages --------------------------------------------------------


def standing(establishment, at=None):
    """The establishment's standing findings (``StandingFinding``, in the inbox's order), worked out again first
    when they may have changed since: a validation run made, a finding acknowledged, or a posting of the room come
    into force (one query when nothing changed). The pages count, filter and page through them in SQL
    instead of working out hundreds of findings on every look."""
    at = at or timezone.now()
    state = (StandingState.objects.filter(establishment=establishment).annotate(
        run_now=Coalesce(Subquery(ValidationRun.objects.order_by("-id").values("id")[:1]), 0),
        acknowledged_now=Subquery(Finding.objects.filter(acknowledged_at__isnull=False).order_by()
                                  .values(one=Value(1)).annotate(n=Count("pk")).values("n")),
        arrived=Exists(TablePosting.objects.filter(table__establishment=establishment,
                                                   effective_from__gt=OuterRef("at"), effective_from__lte=at)))
             .first())
    if state is None:
        _keep(establishment, current_findings(establishment, at), at,
              ValidationRun.objects.aggregate(last=Max("id"))["last"] or 0,
              Finding.objects.filter(acknowledged_at__isnull=False).count())
    elif (state.last_run != state.run_now or state.acknowledged != (state.acknowledged_now or 0) or state.at > at
          or state.arrived):
        _keep(establishment, current_findings(establishment, at), at, state.run_now, state.acknowledged_now)
    return StandingFinding.objects.filter(establishment=establishment)


@transaction.atomic
def _keep(establishment, findings, at, last_run, acknowledged):
    # Two looks at once may both work them out: the state row, locked, lets one replace the rows at a time.
    StandingState.objects.get_or_create(establishment=establishment,
                                        defaults={"at": at, "last_run": -1, "acknowledged": 0})
    state = StandingState.objects.select_for_update().get(establishment=establishment)
    StandingFinding.objects.filter(establishment=establishment).delete()
    StandingFinding.objects.bulk_create(
        StandingFinding(establishment=establishment, position=i, finding_id=f.pk,
                        earlier_id=f.earlier.pk if f.earlier else None, severity=f.severity, table_id=f.table_id,
                        found_at=f.found_at)
        for i, f in enumerate(findings))
    state.at, state.last_run, state.acknowledged = at, last_run, acknowledged or 0
    state.save()


def standing_counts(kept, since=None):
    """``{"error": {"open": n, "new": n, "acknowledged": n}, ...}`` of kept standing findings (a ``standing()``
    queryset, filtered or not), in one query; new: open and found after ``since``."""
    open_q = Q(finding__acknowledged_at__isnull=True)
    totals = kept.order_by().values("severity").annotate(
        open=Count("pk", filter=open_q), acknowledged=Count("pk", filter=~open_q),
        new=Count("pk", filter=open_q & Q(found_at__gt=since)) if since else Count("pk", filter=Q(pk__in=[])))
    out = {s: {"open": 0, "new": 0, "acknowledged": 0} for s in SEVERITIES}
    for row in totals:
        out[row["severity"]] = {"open": row["open"], "new": row["new"], "acknowledged": row["acknowledged"]}
    return out


def shown(kept):
    """The findings of some kept standing findings (a page of them), as the pages show them, in their order, each
    with the earlier acknowledgement of the same finding (two queries)."""
    kept = list(kept.values_list("finding_id", "earlier_id", "found_at"))
    ids = [finding for finding, _, _ in kept] + [earlier for _, earlier, _ in kept if earlier]
    found = {f.pk: f for f in InboxFinding.rows(Finding.objects.filter(pk__in=ids))}
    out = []
    for finding, earlier, first_found in kept:
        row = dataclasses.replace(found[finding], found_at=first_found)  # when first found (``_first_found``)
        row.earlier = found.get(earlier)
        out.append(row)
    return out
