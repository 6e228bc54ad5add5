"""A round stored compactly (issue 26): its fee lines as compact rows, what every round priced under one version and
option shares stored once (``RoundPricing``), and the explanation, fee lines and fees by payer rebuilt from the two
byte for byte as the ledger stored them before (the reference: ``fees.ledger.rounds.lines_of`` and ``explain``)."""

import datetime
import json
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from cardroom.models import Game, Table
from fees.engine import FeeLine, Option, QuoteError, Schedule, Seat, Tier, compact
from fees.engine.washington import WashingtonFee, quote_washington_hand, quote_washington_time
from fees.ledger import compact as ledger_compact
from fees.ledger.rounds import lines_of
from fees.models import RoundOfPlay, RoundPricing, ScheduleVersion, TablePosting
from fees.quotes import quoting
from tests.factories import make_posted_table, make_table, store_posting

LA = ZoneInfo("America/Los_Angeles")
ROUNDS = "/api/v1/ledger/rounds/"
POSTED_FROM = datetime.datetime(2026, 3, 1, 6, 0, tzinfo=LA)
PLAYED = datetime.datetime(2026, 3, 3, 2, 0, tzinfo=LA)
# What each family of the seed data is played with: California wagers (one player, several, bonus and backline,
# small and large), poker hands (players, flop, river) and time-collection periods.
WAGERS = [
    [{"player": "p1", "base": "5"}],
    [{"player": "p1", "base": "150", "bonus": "25", "backline": False}, {"player": "p1", "base": "20"},
     {"player": "p2", "base": "40", "backline": True}],
    [{"player": f"p{i}", "base": str(base)} for i, base in enumerate((10, 100, 250, 500, 1000, 2000), start=1)],
    [{"player": "p1", "base": "3000", "bonus": "500"}, {"player": "p2", "base": "75.50"}],
]
# Under $300 of table action: what GEGA-002888 option 43 (the tables' default posting) prices.
OPTION_43 = [WAGERS[0], WAGERS[1], [{"player": "p1", "base": "60"}, {"player": "p2", "base": "90", "bonus": "10"}]]
POKER = [{"players": players, "reached_flop": flop, "reached_river": river}
         for players in (2, 5, 6, 10) for flop, river in ((False, False), (True, False), (True, True))]
SEATED = {"seated_from": "2026-03-03T20:00:00-08:00", "seated_to": "2026-03-03T21:15:00-08:00"}
TIME = [
    {"game_started_at": "2026-03-03T20:00:00-08:00", "game_ended_at": "2026-03-03T21:15:00-08:00",
     "players": [{"player": "a", **SEATED}, {"player": "b", **SEATED, "seated_from": "2026-03-03T20:40:00-08:00"}]},
    {"game_started_at": "2026-03-03T20:00:00-08:00", "game_ended_at": "2026-03-03T20:10:00-08:00",
     "players": [{"player": "a", "seated_from": "2026-03-03T20:00:00-08:00",
                  "seated_to": "2026-03-03T20:10:00-08:00"}]},
]


def stored(value):
    """What the ledger's JSON columns held (DjangoJSONEncoder on the way in, JSON on the way out)."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def reference(schedule, option, quote, as_of):
    """The old form, from the old functions: (explanation, expected_lines, expected_by_payer) as stored."""
    lines, by_payer = lines_of(quote)
    return tuple(stored(part) for part in (quoting.explain(schedule, option, quote, as_of=as_of), lines, by_payer))


def assert_rebuilt_exactly(old, tiers=None):
    body, fee_lines, per_round = compact.split(*old, tiers=tiers)
    # Through the database: the body as JSON (keys reordered, as jsonb may), the lines as their stored text.
    again = compact.rebuild(shuffled(json.loads(json.dumps(body))), compact.decode(compact.encode(fee_lines)),
                            per_round)
    for was, now in zip(old, again):
        assert json.dumps(now) == json.dumps(was)  # byte for byte, key order included
    return body, fee_lines


def shuffled(value):
    """``value`` with every object's keys in reverse order (jsonb keeps no order)."""
    if isinstance(value, dict):
        return {key: shuffled(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [shuffled(item) for item in value]
    return value


# -- the pure module -------------------------------------------------------------------------------------------------

STAND_IN = Schedule(code="WAC-230-15-080", title="Washington house fees", version=1, effective_from=None,
                    currency="USD", citation="WAC 230-15-080",
                    options=(Option(number=1, basis="per_hand", label="", citation="", interval_minutes=None,
                                    tiers=()),))


@pytest.mark.parametrize("quote", [
    quote_washington_hand(WashingtonFee("per_hand", amount="1.00"), players=6),
    quote_washington_hand(WashingtonFee("rake", percent="10", cap="4"), players=5, pot=Decimal("57.35")),
    quote_washington_hand(WashingtonFee("rake", percent="5"), players=5, pot=Decimal("20")),
    quote_washington_time(WashingtonFee("time", amount="2", interval_minutes=30),
                          game_started_at=datetime.datetime(2026, 3, 3, 19, tzinfo=LA),
                          game_ended_at=datetime.datetime(2026, 3, 3, 21, 10, tzinfo=LA),
                          seats=[Seat("a", datetime.datetime(2026, 3, 3, 19, tzinfo=LA),
                                      datetime.datetime(2026, 3, 3, 21, 10, tzinfo=LA)),
                                 Seat("b", datetime.datetime(2026, 3, 3, 20, 5, tzinfo=LA),
                                      datetime.datetime(2026, 3, 3, 21, 10, tzinfo=LA))]),
], ids=["per-hand", "rake-capped", "rake-whole-pot", "time"])
def test_washington_lines_and_their_notes_rebuild_exactly(quote):
    old = reference(STAND_IN, STAND_IN.options[0], quote, datetime.date(2026, 3, 3))
    _, fee_lines = assert_rebuilt_exactly(old)
    notes = [line["note"] for line in old[0]["fees"]]
    assert [compact.row(line)[7] for line in fee_lines] == notes


TIER = Tier(order=1, fee_kind="player", payer="player", measure="base_wager", lower=Decimal("1"),
            upper=Decimal("100"), fee=Decimal("1"), taken="before_deal", printed_bounds="$1-100", printed_fee="$1")


def explained(*lines):
    option = Option(number=1, basis="base_wager_flat_player_dealer", label="", citation="Option 1",
                    interval_minutes=None, tiers=(TIER,))
    schedule = Schedule(code="T-1", title="Test", version=1, effective_from=datetime.date(2026, 1, 1),
                        currency="USD", citation="Test", options=(option,))
    quote = type("Quote", (), {"lines": lines})()
    return reference(schedule, option, quote, datetime.date(2026, 3, 3))


def test_a_line_with_an_unquantized_amount_keeps_both_forms():
    # A Decimal measured is written "25" in the fee lines and "25.00" in the explanation: both come back.
    old = explained(FeeLine("player", "a", "player", "base_wager", Decimal("25"), TIER, Decimal("1.00")),
                    FeeLine("player", None, "player", "base_wager", 3, None, Decimal("0.50"), "a note"))
    assert (old[1][0]["measured"], old[0]["fees"][0]["measured"]) == ("25", "25.00")
    assert old[1][1]["player"] == "" and old[0]["fees"][1]["player"] is None
    assert_rebuilt_exactly(old)


@pytest.mark.parametrize("spoil, message", [
    (lambda old: old[0].update(extra="kept nowhere"), "explanation would not be rebuilt"),
    (lambda old: old[0]["fees"][0]["tier"].update(printed_fee="$2"), "explanation would not be rebuilt"),
    (lambda old: old[1].pop(), "as many lines"),
    (lambda old: old[1][0].update(fee="9.99"), "expected_lines would not be rebuilt"),
    (lambda old: old[2][0].update(fee="1.01"), "expected_by_payer would not be rebuilt"),
    (lambda old: old[0]["fees"][0].pop("note"), r"not an account explain\(\) writes"),
    (lambda old: old[1][0].update(measured=1.5), "would not be rebuilt"),
    (lambda old: old[0].update(title=Decimal("1")), "does not rebuild"),  # not JSON: would not be stored as is
])
def test_split_refuses_what_it_would_not_give_back(spoil, message):
    old = explained(FeeLine("player", "a", "player", "base_wager", Decimal("25.00"), TIER, Decimal("1.00")),
                    FeeLine("player", "b", "player", "base_wager", Decimal("30.00"), TIER, Decimal("1.00")))
    spoil(old)
    with pytest.raises(compact.NotCompactable, match=message):
        compact.split(*old, tiers=[old[0]["fees"][1]["tier"]])


def test_a_round_stored_with_no_account_has_no_pricing():
    assert compact.split({}, [], []) == (None, [], {"as_of": None})
    assert compact.rebuild(None, [], {"as_of": None}) == ({}, [], [])


# -- every family of the seed data -----------------------------------------------------------------------------------

def facts_for(option):
    if option.basis == "poker_drop":
        return POKER
    if option.basis == "time_collection":
        return TIME
    return [{"wagers": wagers} for wagers in WAGERS]


@pytest.mark.django_db
def test_every_seeded_option_rebuilds_exactly_and_shares_one_body(people):
    quoted, kinds = {}, set()
    for version in ScheduleVersion.objects.filter(status="published").select_related("document__source"):
        schedule = quoting.snapshot(version)
        for option in schedule.options:
            tiers = compact.option_tiers(schedule, option)
            bodies = set()
            for facts in facts_for(option):
                try:
                    quote = quoting.quote_facts(schedule, option.number, facts)
                except QuoteError:
                    continue  # facts this option does not price (out of its bands, a basis it leaves open)
                old = reference(schedule, option, quote, datetime.date(2026, 3, 3))
                body, _ = assert_rebuilt_exactly(old, tiers)
                bodies.add(compact.digest(body))
                quoted[option.basis] = quoted.get(option.basis, 0) + 1
                kinds |= {line["fee_kind"] for line in old[1]}
            assert len(bodies) <= 1, (schedule.code, option.number)  # whatever tiers a round's lines used
    # Every family was priced, many times over.
    assert {basis for basis, count in quoted.items() if count >= 4} >= {
        "total_table_action", "base_wager_flat_player_dealer", "base_wager_and_table_action",
        "player_total_wager_flat_player_dealer", "player_total_wager_and_table_action", "poker_drop",
        "time_collection"}
    assert kinds >= {"player", "player_dealer", "collection", "designated_table", "jackpot", "time"}


# -- recorded rounds, through the API ---------------------------------------------------------------------------------

def record(api, table, reference_, facts, played_at=PLAYED):
    answer = api.post(ROUNDS, {"table": table.pk, "reference": reference_, "played_at": played_at.isoformat(),
                               "facts": facts}, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def engine_reference(table, facts, played_at=PLAYED):
    """What the engine gives today for a round at ``table``: the old form, by the old functions."""
    posting = TablePosting.objects.select_related("schedule").in_force(table, played_at)
    schedule, option, quote = quoting.quote_posting(posting, facts, played_at)
    return reference(schedule, option, quote, played_at.date())


FAMILIES = [
    # (schedule, option, game, seats, facts)
    ("GEGA-002888", 43, "face-up-pai-gow-poker", 7, {"wagers": WAGERS[1]}),  # per-wager tiers, table action
    ("GEGA-002888", 1, "face-up-pai-gow-poker", 7, {"wagers": WAGERS[2]}),  # table action only
    ("CMV-CA-PLAYER-WAGER", 6, "face-up-pai-gow-poker", 7, {"wagers": WAGERS[1]}),  # the player's total wager
    ("GEGA-000697", 1, "texas-holdem-with-kill-pots", 10, POKER[7]),  # poker drop: flop, players
    ("GEGA-000697", 1, "texas-holdem-with-kill-pots", 10, POKER[8]),  # ... to the river
    ("GEGA-000700", 1, "texas-holdem-with-kill-pots", 10, POKER[11]),  # another poker schedule
    ("CMV-POKER-HOLDEM", 1, "texas-holdem-with-kill-pots", 10, POKER[11]),  # a jackpot fee
    ("GEGA-000702", 1, "lowball", 8, TIME[0]),  # half-hour time collection
]


@pytest.mark.django_db
@pytest.mark.parametrize("code, option, game, seats, facts", FAMILIES,
                         ids=[f"{f[0]}-{f[1]}-{i}" for i, f in enumerate(FAMILIES)])
def test_a_recorded_round_answers_as_the_engine_gives_it_today(api, people, code, option, game, seats, facts):
    table = make_posted_table(people.marysville, label="C-1", seats=seats, game=game, schedule=code, option=option,
                              effective_from=POSTED_FROM)
    api.force_authenticate(people.floor)
    old = engine_reference(table, facts)
    body = record(api, table, "H-1", facts)
    assert list(body) == ["id", "table", "table_label", "establishment", "gaming_day", "reference", "played_at",
                          "facts", "posting", "schedule", "schedule_version", "option", "expected_total", "currency",
                          "expected_by_payer", "expected_lines", "explanation", "recorded_by", "recorded_at"]
    for name, was in zip(("explanation", "expected_lines", "expected_by_payer"), old):
        assert json.dumps(body[name]) == json.dumps(was), name
    # The detail and the list answer the same, and so does the model's rebuild.
    assert api.get(f"{ROUNDS}{body['id']}/").json() == body
    assert api.get(ROUNDS, {"gaming_day": body["gaming_day"]}).json()["results"] == [body]
    round_ = RoundOfPlay.objects.get(pk=body["id"])
    assert [json.dumps(part) for part in ledger_compact.rebuilt(round_)] == [json.dumps(part) for part in old]
    assert round_.pricing.schedule_code == code and round_.pricing.option_number == option
    assert round_.priced_on == PLAYED.date()


@pytest.mark.django_db
def test_rounds_under_one_version_and_option_share_one_pricing(api, people):
    table = make_posted_table(people.marysville, label="C-1", effective_from=POSTED_FROM)
    other = make_posted_table(people.marysville, label="C-2", effective_from=POSTED_FROM, option=1)
    api.force_authenticate(people.floor)
    for i, wagers in enumerate(OPTION_43):  # different tiers used each time
        record(api, table, f"H-{i}", {"wagers": wagers}, PLAYED + datetime.timedelta(days=i))
    record(api, other, "H-0", {"wagers": WAGERS[0]})
    assert RoundPricing.objects.count() == 2
    first = RoundOfPlay.objects.filter(table=table)
    assert len({r.pricing_id for r in first}) == 1
    assert {r.priced_on for r in first} == {PLAYED.date() + datetime.timedelta(days=i) for i in range(3)}
    pricing = first[0].pricing
    assert (pricing.schedule_code, pricing.schedule_version, pricing.option_number) == ("GEGA-002888", 1, 43)
    assert pricing.digest == compact.digest(pricing.body)
    # The body holds the shared part once; a round holds its lines alone.
    assert "fees" not in pricing.body["explanation"] and "as_of" not in pricing.body["explanation"]
    assert all(len(json.loads(r.fee_lines)) == len(ledger_compact.rebuilt(r)[1]) for r in first)


@pytest.mark.django_db
def test_an_option_read_through_an_approved_interpretation_rebuilds_exactly(api, people):
    from tests.fees.schedules.test_interpretations import approve_all, propose_all

    version = ScheduleVersion.objects.select_related("document").get(document__code="CMV-CA-FEES-PAI-GOW", number=1)
    table = Table.objects.create(establishment=people.marysville, label="PG-1", seats=7,
                                 game=Game.objects.get(slug="pai-gow-poker"))
    store_posting(table, schedule="CMV-CA-FEES-PAI-GOW", option=1, effective_from=POSTED_FROM)
    approve_all(propose_all(version, people), people)
    api.force_authenticate(people.floor)
    facts = {"wagers": [{"player": "p1", "base": "150"}, {"player": "p2", "base": "40"}]}
    old = engine_reference(table, facts)
    assert old[0]["interpretations"] and any(line["tier"].get("interpretations") for line in old[0]["fees"])
    body = record(api, table, "H-1", facts)
    for name, was in zip(("explanation", "expected_lines", "expected_by_payer"), old):
        assert json.dumps(body[name]) == json.dumps(was), name
    assert RoundPricing.objects.get().body["explanation"]["interpretations"] == old[0]["interpretations"]


@pytest.mark.django_db
def test_a_pricing_rolled_back_and_its_id_given_to_another_is_not_remembered_for_it(api, people):
    """Bodies are remembered by digest, not by id: a pricing written and rolled back (and on SQLite its id then
    given to the next pricing) never answers for another."""
    from django.db import transaction

    first = make_posted_table(people.marysville, label="C-1", effective_from=POSTED_FROM)
    other = make_posted_table(people.marysville, label="C-2", effective_from=POSTED_FROM, option=1)
    api.force_authenticate(people.floor)
    with pytest.raises(RuntimeError), transaction.atomic():
        record(api, first, "H-1", {"wagers": WAGERS[0]})
        rolled_back = RoundOfPlay.objects.get().pricing_id
        assert ledger_compact.rebuilt(RoundOfPlay.objects.get())[0]["option"] == 43  # read, so remembered
        raise RuntimeError("rolled back")
    body = record(api, other, "H-1", {"wagers": WAGERS[0]})
    assert body["explanation"]["option"] == 1
    round_ = ledger_compact.with_pricing_digest(RoundOfPlay.objects.all()).get()
    assert ledger_compact.rebuilt(round_)[0]["option"] == 1
    assert connection.vendor == "postgresql" or round_.pricing_id == rolled_back  # SQLite gives the id again


@pytest.mark.django_db
def test_rounds_from_outside_the_engine_still_answer_with_empty_accounts(api, people):
    table = make_posted_table(people.marysville, label="C-1", effective_from=POSTED_FROM)
    posting = TablePosting.objects.get(table=table)
    RoundOfPlay.objects.create(establishment=table.establishment, table=table, gaming_day=PLAYED.date(),
                               reference="X-1", played_at=PLAYED, facts={}, posting=posting,
                               schedule_code="GEGA-002888", schedule_version=1, option_number=43,
                               expected_total=Decimal("0.00"), currency="USD")
    api.force_authenticate(people.floor)
    body = api.get(ROUNDS, {"gaming_day": PLAYED.date().isoformat()}).json()["results"][0]
    assert (body["explanation"], body["expected_lines"], body["expected_by_payer"]) == ({}, [], [])


@pytest.mark.django_db
def test_pricings_are_append_only(api, people):
    from fees.models import LedgerImmutableError

    table = make_posted_table(people.marysville, label="C-1", effective_from=POSTED_FROM)
    api.force_authenticate(people.floor)
    record(api, table, "H-1", {"wagers": WAGERS[0]})
    pricing = RoundPricing.objects.get()
    with pytest.raises(LedgerImmutableError):
        pricing.save()
    with pytest.raises(LedgerImmutableError):
        RoundPricing.objects.update(body={})
    with pytest.raises(LedgerImmutableError):
        RoundPricing.objects.all().delete()


# -- the export's rows -----------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_fee_line_rows_give_every_line_of_every_round_in_order(api, people):
    table = make_posted_table(people.marysville, label="C-1", effective_from=POSTED_FROM)
    timed = make_posted_table(people.marysville, label="T-1", seats=8, game="lowball", schedule="GEGA-000702",
                              option=1, effective_from=POSTED_FROM)
    api.force_authenticate(people.floor)
    record(api, table, "H-1", {"wagers": WAGERS[1]})
    record(api, timed, "T-1", TIME[0], datetime.datetime(2026, 3, 3, 21, 15, tzinfo=LA))
    rounds = RoundOfPlay.objects.order_by("id")
    rows = list(ledger_compact.fee_line_rows(rounds))
    expected = []
    for round_ in rounds:
        explanation, lines, _ = ledger_compact.rebuilt(round_)
        for number, (fee, line) in enumerate(zip(explanation["fees"], lines), start=1):
            expected.append((round_.pk, number, fee["payer"], fee["player"], fee["fee_kind"], fee["measure"],
                             None if fee["tier"] is None else fee["tier"]["order"],
                             None if line["measured"] is None else str(line["measured"]), fee["fee"], fee["note"]))
    assert rows == expected
    assert any(row[9] for row in rows) and any(row[3] is None for row in rows)  # notes and no-player lines seen
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"{ledger_compact.fee_lines_sql()} ORDER BY r.id, l.number")
            assert [c.name for c in cursor.description] == ["round_id", "line_number", *compact.LINE_FIELDS]
            assert cursor.fetchall() == rows


# -- the migration ---------------------------------------------------------------------------------------------------

def old_rounds(apps, people, rounds):
    """Rounds written as the ledger wrote them before 0013: (round, facts, old form) for each."""
    OldRound = apps.get_model("fees", "RoundOfPlay")
    made = []
    for table, reference_, facts, played_at in rounds:
        posting = TablePosting.objects.select_related("schedule").in_force(table, played_at)
        schedule, option, quote = quoting.quote_posting(posting, facts, played_at)
        old = reference(schedule, option, quote, played_at.date())
        made.append((OldRound.objects.create(
            establishment_id=table.establishment_id, table_id=table.pk, gaming_day=played_at.date(),
            reference=reference_, played_at=played_at, facts=facts, posting_id=posting.pk,
            schedule_code=schedule.code, schedule_version=schedule.version, option_number=option.number,
            expected_total=Decimal(quote.total), currency="USD", explanation=old[0], expected_lines=old[1],
            expected_by_payer=old[2]).pk, old))
    return made


@pytest.mark.migrations
@pytest.mark.django_db(transaction=True)
def test_migration_0013_moves_every_round_and_back(reseed, people):
    table = make_posted_table(people.marysville, label="M-1", effective_from=POSTED_FROM)
    poker = make_posted_table(people.marysville, label="M-2", seats=10, game="texas-holdem-with-kill-pots",
                              schedule="GEGA-000697", option=1, effective_from=POSTED_FROM)
    timed = make_posted_table(people.marysville, label="M-3", seats=8, game="lowball", schedule="GEGA-000702",
                              option=1, effective_from=POSTED_FROM)
    plain = make_table(people.marysville, label="M-4")
    posting = store_posting(plain, effective_from=POSTED_FROM)

    executor = MigrationExecutor(connection)
    executor.migrate([("fees", "0012_variance_summaries")])
    apps = executor.loader.project_state([("fees", "0012_variance_summaries")]).apps
    hour = datetime.timedelta(hours=1)
    made = old_rounds(apps, people, [
        (table, f"H-{i}", {"wagers": wagers}, PLAYED + i * hour) for i, wagers in enumerate(OPTION_43)
    ] + [(poker, f"P-{i}", facts, PLAYED + i * hour) for i, facts in enumerate(POKER[:6])] + [
        (timed, "T-1", TIME[0], datetime.datetime(2026, 3, 3, 21, 15, tzinfo=LA))])
    # A round stored with no account (as a fixture or a generated row would be).
    empty = apps.get_model("fees", "RoundOfPlay").objects.create(
        establishment_id=plain.establishment_id, table_id=plain.pk, gaming_day=PLAYED.date(), reference="E-1",
        played_at=PLAYED, facts={}, posting_id=posting.pk, schedule_code="GEGA-002888", schedule_version=1,
        option_number=43, expected_total=Decimal("0.00"), currency="USD")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([("fees", "0013_rounds_compact")])
    for pk, old in made:
        again = ledger_compact.rebuilt(RoundOfPlay.objects.get(pk=pk))
        assert [json.dumps(part) for part in again] == [json.dumps(part) for part in old], pk
    assert ledger_compact.rebuilt(RoundOfPlay.objects.get(pk=empty.pk)) == ({}, [], [])
    assert RoundOfPlay.objects.get(pk=empty.pk).pricing_id is None
    # One pricing per version and option (as read): three here, whatever tiers each round used.
    assert RoundPricing.objects.count() == 3

    # Backwards: the three columns rebuilt (on PostgreSQL compared as jsonb keeps them: without key order).
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([("fees", "0012_variance_summaries")])
    apps = executor.loader.project_state([("fees", "0012_variance_summaries")]).apps
    OldRound = apps.get_model("fees", "RoundOfPlay")
    for pk, old in made:
        back = OldRound.objects.get(pk=pk)
        assert [back.explanation, back.expected_lines, back.expected_by_payer] == list(old), pk
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.migrations
@pytest.mark.django_db(transaction=True)
def test_migration_0013_stops_naming_a_round_it_would_not_rebuild(reseed, people):
    table = make_posted_table(people.marysville, label="M-1", effective_from=POSTED_FROM)
    executor = MigrationExecutor(connection)
    executor.migrate([("fees", "0012_variance_summaries")])
    apps = executor.loader.project_state([("fees", "0012_variance_summaries")]).apps
    (pk, old), = old_rounds(apps, people, [(table, "H-1", {"wagers": WAGERS[1]}, PLAYED)])
    OldRound = apps.get_model("fees", "RoundOfPlay")
    spoiled = OldRound.objects.create(**{
        **{f.attname: getattr(OldRound.objects.get(pk=pk), f.attname) for f in OldRound._meta.concrete_fields
           if not f.primary_key},
        "reference": "H-2", "explanation": {**old[0], "unknown": "kept nowhere"}})
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    with pytest.raises(RuntimeError, match=f"Round {spoiled.pk} .*cannot be stored compactly"):
        executor.migrate([("fees", "0013_rounds_compact")])
    # Nothing changed: the rounds keep their columns and values.
    assert OldRound.objects.get(pk=spoiled.pk).explanation["unknown"] == "kept nowhere"
    assert OldRound.objects.get(pk=pk).explanation == old[0]
    OldRound.objects.filter(pk=spoiled.pk).delete()  # the historical model is a plain one
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert [json.dumps(part) for part in ledger_compact.rebuilt(RoundOfPlay.objects.get(pk=pk))] == [
        json.dumps(part) for part in old]
