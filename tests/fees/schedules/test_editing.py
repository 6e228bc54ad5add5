"""Editing a draft (issue 34): one rule and one service at every door (``fees.schedules.editing``). The API's PATCH and the
admin's form change a draft's fields through ``edit_draft``; a version published or awaiting a second officer is
changed by nobody, through whichever door, and each door says so alike."""

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from cardroom.exceptions import NotAllowed
from cardroom.models import AuditLogEntry
from fees.models import ImmutableVersionError, ScheduleDocument
from fees.schedules import editing, services
from tests.factories import change_a_fee

pytestmark = pytest.mark.django_db

URL = "/api/v1/schedules/GEGA-002888/versions/2/"


@pytest.fixture
def draft(people):
    published = ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=1)
    return services.start_draft(people.compliance, based_on=published, reason="Bureau letter",
                                effective_from=timezone.localdate() + datetime.timedelta(days=30))


@pytest.fixture
def edits(monkeypatch):
    """The doors' calls of ``edit_draft``: (who, version number, fields)."""
    calls, edit = [], editing.edit_draft

    def spied(user, *, version, fields, why):
        calls.append((user.username, version.number, dict(fields)))
        return edit(user, version=version, fields=fields, why=why)

    monkeypatch.setattr(editing, "edit_draft", spied)
    return calls


def test_the_api_and_the_admin_edit_a_draft_through_one_service(api, client, people, draft, edits):
    later = timezone.localdate() + datetime.timedelta(days=40)
    api.force_authenticate(people.compliance)
    assert api.patch(URL, {"reason": "Bureau letter of 3 March"}, format="json").status_code == 200
    client.force_login(people.admin)
    answer = client.post(reverse("admin:fees_scheduleversion_change", args=[draft.pk]), {
        "effective_from": later.isoformat(), "reason": "Bureau letter of 4 March", "provisions": '["Posted"]',
        "change_reason": "The Bureau wrote again", "options-TOTAL_FORMS": "0", "options-INITIAL_FORMS": "0"})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert edits == [("t-compliance", 2, {"reason": "Bureau letter of 3 March"}),
                     ("t-admin", 2, {"effective_from": later, "reason": "Bureau letter of 4 March",
                                     "provisions": ["Posted"]})]
    draft.refresh_from_db()
    assert (draft.effective_from, draft.reason, draft.provisions) == (later, "Bureau letter of 4 March", ["Posted"])
    assert list(AuditLogEntry.objects.filter(action="fees.scheduleversion.change", object_id=str(draft.pk))
                .order_by("sequence").values_list("data__reason", flat=True)) == [
        "Draft edited through the API by t-compliance", "The Bureau wrote again"]


def test_a_version_awaiting_a_second_officer_is_changed_through_no_door(api, client, people, draft):
    change_a_fee(draft)
    services.request_publication(people.compliance, version=draft, reason="Ask", effective_from=draft.effective_from)
    said = f"{draft} is awaiting a second officer and cannot be changed; withdraw the request first."
    api.force_authenticate(people.compliance)
    answer = api.patch(URL, {"reason": "One more thing"}, format="json")
    assert answer.status_code == 409 and answer.json()["error"]["message"] == said
    with pytest.raises(ImmutableVersionError, match=re.escape(said)):
        editing.save_tiers(people.compliance, option=draft.options.first(), formset=None, reason="One more thing")
    assert not editing.may_edit(people.admin, draft)
    client.force_login(people.admin)
    page = client.get(reverse("admin:fees_scheduleversion_change", args=[draft.pk])).content.decode()
    assert 'name="reason"' not in page  # read-only
    option = reverse("admin:fees_feeoption_change", args=[draft.options.first().pk])
    assert client.post(option, {"notes": "x"}).status_code == 403
    draft.refresh_from_db()
    assert draft.reason == "Bureau letter"


def test_a_draft_is_edited_only_by_those_who_may_edit_its_schedule(people, draft):
    assert editing.may_edit(people.compliance, draft) and not editing.may_edit(people.regulator_ca, draft)
    with pytest.raises(NotAllowed):
        editing.edit_draft(people.regulator_ca, version=draft, fields={"reason": "Mine now"}, why="test")
    draft.refresh_from_db()
    assert draft.reason == "Bureau letter"
