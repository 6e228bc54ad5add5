"""GET /api/v1/schedules/{code}/diff?from=N&to=M (issue 13): two versions option by option and tier by tier, by
the same ``fees.engine.diff`` the compare page uses; bad, missing or unknown numbers a clear 400 / 404."""

import datetime
from decimal import Decimal as D

import pytest

from fees.engine import diff
from fees.models import FeeOption, FeeTier
from tests.factories import make_draft

pytestmark = pytest.mark.django_db

URL = "/api/v1/schedules/GEGA-002888/diff"


@pytest.fixture
def draft(people):
    """v2 of GEGA-002888, a draft: option 43's $101-$200 player fee $2 -> $2.50 (printed too), option 26's second
    player-dealer row $5 -> $8 with its bounds moved, option 1's flat player row removed, a row added to option 2,
    option 3's label changed, option 49 removed and an option 50 added."""
    draft = make_draft(user=people.compliance, reason="Diff test", effective_from=datetime.date(2027, 6, 1))
    options = {o.number: o for o in draft.options.all()}
    tier = FeeTier.objects.get(option=options[43], fee_kind="player", order=2)
    tier.fee, tier.printed_fee = D("2.50"), "$2.50"
    tier.save()
    tier = FeeTier.objects.get(option=options[26], order=2)
    tier.fee, tier.upper, tier.printed_bounds, tier.printed_fee = D("8"), D("500"), "$201-$500", "$8"
    tier.save()
    FeeTier.objects.get(option=options[1], fee_kind="player").delete()
    last = options[2].tiers.order_by("-order").first()
    FeeTier.objects.create(option=options[2], order=last.order + 1, fee_kind="jackpot", payer="player_dealer",
                           measure="flat", fee=D("1"), taken="before_deal", printed_fee="$1")
    options[3].label = "Relabelled"
    options[3].save()
    options[49].delete()
    added = FeeOption.objects.create(version=draft, number=50, basis="total_table_action", citation="Diff test 50")
    FeeTier.objects.create(option=added, order=1, fee_kind="player_dealer", payer="player_dealer",
                           measure="total_table_action", lower=D("1"), upper=None, fee=D("3"), taken="before_deal",
                           printed_bounds="$1+", printed_fee="$3")
    return draft


def by_number(answer):
    return {o["number"]: o for o in answer["options"]}


def test_the_diff_lists_every_changed_tier_with_old_and_new_values(api, people, draft):
    api.force_authenticate(people.compliance)
    answer = api.get(URL, {"from": 1, "to": draft.number})
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["schedule"] == "GEGA-002888" and data["currency"] == "USD"
    assert data["from"] == {"number": 1, "status": "published", "effective_from": None}
    assert data["to"] == {"number": 2, "status": "draft", "effective_from": "2027-06-01"}
    assert data["summary"] == {"options_same": 43, "options_changed": 5, "options_added": 1, "options_removed": 1,
                               "tiers_changed": 2, "tiers_added": 1, "tiers_removed": 1}
    options = by_number(data)
    assert len(options) == 50 and options[10] == {"number": 10, "status": "same", "label": options[10]["label"],
                                                  "fields": [], "tiers": []}

    (fee,) = options[43]["tiers"]
    assert fee["status"] == "changed" and fee["fields"] == ["fee", "printed_fee"]
    assert (fee["old"]["fee"], fee["new"]["fee"]) == ("2.00", "2.50")
    assert (fee["old"]["printed_fee"], fee["new"]["printed_fee"]) == ("$2", "$2.50")
    assert fee["new"] == {"order": 2, "fee_kind": "player", "payer": "player", "measure": "base_wager",
                          "lower": "101.00", "upper": "200.00", "fee": "2.50", "currency": "USD",
                          "taken": "before_deal", "printed_bounds": "$101-$200", "printed_fee": "$2.50",
                          "note": fee["old"]["note"]}

    (moved,) = options[26]["tiers"]  # bounds moved: paired with the row it replaced, shown changed
    assert moved["status"] == "changed" and set(moved["fields"]) == {"upper", "fee", "printed_bounds", "printed_fee"}
    assert (moved["old"]["upper"], moved["new"]["upper"], moved["old"]["fee"], moved["new"]["fee"]) == (
        "600.00", "500.00", "5.00", "8.00")

    (removed,) = options[1]["tiers"]
    assert removed["status"] == "removed" and removed["new"] is None and removed["old"]["fee"] == "0.00"
    (added,) = options[2]["tiers"]
    assert added["status"] == "added" and added["old"] is None and added["new"]["fee_kind"] == "jackpot"
    assert options[3]["fields"] == [{"field": "label", "label": "label", "old": options[3]["fields"][0]["old"],
                                     "new": "Relabelled"}] and options[3]["tiers"] == []

    assert options[49]["status"] == "removed" and all(t["status"] == "removed" for t in options[49]["tiers"])
    assert {"field": "max_wager_to", "label": "highest table maximum", "old": "10000.00", "new": None} in \
        options[49]["fields"]
    assert options[50]["status"] == "added" and options[50]["tiers"][0]["new"]["lower"] == "1.00"
    assert {"field": "citation", "label": "citation", "old": None, "new": "Diff test 50"} in options[50]["fields"]


def test_the_api_and_the_compare_page_share_one_comparison(api, people, draft):
    """The answer is ``fees.engine.diff.diff_versions``'s, the function the compare page calls: same counts, same tiers."""
    v1 = draft.document.versions.get(number=1)
    expected = diff.diff_versions(v1.diff_records(), draft.diff_records())
    api.force_authenticate(people.compliance)
    data = api.get(URL, {"from": 1, "to": 2}).json()
    assert {k: v for k, v in data["summary"].items() if k != "options_same"} == expected.counts()
    assert data["summary"]["options_same"] == len(expected.unchanged)
    listed = [(o["number"], t["status"], tuple(t["fields"])) for o in data["options"] for t in o["tiers"]]
    assert listed == [(o.number, t.status, t.fields) for o in expected.options for t in o.tiers if t.status != "same"]


def test_the_diff_answers_with_and_without_the_trailing_slash_and_either_way_round(api, people, draft):
    api.force_authenticate(people.compliance)
    plain = api.get(URL, {"from": 1, "to": 2}).json()
    assert api.get(URL + "/", {"from": 1, "to": 2}).json() == plain
    back = api.get(URL, {"from": 2, "to": 1}).json()
    assert back["summary"] == {**plain["summary"], "options_added": 1, "options_removed": 1,
                               "tiers_added": 1, "tiers_removed": 1}
    assert by_number(back)[49]["status"] == "added" and by_number(back)[50]["status"] == "removed"
    same = api.get(URL, {"from": 1, "to": 1}).json()
    assert same["summary"]["options_same"] == 49 and all(o["status"] == "same" for o in same["options"])


def test_a_draft_is_compared_only_by_those_who_may_edit_the_schedule(api, people, draft):
    for user, status in ((people.admin, 200), (people.compliance, 200), (people.floor, 404),
                         (people.regulator_ca, 404), (people.compliance_wa, 404)):
        api.force_authenticate(user)
        answer = api.get(URL, {"from": 1, "to": 2})
        assert answer.status_code == status, (user, answer.content)
        if status == 404:
            assert answer.json()["error"]["message"] in ("GEGA-002888 has no version 2 (to).",
                                                         "No ScheduleDocument matches the given query.")
    api.force_authenticate(people.floor)
    assert api.get(URL, {"from": 1, "to": 1}).status_code == 200


def refused(answer, status=400):
    assert answer.status_code == status, (answer.status_code, answer.content[:500])
    error = answer.json()["error"]
    assert error["status"] == status and error["code"] and error["message"]
    return error["message"]


@pytest.mark.parametrize("query, message", [
    ("", "from: is required"),
    ("?to=1", "from: is required"),
    ("?from=1", "to: is required"),
    ("?from=&to=", "from: is required: the number of a version of this schedule.; to: is required"),
    ("?from=abc&to=1", "from: must be a whole number, not 'abc'."),
    ("?from=1.0&to=1", "from: must be a whole number"),
    ("?from=1e3&to=1", "from: must be a whole number"),
    ("?from=%EF%BC%91&to=1", "from: must be a whole number"),  # a fullwidth digit one
    ("?from=1%00&to=1", "must not contain NUL characters"),  # refused at the door, before the view
    ("?from=0&to=1", "from: must be at least 1, not 0."),
    ("?from=-1&to=1", "from: must be at least 1"),
    ("?from=1&to=99999999999999999999999", "to: must be a whole number"),
    ("?from=1&to=9223372036854775807", "to: must be at most 2147483647"),
    ("?from= 1&to=1", "from: must be a whole number"),
])
def test_bad_version_numbers_are_a_clear_400(api, people, query, message):
    api.force_authenticate(people.compliance)
    assert message in refused(api.get(URL + query))


@pytest.mark.parametrize("query, message", [
    ("?from=1&to=7", "GEGA-002888 has no version 7 (to)."),
    ("?from=2147483647&to=1", "GEGA-002888 has no version 2147483647 (from)."),
])
def test_unknown_versions_are_a_clear_404(api, people, query, message):
    api.force_authenticate(people.compliance)
    assert refused(api.get(URL + query), 404) == message


def test_an_unknown_or_unseen_schedule_is_404(api, people):
    api.force_authenticate(people.compliance)
    refused(api.get("/api/v1/schedules/GEGA-999999/diff", {"from": 1, "to": 1}), 404)
    api.force_authenticate(people.compliance_wa)
    refused(api.get(URL, {"from": 1, "to": 1}), 404)
