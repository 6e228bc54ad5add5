"""A month of recorded play on the demo floor, for ``load_demo``: rounds and collections through the ledger
service, a realistic few of them short, missing or corrected, reconciled night by night.

Everything is written through ``fees.ledger`` as a recording terminal would write it: each round by
``record_round`` (priced by the engine against the table's posting), the collections in bulk by
``record_entries`` with an idempotency key per row, the corrections by a compliance officer with
``corrects_key`` and a reason, and each gaming day reconciled as the nightly task does
(``fees.ledger.services.reconcile`` as ``SYSTEM``). The play is drawn from a ``random.Random`` seeded per table and gaming
day, so every run plans the same hands and a second run records nothing new (rounds already recorded are not
sent again; entries are, and the ledger counts them as already recorded).

The volumes are a demo's, not a busy room's: each open table records a handful of rounds a gaming day, so that
``load_demo`` stays quick (it runs in ``bin/serve`` and in CI's live stage) while every page has a month to show.
"""

import datetime
import random
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from cardroom.models import Table
from cardroom.money import CENT
from cardroom.permissions import SYSTEM
from fees import ledger
from fees.ledger import compact
from fees.ledger import services as ledger_services
from fees.models import Reconciliation, RoundOfPlay, TablePosting
from fees.quotes import quoting

# October 2026: inside the demo postings' period (from 1 January 2026) and over before the demo's "today".
MONTH_START = datetime.date(2026, 10, 1)
MONTH_DAYS = 31
SEED = "cardroom-demo-play"
# Hours of play, counted from the start of the room's gaming day (its gaming_day_start, 00:00 at Marysville):
# the room opens at 10:00 and the last hand starts before 22:30, so every hand and its collection fall well
# inside the gaming day whatever the clocks do.
OPENS_AFTER = datetime.timedelta(hours=10)
LAST_START_BEFORE = datetime.timedelta(hours=22, minutes=30)
# Rounds an open table records in a gaming day: (weekday, Friday to Sunday).
ROUNDS_PER_DAY = {"hand": ((2, 4), (3, 5)), "session": ((1, 3), (2, 4))}
# A table is open every Friday, Saturday and Sunday, and on other days with this chance.
WEEKDAY_OPEN = 0.8
# Base wagers players make, trimmed to the posted table limits.
WAGERS = (5, 10, 10, 15, 20, 25, 25, 40, 50, 75, 100, 150, 200, 300, 500, 1000, 2000)
BONUS_BETS = ("1", "5", "5", "10")
ENTRY_BATCH = 5000
# Keyed wrongly at the table, then corrected by the compliance officer: (what was keyed, the reason given).
MISKEYINGS = (
    (lambda amount: amount * 10, "Keyed ${keyed} for ${amount}: a slipped decimal. Corrected from the count sheet."),
    (lambda amount: Decimal("0.00"), "Keyed as $0.00; the drop box count shows ${amount} collected."),
    (lambda amount: amount + 1, "Keyed ${keyed}; the count sheet and the camera show ${amount} collected."),
)
# One table whose evening's last hands go uncollected day after day: the pattern the variance page
# (fees.variance) and its finding (compliance.rules.variance) are for. Days counted from the first (0-based).
STREAK_TABLE, STREAK_DAYS, STREAK_HANDS = "5", range(12, 18), 2


@dataclass
class Hand:
    """One round planned for the ledger, and what happens to its collection."""

    table: Table
    day: datetime.date
    reference: str
    played_at: datetime.datetime
    facts: dict
    collected_after: datetime.timedelta
    fate: str = "collected"  # or "short", "missing", "corrected"


@dataclass
class PlayResult:
    first_day: datetime.date
    last_day: datetime.date
    hands: int = 0
    rounds_created: int = 0
    entries_received: int = 0
    entries_created: int = 0
    reconciliations_created: int = 0
    fates: dict = field(default_factory=dict)
    tables_played: list = field(default_factory=list)
    tables_skipped: dict = field(default_factory=dict)  # label -> why no round can be recorded there

    @property
    def added_anything(self):
        return bool(self.rounds_created or self.entries_created or self.reconciliations_created)


def record_month(establishment, *, recorder, corrector, first_day=MONTH_START, days=MONTH_DAYS):
    """Record ``days`` gaming days of play at ``establishment``'s posted tables from ``first_day`` on.

    ``recorder`` (a floor supervisor there) records the rounds and collections, ``corrector`` (a compliance
    officer there) the corrections. Returns a PlayResult counting what was planned and what was added.
    """
    from cardroom.access import Scope

    last_day = first_day + datetime.timedelta(days=max(days, 1) - 1)
    result = PlayResult(first_day=first_day, last_day=last_day)
    if days <= 0:
        return result
    tables = playable_tables(establishment, first_day, result)
    hands = plan_hands(establishment, tables, first_day, days)
    result.hands = len(hands)

    # Rounds: those not recorded yet, one by one through the ledger (priced by the engine).
    bodies = {}  # the rounds' shared pricing bodies, read once each
    recorded = {
        (table_id, day, reference): compact.rebuild_stored(pricing, lines, priced_on, bodies, digest)[1]
        for table_id, day, reference, pricing, lines, priced_on, digest in RoundOfPlay.objects.filter(
            establishment=establishment, gaming_day__range=(first_day, last_day)
        ).values_list("table_id", "gaming_day", "reference", "pricing_id", "fee_lines", "priced_on", "pricing__digest")
    }
    lines_of = {}
    for hand in hands:
        key = (hand.table.pk, hand.day, hand.reference)
        if key not in recorded:
            round_, created = ledger.record_round(table=hand.table, reference=hand.reference,
                                                  played_at=hand.played_at, facts=hand.facts, gaming_day=hand.day,
                                                  user=recorder)
            recorded[key] = compact.rebuilt(round_, bodies)[1]
            result.rounds_created += created
        lines_of[id(hand)] = recorded[key]

    # What goes wrong, at hands where something was owed (a poker hand ended before the flop owes nothing).
    by_day = defaultdict(list)
    for hand in hands:
        if any(Decimal(line["fee"]) > 0 for line in lines_of[id(hand)]):
            by_day[hand.day].append(hand)
    for offset in range(days):
        day = first_day + datetime.timedelta(days=offset)
        _mishaps(by_day[day], random.Random(f"{SEED}:mishaps:{day.isoformat()}"), offset)
        if offset in STREAK_DAYS:
            _streak(by_day[day])
    result.fates = {fate: sum(1 for hand in hands if hand.fate == fate) for fate in ("short", "missing", "corrected")}

    # Collections: every row with its own idempotency key, in bulk; then the corrections.
    entries, corrections = [], []
    for hand in hands:
        _collect(hand, lines_of[id(hand)], entries, corrections)
    for rows, user in ((entries, recorder), (corrections, corrector)):
        scope = Scope(user)
        for start in range(0, len(rows), ENTRY_BATCH):
            ingested = ledger.record_entries(rows[start:start + ENTRY_BATCH], scope=scope, user=user)
            result.entries_received += ingested.received
            result.entries_created += ingested.created

    # The nightly reconciliation of each gaming day played, where it has not run yet.
    played = defaultdict(set)
    for hand in hands:
        played[hand.day].add(hand.table.pk)
    reconciled = set(Reconciliation.objects.filter(
        establishment=establishment, gaming_day__range=(first_day, last_day)
    ).values_list("gaming_day", flat=True))
    for day in sorted(played):
        if day not in reconciled:
            stored = ledger_services.reconcile(SYSTEM, day_from=day, table_ids=sorted(played[day]))
            result.reconciliations_created += len(stored)
    return result


def playable_tables(establishment, first_day, result):
    """The establishment's tables with a posting the engine can price on the first day, in label order."""
    tables = []
    opening = _start_of(establishment, first_day) + OPENS_AFTER
    candidates = Table.objects.filter(establishment=establishment).select_related("establishment", "game")
    for table in sorted(candidates, key=lambda t: (len(t.label), t.label)):
        posting = TablePosting.objects.select_related("schedule").in_force(table, opening)
        if posting is None or table.game is None:
            result.tables_skipped[table.label] = "not posted"
            continue
        rng = random.Random(f"{SEED}:probe:{table.label}")
        facts, _ = _facts(table, posting, rng, opening)
        try:
            quoting.quote_posting(posting, facts, opening)
        except quoting.QuoteError as error:
            result.tables_skipped[table.label] = str(error)
            continue
        table.demo_posting = posting
        tables.append(table)
        result.tables_played.append(table.label)
    return tables


def _start_of(establishment, day):
    """When ``day``'s gaming day begins, as an aware moment in UTC."""
    start = datetime.datetime.combine(day, establishment.gaming_day_start, tzinfo=establishment.zone)
    return start.astimezone(datetime.UTC)


def plan_hands(establishment, tables, first_day, days):
    """Every hand of the period, drawn from a generator seeded per table and day."""
    hands = []
    for offset in range(days):
        day = first_day + datetime.timedelta(days=offset)
        start = _start_of(establishment, day)
        weekend = day.weekday() >= 4
        for table in tables:
            rng = random.Random(f"{SEED}:{day.isoformat()}:{table.label}")
            if not weekend and rng.random() >= WEEKDAY_OPEN:
                continue  # the table stayed closed
            hands += _table_day(establishment, table, day, start, weekend, rng)
    return hands


def _table_day(establishment, table, day, start, weekend, rng):
    kind = "session" if table.game.category == "time_collection" else "hand"
    low, high = ROUNDS_PER_DAY[kind][weekend]
    count = rng.randint(low, high)
    # Spread the rounds over the hours of play, in order.
    span = (LAST_START_BEFORE - OPENS_AFTER).total_seconds()
    if kind == "session":
        span -= 2 * 3600  # a session lasts up to two hours
    moments = sorted(rng.uniform(0, span) for _ in range(count))
    hands = []
    for number, seconds in enumerate(moments, start=1):
        at = (start + OPENS_AFTER + datetime.timedelta(seconds=int(seconds))).astimezone(establishment.zone)
        facts, collected_after = _facts(table, table.demo_posting, rng, at)
        hands.append(Hand(table=table, day=day, reference=f"T{table.label}-{day:%Y%m%d}-{number:02d}",
                          played_at=at, facts=facts, collected_after=collected_after))
    return hands


def _facts(table, posting, rng, at):
    """What was played in one round at ``table``, in the quote API's shape, and how long after ``at`` its fees
    were collected."""
    category = table.game.category
    if category == "poker_drop":
        players = rng.choice(range(max(2, table.seats - 5), table.seats + 1))
        flop = rng.random() < 0.85
        return {"players": players, "reached_flop": flop, "reached_river": flop and rng.random() < 0.6}, \
            datetime.timedelta(minutes=rng.randint(2, 6))
    if category == "time_collection":
        minutes = rng.choice((60, 90, 90, 120))
        ended = at + datetime.timedelta(minutes=minutes)
        seated = []
        for seat in sorted(rng.sample(range(1, table.seats + 1), rng.randint(3, table.seats))):
            joined = at if rng.random() < 0.7 else at + datetime.timedelta(minutes=rng.randrange(5, minutes // 2, 5))
            left = ended if rng.random() < 0.8 else joined + datetime.timedelta(minutes=rng.randrange(
                15, int((ended - joined).total_seconds() // 60) + 1, 5))
            seated.append({"player": f"seat-{seat}", "seated_from": joined.isoformat(), "seated_to": left.isoformat()})
        return {"game_started_at": at.isoformat(), "game_ended_at": ended.isoformat(), "players": seated}, \
            datetime.timedelta(minutes=minutes)
    # A California game: players at the betting positions, the player-dealer's (the last) left out.
    low = posting.min_wager or Decimal(5)
    high = posting.max_wager or Decimal(500)
    bets = [amount for amount in WAGERS if low <= amount <= high] or [int(low)]
    wagers = []
    for seat in sorted(rng.sample(range(1, table.seats), rng.randint(2, table.seats - 1))):
        wager = {"player": f"seat-{seat}", "base": str(bets[min(int(rng.expovariate(0.45)), len(bets) - 1)])}
        if rng.random() < 0.25:
            wager["bonus"] = rng.choice(BONUS_BETS)
        wagers.append(wager)
        if rng.random() < 0.08:  # someone behind the seat plays its backline
            wagers.append({"player": f"seat-{seat}-backline", "base": str(bets[0]), "backline": True})
    return {"wagers": wagers}, datetime.timedelta(seconds=rng.randint(30, 150))


def _mishaps(hands, rng, offset):
    """A realistic few per month: a collection short every other day, one missing every third day, and a
    mis-keyed amount (corrected later) every other day, each at a hand drawn at random."""
    wanted = []
    if offset % 2 == 0:
        wanted.append("short")
    if offset % 3 == 1:
        wanted.append("missing")
    if offset % 2 == 1:
        wanted.append("corrected")
    for fate, hand in zip(wanted, rng.sample(hands, min(len(wanted), len(hands)))):
        hand.fate = fate


def _streak(hands):
    """The evening's last STREAK_HANDS hands at STREAK_TABLE (of those nothing else befell) not collected."""
    mine = sorted((h for h in hands if h.table.label == STREAK_TABLE and h.fate == "collected"),
                  key=lambda h: h.played_at)
    for hand in mine[-STREAK_HANDS:]:
        hand.fate = "missing"


def _collect(hand, lines, entries, corrections):
    """The entries of one hand: what each payer paid per fee kind (nothing for a missing collection)."""
    if hand.fate == "missing":
        return
    owed = defaultdict(Decimal)
    for line in lines:
        owed[(line["payer"], line["player"], line["fee_kind"])] += Decimal(line["fee"])
    owed = [(slot, amount) for slot, amount in owed.items() if amount > 0]
    if not owed:
        return
    largest = max(range(len(owed)), key=lambda i: owed[i][1])
    collected_at = (hand.played_at + hand.collected_after).isoformat()
    rng = random.Random(f"{SEED}:collect:{hand.reference}")
    for number, ((payer, player, fee_kind), amount) in enumerate(owed):
        key = f"demo-{hand.reference}-{number}"
        row = {"idempotency_key": key, "table": hand.table.pk, "gaming_day": hand.day.isoformat(),
               "reference": hand.reference, "collected_at": collected_at, "payer": payer, "fee_kind": fee_kind,
               "amount": str(amount)}
        if player:
            row["player"] = player
            if player.startswith("seat-"):
                row["seat"] = int(player.split("-")[1])
        if number == largest and hand.fate == "short":
            row["amount"] = str(max(amount - max(Decimal(1), (amount / 4).quantize(Decimal(1))), Decimal("0.00")))
        elif number == largest and hand.fate == "corrected":
            miskey, reason = rng.choice(MISKEYINGS)
            keyed = miskey(amount).quantize(CENT)
            row["amount"] = str(keyed)
            corrections.append({"idempotency_key": f"{key}-fix", "corrects_key": key, "amount": str(amount),
                                "reason": reason.format(keyed=keyed, amount=amount)})
        entries.append(row)

