"""load_demo: the demo floor, its users (a second compliance officer among them) and a month of recorded play at
Casino Marysville, through the ledger service, with a few collections short, missing and corrected; a second
run adds nothing."""

import datetime
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from cardroom.models import AuditLogEntry, Establishment, Membership, Role, Table
from demo import play as demo_play
from demo.management.commands.load_demo import DEMO_POSTED_FROM, DEMO_USERS, Command
from fees.models import CollectionEntry, Reconciliation, RoundOfPlay, TablePosting
from signage.models import PrintOverride

pytestmark = pytest.mark.django_db

# The first days of the month are enough to see every kind of mishap: a short collection on day 1, a missing
# one and a corrected one on day 2 (the whole month is measured by hand: see the report of the change).
DAYS = 2


def load_demo(**options):
    out = io.StringIO()
    call_command("load_demo", force=True, stdout=out, **options)
    return out.getvalue()


def counts():
    User = get_user_model()
    return {
        "users": User.objects.count(), "memberships": Membership.objects.count(), "tables": Table.objects.count(),
        "postings": TablePosting.objects.count(), "rounds": RoundOfPlay.objects.count(),
        "entries": CollectionEntry.objects.count(), "reconciliations": Reconciliation.objects.count(),
        "audit": AuditLogEntry.objects.count(),
    }


def test_the_default_is_a_whole_month_inside_the_postings_and_before_today():
    options = Command().create_parser("manage.py", "load_demo").parse_args([])
    assert options.days == demo_play.MONTH_DAYS == 31
    first = demo_play.MONTH_START
    last = first + datetime.timedelta(days=options.days - 1)
    assert first.day == 1 and (last + datetime.timedelta(days=1)).day == 1  # exactly one calendar month
    assert DEMO_POSTED_FROM.date() < first and last < datetime.date(2026, 11, 23)


@pytest.mark.long
def test_load_demo_adds_compliance_2_and_recorded_play_and_a_second_run_adds_nothing():
    # The first day, then the first two: the longer run adds only the day after.
    load_demo(days=1)
    marysville = Establishment.objects.get(slug="casino-marysville")
    first = demo_play.MONTH_START
    first_day = set(RoundOfPlay.objects.filter(establishment=marysville).values_list("reference", "expected_total"))
    entries_of_first_day = CollectionEntry.objects.filter(establishment=marysville).count()
    assert first_day and entries_of_first_day
    output = load_demo(days=DAYS)

    # A second compliance officer at Casino Marysville, with the README's password.
    assert ("compliance-2", "compliance-dev-only", Role.COMPLIANCE_OFFICER, "casino-marysville", None) in DEMO_USERS
    officer = get_user_model().objects.get(username="compliance-2")
    assert officer.check_password("compliance-dev-only")
    assert officer.email == "compliance-2@example.org"  # the reviews' emails have someone to go to
    assert list(Membership.objects.filter(user=officer).values_list("role", "establishment", "jurisdiction")) == [
        (Role.COMPLIANCE_OFFICER, marysville.pk, None)]
    # ... and at the Evergreen Card Room, so that its overrides too can take two people.
    evergreen = Establishment.objects.get(slug="demo-evergreen-card-room")
    officer_wa = get_user_model().objects.get(username="compliance-wa-2")
    assert officer_wa.check_password("compliance-dev-only")
    assert list(Membership.objects.filter(user=officer_wa).values_list("role", "establishment", "jurisdiction")) == [
        (Role.COMPLIANCE_OFFICER, evergreen.pk, None)]
    # The demo's print overrides: one officer asked, a second approved.
    overrides = PrintOverride.objects.filter(posting__table__establishment=marysville)
    assert overrides.exists()
    assert set(overrides.values_list("status", "requested_by__username", "decided_by__username")) == {
        ("approved", "compliance", "compliance-2")}

    # The rounds of the first days, every one in the room's gaming day, recorded by the floor supervisor.
    days = {first + datetime.timedelta(days=n) for n in range(DAYS)}
    rounds = RoundOfPlay.objects.filter(establishment=marysville)
    assert set(rounds.values_list("gaming_day", flat=True)) == days
    assert set(rounds.filter(gaming_day=first).values_list("reference", "expected_total")) == first_day
    assert set(rounds.values_list("recorded_by__username", flat=True)) == {"floor"}
    for round_ in rounds:
        assert marysville.gaming_day_of(round_.played_at) == round_.gaming_day
        assert round_.posting.table_id == round_.table_id
    assert rounds.filter(expected_total__gt=0).count() >= 20
    played = set(rounds.values_list("table__label", flat=True))
    assert len(played) >= 10  # most tables open (all at the weekend); table 8's posting cannot be priced
    assert "8" not in played

    # Collections with their idempotency keys, at the rounds' tables and days.
    entries = CollectionEntry.objects.filter(establishment=marysville)
    assert entries.count() >= rounds.filter(expected_total__gt=0).count() - 1
    assert not entries.exclude(idempotency_key__startswith="demo-").exists()
    assert set(entries.values_list("gaming_day", flat=True)) <= days
    assert not entries.exclude(reference__in=rounds.values("reference")).exists()

    # A few corrected: each correction names the entry it corrects, gives a reason and was made by compliance-2.
    corrections = entries.filter(corrects__isnull=False)
    assert corrections.count() == 1
    correction = corrections.get()
    assert correction.recorded_by == officer and correction.reason
    assert correction.idempotency_key == correction.corrects.idempotency_key + "-fix"
    assert correction.amount != correction.corrects.amount
    assert (correction.reference, correction.table_id) == (correction.corrects.reference, correction.corrects.table_id)

    # Each gaming day reconciled once (nightly) for every table played: one hand short, one not collected; the
    # corrected one balances.
    reconciliations = Reconciliation.objects.filter(establishment=marysville)
    assert reconciliations.count() == rounds.values("table", "gaming_day").distinct().count()
    assert set(reconciliations.values_list("trigger", flat=True)) == {Reconciliation.Trigger.NIGHTLY}
    variances = [v for r in reconciliations for v in r.variances]
    assert sorted(v["status"] for v in variances) == ["not_collected", "under_collected"]
    assert correction.reference not in {v["reference"] for v in variances}
    missing = next(v for v in variances if v["status"] == "not_collected")
    assert not entries.filter(reference=missing["reference"]).exists()

    added = rounds.exclude(gaming_day=first).count()
    assert f"Added {added} rounds, {entries.count() - entries_of_first_day} collection entries" in output
    assert "1 collected short, 1 not collected, 1 mis-keyed and corrected" in output
    assert "compliance-2" in output

    # A second run: nothing new anywhere, and it says so.
    before = counts()
    again = load_demo(days=DAYS)
    assert counts() == before
    assert "nothing added" in again
