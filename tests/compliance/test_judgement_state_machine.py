"""One judgement of a table now (issue 33), as a state machine: conditions met and withdrawn, schedule versions
published that break or fit the posted limits (in force now or within 30 days, or later), interpretations approved
and withdrawn, new postings, a rule's limit changed by a plain save (as the admin saves it) and the day turning, in
any order; after each step the print gate (a print through the service), the postings page, the floor page and a
validation run agree with a judgement judged afresh (compliance.judgement, ``fresh=True``) and so with one another:
blocked or not, by which errors, and which problems are coming, dated. The doors read the kept judgement
(compliance.kept, issue 43): each step shows a judgement kept before it is never read once what it was judged from
has changed.

Each example runs inside a savepoint rolled back at its end (its own rooms, tables and versions on the seed data)."""

import datetime
import itertools
import os
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from cardroom import conditions, generation
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import ApprovalCondition, Game
from compliance import checking
from compliance.glance import Glance
from compliance.judgement import day_words, glance_postings, judge
from compliance.models import KeptJudgement, RuleParameter
from fees.models import FeeOption, Interpretation, ScheduleDocument, ScheduleVersion
from fees.schedules import services as fee_services
from signage import services as sign_services
from signage.models import SignPrint
from tests.factories import make_draft, make_table, post_as, post_fields
from tests.publishing import publish

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
START = datetime.datetime(2027, 3, 3, 10, 0, tzinfo=LA)
GEGA = "GEGA-002888"
WA_LETTER, INTERNAL_CONTROLS = "one-for-the-money-wa-2014", 2
# Days ahead a version takes effect: now, within the 30 days judged ahead, and beyond them.
DAYS_AHEAD = (0, 1, 12, 29, 31, 45)
# GEGA-002888 option 1's highest table maximum in a new version: below the posted maximums (breaks) or above them.
MAXIMUMS = (Decimal(400), Decimal(10000))


def findings_cell(html, label):
    row = html.split(f'aria-label="Include table {label}"', 1)[1].split("</tr>", 1)[0]
    return row.split('data-label="Findings">', 1)[1].split("</td>", 1)[0]


class Judged(RuleBasedStateMachine):
    people = clock = None  # set by the test

    def __init__(self):
        super().__init__()
        generation.forget()  # ids come back after each example's rollback: forget remembered quotes
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        self.now = START
        self.clock(self.now)
        self.minutes = itertools.count(1)
        self.client = Client()
        self.client.force_login(self.people.admin)

    def teardown(self):
        transaction.set_rollback(True)
        self.atomic.__exit__(None, None, None)
        generation.forget()

    def tick(self):
        """Move the clock on a minute: each step happens at its own moment, and a new posting starts then."""
        self.now = START + datetime.timedelta(minutes=next(self.minutes))
        self.clock(self.now)

    @initialize()
    def rooms(self):
        people = self.people
        self.condition = ApprovalCondition.objects.get(approval__key=WA_LETTER, order=INTERNAL_CONTROLS)
        conditions.record_condition_met(people.compliance_wa, condition=self.condition, establishment=people.wa_room,
                                        met_on="2014-03-01", evidence="TEST-IC-1")
        self.wa = make_table(people.wa_room, label="OFM-1", seats=6, game=Game.objects.get(slug="one-for-the-money"))
        post_as(people.compliance_wa, {
            "table": self.wa.pk, "rules": "3 Card Bonus (WSGC enclosure 2014)", "decks": 6, "min_wager": "10",
            "max_wager": "300", "effective_from": (START - datetime.timedelta(days=2)).isoformat(),
            "bonus_limits": [{"bet": "3 Card Bonus", "minimum": "1", "maximum": "5", "paytable": "WSGC 1"}]})
        self.ca = make_table(people.marysville, label="7")
        post_fields(self.ca, effective_from=START - datetime.timedelta(days=2), low=5, high=500)
        self.check(self.wa)
        self.check(self.ca)

    # -- the steps ---------------------------------------------------------------------------------------------------

    def standing(self):
        return conditions.standing(self.condition, self.people.wa_room)

    @rule()
    def withdraw_condition(self):
        record = self.standing()
        self.tick()
        if record is not None and not record.withdrawn:
            conditions.withdraw_condition_met(self.people.compliance_wa, record=record, reason="Not met after all.")
        self.check(self.wa)

    @rule()
    def meet_condition(self):
        record = self.standing()
        self.tick()
        if record is None or record.withdrawn:
            conditions.record_condition_met(self.people.compliance_wa, condition=self.condition,
                                            establishment=self.people.wa_room, met_on="2027-03-01",
                                            evidence="TEST-IC-2")
        self.check(self.wa)

    @rule(days=st.sampled_from(DAYS_AHEAD), maximum=st.sampled_from(MAXIMUMS))
    def publish_version(self, days, maximum):
        self.tick()
        document = ScheduleDocument.objects.get(code=GEGA)
        latest = document.versions.filter(status=ScheduleVersion.Status.PUBLISHED).order_by("-number").first()
        draft = make_draft(user=self.people.compliance, based_on=latest,
                           effective_from=self.now.date() + datetime.timedelta(days=days))
        option = FeeOption.objects.get(version=draft, number=1)
        option.max_wager_to = maximum
        option.save()
        try:
            publish(draft, requested_by=self.people.compliance, approved_by=self.people.admin)
        except BadInput as refused:  # the maximum of the version it would take over from: nothing to publish
            assert str(refused).startswith("Nothing changed from version "), refused
            fee_services.discard_draft(self.people.compliance, version=draft)
        self.check(self.ca)

    @rule(high=st.sampled_from(("300", "500", "1000")))
    def post_ca(self, high):
        self.tick()
        post_fields(self.ca, effective_from=self.now, low=5, high=Decimal(high))
        self.check(self.ca)

    @rule(high=st.sampled_from(("300", "350")))
    def post_wa(self, high):
        self.tick()
        post_as(self.people.compliance_wa, {
            "table": self.wa.pk, "rules": "3 Card Bonus (WSGC enclosure 2014)", "decks": 6, "min_wager": "10",
            "max_wager": high, "effective_from": (self.now + datetime.timedelta(minutes=1)).isoformat(),
            "bonus_limits": [{"bet": "3 Card Bonus", "minimum": "1", "maximum": "5", "paytable": "WSGC 1"}]})
        self.tick()
        self.check(self.wa)

    @rule()
    def read_or_retire(self):
        """Approve a reading of option 1 of the version in force (or retire the one approved)."""
        self.tick()
        version = ScheduleDocument.objects.get(code=GEGA).version_as_of(self.now.date())
        live = Interpretation.objects.filter(version=version, status=Interpretation.Status.APPROVED).first()
        if live is not None:
            fee_services.withdraw_interpretation(self.people.compliance, reading=live, reason="Read as printed again.")
        else:
            reading = fee_services.propose_interpretation(
                self.people.compliance, version=version, option=1, tier=1, field="taken", value="before_deal",
                statement="The fee is taken before the deal.", decided_on=datetime.date(2027, 3, 1),
                citation="Bureau letter of 1 March 2027")
            fee_services.approve_interpretation(self.people.admin, reading=reading, reason="Agreed with the Bureau.")
        self.check(self.ca)

    @rule(value=st.sampled_from(("250", "400")), days=st.sampled_from((0, 3, 40)))
    def wa_limit(self, value, days):
        """Washington's house-banked maximum wager changed from a day (a new dated value, saved as the admin does)."""
        self.tick()
        seeded = RuleParameter.objects.filter(key="house_banked_max_wager").first()
        RuleParameter.objects.get_or_create(
            jurisdiction=seeded.jurisdiction, key=seeded.key, effective_from=self.now.date() + datetime.timedelta(
                days=days), defaults={"value": Decimal(value), "unit": "USD", "status": "check",
                                      "citation": "test: WAC 230-15-140", "source": seeded.source})
        self.check(self.wa)

    @rule(hours=st.sampled_from((14, 24, 24 * 20)))
    def time_passes(self, hours):
        """The day turns (what was kept was for another day); a dated problem may have arrived."""
        self.now += datetime.timedelta(hours=hours)
        self.minutes = itertools.count(int((self.now - START).total_seconds() // 60) + 1)
        self.clock(self.now)
        self.client.force_login(self.people.admin)  # a session of weeks ago has expired
        self.check(self.wa)
        self.check(self.ca)

    # -- every door agrees -------------------------------------------------------------------------------------------

    def check(self, table):
        judgement = judge(table, fresh=True)
        posting, room = judgement.posting, table.establishment
        errors = sorted(f.message for f in judgement.errors)
        coming = sorted((d.day, d.severity, d.finding.message) for d in judgement.upcoming)

        # The print gate: a print through the service is refused exactly when the judgement blocks the sign.
        before = SignPrint.objects.filter(posting=posting).count()
        try:
            sign_services.print_sign(self.people.admin, posting=posting, layout="letter", channel=SignPrint.Channel.API)
            printed = True
        except StateConflict as blocked:
            printed = False
            assert all(message in str(blocked) for message in errors)
        assert printed is not judgement.blocked
        assert SignPrint.objects.filter(posting=posting).count() == before + printed

        # The postings page.
        page = self.client.get(reverse("console:compliance-postings", args=[room.slug]))
        (row,) = [r for r in page.context["rows"] if r["posting"].pk == posting.pk]
        assert row["blocked"] is judgement.blocked and sorted(row["errors"]) == errors
        assert ("may print" in row["cells"]["printing"]) is not judgement.blocked

        # The floor page.
        floor = self.client.get(reverse("console:floor", args=[room.slug]))
        (line,) = [r for r in floor.context["rows"] if r["table"].pk == table.pk]
        assert line["posting"].pk == posting.pk and line["errors"] == len(errors)
        cell = findings_cell(floor.content.decode(), table.label)
        assert ('class="badge error">' in cell.split("<br>")[0]) is judgement.blocked
        for day, _, _ in coming:
            assert f"from {day_words(day)}" in cell

        # A fresh validation run records the same.
        run = checking.run_establishment(room)
        recorded = run.findings.filter(posting=posting)
        assert sorted(recorded.filter(severity="error").values_list("message", flat=True)) == errors
        dated = sorted((datetime.date.fromisoformat(f.subject["from"]), f.message)
                       for f in recorded.filter(subject__has_key="from"))
        assert [day for day, _ in dated] == [day for day, _, _ in coming]
        for (day, severity, message), (_, words) in zip(coming, dated):
            assert words.endswith(message)

        # What the doors read was kept, for today, under the data as it stands; read back, it is the fresh answer.
        kept = KeptJudgement.objects.get(posting=posting)
        assert kept.generation == generation.read() and kept.day == judgement.day
        again = judge(table)
        assert (again.findings, again.upcoming, again.judged) == (judgement.findings, judgement.upcoming,
                                                                  judgement.judged)
        # And what the pages show of it (the glance kept beside it) is the fresh answer's.
        assert glance_postings([posting.pk])[posting.pk] == Glance.of(judgement.findings, judgement.upcoming)


@pytest.mark.long
def test_every_door_agrees_with_the_judgement_whatever_the_order(people, clock):
    Judged.people, Judged.clock = people, staticmethod(clock)
    run_state_machine_as_test(Judged, settings=settings(
        max_examples=int(os.environ.get("JUDGED_EXAMPLES", 10)), stateful_step_count=10, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]))
