"""A version's history (issue 13): every field old and new down to the tiers, both reasons, both officers.

A draft of GEGA-002888 is started from the seeded v1, one tier's fee and printed fee are changed with a reason, and
two officers publish it; ``fees.schedules.history``, the compliance page and the API all tell that story.
"""

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cardroom import changes
from cardroom.seed import SEED_ACTOR
from fees.models import FeeTier, ScheduleDocument
from fees.schedules import history, services
from tests.publishing import publish

pytestmark = pytest.mark.django_db
GEGA = "GEGA-002888"
ROOM = "casino-marysville"
DRAFT_REASON = "Bureau letter of 2026-05-01: the player-dealer fee of option 1 for $11-$50 goes up"
TIER_REASON = "Option 1, $11-$50: fee raised to $2.50 as the letter says"
PUBLICATION_REASON = "The Bureau approved the new fee on 2026-05-01"


@pytest.fixture
def gega():
    return ScheduleDocument.objects.get(code=GEGA)


@pytest.fixture
def draft(gega, people):
    return services.start_draft(people.compliance, based_on=gega.versions.get(number=1), reason=DRAFT_REASON,
                                effective_from=datetime.date(2030, 1, 1))


def raise_fee(draft, user, fee="2.50", reason=TIER_REASON):
    tier = FeeTier.objects.get(option__version=draft, option__number=1, order=2)
    tier.fee, tier.printed_fee = Decimal(fee), f"${fee}"
    changes.save(tier, user=user, reason=reason)
    return tier


@pytest.fixture
def published(draft, people):
    raise_fee(draft, people.compliance)
    return publish(draft, requested_by=people.compliance, approved_by=people.admin, reason=PUBLICATION_REASON)


def field(entry, name):
    return next(f for f in entry["fields"] if f["field"] == name)


def test_the_history_tells_the_whole_story(gega, published):
    entries = history.version_history(published)
    assert [e["when"] for e in entries] == sorted(e["when"] for e in entries)
    started, tier, asked, approved = entries

    # The draft's start is one entry with the counts, not one per copied option and tier.
    copied = FeeTier.objects.filter(option__version__document=gega, option__version__number=1).count()
    assert started["change"] == "created" and started["who"] == "t-compliance"
    assert started["summary"] == f"Draft v2 started from v1: 49 options and {copied} tiers copied"
    assert started["copied"] == {"options": 49, "tiers": copied, "readings": 0}
    assert field(started, "reason")["new"] == DRAFT_REASON
    assert field(started, "based_on")["new"] == "v1"

    # The tier: old and new fee, amounts as strings with the currency, the printed fee beside it.
    assert (tier["kind"], tier["what"], tier["who"], tier["why"]) == ("tier", "option 1 tier 2", "t-compliance",
                                                                      TIER_REASON)
    assert tier["fields"] == [
        {"field": "fee", "label": "amount", "kind": "money", "old": "2.00", "new": "2.50", "currency": "USD"},
        {"field": "printed_fee", "label": "fee as printed", "kind": "text", "old": "$2", "new": "$2.50"},
    ]

    # Publication: who asked and why (the publication's reason), who approved.
    assert asked["review"]["step"] == "requested" and asked["review"]["by"] == "t-compliance"
    assert asked["review"]["reason"] == PUBLICATION_REASON
    assert field(asked, "publication_reason") == {
        "field": "publication_reason", "label": "reason for publication", "kind": "text", "old": "",
        "new": PUBLICATION_REASON}
    status = field(asked, "status")
    assert (status["old_label"], status["new_label"]) == ("Draft", "Awaiting a second officer")
    assert approved["review"]["step"] == "approved" and approved["who"] == "t-admin"
    assert field(approved, "published_by")["new"] == "t-admin"
    assert field(approved, "status")["new"] == "published"


def test_the_seeded_version_is_one_import_and_its_publication(gega):
    v1 = gega.versions.get(number=1)
    loaded, approved = history.version_history(v1)
    tiers = FeeTier.objects.filter(option__version=v1).count()
    assert loaded["summary"] == f"Version v1 created with 49 options and {tiers} tiers"
    assert approved["review"]["by"] == approved["who"] == SEED_ACTOR
    assert approved["review"]["reason"] == v1.reason


def test_a_deleted_tier_and_renumbered_rows_show_what_they_were(draft, people):
    tier = FeeTier.objects.get(option__version=draft, option__number=1, order=5)
    changes.delete(tier, user=people.compliance, reason="The $201+ band is dropped")
    deleted = history.version_history(draft)[-1]
    assert (deleted["change"], deleted["what"]) == ("deleted", "option 1 tier 5")
    assert field(deleted, "fee") == {"field": "fee", "label": "amount", "kind": "money", "old": "5.00", "new": None,
                                     "currency": "USD"}


def test_queries_do_not_grow_with_the_history(draft, people):
    def count():
        with CaptureQueriesContext(connection) as queries:
            history.version_history(draft)
            history.document_history(draft.document, draft.document.versions.all())
        return len(queries)

    raise_fee(draft, people.compliance)
    before = count()
    for fee in ("2.75", "3.00", "3.25"):
        raise_fee(draft, people.compliance, fee)
    assert count() == before <= 20
    entries = history.version_history(draft)
    assert len(entries) == 1 + 4
    assert len(history.grouped(entries)) == 1 + 4  # the same row saved again is another change


def test_changes_saved_together_are_one_change(draft, people):
    for order in (1, 2):
        tier = FeeTier.objects.get(option__version=draft, option__number=1, order=order)
        tier.note = "Per the Bureau's letter"
        changes.save(tier, user=people.compliance, reason="Notes from the letter")
    started, together = history.grouped(history.version_history(draft))
    assert [e["what"] for e in together["entries"]] == ["option 1 tier 1", "option 1 tier 2"]
    assert together["why"] == "Notes from the letter"


# -- the page ---------------------------------------------------------------------------------------------------


def page_url(number):
    return reverse("console:compliance-history", args=[ROOM, GEGA, number])


def test_the_page_shows_who_what_and_why(client, people, published):
    client.force_login(people.compliance)
    schedule = client.get(reverse("console:compliance-version", args=[ROOM, GEGA, 2])).content.decode()
    assert page_url(2) in schedule
    response = client.get(page_url(2))
    assert response.status_code == 200
    html = response.content.decode()
    for text in (DRAFT_REASON, TIER_REASON, PUBLICATION_REASON, "Draft v2 started from v1: 49 options",
                 "<del>$2.00</del>", "<ins>$2.50</ins>", "<del>$2</del>", "<ins>$2.50</ins>", "Option 1 tier 2",
                 "Approved and published by <strong>t-admin</strong>",
                 "Publication requested by <strong>t-compliance</strong>", "Awaiting a second officer"):
        assert text in html, text


def test_the_page_is_scoped_and_paginated(client, people, draft, monkeypatch):
    client.force_login(people.compliance_wa)
    assert client.get(page_url(1)).status_code == 404
    client.force_login(people.floor)
    assert client.get(page_url(1)).status_code == 403
    client.force_login(people.compliance)
    assert client.get(page_url(9)).status_code == 404
    for fee in ("2.50", "2.75", "3.00"):
        raise_fee(draft, people.compliance, fee, reason=f"Raised to {fee}")
    monkeypatch.setattr("console.views.history.CHANGES_PER_PAGE", 2)
    first = client.get(page_url(draft.number)).content.decode()
    assert "Page 1 of 2" in first and "Draft v2 started from v1" in first and "$3.00" not in first
    last = client.get(page_url(draft.number), {"page": "2"}).content.decode()
    assert "<ins>$3.00</ins>" in last
    assert client.get(page_url(draft.number), {"page": "nonsense"}).status_code == 200


# -- the API ------------------------------------------------------------------------------------------------------


def test_the_api_returns_the_fields_and_both_reasons(api, people, published):
    api.force_authenticate(people.compliance)
    body = api.get(f"/api/v1/schedules/{GEGA}/history/").json()
    changes_ = [c for c in body["changes"] if c["version"] == 2]
    assert [c["kind"] for c in changes_] == ["version", "version", "tier", "version"]  # newest first
    tier = next(c for c in changes_ if c["kind"] == "tier")
    assert tier["fields"][0] == {"field": "fee", "label": "amount", "kind": "money", "old": "2.00", "new": "2.50",
                                 "currency": "USD"}
    assert tier["who"] == "t-compliance" and tier["why"] == TIER_REASON and tier["type"] == "Changed"
    approved = changes_[0]
    assert approved["status"] == "published" and approved["who"] == "t-admin"
    assert approved["review"]["step"] == "approved"
    assert changes_[1]["review"] | {"at": None} == {"step": "requested", "label": "Publication requested",
                                                   "by": "t-compliance", "at": None, "reason": PUBLICATION_REASON}
    v2 = next(v for v in body["versions"] if v["number"] == 2)
    assert (v2["reason"], v2["publication_reason"]) == (DRAFT_REASON, PUBLICATION_REASON)
    assert any(a["action"] == "schedule.publish" for a in body["actions"])


def test_the_api_shows_a_draft_only_to_those_who_may_edit_it(api, people, draft):
    raise_fee(draft, people.compliance)
    api.force_authenticate(people.regulator_ca)
    body = api.get(f"/api/v1/schedules/{GEGA}/history/").json()
    assert {c["version"] for c in body["changes"]} == {1} and [v["number"] for v in body["versions"]] == [1]
    api.force_authenticate(people.compliance)
    body = api.get(f"/api/v1/schedules/{GEGA}/history/").json()
    assert {c["version"] for c in body["changes"]} == {1, 2}
