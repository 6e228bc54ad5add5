"""Judgements kept (issue 43, compliance.kept): the pages read a posting's judgement in one query once it was judged
for today, and judge again only what changed. Every model a judgement can read draws a new data generation when it
changes; the state machine (test_judgement_state_machine.py) holds every door to a fresh judgement."""

import datetime

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cardroom import generation
from compliance import kept
from compliance.judgement import judge_postings
from compliance.models import KeptJudgement
from tests.factories import make_table, post_fields

pytestmark = pytest.mark.django_db

# What a judgement never reads: the ledger, the audit log and its proofs, jobs, people and their roles, the records
# of runs and prints, the judgements kept, and the history tables (their models' own saves draw the number).
NOT_JUDGED = {
    "cardroom": {"AuditChainHead", "AuditChainVerified", "AuditCheckpoint", "AuditLogEntry", "CheckpointCosignature",
                 "Generation", "Job", "Membership", "SigningKey", "WitnessState", "WitnessedLog"},
    "fees": {"ClosedMonth", "CollectionEntry", "ImportMapping", "LedgerDay", "Reconciliation", "RecordImport",
             "RoundOfPlay", "RoundPricing", "VarianceCell", "VarianceChange", "VarianceDay", "VersionReview"},
    "compliance": {"Finding", "KeptJudgement", "StandingFinding", "StandingState", "ValidationRun"},
}


def test_every_model_below_the_judgement_is_named_judged_or_not():
    """A model added to an app a judgement reads from must be put on one side: judged (its changes draw a new
    generation) or not (a judgement never reads it)."""
    judged = {tuple(label.split(".")) for label in kept.JUDGED}
    for app, not_judged in NOT_JUDGED.items():
        models = {m.__name__ for m in apps.get_app_config(app).get_models() if not m.__name__.startswith("Historical")}
        named = {name for a, name in judged if a == app} | not_judged
        assert models == named, f"{app}: named neither judged nor not: {sorted(models - named)}; " \
                                f"named but not there: {sorted(named - models)}"


NOW = datetime.datetime(2027, 3, 3, 18, 0, tzinfo=datetime.timezone.utc)


def posted(clock, table, days_ago):
    clock(NOW - datetime.timedelta(days=days_ago))
    posting, _ = post_fields(table, effective_from=timezone.now(), low=5, high=500)
    clock(NOW)
    return posting


def test_a_floor_judged_once_is_read_back_in_one_query_and_judged_again_when_its_data_changes(people, clock):
    tables = [make_table(people.marysville, label=str(n)) for n in range(1, 6)]
    postings = [posted(clock, t, 1) for t in tables]
    ids = [p.pk for p in postings]
    first = judge_postings(ids)
    assert KeptJudgement.objects.filter(posting__in=ids, generation=generation.read()).count() == 5

    with CaptureQueriesContext(connection) as read_back:
        again = judge_postings(ids)
    assert [(j.findings, j.upcoming, j.judged) for j in again.values()] == \
        [(j.findings, j.upcoming, j.judged) for j in first.values()]
    judged_tables = [q["sql"] for q in read_back.captured_queries if "compliance_ruleparameter" in q["sql"]]
    assert not judged_tables, "nothing judged again: the rules' parameters were not even read"
    assert len(read_back.captured_queries) <= 4  # the number, the postings and their bonus limits, the kept rows

    table = tables[0]
    table.seats = 3  # a plain save, as the admin makes it: a new generation, so judged again
    table.save()
    assert not KeptJudgement.objects.filter(generation=generation.read()).exists()
    judge_postings(ids)
    assert KeptJudgement.objects.filter(posting__in=ids, generation=generation.read()).count() == 5


def test_a_judgement_for_another_day_is_neither_read_from_nor_kept(people, clock):
    table = make_table(people.marysville, label="1")
    posting = posted(clock, table, 3)
    judge_postings([posting.pk])
    (row,) = KeptJudgement.objects.filter(posting=posting)
    assert row.day == timezone.localdate()
    yesterday = timezone.now() - datetime.timedelta(days=1)
    judged = judge_postings([posting.pk], yesterday)[posting.pk]
    assert judged.day == timezone.localdate(yesterday)
    assert KeptJudgement.objects.get(posting=posting).day == timezone.localdate(), "today's stays kept"

    clock(NOW + datetime.timedelta(days=1))  # the day turns: judged again on first read, for the new day
    assert judge_postings([posting.pk])[posting.pk].day == timezone.localdate()
    assert KeptJudgement.objects.get(posting=posting).day == timezone.localdate()
