"""The admin a compliance officer works in: drafts editable with a reason, published versions read-only,
publish and new-draft pages, and the history of an edited draft."""

import pytest
from django.urls import reverse

from fees.models import ScheduleDocument

pytestmark = pytest.mark.django_db


@pytest.fixture
def gega():
    return ScheduleDocument.objects.get(code="GEGA-002888")


@pytest.fixture
def officer(client, people):
    client.force_login(people.compliance)
    return client


def test_new_draft_from_admin_then_edit_shows_history(officer, gega, people):
    published = gega.versions.get(number=1)
    response = officer.post(reverse("admin:fees_scheduleversion_new_draft", args=[published.pk]),
                            {"effective_from": "2027-01-01", "reason": "Bureau letter 2026-12-01"})
    draft = gega.versions.get(number=2)
    assert response.status_code == 302 and response["Location"].endswith(f"/{draft.pk}/change/")

    option = draft.options.get(number=1)
    tiers = list(option.tiers.all())
    form = {
        "change_reason": "Raise the $1-$10 fee per the Bureau letter",
        "tiers-TOTAL_FORMS": len(tiers), "tiers-INITIAL_FORMS": len(tiers),
        "tiers-MIN_NUM_FORMS": 0, "tiers-MAX_NUM_FORMS": 1000,
        "number": option.number, "label": option.label, "basis": option.basis, "citation": option.citation,
        "notes": option.notes, "min_wager_from": "1", "min_wager_to": "1000", "max_wager_from": "100",
        "max_wager_to": "10000", "betting_structure": "",
    }
    for i, tier in enumerate(tiers):
        fee = "1.50" if tier.order == 1 else tier.fee
        form.update({f"tiers-{i}-{key}": value for key, value in {
            "id": tier.pk, "option": option.pk, "order": tier.order, "fee_kind": tier.fee_kind, "payer": tier.payer,
            "measure": tier.measure, "lower": tier.lower or "", "upper": tier.upper or "", "fee": fee,
            "taken": tier.taken, "printed_bounds": tier.printed_bounds, "printed_fee": tier.printed_fee,
            "note": tier.note,
        }.items()})
    response = officer.post(reverse("admin:fees_feeoption_change", args=[option.pk]), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert str(option.tiers.get(order=1).fee) == "1.50"

    page = officer.get(reverse("admin:fees_scheduleversion_change", args=[draft.pk])).content.decode()
    assert "Raise the $1-$10 fee per the Bureau letter" in page
    assert "t-compliance" in page
    assert "Publish…" in page


def test_published_version_is_read_only_in_admin(officer, gega):
    published = gega.versions.get(number=1)
    page = officer.get(reverse("admin:fees_scheduleversion_change", args=[published.pk])).content.decode()
    assert 'name="reason"' not in page  # rendered read-only
    assert "Publish…" not in page and "New draft from this version" in page
    option = published.options.get(number=1)
    response = officer.post(reverse("admin:fees_feeoption_change", args=[option.pk]), {"notes": "x"})
    assert response.status_code == 403


def test_publish_from_admin_and_twice_is_refused(officer, gega):
    published = gega.versions.get(number=1)
    officer.post(reverse("admin:fees_scheduleversion_new_draft", args=[published.pk]),
                 {"effective_from": "2027-01-01", "reason": "r"})
    draft = gega.versions.get(number=2)
    url = reverse("admin:fees_scheduleversion_publish", args=[draft.pk])
    officer.post(url, {"reason": "Approved"})
    draft.refresh_from_db()
    assert draft.is_published
    response = officer.post(url, {"reason": "Again"}, follow=True)
    assert "already published" in response.content.decode()


def test_regulator_sees_but_cannot_change(client, people, gega):
    client.force_login(people.regulator_ca)
    published = gega.versions.get(number=1)
    assert client.get(reverse("admin:fees_scheduleversion_change", args=[published.pk])).status_code == 200
    assert client.get(reverse("admin:fees_scheduleversion_new_draft", args=[published.pk])).status_code == 403
    client.force_login(people.regulator_wa)
    assert client.get(reverse("admin:fees_scheduleversion_change", args=[published.pk])).status_code == 302
