"""The schedules API: as-of resolution, options with tiers, versioning through the API, errors as JSON."""

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from fees.models import ScheduleDocument
from tests.factories import change_a_fee

pytestmark = pytest.mark.django_db

URL = "/api/v1/schedules/GEGA-002888/"


def test_schedule_serves_49_options_with_tiers(api, people):
    api.force_authenticate(people.compliance)
    response = api.get(URL)
    assert response.status_code == 200
    body = response.json()
    assert body["code"] == "GEGA-002888" and body["currency"] == "USD"
    assert body["version"]["number"] == 1 and body["version"]["status"] == "published"
    assert [o["number"] for o in body["options"]] == list(range(1, 50))
    option_1 = body["options"][0]
    pd = [t for t in option_1["tiers"] if t["fee_kind"] == "player_dealer"]
    # Typed from the packet: option 1, $1-$10 $1 / $11-$50 $2 / $51-$100 $3 / $101-$200 $4 / $201+ $5.
    assert [(t["lower"], t["upper"], t["fee"]) for t in pd] == [
        ("1.00", "10.00", "1.00"), ("11.00", "50.00", "2.00"), ("51.00", "100.00", "3.00"),
        ("101.00", "200.00", "4.00"), ("201.00", None, "5.00"),
    ]
    assert all(t["currency"] == "USD" for t in option_1["tiers"])
    assert option_1["min_wager_from"] == "1.00" and option_1["max_wager_to"] == "10000.00"
    assert body["citation"]["source"] == "cmv-binder"


def test_money_is_never_a_float(api, people):
    api.force_authenticate(people.compliance)
    body = api.get(URL).json()
    for option in body["options"]:
        for tier in option["tiers"]:
            assert isinstance(tier["fee"], str)
            Decimal(tier["fee"])


def test_as_of_before_a_new_version_returns_the_earlier_one(api, people):
    api.force_authenticate(people.compliance)
    created = api.post(URL + "versions/1/drafts/", {"reason": "Bureau-approved raise", "effective_from": "2027-01-01"},
                       format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["number"] == 2 and created.json()["status"] == "draft"
    change_a_fee(ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=2))
    asked = api.post(URL + "versions/2/publication-request/", {"reason": "Approved by the Bureau"}, format="json")
    assert asked.status_code == 200 and asked.json()["status"] == "in_review", asked.json()
    assert api.get(URL, {"as_of": "2027-01-01"}).json()["version"]["number"] == 1  # not yet published
    api.force_authenticate(people.admin)  # GEGA-002888 is shared: an administrator approves
    published = api.post(URL + "versions/2/approve/", {"reason": "Checked against the letter"}, format="json")
    assert published.status_code == 200, published.json()
    assert published.json()["status"] == "published" and published.json()["published_by"] == "t-admin"
    assert published.json()["publication_reason"] == "Approved by the Bureau"
    assert [r["step"] for r in published.json()["reviews"]] == ["requested", "approved"]
    assert api.get(URL, {"as_of": "2026-12-31"}).json()["version"]["number"] == 1
    assert api.get(URL, {"as_of": "2027-01-01"}).json()["version"]["number"] == 2


def test_a_retroactive_request_for_a_version_dated_today_or_later_is_refused(api, people):
    api.force_authenticate(people.compliance)
    today = timezone.localdate()
    later = today + datetime.timedelta(days=30)
    assert api.post(URL + "versions/1/drafts/", {"reason": "Bureau-approved raise", "effective_from": str(later)},
                    format="json").status_code == 201
    change_a_fee(ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=2))
    body = {"reason": "Approved by the Bureau", "retroactive": True, "retroactive_reason": "None, really"}
    response = api.post(URL + "versions/2/publication-request/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"retroactive": (
        f"A version effective on {later}, a future date, is not retroactive: untick the retroactive confirmation "
        f"(only a date before today, {today}, needs it).")}
    assert api.patch(URL + "versions/2/", {"effective_from": str(today)}, format="json").status_code == 200
    response = api.post(URL + "versions/2/publication-request/", body, format="json")
    assert response.status_code == 400 and f"effective on {today}, today," in response.json()["error"]["message"]
    version = ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=2)
    assert (version.status, version.retroactive, version.retroactive_reason) == ("draft", False, "")
    del body["retroactive"], body["retroactive_reason"]
    assert api.post(URL + "versions/2/publication-request/", body, format="json").json()["status"] == "in_review"


def test_publishing_twice_answers_409_and_changes_nothing(api, people):
    api.force_authenticate(people.compliance)
    before = ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=1).published_at
    response = api.post(URL + "versions/1/publication-request/", {"reason": "again"}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert "already published" in response.json()["error"]["message"]
    assert ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=1).published_at == before


def test_editing_a_published_version_answers_409(api, people):
    api.force_authenticate(people.compliance)
    response = api.patch(URL + "versions/1/", {"reason": "rewrite history"}, format="json")
    assert response.status_code == 409
    assert "published" in response.json()["error"]["message"]


def test_editing_and_discarding_a_draft(api, people):
    api.force_authenticate(people.compliance)
    api.post(URL + "versions/1/drafts/", {"reason": "r", "effective_from": "2027-01-01"}, format="json")
    patched = api.patch(URL + "versions/2/", {"effective_from": "2027-02-01"}, format="json")
    assert patched.status_code == 200 and patched.json()["effective_from"] == "2027-02-01"
    assert api.delete(URL + "versions/2/").status_code == 204
    assert api.get(URL + "versions/2/").status_code == 404


@pytest.mark.parametrize("query, message", [
    ({"as_of": "21-11-2026"}, "as_of must be a date written YYYY-MM-DD"),
    ({"as_of": "2026-02-30"}, "as_of must be a date written YYYY-MM-DD"),
])
def test_bad_as_of_is_a_clear_400(api, people, query, message):
    api.force_authenticate(people.compliance)
    response = api.get(URL, query)
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]


@pytest.mark.parametrize("payload, field", [
    ({"effective_from": "2027-01-01"}, "reason"),
    ({"reason": "r"}, "effective_from"),
    ({"reason": "r", "effective_from": "soon"}, "effective_from"),
])
def test_bad_draft_requests_are_400_and_create_nothing(api, people, payload, field):
    api.force_authenticate(people.compliance)
    response = api.post(URL + "versions/1/drafts/", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["message"]
    assert ScheduleDocument.objects.get(code="GEGA-002888").versions.count() == 1


def test_options_endpoints(api, people):
    api.force_authenticate(people.compliance)
    listing = api.get(URL + "options/").json()
    assert listing["count"] == 49
    option_39 = api.get(URL + "options/39/").json()
    assert option_39["basis"] == "base_wager_flat_player_dealer"
    assert [t["fee"] for t in option_39["tiers"] if t["fee_kind"] == "player_dealer"] == ["1.00"]
    assert api.get(URL + "options/50/").status_code == 404


def test_unknown_schedule_and_unknown_endpoint_are_json_404(api, people):
    api.force_authenticate(people.compliance)
    missing = api.get("/api/v1/schedules/GEGA-999999/")
    assert missing.status_code == 404 and missing.json()["error"]["status"] == 404
    nowhere = api.get("/api/v1/no-such-thing/")
    assert nowhere.status_code == 404 and "No API endpoint" in nowhere.json()["error"]["message"]


def test_history_shows_who_and_why(api, people):
    api.force_authenticate(people.compliance)
    api.post(URL + "versions/1/drafts/", {"reason": "r", "effective_from": "2027-01-01"}, format="json")
    change_a_fee(ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=2))
    api.post(URL + "versions/2/publication-request/", {"reason": "Bureau letter 2026-12-01"}, format="json")
    api.force_authenticate(people.admin)  # GEGA-002888 is shared: an administrator approves
    api.post(URL + "versions/2/approve/", {"reason": "Read the letter"}, format="json")
    history = api.get(URL + "history/").json()
    published = [c for c in history["changes"] if c["version"] == 2 and c["status"] == "published"]
    assert published and published[0]["who"] == "t-admin"
    assert "Read the letter" in published[0]["why"]
    assert any(a["action"] == "schedule.publish" and a["who"] == "t-admin" for a in history["actions"])
    assert any(a["action"] == "schedule.requested" and a["who"] == "t-compliance" for a in history["actions"])


def test_schema_and_docs(api, people):
    api.force_authenticate(people.compliance)
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/schedules/{code}/" in paths and "/api/v1/games/" in paths
    assert api.get("/api/v1/docs/").status_code == 200
