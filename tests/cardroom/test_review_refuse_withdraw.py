"""Two faults a user met in the two-person review (issue 33), through the door they used: a refusal barred the
officer who refused from approving the corrected version asked for again (it counted as an edit), and anyone could
withdraw anyone's request. Refusing is a decision, not authorship; only whoever asked (or an administrator, said in
the audit log, the asker told) withdraws, and nobody sees a button they cannot use (cardroom.review.TRANSITIONS)."""

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from cardroom.inbox import awaiting
from cardroom.models import AuditLogEntry
from fees.models import ScheduleDocument, ScheduleVersion
from signage.models import PrintOverride

from tests.factories import change_a_fee, make_table, post_as

pytestmark = pytest.mark.django_db
ROOM, PAI_GOW = "casino-marysville", "CMV-CA-FEES-PAI-GOW"
SCHEDULE = f"/api/v1/schedules/{PAI_GOW}/"
READINGS = f"{SCHEDULE}interpretations/"
LA = ZoneInfo("America/Los_Angeles")


@pytest.fixture
def mailed(people):
    for user in (people.admin, people.compliance, people.compliance_2, people.floor):
        user.email = f"{user.username}@example.test"
        user.save(update_fields=["email"])
    return people


@pytest.fixture
def room_draft(people):
    """A draft of the room's own Pai Gow schedule, started by the first officer: the room's two officers decide."""
    document = ScheduleDocument.objects.get(code=PAI_GOW)
    draft = document.new_draft(based_on=document.versions.order_by("number").last(), user=people.compliance,
                               reason="Bureau letter", effective_from=datetime.date(2030, 1, 1))
    change_a_fee(draft)  # a draft that changes nothing is not sent for approval from its page
    return draft


def step(api, user, version, name, reason="Read against the Bureau's letter"):
    api.force_authenticate(user)
    path = "publication-request" if name == "ask" else name
    return api.post(f"{SCHEDULE}versions/{version.number}/{path}/", {"reason": reason}, format="json")


def publish_page(version):
    return reverse("console:compliance-publish", args=[ROOM, PAI_GOW, version.number])


def test_the_officer_who_refused_may_approve_it_once_asked_again_sees_it_and_is_emailed(
        api, mailed, room_draft, mailoutbox, django_capture_on_commit_callbacks):
    people = mailed
    with django_capture_on_commit_callbacks(execute=True):
        assert step(api, people.compliance, room_draft, "ask").status_code == 200
        assert step(api, people.compliance_2, room_draft, "refuse", "Option 1 lacks the letter").status_code == 200
    api.force_authenticate(people.compliance)  # corrects the draft, then asks again
    changed = api.patch(f"{SCHEDULE}versions/{room_draft.number}/", {"reason": "Bureau letter, attached"},
                        format="json")
    assert changed.status_code == 200, changed.content
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert step(api, people.compliance, room_draft, "ask").status_code == 200
    # The second officer is told, and it waits in their inbox.
    assert [m.to for m in mailoutbox] == [["t-compliance-2@example.test"]]
    assert [a.what.split(":")[0] for a in awaiting(people.compliance_2)] == [f"{PAI_GOW} v{room_draft.number}"]
    approved = step(api, people.compliance_2, room_draft, "approve", "The letter is attached now")
    assert approved.status_code == 200, approved.content
    room_draft.refresh_from_db()
    assert room_draft.is_published and room_draft.published_by == people.compliance_2


def test_the_publish_page_offers_the_officer_who_refused_approval_when_asked_again(client, people, room_draft):
    client.force_login(people.compliance)
    asked = {"step": "request", "reason": "New rates", "effective_from": "2030-01-01"}
    assert client.post(publish_page(room_draft), asked).status_code == 302
    client.force_login(people.compliance_2)
    assert client.post(publish_page(room_draft), {"step": "refuse", "reason": "Wrong date"}).status_code == 302
    client.force_login(people.compliance)
    assert client.post(publish_page(room_draft), asked).status_code == 302
    client.force_login(people.compliance_2)
    html = client.get(publish_page(room_draft)).content.decode()
    assert 'value="approve"' in html and 'value="withdraw"' not in html
    assert client.post(publish_page(room_draft), {"step": "approve", "reason": "Right now"}).status_code == 302
    assert ScheduleVersion.objects.get(pk=room_draft.pk).is_published


def test_the_author_finds_the_refusal_and_why_on_the_draft_and_on_their_home(client, people, room_draft):
    """A refusal is read where the author comes back to (the draft, their home), not only in an email."""
    client.force_login(people.compliance)
    asked = {"step": "request", "reason": "New rates", "effective_from": "2030-01-01"}
    assert client.post(publish_page(room_draft), asked).status_code == 302
    draft_page = reverse("console:compliance-version", args=[ROOM, PAI_GOW, room_draft.number])
    assert "Withdraw the request…" in client.get(draft_page).content.decode()  # the asker's one step
    client.force_login(people.compliance_2)
    assert "Approve or refuse…" in client.get(draft_page).content.decode()
    assert client.post(publish_page(room_draft), {"step": "refuse", "reason": "The Bureau's letter is missing"}
                       ).status_code == 302
    client.force_login(people.compliance)
    notice = client.get(draft_page).content.decode().split('id="sent-back"', 1)[1].split("</p>", 1)[0]
    assert "Refused by t-compliance-2" in notice and "The Bureau&#x27;s letter is missing" in notice
    assert "Change the draft and ask again." in notice
    home = client.get(reverse("console:compliance", args=[ROOM])).content.decode()
    assert "refused by t-compliance-2" in home and "The Bureau&#x27;s letter is missing" in home
    # Asked again: the refusal is history, no longer news.
    assert client.post(publish_page(room_draft), asked).status_code == 302
    assert 'id="sent-back"' not in client.get(draft_page).content.decode()


def test_only_the_asker_withdraws_a_request_another_officer_is_refused_with_a_sentence(
        api, client, mailed, room_draft, mailoutbox, django_capture_on_commit_callbacks):
    people = mailed
    assert step(api, people.compliance, room_draft, "ask").status_code == 200
    refused = step(api, people.compliance_2, room_draft, "withdraw", "Not needed")
    assert refused.status_code == 403
    assert "for whoever asked for it (t-compliance) or an administrator" in refused.json()["error"]["message"]
    room_draft.refresh_from_db()
    assert room_draft.status == ScheduleVersion.Status.IN_REVIEW
    assert not AuditLogEntry.objects.filter(action="schedule.withdrawn").exists()
    # The page: no withdraw button for the second officer, one for the asker; a POST by the second officer refused.
    client.force_login(people.compliance_2)
    html = client.get(publish_page(room_draft)).content.decode()
    assert 'value="withdraw"' not in html and 'value="refuse"' in html
    assert client.post(publish_page(room_draft), {"step": "withdraw", "reason": "Mine now"}).status_code == 403
    client.force_login(people.compliance)
    html = client.get(publish_page(room_draft)).content.decode()
    assert 'value="withdraw"' in html and 'value="approve"' not in html
    # The asker withdraws: nobody else to tell.
    with django_capture_on_commit_callbacks(execute=True):
        assert step(api, people.compliance, room_draft, "withdraw", "One more change").status_code == 200
    assert mailoutbox == []


def test_an_administrator_withdraws_for_the_asker_says_so_and_the_asker_is_told(
        api, client, mailed, room_draft, mailoutbox, django_capture_on_commit_callbacks):
    people = mailed
    assert step(api, people.compliance, room_draft, "ask").status_code == 200
    client.force_login(people.admin)
    html = client.get(publish_page(room_draft)).content.decode()
    assert "Withdraw t-compliance's request, as an administrator" in html
    with django_capture_on_commit_callbacks(execute=True):
        assert step(api, people.admin, room_draft, "withdraw", "The Bureau withdrew its letter").status_code == 200
    entry = AuditLogEntry.objects.get(action="schedule.withdrawn")
    assert (entry.actor, entry.data["on_behalf_of"], entry.data["as"]) == (people.admin, "t-compliance",
                                                                           "administrator")
    told = {m.to[0]: m for m in mailoutbox}
    assert sorted(told) == ["t-compliance-2@example.test", "t-compliance@example.test"]  # the asker and the asked
    asker = told["t-compliance@example.test"]
    assert asker.subject.startswith("Withdrawn:") and "The Bureau withdrew its letter" in asker.body
    asked = told["t-compliance-2@example.test"]  # the second officer it awaited (issue 42)
    assert asked.subject.startswith("No longer awaiting you:") and "withdrawn by t-admin, an administrator" in asked.body
    assert "The Bureau withdrew its letter" in asked.body


def test_an_interpretation_is_withdrawn_only_by_who_proposed_it(api, client, people):
    api.force_authenticate(people.compliance)
    proposed = api.post(READINGS, {"version": 1, "option": 1, "tier": 1, "field": "measure", "value": "player_wager",
                                   "statement": "Each player's total base wager.", "decided_on": "2026-01-05",
                                   "citation": "Bureau answer"}, format="json")
    assert proposed.status_code == 201, proposed.content
    reading = proposed.json()["id"]
    api.force_authenticate(people.compliance_2)
    refused = api.post(f"{READINGS}{reading}/withdraw/", {"reason": "Not ours"}, format="json")
    assert refused.status_code == 403 and "t-compliance" in refused.json()["error"]["message"]
    page = reverse("console:compliance-interpretations", args=[ROOM, PAI_GOW, 1])
    client.force_login(people.compliance_2)
    html = client.get(page).content.decode()
    assert 'value="approve"' in html and 'value="withdraw"' not in html
    client.force_login(people.compliance)
    html = client.get(page).content.decode()
    assert 'value="withdraw"' in html and 'value="approve"' not in html
    api.force_authenticate(people.compliance)
    assert api.post(f"{READINGS}{reading}/withdraw/", {"reason": "Asked too soon"}, format="json").status_code == 200


@pytest.fixture
def broken(people, clock):
    """Table 7 posted with a maximum above $10,000 (an error finding): its sign prints only under an override."""
    start = datetime.datetime(2027, 3, 1, 8, 0, tzinfo=LA)
    clock(start - datetime.timedelta(minutes=1))
    posting = post_as(people.floor, {"table": make_table(people.marysville).pk, "schedule": "GEGA-002888",
                                     "option": 1, "min_wager": "5", "max_wager": "20000",
                                     "effective_from": start.isoformat()})[0]
    clock(start + datetime.timedelta(hours=1))
    return posting


def test_a_print_override_is_withdrawn_only_by_its_asker_or_an_administrator(
        client, mailed, broken, mailoutbox, django_capture_on_commit_callbacks):
    people = mailed
    page = reverse("console:compliance-override", args=[ROOM, broken.pk])
    client.force_login(people.compliance)
    assert client.post(page, {"step": "request", "reason": "The Bureau allows it meanwhile."}).status_code == 302
    client.force_login(people.compliance_2)
    html = client.get(page).content.decode()
    assert 'value="approve"' in html and 'value="withdraw"' not in html
    assert client.post(page, {"step": "withdraw", "reason": "Not needed after all."}).status_code == 403
    assert PrintOverride.objects.get(posting=broken).status == PrintOverride.Status.REQUESTED
    client.force_login(people.admin)
    assert 'value="withdraw"' in client.get(page).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(page, {"step": "withdraw", "reason": "The table is closed now."}).status_code == 302
    assert PrintOverride.objects.get(posting=broken).status == PrintOverride.Status.WITHDRAWN
    entry = AuditLogEntry.objects.get(action="signage.print_override_withdrawn")
    assert entry.data["on_behalf_of"] == "t-compliance"
    assert [m.to for m in mailoutbox if m.subject.startswith("Withdrawn:")] == [["t-compliance@example.test"]]
    assert [m.to for m in mailoutbox if m.subject.startswith("No longer awaiting you:")] == [
        ["t-compliance-2@example.test"]]
