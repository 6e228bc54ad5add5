"""A compliance officer's findings inbox for one establishment: the findings that stand now, once each.

Every validation run stores its own findings, so the same problem is found again by each run (the posting's
own check when it was saved, "run validation now", the nightly run over everything). The inbox shows:

- the findings of the runs that stand now: the latest run of each kind over each thing checked (the room, each
  posting in force now or to come, each of its schedules, everything), less what a later, wider run covers
  (``current_runs_q``);
- of the findings of the establishment and the jurisdiction-wide ones of its jurisdiction (as the API's
  findings list is scoped);
- once each: a finding found by two of these runs is shown as the latest one; when the same finding was
  acknowledged before (by an earlier run's copy), that acknowledgement is shown with it (``finding.earlier``).

The queries are a fixed few whatever the number of runs or findings.
"""

import json

from django.db.models import Max, Q
from django.utils import timezone

from fees.models import TablePosting

from .models import Finding, ValidationRun

SEVERITIES = ("error", "warning", "info")


def place_q(establishment, prefix=""):
    """Findings (or runs' findings) of ``establishment``, and the jurisdiction-wide ones of its jurisdiction."""
    return Q(**{f"{prefix}establishment": establishment}) | Q(
        **{f"{prefix}establishment__isnull": True, f"{prefix}jurisdiction_id": establishment.jurisdiction_id})


def current_runs_q(establishment, at=None):
    """Q over findings for the runs that stand now for ``establishment`` (two queries).

    The latest run of each kind over each thing checked; then what a later, wider run covers is left out: a run
    over everything made after the room's run replaces it (and the checks of postings in force and of schedule
    versions made before it); the room's run made after a run over everything replaces that run's findings of
    the room (its jurisdiction-wide findings, schedule lint among them, stay). Findings about a posting that
    is no longer in force (nor to come) are left out.
    """
    at = at or timezone.now()
    shown = TablePosting.objects.filter(table__establishment=establishment).filter(
        Q(pk__in=TablePosting.objects.in_force_at(at).filter(table__establishment=establishment).values("pk"))
        | Q(effective_from__gt=at))
    documents = (Q(schedule_version__document__jurisdiction_id=establishment.jurisdiction_id)
                 & (Q(schedule_version__document__establishment__isnull=True)
                    | Q(schedule_version__document__establishment=establishment)))
    runs = ValidationRun.objects.filter(
        Q(kind=ValidationRun.Kind.ESTABLISHMENT, establishment=establishment)
        | Q(kind=ValidationRun.Kind.POSTING, posting__in=shown.values("pk"))
        | Q(kind=ValidationRun.Kind.SCHEDULE) & documents
        | Q(kind=ValidationRun.Kind.EVERYTHING)
    ).order_by()
    latest = list(runs.values("kind", "establishment_id", "posting_id", "posting__effective_from",
                              "schedule_version__document_id").annotate(latest=Max("id")))
    room = max((r["latest"] for r in latest if r["kind"] == ValidationRun.Kind.ESTABLISHMENT), default=0)
    everything = max((r["latest"] for r in latest if r["kind"] == ValidationRun.Kind.EVERYTHING), default=0)
    cover = max(room, everything)
    keep = []
    for row in latest:
        kind, run = row["kind"], row["latest"]
        if kind == ValidationRun.Kind.POSTING and run < cover and row["posting__effective_from"] <= at:
            continue  # checked again since, with the room's postings in force
        if kind == ValidationRun.Kind.SCHEDULE and run < everything:
            continue
        if kind == ValidationRun.Kind.ESTABLISHMENT and run < everything:
            continue
        if kind == ValidationRun.Kind.EVERYTHING and run < room:
            continue  # only its jurisdiction-wide findings, below
        keep.append(run)
    q = Q(run_id__in=keep)
    if everything and everything < room:
        q |= Q(run_id=everything, establishment__isnull=True)
    # A finding about a posting stands while the posting does (a new posting at the table ends it).
    return q & (Q(posting__isnull=True) | Q(posting_id__in=shown.values("pk")))


def _key(finding):
    return finding.rule, json.dumps(finding.subject, sort_keys=True, default=str), finding.message


def current_findings(establishment, at=None):
    """The inbox: findings that stand now, once each, errors first and newest first within a severity. An open
    finding found before and acknowledged then carries that acknowledgement as ``earlier`` (three queries)."""
    rows = (Finding.objects.filter(current_runs_q(establishment, at)).filter(place_q(establishment))
            .select_related("run", "table", "schedule", "schedule_version", "acknowledged_by")
            .order_by("-run__created_at", "-run_id", "id"))
    kept = {}
    for finding in rows:
        finding.earlier = None
        kept.setdefault(_key(finding), finding)
    waiting = {key: f for key, f in kept.items() if f.acknowledged_at is None}
    if waiting:
        # Acknowledgements are few (each is a person's reason), so the ones of these rules are read in one go.
        done = (Finding.objects.filter(place_q(establishment), acknowledged_at__isnull=False,
                                       rule__in={f.rule for f in waiting.values()})
                .select_related("acknowledged_by").order_by("-acknowledged_at", "-id"))
        for earlier in done:
            finding = waiting.get(_key(earlier))
            if finding is not None and finding.earlier is None:
                finding.earlier = earlier
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(kept.values(), key=lambda f: order.get(f.severity, len(order)))


def counts(findings, since=None):
    """{"error": {"open": n, "new": n}, ...} over ``findings``; new: open and found after ``since``."""
    out = {s: {"open": 0, "new": 0, "acknowledged": 0} for s in SEVERITIES}
    for finding in findings:
        bucket = out.setdefault(finding.severity, {"open": 0, "new": 0, "acknowledged": 0})
        if finding.acknowledged_at is not None:
            bucket["acknowledged"] += 1
            continue
        bucket["open"] += 1
        if since is not None and finding.run.created_at > since:
            bucket["new"] += 1
    return out
