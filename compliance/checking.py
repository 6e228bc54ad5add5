"""Posting checks from requests and stored postings, schedule lint, and stored validation runs.

``check_request`` reads the API's JSON body (docs/compliance.md), checks it and returns the findings; it
saves nothing. ``run_posting`` / ``run_establishment`` / ``run_schedule`` / ``run_everything`` check and store.
This module holds the facts of stored postings and the runs; reading a request is ``compliance.request_check``,
storing a run's findings ``compliance.recording`` (their public names are importable from here too).
"""

import dataclasses
import datetime

from django.db import transaction
from django.utils import timezone

from cardroom import game_checks
from cardroom.models import Table
from fees.models import ScheduleVersion, TablePosting
from fees.variance.selectors import over_days, short_days

from . import identity
from .facts import Catalog, document_facts, posting_facts, table_rounds
from .judgement import judge_postings
from .models import ValidationRun
from .recording import Recorder, carry_acknowledgements
from .request_check import (
    FEE_KINDS,
    FIELDS,
    HOUSE_BANKED_FIELDS,
    check_request,
    read_request,
    summary,
)
from .rules import check_posting, lint_approvals, lint_documents, rule_player_dealer_rotation
from .rules.game_math import house_edge_findings
from .rules.lint import TableFacts
from .rules.variance import (LOOKBACK_DAYS, OverCollected, ShortDays, rule_collected_above_schedule,
                             rule_short_days_in_a_row)

__all__ = [
    "FEE_KINDS", "FIELDS", "HOUSE_BANKED_FIELDS", "check_request", "read_request", "summary",
    "carry_acknowledgements",
    "current_postings", "lint_all", "posting_facts", "preview_version", "published_versions", "run_establishment",
    "run_everything", "run_posting", "run_schedule", "schedule_findings",
]


# -- stored postings and runs ------------------------------------------------------------------------------


def current_postings(tables, at):
    """The posting in force at each table at moment ``at`` (tables with none are left out)."""
    in_force = {p.table_id: p for p in TablePosting.objects.in_force_at(at).filter(table__in=tables)
                .select_related("schedule__jurisdiction", "schedule__establishment", "schedule__source")
                .prefetch_related("bonus_limits")}
    postings = []
    for table in tables:
        posting = in_force.get(table.pk)
        if posting is not None:
            posting.table = table
            postings.append(posting)
    return postings


def _table_facts(tables, catalog):
    return [
        TableFacts(establishment=t.establishment.slug, establishment_kind=t.establishment.kind,
                   jurisdiction=t.establishment.jurisdiction.code, label=t.label, game=t.game.slug,
                   game_name=t.game.name, establishment_name=t.establishment.name)
        for t in tables if t.game_id is not None
    ]



def _record_judgement(recorder, judgement):
    """A run's record of one posting's judgement (``compliance.judgement``): its findings, and each problem coming
    within 30 days as a dated warning."""
    posting = judgement.posting
    judged = judgement.judged
    for finding in [*judgement.findings, *(dated.as_finding() for dated in judgement.upcoming)]:
        recorder.add(finding, table=posting.table, posting=posting, establishment=posting.table.establishment,
                     judged=judged)


def _check_tables(recorder, tables, day, at):
    catalog = recorder.catalog
    for judgement in judge_postings(current_postings(tables, at), at, catalog=catalog).values():
        recorder.run.postings_checked += 1
        _record_judgement(recorder, judgement)
    approvals = [a for items in catalog.approvals.values() for a in items]
    for finding in lint_approvals(approvals, _table_facts(tables, catalog), day):
        if finding.subject.get("type") == "table":
            recorder.add(finding)
    _check_rounds(recorder, tables, day)
    _check_variance(recorder, tables, day)


def _check_variance(recorder, tables, day):
    """Tables and recorders short on many gaming days in a row, up to ``day``, and table-days collected above the
    schedule within the rule's look-back (compliance.rules.variance)."""
    first = day - datetime.timedelta(days=2 * LOOKBACK_DAYS)  # a run still standing may have begun before
    for establishment in {t.establishment_id: t.establishment for t in tables}.values():
        days = short_days(establishment, first, day)
        facts = [("table", label, days["played"].get(label, ()), short)
                 for label, short in days["tables_short"].items()]
        facts += [("recorder", name, days["room_days"], short) for name, short in days["recorders_short"].items()]
        for kind, name, played, short in facts:
            found = rule_short_days_in_a_row(ShortDays(
                establishment=establishment.slug, jurisdiction=establishment.jurisdiction.code, as_of=day, kind=kind,
                name=name, days_played=tuple(sorted(played)), days_short=tuple(sorted(short))), recorder.catalog.params)
            for item in found:
                recorder.add(item, establishment=establishment)
        room = establishment.jurisdiction
        for over in over_days(establishment, day - datetime.timedelta(days=LOOKBACK_DAYS - 1), day):
            for item in rule_collected_above_schedule(OverCollected(
                    establishment=establishment.slug, jurisdiction=room.code, as_of=day, table=over.table,
                    day=over.day, hands=over.hands_over, amount=over.amount_over, schedules=over.schedules,
                    currency=room.currency), recorder.catalog.params):
                recorder.add(item, establishment=establishment)


def _check_rounds(recorder, tables, day):
    """Rules over the rounds recorded at each table on gaming day ``day`` (player-dealer rotation)."""
    for table, rounds in table_rounds(tables, day):
        for finding in rule_player_dealer_rotation(rounds, recorder.catalog.params):
            recorder.add(finding, table=table, establishment=table.establishment)


def _lint_versions(recorder, versions):
    documents = [document_facts(v) for v in versions]
    recorder.run.options_linted += sum(len(d.options) for d in documents)
    for finding in lint_documents(documents):
        recorder.add(finding)


def _moment(day):
    """End of ``day`` in the service's time zone: the postings shown that day, latest first."""
    end = datetime.datetime.combine(day, datetime.time.max)
    return timezone.make_aware(end) if timezone.is_naive(end) else end


def _tables(queryset):
    return list(queryset.filter(active=True).select_related("establishment__jurisdiction", "game"))


@transaction.atomic
def run_establishment(establishment, *, as_of=None, user=None, trigger=ValidationRun.Trigger.ON_DEMAND):
    day = as_of or timezone.localdate()
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.ESTABLISHMENT, establishment=establishment,
                                       as_of=day, started_by=user, trigger=trigger)
    recorder = Recorder(run, Catalog())
    _check_tables(recorder, _tables(Table.objects.filter(establishment=establishment)), day, _moment(day))
    approvals = [a for items in recorder.catalog.approvals.values() for a in items
                 if a.establishment == establishment.slug
                 or (a.establishment is None and a.jurisdiction == establishment.jurisdiction.code)]
    for finding in lint_approvals(approvals, [], day):
        recorder.add(finding, establishment=establishment)
    for finding in house_edge_findings(game_checks.stated_edges([a.key for a in approvals])):
        recorder.add(finding, establishment=establishment)
    return recorder.save()


@transaction.atomic
def run_schedule(version, *, as_of=None, user=None, trigger=ValidationRun.Trigger.ON_DEMAND):
    """Lint one schedule version, and compare it with every other published version in force."""
    day = as_of or timezone.localdate()
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.SCHEDULE, schedule_version=version, as_of=day,
                                       started_by=user, trigger=trigger)
    recorder = Recorder(run, Catalog())
    facts, found = schedule_findings(version)
    recorder.run.options_linted = len(facts.options)
    for finding in found:
        recorder.add(finding)
    return recorder.save()


def schedule_findings(version):
    """(DocumentFacts, findings) of one version, published or draft: its options' lint, and its consistency with
    every other published version. Saves nothing: ``run_schedule`` stores these, the publish page shows them."""
    from .rules.lint import lint_consistency, lint_option

    others = [v for v in published_versions() if v.pk != version.pk]
    documents = [document_facts(version)]
    found = []
    for option in documents[0].options:
        found.extend(lint_option(documents[0].code, documents[0].version, option))
    mine = (documents[0].code, documents[0].version)
    for finding in lint_consistency(documents + [document_facts(v) for v in others]):
        other = finding.subject.get("other", {})
        if (finding.subject["schedule"], finding.subject["version"]) == mine or \
                (other.get("schedule"), other.get("version")) == mine:
            found.append(finding)
    return documents[0], found


def preview_version(version, *, tables, at=None):
    """What publishing ``version`` (a draft) would raise, saving nothing: its schedule findings, and the
    findings of the postings in force at ``tables`` that use its schedule, checked against it as of the day it
    takes effect (today when that is earlier). Returns {"as_of", "lint", "postings": [(posting, findings)]}."""
    at = at or timezone.now()
    today = timezone.localdate(at)
    day = max(version.effective_from or today, today)
    _, lint = schedule_findings(version)
    catalog = Catalog()
    schedule = catalog.schedule(version.document, version)
    checked = []
    for posting in current_postings(tables, at):
        if posting.schedule_id != version.document_id:
            continue
        facts = dataclasses.replace(posting_facts(posting, day, catalog), schedule=schedule)
        checked.append((posting, check_posting(facts, catalog.params)))
    return {"as_of": day, "lint": lint, "postings": checked}


@transaction.atomic
def run_posting(posting, *, user=None):
    """Check one table posting as it is saved, as of the day it takes effect; the run is kept with the posting."""
    day = timezone.localdate(posting.effective_from)
    establishment = posting.table.establishment
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.POSTING, posting=posting, establishment=establishment,
                                       as_of=day, started_by=user)
    recorder = Recorder(run, Catalog())
    run.postings_checked = 1
    judged = judge_postings([posting], posting.effective_from, catalog=recorder.catalog)
    _record_judgement(recorder, judged[posting.pk])
    return recorder.save()


def published_versions():
    return list(ScheduleVersion.objects.filter(status=ScheduleVersion.Status.PUBLISHED)
                .select_related("document__jurisdiction", "document__establishment", "document__source")
                .order_by("document__code", "number"))


@transaction.atomic
def run_everything(*, as_of=None, user=None, trigger=ValidationRun.Trigger.ON_DEMAND):
    day = as_of or timezone.localdate()
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.EVERYTHING, as_of=day, started_by=user,
                                       trigger=trigger)
    recorder = Recorder(run, Catalog())
    tables = _tables(Table.objects.all())
    _check_tables(recorder, tables, day, _moment(day))
    approvals = [a for items in recorder.catalog.approvals.values() for a in items]
    for finding in lint_approvals(approvals, [], day):
        recorder.add(finding)
    for finding in house_edge_findings(game_checks.stated_edges()):
        recorder.add(finding)
    _lint_versions(recorder, published_versions())
    return recorder.save()


def lint_all(as_of=None):
    """Findings (not stored) of the lint over every published version: for the command and the benchmark."""
    return lint_documents([document_facts(v) for v in published_versions()])
