"""Who sees what: every role inside and outside the establishment and jurisdiction."""

import pytest

from fees.models import ScheduleDocument

pytestmark = pytest.mark.django_db


def codes(api, user, url="/api/v1/schedules/"):
    api.force_authenticate(user)
    return {row["code"] for row in api.get(url, {"page_size": 500}).json()["results"]}


def test_anonymous_gets_a_json_401(api):
    response = api.get("/api/v1/schedules/GEGA-002888/")
    assert response.status_code == 401
    assert "credentials" in response.json()["error"]["message"]


def test_outsider_sees_nothing(api, people):
    assert codes(api, people.outsider) == set()
    api.force_authenticate(people.outsider)
    assert api.get("/api/v1/schedules/GEGA-002888/").status_code == 404
    assert api.get("/api/v1/games/").json()["count"] == 0


def test_california_staff_and_regulator_see_california(api, people):
    every_ca = set(ScheduleDocument.objects.filter(jurisdiction__code="CA").values_list("code", flat=True))
    assert "GEGA-002888" in every_ca
    for user in (people.compliance, people.floor, people.regulator_ca, people.admin):
        assert codes(api, user) == every_ca


def test_washington_regulator_sees_nothing_of_california(api, people):
    assert codes(api, people.regulator_wa) == set()
    api.force_authenticate(people.regulator_wa)
    assert api.get("/api/v1/schedules/GEGA-002888/").status_code == 404
    assert api.get("/api/v1/establishments/casino-marysville/").status_code == 404
    establishments = {e["slug"] for e in api.get("/api/v1/establishments/").json()["results"]}
    assert establishments == {"test-wa-room"}
    games = {g["slug"] for g in api.get("/api/v1/games/").json()["results"]}
    assert games == {"one-for-the-money"}  # approved in Washington; nothing Californian
    approvals = {a["jurisdiction"] for a in api.get("/api/v1/approvals/").json()["results"]}
    assert approvals == {"WA"}


def test_regulator_and_floor_cannot_change_schedules(api, people):
    # A role that may not change schedules: 403; a compliance officer of Washington, who cannot see it: 404.
    for user, status in ((people.regulator_ca, 403), (people.floor, 403), (people.compliance_wa, 404)):
        api.force_authenticate(user)
        response = api.post("/api/v1/schedules/GEGA-002888/versions/1/drafts/",
                            {"reason": "r", "effective_from": "2027-01-01"}, format="json")
        assert response.status_code == status, user
    assert ScheduleDocument.objects.get(code="GEGA-002888").versions.count() == 1


def test_drafts_are_visible_only_to_who_may_edit(api, people):
    api.force_authenticate(people.compliance)
    api.post("/api/v1/schedules/GEGA-002888/versions/1/drafts/", {"reason": "r", "effective_from": "2027-01-01"},
             format="json")
    assert api.get("/api/v1/schedules/GEGA-002888/versions/2/").status_code == 200
    for user in (people.floor, people.regulator_ca):
        api.force_authenticate(user)
        assert api.get("/api/v1/schedules/GEGA-002888/versions/2/").status_code == 404
        numbers = [v["number"] for v in api.get("/api/v1/schedules/GEGA-002888/versions/").json()]
        assert numbers == [1]


def test_tables_are_scoped_to_establishment(api, people):
    from cardroom.models import Game, Table

    Table.objects.create(establishment=people.marysville, label="T1", seats=7,
                         game=Game.objects.get(slug="pai-gow-tiles"))
    Table.objects.create(establishment=people.wa_room, label="W1", seats=6,
                         game=Game.objects.get(slug="one-for-the-money"))
    api.force_authenticate(people.floor)
    assert {t["label"] for t in api.get("/api/v1/tables/").json()["results"]} == {"T1"}
    api.force_authenticate(people.regulator_wa)
    assert {t["label"] for t in api.get("/api/v1/tables/").json()["results"]} == {"W1"}
