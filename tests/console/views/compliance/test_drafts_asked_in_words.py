"""Drafts as their author meets them (issue 42): a draft dated before the schedule's record is refused when it is
started (the page and the API, one check: ``fees.models.publication.earliest_problem``, reached by the service both
call), so no impact preview ever reaches 1900; a refused draft waits in its author's "Awaiting you" until corrected
and asked for again."""

from decimal import Decimal

import pytest
from django.urls import reverse

from cardroom import changes
from cardroom.inbox import awaiting
from fees.models import FeeTier, ScheduleDocument, ScheduleVersion

pytestmark = pytest.mark.django_db
ROOM, GEGA, PAI_GOW = "casino-marysville", "GEGA-002888", "CMV-CA-FEES-PAI-GOW"


def url(name, *args):
    return reverse(f"console:{name}", args=[ROOM, *args])


def versions():
    return ScheduleVersion.objects.filter(document__code=GEGA).count()


def test_a_draft_dated_1900_is_refused_on_the_page_and_by_the_api(client, api, people):
    before = versions()
    client.force_login(people.compliance)
    page = client.post(url("compliance-new-draft", GEGA, 1), {"effective_from": "1900-01-01",
                                                               "reason": "Bureau letter"})
    assert page.status_code == 400
    said = " ".join(page.context["form"].errors["effective_from"])
    assert "1900-01-01 reaches back more than 366 days" in said and "Give a later date" in said
    api.force_authenticate(people.compliance)
    answer = api.post(f"/api/v1/schedules/{GEGA}/versions/1/drafts/", {"effective_from": "1900-01-01",
                                                                       "reason": "Bureau letter"}, format="json")
    assert answer.status_code == 400 and "1900-01-01 reaches back more than" in answer.json()["error"]["message"]
    assert versions() == before  # nothing started


def test_a_refused_draft_waits_for_its_author(client, people):
    """The room's own schedule: its two officers decide."""
    document = ScheduleDocument.objects.get(code=PAI_GOW)
    draft = document.new_draft(based_on=document.versions.order_by("number").last(), user=people.compliance,
                               reason="Bureau letter")
    tier = FeeTier.objects.filter(option__version=draft).order_by("id").first()
    tier.fee += Decimal("1")
    changes.save(tier, user=people.compliance, reason="The Bureau's new rate")
    client.force_login(people.compliance)
    asked = {"step": "request", "reason": "New rates", "effective_from": "2030-01-01"}
    assert client.post(url("compliance-publish", PAI_GOW, draft.number), asked).status_code == 302
    assert not [a for a in awaiting(people.compliance) if a.kind == "draft_refused"]
    client.force_login(people.compliance_2)
    assert client.post(url("compliance-publish", PAI_GOW, draft.number),
                       {"step": "refuse", "reason": "The Bureau's letter is missing"}).status_code == 302
    client.force_login(people.compliance)
    home = client.get(url("compliance"))
    (item,) = [a for a in home.context["awaiting"] if a.kind == "draft_refused"]
    assert item.what == (f"{PAI_GOW} v{draft.number} was refused by t-compliance-2 (The Bureau's letter is missing): "
                         "correct it and ask again, or discard it")
    assert item.path == url("compliance-version", PAI_GOW, draft.number)
    assert "Nothing awaits you" not in home.content.decode()
    assert not [a for a in awaiting(people.compliance_2) if a.kind == "draft_refused"]  # the author's, not theirs
    assert client.post(url("compliance-publish", PAI_GOW, draft.number), asked).status_code == 302  # asked again
    assert not [a for a in awaiting(people.compliance) if a.kind == "draft_refused"]
