"""Open error findings of many establishments at once, for a page listing them (a regulator's home).

The findings that stand for one establishment are ``compliance.inbox.current_findings`` (the compliance
officer's inbox, and the regulator's establishment page). Asking it once per establishment would cost a few
queries per row; ``open_errors`` gives the same count for every establishment of a list in three queries: it is
``inbox.current_runs_q`` and ``inbox.current_findings`` applied to all of them together, by the same rules
(tests/test_console_regulator.py checks that the two agree). Keep the two in step.
"""

from django.db.models import Max, Q
from django.utils import timezone

from fees.models import TablePosting

from .inbox import _key
from .models import Finding, ValidationRun

Kind = ValidationRun.Kind


def _kept_runs(rows, establishment, shown, at):
    """``inbox.current_runs_q``'s choice of runs for one establishment, from the latest runs of every kind."""
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
            continue
        if kind in (Kind.SCHEDULE, Kind.ESTABLISHMENT) and run < everything:
            continue
        if kind == Kind.EVERYTHING and run < room:
            continue
        keep.add(run)
    # The run over everything, older than the room's own run, still stands for its jurisdiction-wide findings.
    wide = everything if everything and everything < room else None
    return keep, wide


def open_errors(establishments, at=None):
    """``{establishment id: count}`` of the error findings that stand and nobody has acknowledged: for each,
    ``counts(inbox.current_findings(establishment))["error"]["open"]`` (three queries in all)."""
    at = at or timezone.now()
    establishments = list(establishments)
    if not establishments:
        return {}
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
                        "schedule_version__document_id", "schedule_version__document__jurisdiction_id",
                        "schedule_version__document__establishment_id").annotate(latest=Max("id")))
    chosen = {e.pk: _kept_runs(rows, e, shown, at) for e in establishments}
    runs = set().union(*(keep | {wide} for keep, wide in chosen.values())) - {None}
    findings = list(Finding.objects.filter(run_id__in=runs, severity=Finding.Severity.ERROR)
                    .filter(Q(establishment__in=ids) | Q(establishment__isnull=True, jurisdiction__in=jurisdictions))
                    .order_by("-run__created_at", "-run_id", "id")
                    .only("id", "run_id", "establishment_id", "jurisdiction_id", "posting_id", "rule", "subject",
                          "message", "acknowledged_at"))
    counts = {}
    for e in establishments:
        keep, wide = chosen[e.pk]
        kept = {}
        for f in findings:
            if not (f.establishment_id == e.pk
                    or f.establishment_id is None and f.jurisdiction_id == e.jurisdiction_id):
                continue
            if not (f.run_id in keep or f.run_id == wide and f.establishment_id is None):
                continue
            if f.posting_id is not None and shown.get(f.posting_id) != e.pk:
                continue
            kept.setdefault(_key(f), f)
        counts[e.pk] = sum(1 for f in kept.values() if f.acknowledged_at is None)
    return counts
