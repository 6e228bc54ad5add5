"""The second officer's inbox (cardroom.inbox.awaiting): what awaits this user's approval, on the homes and in
the navigation; the schedules list says a version's state in words; the draft-start page says who approves."""

import datetime

from django.urls import reverse

from cardroom.inbox import awaiting
from fees.models import ScheduleDocument
from fees.schedules import services
from tests.factories import change_a_fee

ROOM = "casino-marysville"
PAI_GOW = "CMV-CA-FEES-PAI-GOW"
GEGA = "GEGA-002888"


def requested(code, people):
    document = ScheduleDocument.objects.get(code=code)
    draft = document.new_draft(based_on=document.versions.order_by("number").last(), user=people.compliance,
                               reason="Bureau letter", effective_from=datetime.date(2030, 1, 1))
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    return services.request_publication(people.compliance, version=draft, reason="New rates from January",
                                        effective_from=draft.effective_from)


def test_awaiting_is_what_this_user_may_approve(people):
    own = requested(PAI_GOW, people)
    shared = requested(GEGA, people)
    version = ScheduleDocument.objects.get(code=PAI_GOW).versions.get(number=1)
    reading = services.propose_interpretation(people.compliance_2, version=version, option=1, tier=1, field="measure",
                                              value="player_wager", statement="Each player's total base wager.",
                                              decided_on=datetime.date(2026, 1, 5), citation="Bureau answer")

    second = awaiting(people.compliance_2)
    assert [(a.kind, a.what.split(":")[0]) for a in second] == [("schedule", f"{PAI_GOW} v{own.number}")]
    assert second[0].path == reverse("console:compliance-publish", args=[ROOM, PAI_GOW, own.number])
    assert second[0].asked_by == "t-compliance"
    # The author sees the reading the other officer proposed, not his own request.
    assert [(a.kind, a.path) for a in awaiting(people.compliance)] == [
        ("interpretation", reverse("console:compliance-interpretations", args=[ROOM, PAI_GOW, 1]))]
    admin = {(a.kind, a.what.split(":")[0]) for a in awaiting(people.admin)}
    assert {("schedule", f"{GEGA} v{shared.number}"), ("schedule", f"{PAI_GOW} v{own.number}")} <= admin
    assert any(a.kind == "interpretation" and a.path.endswith(f"/{PAI_GOW}/versions/1/interpretations/")
               for a in awaiting(people.admin))
    assert awaiting(people.compliance_wa) == [] and awaiting(people.floor) == [] and awaiting(people.regulator_ca) == []
    assert reading.pk  # still proposed: nothing approved it


def test_the_homes_list_it_and_the_navigation_counts_it(client, people):
    own = requested(PAI_GOW, people)
    client.force_login(people.compliance_2)
    page = client.get(reverse("console:compliance", args=[ROOM]))
    html = page.content.decode()
    assert "Awaiting you" in html and f"{PAI_GOW} v{own.number}" in html
    assert reverse("console:compliance-publish", args=[ROOM, PAI_GOW, own.number]) in html
    assert page.context["nav_awaiting"] == 1 and '<span class="count"' in html
    client.force_login(people.compliance)  # the author: nothing awaits him, no count
    page = client.get(reverse("console:compliance", args=[ROOM]))
    assert page.context["nav_awaiting"] == 0 and '<span class="count"' not in page.content.decode()
    assert "Nothing awaits you" in page.content.decode()
    client.force_login(people.admin)
    page = client.get(reverse("console:admin-home"))
    assert f"{PAI_GOW} v{own.number}" in page.content.decode()


def test_the_schedules_list_says_the_state_in_words(client, people):
    own = requested(PAI_GOW, people)
    client.force_login(people.compliance)
    html = client.get(reverse("console:compliance-schedules", args=[ROOM])).content.decode()
    assert f"v{own.number}: awaiting a second officer" in html and "draft v" not in html


def test_starting_a_draft_says_who_may_approve_it(client, people):
    client.force_login(people.compliance)
    own = client.get(reverse("console:compliance-new-draft", args=[ROOM, PAI_GOW, 1])).content.decode()
    assert "a second compliance officer of Casino Marysville" in own
    shared = client.get(reverse("console:compliance-new-draft", args=[ROOM, GEGA, 1])).content.decode()
    assert "an administrator" in shared and "a second compliance officer" not in shared
