"""POST /api/v1/fees/quote and the quote_fee command, on the seeded schedules."""

import json

import pytest
from django.core.management import CommandError, call_command

from cardroom.models import AuditLogEntry
from fees.models import FeeTier

pytestmark = pytest.mark.django_db
URL = "/api/v1/fees/quote"

CALIFORNIA = {
    "schedule": "GEGA-002888", "option": 43, "as_of": "2026-11-21",
    "wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p1", "base": "20"},
               {"player": "p2", "base": "40", "backline": True}],
}
POKER = {"schedule": "GEGA-000697", "option": 1, "players": 6, "reached_flop": True, "reached_river": False}
LOWBALL = {
    "schedule": "GEGA-000702", "option": 1,
    "game_started_at": "2026-11-21T20:00:00-08:00", "game_ended_at": "2026-11-21T21:30:00-08:00",
    "players": [{"player": "a", "seated_from": "2026-11-21T20:00:00-08:00", "seated_to": "2026-11-21T21:30:00-08:00"}],
}


@pytest.fixture
def officer(api, people):
    api.force_authenticate(people.floor)
    return api


def test_california_round_matches_the_issue_example(officer):
    response = officer.post(URL, CALIFORNIA, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["player_fees"] == [{"player": "p1", "fee": "3.00"}, {"player": "p2", "fee": "1.00"}]
    assert body["player_dealer_fee"] == "3.00"
    assert body["total_table_action"] == "235.00"
    assert body["total"] == "7.00"
    assert body["currency"] == "USD"
    explanation = body["explanation"]
    assert explanation["document"] == "GEGA-002888" and explanation["version"] == 1 and explanation["option"] == 43
    pd = [fee for fee in explanation["fees"] if fee["payer"] == "player_dealer"]
    assert pd[0]["tier"]["printed_bounds"] == "$101-$300" and pd[0]["measured"] == "235.00"


def test_poker_hand_matches_the_issue_example(officer):
    body = officer.post(URL, POKER, format="json").json()
    assert (body["collection_fee"], body["designated_table_fee"], body["jackpot_fee"], body["total"]) == (
        "3.00", "0.00", "0.00", "3.00")


def test_time_collection_matches_the_issue_example(officer):
    body = officer.post(URL, LOWBALL, format="json").json()
    assert body["player_fees"] == [{"player": "a", "fee": "9.00", "collections": 3}]
    assert body["total"] == "9.00"


def test_as_of_defaults_to_today(officer):
    body = officer.post(URL, {**CALIFORNIA, "as_of": None}, format="json").json()
    assert body["total"] == "7.00" and body["as_of"]


@pytest.mark.parametrize("change, message", [
    ({"schedule": "GEGA-999999"}, "Unknown schedule"),
    ({"option": 50}, "has no option 50"),
    ({"option": "43"}, "option must be a whole number"),
    ({"as_of": "yesterday"}, "as_of must be a date"),
    ({"wagers": [{"player": "p1", "base": "-5"}]}, "wagers[0].base"),
    ({"wagers": [{"player": "p1", "base": "ten"}]}, "wagers[0].base"),
    ({"wagers": [{"player": "p1", "base": "10.005"}]}, "wagers[0].base"),
    ({"wagers": [{"player": "p1", "base": 10.5}]}, "wagers[0].base"),
    ({"wagers": []}, "non-empty list"),
    ({"wagers": [{"player": "p1", "base": "100", "bonus": "400"}]}, "above what GEGA-002888 option 43 covers"),
])
def test_bad_california_requests_are_400(officer, change, message):
    response = officer.post(URL, {**CALIFORNIA, **change}, format="json")
    assert response.status_code == 400, response.json()
    assert message in response.json()["error"]["message"]


@pytest.mark.parametrize("request_body, message", [
    ({**POKER, "players": 1}, "two players"),
    ({**POKER, "reached_flop": "yes"}, "reached_flop must be true or false"),
    ({"schedule": "CMV-POKER-HOLDEM", "option": 2, "players": 6, "reached_flop": True}, "no fees printed"),
    ({**LOWBALL, "players": [{"player": "a", "seated_from": "2026-11-21T19:00:00-08:00",
                              "seated_to": "2026-11-21T21:00:00-08:00"}]}, "a"),
    ({**LOWBALL, "game_started_at": "2026-11-21T20:00:00"}, "time zone"),
    ({"schedule": "GEGA-002888", "option": 1}, "Say what was played"),
    ([1, 2], "JSON object"),
])
def test_bad_poker_and_time_requests_are_400(officer, request_body, message):
    response = officer.post(URL, request_body, format="json")
    assert response.status_code == 400, response.json()
    assert message.lower() in response.json()["error"]["message"].lower()


def test_quotes_change_nothing(officer):
    before = (AuditLogEntry.objects.count(), FeeTier.objects.count(), FeeTier.history.count())
    officer.post(URL, CALIFORNIA, format="json")
    officer.post(URL, {**CALIFORNIA, "option": 99}, format="json")
    assert (AuditLogEntry.objects.count(), FeeTier.objects.count(), FeeTier.history.count()) == before


def test_quotes_are_scoped_to_visible_schedules(api, people):
    api.force_authenticate(people.regulator_wa)
    response = api.post(URL, CALIFORNIA, format="json")
    assert response.status_code == 400 and "Unknown schedule" in response.json()["error"]["message"]
    api.force_authenticate(None)
    assert api.post(URL, CALIFORNIA, format="json").status_code == 401


def test_command_json_matches_the_api(officer, capsys):
    call_command("quote_fee", request=json.dumps(CALIFORNIA), json=True)
    assert json.loads(capsys.readouterr().out) == officer.post(URL, CALIFORNIA, format="json").json()


def test_command_with_flags_explains_the_fee(capsys):
    call_command("quote_fee", "--schedule", "GEGA-002888", "--option", "43", "--as-of", "2026-11-21",
                 "--wager", "p1:150:25", "--wager", "p1:20", "--wager", "p2:40:0:backline")
    out = capsys.readouterr().out
    assert "GEGA-002888 v1" in out and "option 43" in out
    assert "7.00 USD" in out and "$101-$300" in out


def test_command_poker_and_errors(capsys):
    call_command("quote_fee", "--schedule", "GEGA-000697", "--option", "1", "--players", "6", "--flop", "--json")
    assert json.loads(capsys.readouterr().out)["total"] == "3.00"
    with pytest.raises(CommandError, match="two players"):
        call_command("quote_fee", "--schedule", "GEGA-000697", "--option", "1", "--players", "1", "--flop")


def test_an_endless_time_collection_is_refused_not_computed(officer):
    endless = {**LOWBALL, "game_ended_at": "2199-12-31T23:59:59+00:00",
               "players": [{"player": "a", "seated_from": "2026-11-21T20:00:00-08:00",
                            "seated_to": "2199-12-31T23:59:59+00:00"}]}
    response = officer.post(URL, endless, format="json")
    assert response.status_code == 400
    assert "at most 7 days" in response.json()["error"]["message"]
