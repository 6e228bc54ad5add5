"""One truth across pages (issue 25): each condition of an approval reads the same on the compliance officer's
approvals page and on the regulator's establishment page (cardroom.conditions.conditions_at, rendered by
templates/console/_conditions.html), for every seeded room, and still after a record met and its withdrawal."""

import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from cardroom.models import ApprovalCondition, ConditionFulfilment, Establishment, Role
from cardroom.roles import appoint

pytestmark = pytest.mark.django_db

WA_LETTER = "one-for-the-money-wa-2014"
INTERNAL_CONTROLS, TGA_APPROVAL = 2, 5  # a prerequisite of commercial card rooms; a tribal casino's
RULES_OF_PLAY = 1  # an operating condition


class Conditions(HTMLParser):
    """{condition id: (state, the state paragraph's text, the detail's text)} as a page shows them."""

    def __init__(self, html):
        super().__init__()
        self.found, self.current, self.into, self.depth = {}, None, None, 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.into:
            self.depth += tag == "p"
        elif tag == "p" and attrs.get("class") == "condition-state":
            self.current = int(attrs["data-condition"])
            assert self.current not in self.found, "a condition shown twice on one page"
            self.found[self.current] = [attrs["data-state"], "", ""]
            self.into, self.depth = 1, 0
        elif tag == "p" and "condition-detail" in attrs.get("class", ""):
            self.into, self.depth = 2, 0

    def handle_endtag(self, tag):
        if self.into and tag == "p":
            if self.depth == 0:
                self.into = None
            else:
                self.depth -= 1

    def handle_data(self, data):
        if self.into:
            self.found[self.current][self.into] += data

    def states(self):
        return {pk: tuple(re.sub(r"\s+", " ", part).strip() for part in parts) for pk, parts in self.found.items()}


def both_pages(client, people, room):
    """Each condition as the compliance page (an administrator's view) and the regulator's page show it."""
    client.force_login(people.admin)
    compliance = client.get(reverse("console:compliance-approvals", args=[room.slug]))
    client.force_login(people.regulators[room.jurisdiction_id])
    regulator = client.get(reverse("console:regulator-establishment", args=[room.slug]))
    assert (compliance.status_code, regulator.status_code) == (200, 200)
    return Conditions(compliance.content.decode()).states(), Conditions(regulator.content.decode()).states()


@pytest.fixture
def regulated(people):
    """A regulator for each seeded room's jurisdiction."""
    people.regulators = {}
    for room in Establishment.objects.select_related("jurisdiction"):
        if room.jurisdiction_id not in people.regulators:
            user = get_user_model().objects.create_user(f"t-regulator-{room.jurisdiction.code.lower()}-1t")
            appoint(user, Role.REGULATOR, jurisdiction=room.jurisdiction)
            people.regulators[room.jurisdiction_id] = user
    return people


def condition(order, key=WA_LETTER):
    return ApprovalCondition.objects.get(approval__key=key, order=order)


def test_every_room_reads_each_condition_the_same_on_both_pages(client, regulated):
    rooms = list(Establishment.objects.order_by("slug"))
    assert {"casino-marysville", "test-wa-room"} <= {r.slug for r in rooms}
    shown = {}
    for room in rooms:
        compliance, regulator = both_pages(client, regulated, room)
        assert compliance == regulator, room.slug
        shown[room.slug] = len(compliance)
    assert shown["casino-marysville"] > 0 and shown["test-wa-room"] > 0
    wa = regulated.wa_room
    compliance, _ = both_pages(client, regulated, wa)
    controls = compliance[condition(INTERNAL_CONTROLS).pk]
    assert controls[0] == "outstanding" and controls[1].startswith("outstanding here 2. ") and controls[2] == ""
    assert compliance[condition(TGA_APPROVAL).pk][0] == "not_here"
    assert compliance[condition(TGA_APPROVAL).pk][2] == "It is for tribal casinos; Test WA Room is a card room."
    assert compliance[condition(RULES_OF_PLAY).pk][0] == "while_offered"


def test_a_record_met_and_its_withdrawal_read_the_same_on_both_pages(client, regulated):
    wa, pk = regulated.wa_room, condition(INTERNAL_CONTROLS).pk
    client.force_login(regulated.compliance_wa)
    met = client.post(reverse("console:compliance-condition-met", args=[wa.slug, pk]),
                      {f"c{pk}-met_on": "2026-02-01", f"c{pk}-evidence": "WSGC letter IC-2026-17", f"c{pk}-note": ""})
    assert met.status_code == 302
    compliance, regulator = both_pages(client, regulated, wa)
    assert compliance == regulator
    state, words, detail = compliance[pk]
    assert (state, words.split(" 2. ")[0]) == ("met", "met here")
    assert detail.startswith("Met on 2026-02-01; evidence: WSGC letter IC-2026-17; recorded by t-compliance-wa ")

    record = ConditionFulfilment.objects.get()
    client.force_login(regulated.compliance_wa)
    withdrawn = client.post(reverse("console:compliance-condition-withdraw", args=[wa.slug, record.pk]),
                            {f"w{record.pk}-reason": "The letter was for another room."})
    assert withdrawn.status_code == 302
    compliance, regulator = both_pages(client, regulated, wa)
    assert compliance == regulator
    state, words, detail = compliance[pk]
    assert (state, words.split(" 2. ")[0]) == ("outstanding", "outstanding here")
    assert detail.startswith("A record that it was met was withdrawn by t-compliance-wa ")
    assert detail.endswith(": The letter was for another room.")


def test_a_note_is_its_own_sentence_after_the_record(client, regulated):
    """A note written as a sentence ("….") reads as one after the record on both pages, never "….;"."""
    wa, pk = regulated.wa_room, condition(INTERNAL_CONTROLS).pk
    client.force_login(regulated.compliance_wa)
    met = client.post(reverse("console:compliance-condition-met", args=[wa.slug, pk]),
                      {f"c{pk}-met_on": "2026-02-01", f"c{pk}-evidence": "WSGC letter IC-2026-17",
                       f"c{pk}-note": "Seen by the inspector."})
    assert met.status_code == 302
    compliance, regulator = both_pages(client, regulated, wa)
    assert compliance == regulator
    detail = compliance[pk][2]
    assert detail.startswith("Met on 2026-02-01; evidence: WSGC letter IC-2026-17; recorded by t-compliance-wa ")
    assert detail.endswith(". Note: Seen by the inspector.") and ".;" not in detail, detail
