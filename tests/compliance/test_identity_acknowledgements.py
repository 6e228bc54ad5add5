"""Acknowledgements stick (issue 25): a finding is the same finding in a later run when its rule and the thing
checked are the same; its acknowledgement holds while the facts it judged are unchanged (the page's "Run validation
now", the nightly task), and it reopens, saying what changed, when they change."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from cardroom.models import Game, Table
from compliance import identity
from compliance.models import Finding, RuleParameter
from compliance.tasks import validate_everything
from tests.factories import make_table, post_fields

pytestmark = pytest.mark.django_db
ROOM = "casino-marysville"
PAI_GOW = "face-up-pai-gow-poker"
NO_MAXIMUM = "No table maximum is posted."


def url(name, *args):
    return reverse(f"console:{name}", args=[ROOM, *args])


def post(table, game, schedule, low, high, day):
    return post_fields(table, game=game, schedule=schedule, low=low, high=high, seats=6,
                       effective_from=timezone.make_aware(datetime.datetime(2026, 3, day, 8)))[0]


@pytest.fixture
def officer(client, people):
    client.force_login(people.compliance)
    return client


@pytest.fixture
def table(people):
    """Table T-2 posted with no maximum: a warning."""
    table = make_table(people.marysville, label="T-2", seats=6, game=PAI_GOW)
    post(table, PAI_GOW, "GEGA-002888", 5, None, day=1)
    return table


def the_warning(officer):
    rows = officer.get(url("compliance-findings"), {"show": "all"}).context["rows"]
    return next(f for f in rows if f.message == NO_MAXIMUM)


def acknowledge(officer, finding, reason):
    assert officer.post(url("compliance-finding", finding.pk), {"reason": reason}).status_code == 302


def test_an_acknowledged_warning_stays_acknowledged_after_run_now_and_the_nightly_run(officer, people, table):
    first = Finding.objects.get(message=NO_MAXIMUM, severity="warning")
    acknowledge(officer, first, "Maximum is on the rail sign; Bureau agreed.")
    officer.get(url("compliance-findings"))  # the last look
    officer.post(url("compliance-run"))
    validate_everything(as_of=timezone.localdate().isoformat())
    assert Finding.objects.filter(message=NO_MAXIMUM).count() == 3  # found by each run
    shown = the_warning(officer)
    assert shown.pk != first.pk and shown.run_kind == "everything"
    assert shown.acknowledged and not shown.is_new and not shown.changes
    assert (shown.acknowledged_at, shown.acknowledged_by_name, shown.acknowledgement_reason) == (
        Finding.objects.get(pk=first.pk).acknowledged_at, people.compliance.username,
        "Maximum is on the rail sign; Bureau agreed.")
    assert Finding.objects.get(pk=shown.pk).acknowledgement_of_id == first.pk  # the same acknowledgement
    page = officer.get(url("compliance-findings"), {"severity": "warning", "show": "open"}).content.decode()
    assert NO_MAXIMUM not in page


def test_a_new_posting_with_other_values_reopens_it_saying_what_changed(officer, people, table):
    acknowledge(officer, Finding.objects.get(message=NO_MAXIMUM), "Maximum is on the rail sign.")
    post(table, PAI_GOW, "GEGA-002888", 10, None, day=2)  # its own check finds it again, from $10
    officer.post(url("compliance-run"))
    shown = the_warning(officer)
    assert not shown.acknowledged
    assert "minimum wager was $5, now $10" in shown.changes
    assert f"by {people.compliance.username}" in shown.changes and "Maximum is on the rail sign." in shown.changes
    page = officer.get(url("compliance-findings")).content.decode()
    assert "reopened" in page and "minimum wager was $5, now $10" in page
    # Acknowledged again, it sticks again; the same values posted again keep it.
    acknowledge(officer, Finding.objects.get(pk=shown.pk), "Bureau agreed again.")
    post(table, PAI_GOW, "GEGA-002888", 10, None, day=3)
    officer.post(url("compliance-run"))
    again = the_warning(officer)
    assert again.acknowledged and again.acknowledgement_reason == "Bureau agreed again."


def test_a_changed_rule_value_reopens_the_finding_saying_what_changed(officer, people, table):
    # T-2's option has 5 collection rates, within California's 5 (a value still to be checked: a note).
    note = Finding.objects.get(rule="ca.collection_rates", table=table)
    used = note.parameters[0]
    assert used["key"] == "max_collection_rates" and note.severity == "info"
    acknowledge(officer, note, "Rates checked against the Bureau's letter.")
    officer.post(url("compliance-run"))
    assert Finding.objects.filter(rule="ca.collection_rates", table=table).latest("id").acknowledged_at is not None
    old = RuleParameter.objects.get(jurisdiction__code="CA", key="max_collection_rates",
                                    effective_from=used["effective_from"])
    RuleParameter.objects.create(jurisdiction=old.jurisdiction, key=old.key, value=4, unit=old.unit,
                                 effective_from=timezone.localdate() - datetime.timedelta(days=1),
                                 status=old.status, source=old.source, citation=old.citation)
    officer.post(url("compliance-run"))
    reopened = Finding.objects.filter(rule="ca.collection_rates", table=table).latest("id")
    assert reopened.severity == "error" and reopened.acknowledged_at is None
    assert (f"max_collection_rates was 5 count from {used['effective_from']}, now 4 count from "
            f"{timezone.localdate() - datetime.timedelta(days=1)}") in reopened.changes
    assert "Rates checked against the Bureau's letter." in reopened.changes


def test_what_changed_is_said_in_words():
    old = identity.facts_of({"schedule": "GEGA-1", "version": 1}, "Too many rates.",
                            [{"key": "max_rates", "value": "3.00", "unit": "count", "effective_from": "1998-01-01"}],
                            {"maximum wager": "$500"})
    new = identity.facts_of({"schedule": "GEGA-1", "version": 2}, "Too many rates.",
                            [{"key": "max_rates", "value": "4.00", "unit": "count", "effective_from": "2026-01-01"}],
                            {"maximum wager": "$400"})
    assert identity.changes(old, new) == ("maximum wager was $500, now $400; schedule version was 1, now 2; "
                                          "max_rates was 3 count from 1998-01-01, now 4 count from 2026-01-01")
    assert identity.fingerprint(old) == identity.fingerprint(dict(old)) != identity.fingerprint(new)
    assert identity.identity("r", {"posting": 1, "table": "7", "version": 1}, 1, 2) == identity.identity(
        "r", {"posting": 9, "table": "7", "version": 2}, 1, 2)
    assert identity.changes(old, {**old, "finding": "Now it says this."}) == "it read \u201cToo many rates.\u201d"


def test_an_acknowledgement_holds_only_for_the_thing_it_was_about(officer, people, table):
    """Two tables with the same warning: acknowledging one leaves the other open, and not 'reopened'."""
    other = Table.objects.create(establishment=people.marysville, label="T-3", seats=6,
                                 game=Game.objects.get(slug=PAI_GOW))
    post(other, PAI_GOW, "GEGA-002888", 5, None, day=1)
    acknowledge(officer, Finding.objects.get(message=NO_MAXIMUM, table=table), "Maximum on the rail sign.")
    officer.post(url("compliance-run"))
    latest = {f.table.label: f for f in Finding.objects.filter(message=NO_MAXIMUM).order_by("id")}
    assert latest["T-2"].acknowledged and not latest["T-3"].acknowledged and latest["T-3"].changes == ""
