"""The collection ledger: entries single and in bulk (idempotent, all or nothing), corrections, append-only
rows, access by role, and rounds priced by the engine against the posting in force."""

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from cardroom.models import AuditLogEntry, Game, Table
from fees.models import CollectionEntry, LedgerImmutableError, RoundOfPlay
from tests.factories import make_posted_table, make_table, store_posting

pytestmark = pytest.mark.django_db

ENTRIES = "/api/v1/ledger/entries/"
BULK = ENTRIES + "bulk/"
ROUNDS = "/api/v1/ledger/rounds/"
DAY = "2026-03-03"
# A list of the ledger names its gaming days (cardroom.api.filters.DayBounded).
MARCH = {"gaming_day_from": "2026-03-01", "gaming_day_to": "2026-03-31"}
POSTED_FROM = datetime.datetime(2026, 3, 1, 6, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-8)))
CALIFORNIA_ROUND = {"wagers": [
    {"player": "p1", "base": "150", "bonus": "25", "backline": False},
    {"player": "p1", "base": "20"},
    {"player": "p2", "base": "40", "backline": True},
]}


def post(table, schedule, option, game, at=POSTED_FROM):
    return store_posting(table, schedule=schedule, option=option, game=game, effective_from=at)


@pytest.fixture
def table(people):
    return make_posted_table(people.marysville, label="L-7", effective_from=POSTED_FROM)


@pytest.fixture
def poker_table(people):
    return make_posted_table(people.marysville, label="P-1", seats=10, game="texas-holdem-with-kill-pots",
                             schedule="GEGA-000697", option=1, effective_from=POSTED_FROM)


@pytest.fixture
def wa_table(people):
    return make_table(people.wa_room, label="W-1", seats=9, game=None)


def entry(table, key, reference="H-1", amount="3.00", **extra):
    return {"idempotency_key": key, "table": table.pk, "gaming_day": DAY, "reference": reference,
            "collected_at": "2026-03-03T02:30:00-08:00", "payer": "player", "seat": 1, "fee_kind": "player",
            "amount": amount, **extra}


def batch(table, n=3, prefix="b"):
    return [entry(table, f"{prefix}-{i}", reference=f"H-{i}", seat=i % 7 + 1) for i in range(n)]


# -- single entries ------------------------------------------------------------------------------------------

def test_one_entry_is_recorded_with_money_as_a_string_and_its_currency(api, people, table):
    api.force_authenticate(people.floor)
    response = api.post(ENTRIES, entry(table, "e-1"), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["amount"] == "3.00" and body["currency"] == "USD"
    assert body["recorded_by"] == "t-floor" and body["effective"] is True and body["corrects"] is None
    assert body["establishment"] == "casino-marysville" and body["gaming_day"] == DAY


def test_retrying_one_entry_returns_the_one_recorded(api, people, table):
    api.force_authenticate(people.floor)
    first = api.post(ENTRIES, entry(table, "e-1"), format="json")
    again = api.post(ENTRIES, entry(table, "e-1"), format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    assert CollectionEntry.objects.count() == 1


def test_the_key_may_come_in_a_header(api, people, table):
    api.force_authenticate(people.floor)
    row = entry(table, None)
    del row["idempotency_key"]
    response = api.post(ENTRIES, row, format="json", HTTP_IDEMPOTENCY_KEY="from-header")
    assert response.status_code == 201 and response.json()["idempotency_key"] == "from-header"
    missing = api.post(ENTRIES, row, format="json")
    assert missing.status_code == 400 and "idempotency_key" in missing.json()["error"]["message"]


def test_a_key_reused_for_a_different_entry_is_a_conflict(api, people, table):
    api.force_authenticate(people.floor)
    api.post(ENTRIES, entry(table, "e-1"), format="json")
    response = api.post(ENTRIES, entry(table, "e-1", amount="4.00"), format="json")
    assert response.status_code == 409
    assert "idempotency key" in response.json()["error"]["message"]
    assert CollectionEntry.objects.get().amount == Decimal("3.00")


# -- bulk ----------------------------------------------------------------------------------------------------

def test_a_retried_bulk_post_records_each_row_once(api, people, table):
    api.force_authenticate(people.floor)
    rows = batch(table, 500)
    first = api.post(BULK, {"entries": rows}, format="json")
    assert first.status_code == 201, first.json()
    assert first.json() == {"received": 500, "created": 500, "already_recorded": 0}
    again = api.post(BULK, {"entries": rows}, format="json")
    assert again.status_code == 200
    assert again.json() == {"received": 500, "created": 0, "already_recorded": 500}
    # A retry that carries the rows already recorded plus new ones records only the new ones.
    more = api.post(BULK, {"entries": rows + batch(table, 10, prefix="c")}, format="json")
    assert more.json() == {"received": 510, "created": 10, "already_recorded": 500}
    assert CollectionEntry.objects.count() == 510
    assert CollectionEntry.objects.filter(idempotency_key="b-7").get().seat == 1


def test_a_batch_key_gives_each_row_its_key(api, people, table):
    api.force_authenticate(people.compliance)
    rows = [{k: v for k, v in row.items() if k != "idempotency_key"} for row in batch(table, 4)]
    assert api.post(BULK, {"idempotency_key": "shift-42", "entries": rows}, format="json").status_code == 201
    assert api.post(BULK, {"entries": rows}, format="json", HTTP_IDEMPOTENCY_KEY="shift-42").json()["created"] == 0
    keys = sorted(CollectionEntry.objects.values_list("idempotency_key", flat=True))
    assert keys == ["shift-42:0", "shift-42:1", "shift-42:2", "shift-42:3"]


BAD_ROWS = [
    ({"amount": "abc"}, "amount"),
    ({"amount": "-1.00"}, "amount"),
    ({"amount": "1.005"}, "amount"),
    ({"amount": 3.0}, "amount"),
    ({"collected_at": "2026-03-03T02:30:00"}, "collected_at"),
    ({"collected_at": "yesterday"}, "collected_at"),
    ({"gaming_day": "03/03/2026"}, "gaming_day"),
    ({"payer": "dealer"}, "payer"),
    ({"fee_kind": "tip"}, "fee_kind"),
    ({"seat": 12}, "seat"),
    ({"seat": None, "player": ""}, "payer"),
    ({"table": 999999}, "table"),
    ({"table": 10 ** 20}, "table"),
    ({"table": "7"}, "table"),
    ({"seat": 10 ** 20}, "seat"),
    ({"reference": ""}, "reference"),
    ({"reference": "H\t1"}, "reference"),
    ({"reference": "x" * 65}, "reference"),
    ({"player": "p\x001"}, "player"),
    ({"idempotency_key": ["k"]}, "idempotency_key"),
    ({"currency": "EUR"}, "currency"),
    ({"colour": "red"}, "unknown"),
]


def test_one_bad_row_rejects_the_batch_and_names_it(api, people, table):
    api.force_authenticate(people.floor)
    for bad, field in BAD_ROWS:
        rows = batch(table, 6)
        rows[4] = {**rows[4], **bad}
        response = api.post(BULK, {"entries": rows}, format="json")
        assert response.status_code == 400, (bad, response.json())
        message = response.json()["error"]["message"]
        assert "entries[4]" in message and field in message, message
        # A NUL is refused as the body is read, before any row is looked at; either way nothing is recorded.
        assert "Nothing was recorded" in message or "NUL" in message
    assert CollectionEntry.objects.count() == 0


def test_malformed_bulk_bodies_are_400(api, people, table):
    api.force_authenticate(people.floor)
    for body in ([], {"entries": []}, {"entries": "x"}, {"entries": [1]}, {"rows": []}, "x"):
        response = api.post(BULK, body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert response.json()["error"]["status"] == 400


def test_a_key_used_twice_in_one_batch_is_400(api, people, table):
    api.force_authenticate(people.floor)
    rows = batch(table, 3)
    rows[2]["idempotency_key"] = rows[0]["idempotency_key"]
    response = api.post(BULK, {"entries": rows}, format="json")
    assert response.status_code == 400 and "entries[2]" in response.json()["error"]["message"]
    assert CollectionEntry.objects.count() == 0


def test_a_bulk_retry_with_one_changed_row_conflicts_and_records_nothing(api, people, table):
    api.force_authenticate(people.floor)
    rows = batch(table, 5)
    api.post(BULK, {"entries": rows[:3]}, format="json")
    rows[1] = {**rows[1], "amount": "9.00"}
    response = api.post(BULK, {"entries": rows}, format="json")
    assert response.status_code == 409
    assert "Row 1" in response.json()["error"]["message"]
    assert CollectionEntry.objects.count() == 3


# -- corrections ---------------------------------------------------------------------------------------------

def test_a_correction_replaces_the_amount_and_keeps_the_original(api, people, table):
    api.force_authenticate(people.floor)
    original = api.post(ENTRIES, entry(table, "e-1", amount="3.00"), format="json").json()
    response = api.post(ENTRIES, {"idempotency_key": "e-1-fix", "corrects": original["id"], "amount": "2.00",
                                  "reason": "Seat 1 paid $2, miskeyed"}, format="json")
    assert response.status_code == 201, response.json()
    correction = response.json()
    assert correction["corrects"] == original["id"] and correction["amount"] == "2.00"
    assert (correction["reference"], correction["seat"], correction["table"]) == ("H-1", 1, table.pk)
    assert api.get(f"{ENTRIES}{original['id']}/").json()["corrected_by"] == correction["id"]
    assert api.get(f"{ENTRIES}{original['id']}/").json()["effective"] is False
    effective = api.get(ENTRIES, {"effective": "true", **MARCH}).json()
    assert [e["id"] for e in effective["results"]] == [correction["id"]]
    corrected = api.get(ENTRIES, {"effective": "false", "gaming_day": DAY}).json()
    assert [e["id"] for e in corrected["results"]] == [original["id"]]
    assert CollectionEntry.objects.effective().get().amount == Decimal("2.00")
    assert CollectionEntry.objects.get(pk=original["id"]).amount == Decimal("3.00")
    # Retrying the correction is harmless; correcting the corrected entry again is not.
    again = api.post(ENTRIES, {"idempotency_key": "e-1-fix", "corrects": original["id"], "amount": "2.00",
                               "reason": "Seat 1 paid $2, miskeyed"}, format="json")
    assert again.status_code == 200 and again.json()["id"] == correction["id"]
    second = api.post(ENTRIES, {"idempotency_key": "e-1-fix-2", "corrects": original["id"], "amount": "1.00",
                                "reason": "r"}, format="json")
    assert second.status_code == 409 and f"corrected by entry {correction['id']}" in second.json()["error"]["message"]
    # The chain goes on from the correction.
    chained = api.post(ENTRIES, {"idempotency_key": "e-1-fix-2", "corrects_key": "e-1-fix", "amount": "1.00",
                                 "reason": "Recounted"}, format="json")
    assert chained.status_code == 201
    assert list(CollectionEntry.objects.effective().values_list("amount", flat=True)) == [Decimal("1.00")]


def test_corrections_in_bulk_by_key(api, people, table):
    api.force_authenticate(people.floor)
    api.post(BULK, {"entries": batch(table, 3)}, format="json")
    fixes = [{"idempotency_key": f"fix-{i}", "corrects_key": f"b-{i}", "amount": "0.00", "reason": "refunded"}
             for i in range(2)]
    response = api.post(BULK, {"entries": fixes}, format="json")
    assert response.json()["created"] == 2
    assert CollectionEntry.objects.effective().count() == 3


def test_bad_corrections_are_400(api, people, table):
    api.force_authenticate(people.floor)
    original = api.post(ENTRIES, entry(table, "e-1"), format="json").json()
    for fix, field in [
        ({"amount": "1.00"}, "reason"),
        ({"reason": "r"}, "amount"),
        ({"amount": "1.00", "reason": "r", "reference": "H-9"}, "reference"),
        ({"amount": "1.00", "reason": "r", "corrects": 999999}, "corrects"),
        ({"amount": "1.00", "reason": "r", "corrects": 10 ** 20}, "corrects"),
        ({"amount": "1.00", "reason": "r", "corrects": "1"}, "corrects"),
        ({"amount": "1.00", "reason": "r", "corrects_key": "e-1"}, "not both"),
    ]:
        response = api.post(ENTRIES, {"idempotency_key": "fix", "corrects": original["id"], **fix}, format="json")
        assert response.status_code == 400, response.json()
        assert field in response.json()["error"]["message"]
    assert CollectionEntry.objects.count() == 1


def test_two_corrections_of_one_entry_in_a_batch_are_400(api, people, table):
    api.force_authenticate(people.floor)
    api.post(ENTRIES, entry(table, "e-1"), format="json")
    fixes = [{"idempotency_key": f"fix-{i}", "corrects_key": "e-1", "amount": "1.00", "reason": "r"}
             for i in range(2)]
    response = api.post(BULK, {"entries": fixes}, format="json")
    assert response.status_code == 400 and "entries[1]" in response.json()["error"]["message"]


# -- append-only ---------------------------------------------------------------------------------------------

def test_entries_are_never_changed_or_deleted(api, people, table):
    api.force_authenticate(people.compliance)
    created = api.post(ENTRIES, entry(table, "e-1"), format="json").json()
    stored = CollectionEntry.objects.get(pk=created["id"])
    stored.amount = Decimal("0.00")
    with pytest.raises(LedgerImmutableError):
        stored.save()
    with pytest.raises(LedgerImmutableError):
        stored.delete()
    with pytest.raises(LedgerImmutableError):
        CollectionEntry.objects.filter(pk=stored.pk).update(amount=0)
    with pytest.raises(LedgerImmutableError):
        CollectionEntry.objects.all().delete()
    for method in (api.put, api.patch, api.delete):
        response = method(f"{ENTRIES}{created['id']}/", {"amount": "0.00"}, format="json")
        assert response.status_code == 405
        assert response.json()["error"]["status"] == 405
    assert CollectionEntry.objects.get().amount == Decimal("3.00")


def test_rounds_are_never_changed_or_deleted(api, people, table):
    api.force_authenticate(people.floor)
    api.post(ROUNDS, {"table": table.pk, "reference": "H-1", "played_at": "2026-03-03T02:00:00-08:00",
                      "facts": CALIFORNIA_ROUND}, format="json")
    with pytest.raises(LedgerImmutableError):
        RoundOfPlay.objects.update(expected_total=0)
    with pytest.raises(LedgerImmutableError):
        RoundOfPlay.objects.get().delete()


# -- access --------------------------------------------------------------------------------------------------

def test_who_may_record_and_who_may_read(api, people, table, wa_table):
    for user in (people.floor, people.compliance, people.admin):
        api.force_authenticate(user)
        assert api.post(ENTRIES, entry(table, f"k-{user.username}"), format="json").status_code == 201, user
    for user in (people.regulator_ca, people.regulator_wa, people.outsider):
        api.force_authenticate(user)
        response = api.post(ENTRIES, entry(table, "never"), format="json")
        assert response.status_code == 403, user
        assert api.post(BULK, {"entries": batch(table, 2, prefix="x")}, format="json").status_code == 403
    # Staff of another establishment cannot record at this table, and Marysville cannot record in Washington.
    api.force_authenticate(people.compliance_wa)
    response = api.post(ENTRIES, entry(table, "wa"), format="json")
    assert response.status_code == 400 and "among the tables you may record at" in response.json()["error"]["message"]
    api.force_authenticate(people.floor)
    assert api.post(ENTRIES, entry(wa_table, "wa2", seat=2), format="json").status_code == 400
    assert CollectionEntry.objects.count() == 3

    def seen(user):
        api.force_authenticate(user)
        return len(api.get(ENTRIES, MARCH).json()["results"])

    assert [seen(u) for u in (people.floor, people.compliance, people.regulator_ca, people.admin)] == [3, 3, 3, 3]
    assert [seen(u) for u in (people.regulator_wa, people.compliance_wa, people.outsider)] == [0, 0, 0]
    some_id = CollectionEntry.objects.first().pk
    api.force_authenticate(people.outsider)
    assert api.get(f"{ENTRIES}{some_id}/").status_code == 404
    api.force_authenticate(None)
    assert api.get(ENTRIES, MARCH).status_code == 401


def test_filters(api, people, table, poker_table):
    api.force_authenticate(people.floor)
    api.post(BULK, {"entries": batch(table, 3)}, format="json")
    api.post(ENTRIES, entry(poker_table, "p-1", payer="pot", seat=None, fee_kind="collection",
                            gaming_day="2026-03-04", collected_at="2026-03-04T01:00:00-08:00"), format="json")

    def listed(**filters):
        return len(api.get(ENTRIES, filters).json()["results"])

    assert listed(table=poker_table.pk, **MARCH) == 1
    assert listed(gaming_day=DAY) == 3
    assert listed(gaming_day_from="2026-03-04", gaming_day_to="2026-03-04") == 1
    assert listed(establishment="casino-marysville", **MARCH) == 4
    assert listed(payer="pot", **MARCH) == 1
    assert api.get(ENTRIES, {"gaming_day": "not-a-date"}).status_code == 400


# -- rounds --------------------------------------------------------------------------------------------------

def test_a_california_round_expects_the_fee_of_the_posting_in_force(api, people, table):
    api.force_authenticate(people.floor)
    response = api.post(ROUNDS, {"table": table.pk, "gaming_day": DAY, "reference": "H-1",
                                 "played_at": "2026-03-03T02:00:00-08:00", "facts": CALIFORNIA_ROUND}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["schedule"], body["option"]) == ("GEGA-002888", 43)
    assert body["expected_total"] == "7.00" and body["currency"] == "USD"
    by_payer = {(p["payer"], p["player"]): p["fee"] for p in body["expected_by_payer"]}
    assert by_payer == {("player", "p1"): "3.00", ("player", "p2"): "1.00", ("player_dealer", ""): "3.00"}
    assert body["explanation"]["document"] == "GEGA-002888" and body["explanation"]["option"] == 43
    assert body["facts"] == CALIFORNIA_ROUND
    assert RoundOfPlay.objects.get().expected_total == Decimal("7.00")


def test_a_poker_hand_to_the_flop_with_six_players_expects_3(api, people, poker_table):
    api.force_authenticate(people.floor)
    response = api.post(ROUNDS, {"table": poker_table.pk, "reference": "P-1",
                                 "played_at": "2026-03-03T02:00:00-08:00",
                                 "facts": {"players": 6, "reached_flop": True, "reached_river": False}},
                        format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["expected_total"] == "3.00"
    assert response.json()["schedule"] == "GEGA-000697" and response.json()["gaming_day"] == DAY


def test_a_time_collection_period_expects_each_players_intervals(api, people):
    table = Table.objects.create(establishment=people.marysville, label="T-1", seats=8,
                                 game=Game.objects.get(slug="lowball"))
    post(table, "GEGA-000702", 1, "lowball")  # $3 from each player every 30 minutes
    api.force_authenticate(people.floor)
    seated = {"seated_from": "2026-03-03T20:00:00-08:00", "seated_to": "2026-03-03T21:15:00-08:00"}
    facts = {"game_started_at": "2026-03-03T20:00:00-08:00", "game_ended_at": "2026-03-03T21:15:00-08:00",
             "players": [{"player": "a", **seated},
                         {"player": "b", **seated, "seated_from": "2026-03-03T20:40:00-08:00"}]}
    response = api.post(ROUNDS, {"table": table.pk, "reference": "T-20:00", "played_at": "2026-03-03T21:15:00-08:00",
                                 "facts": facts}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["expected_total"] == "9.00" and body["schedule"] == "GEGA-000702"
    assert {(p["player"], p["fee"]) for p in body["expected_by_payer"]} == {("a", "6.00"), ("b", "3.00")}
    # What was taken from player a, by name (no seat): a time-collection entry.
    taken = api.post(ENTRIES, entry(table, "t-a", reference="T-20:00", seat=None, player="a", fee_kind="time",
                                    amount="6.00"), format="json")
    assert taken.status_code == 201 and taken.json()["player"] == "a" and taken.json()["seat"] is None


def test_the_posting_in_force_at_the_moment_of_play_is_used(api, people, table):
    # From noon on 3 March the table shows option 39 instead; a round before noon still uses option 43.
    post(table, "GEGA-002888", 39, "face-up-pai-gow-poker",
         at=datetime.datetime(2026, 3, 3, 12, 0, tzinfo=timezone.get_current_timezone()))
    api.force_authenticate(people.floor)
    before = api.post(ROUNDS, {"table": table.pk, "reference": "H-1", "played_at": "2026-03-03T11:59:00-08:00",
                               "facts": CALIFORNIA_ROUND}, format="json").json()
    after = api.post(ROUNDS, {"table": table.pk, "reference": "H-2", "played_at": "2026-03-03T12:00:00-08:00",
                              "facts": CALIFORNIA_ROUND}, format="json").json()
    assert (before["option"], after["option"]) == (43, 39)


def test_a_round_when_the_table_had_no_posting_is_400(api, people, table):
    api.force_authenticate(people.floor)
    response = api.post(ROUNDS, {"table": table.pk, "reference": "H-0", "played_at": "2026-02-01T02:00:00-08:00",
                                 "facts": CALIFORNIA_ROUND}, format="json")
    assert response.status_code == 400
    assert "had no posting at" in response.json()["error"]["message"]
    assert RoundOfPlay.objects.count() == 0


def test_bad_rounds_are_400_and_record_nothing(api, people, table):
    api.force_authenticate(people.floor)
    for body, words in [
        ({"facts": {"wagers": []}}, "wagers"),
        ({"facts": {"wagers": [{"player": "p1", "base": "abc"}]}}, "wagers[0]"),
        ({"facts": {"dice": 2}}, "Say what was played"),
        ({"facts": [1, 2]}, "facts"),
        ({"played_at": "soon"}, "played_at"),
        ({"played_at": "2026-03-03T02:00:00"}, "offset"),
        ({"table": "L-7"}, "table"),
        ({"table": 999999}, "table"),
        ({"table": 10 ** 20}, "table"),
        ({"reference": ""}, "reference"),
        ({"facts": {"wagers": [{"player": "p\x001", "base": "10"}]}}, "NUL"),
        ({"wagers": []}, "unknown field"),
    ]:
        full = {"table": table.pk, "reference": "H-1", "played_at": "2026-03-03T02:00:00-08:00",
                "facts": CALIFORNIA_ROUND, **body}
        response = api.post(ROUNDS, full, format="json")
        assert response.status_code == 400, (body, response.json())
        assert words in response.json()["error"]["message"], response.json()
    assert RoundOfPlay.objects.count() == 0


def test_a_round_is_recorded_once_per_table_day_and_reference(api, people, table):
    api.force_authenticate(people.floor)
    body = {"table": table.pk, "reference": "H-1", "played_at": "2026-03-03T02:00:00-08:00",
            "facts": CALIFORNIA_ROUND}
    first = api.post(ROUNDS, body, format="json")
    again = api.post(ROUNDS, body, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"]
    different = api.post(ROUNDS, {**body, "facts": {"wagers": [{"player": "p1", "base": "10"}]}}, format="json")
    assert different.status_code == 409
    assert RoundOfPlay.objects.count() == 1


def test_rounds_access(api, people, table):
    body = {"table": table.pk, "reference": "H-1", "played_at": "2026-03-03T02:00:00-08:00",
            "facts": CALIFORNIA_ROUND}
    for user in (people.regulator_ca, people.outsider):
        api.force_authenticate(user)
        assert api.post(ROUNDS, body, format="json").status_code == 403
    api.force_authenticate(people.compliance_wa)
    assert api.post(ROUNDS, body, format="json").status_code == 400
    api.force_authenticate(people.compliance)
    assert api.post(ROUNDS, body, format="json").status_code == 201
    api.force_authenticate(people.regulator_ca)
    assert len(api.get(ROUNDS, {"gaming_day": DAY}).json()["results"]) == 1
    for user in (people.regulator_wa, people.outsider, people.compliance_wa):
        api.force_authenticate(user)
        assert api.get(ROUNDS, {"gaming_day": DAY}).json()["results"] == []
    assert not AuditLogEntry.objects.filter(action="ledger.reconcile").exists()


# -- a key names one entry, reason and all (issue 23) ------------------------------------------------------------

def _a_correction_resent_with_another_reason_conflicts(api, people, table):
    api.force_authenticate(people.floor)
    original = api.post(ENTRIES, entry(table, "e-1"), format="json").json()
    fix = {"idempotency_key": "e-1-fix", "corrects": original["id"], "amount": "2.00", "reason": "Seat 1 paid $2"}
    assert api.post(ENTRIES, fix, format="json").status_code == 201
    assert api.post(ENTRIES, fix, format="json").status_code == 200  # the same content: already recorded
    other = api.post(ENTRIES, {**fix, "reason": "Seat 1 paid $2, the dealer miscounted"}, format="json")
    assert other.status_code == 409 and "'e-1-fix' is already recorded for a different entry" in \
        other.json()["error"]["message"]
    in_bulk = api.post(BULK, {"entries": [{**fix, "reason": "Another reason"}]}, format="json")
    assert in_bulk.status_code == 409
    assert CollectionEntry.objects.get(idempotency_key="e-1-fix").reason == "Seat 1 paid $2"
    assert CollectionEntry.objects.count() == 2


def test_a_correction_resent_with_another_reason_conflicts(api, people, table):
    _a_correction_resent_with_another_reason_conflicts(api, people, table)


@pytest.mark.services
def test_a_correction_resent_with_another_reason_conflicts_on_postgresql(api, people, table):
    from django.db import connection

    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    _a_correction_resent_with_another_reason_conflicts(api, people, table)
