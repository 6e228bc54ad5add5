"""The ledger's kept sums (fees.models.LedgerDay, fees.ledger.kept_sums): added to in the same transaction as the
rounds and entries they sum, whatever the door (the services, the bulk API, a room's file imported), so that they
always equal the sums rebuilt from the rows; ``check_ledger_sums`` finds a table-day changed behind their back and
``--repair`` rewrites it, logged (``kept_sums.rewrite``, unlogged, sums rows written around the services); migration
0019's fill makes them from the rows already there.

Nothing reprices a recorded round or entry: rounds and entries are append-only (the models refuse an update, and
on PostgreSQL so does the trigger of fees migration 0010), a round is priced once, when it is recorded
(``fees.ledger.rounds.record_round``: recorded again, it is the round already stored), and a repricing
(``fees.quotes.repricing``, the impact report of a draft) only reports. So the machine publishes a retroactive
schedule change for the tables' option and reconciles the days again: the kept sums must not move (the rows they
sum did not), and the rounds recorded after it are priced under the change.

The state machine's examples each run in a savepoint rolled back at their end, inside the test's transaction
(SQLite: the portable insert; PostgreSQL: the COPY path)."""

import csv
import datetime
import importlib
import io
import json
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import TestCase
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from rest_framework.test import APIClient

from cardroom import generation
from cardroom.access import Scope
from cardroom.models import AuditLogEntry, Job
from fees import imports, ledger
from fees.ledger import kept_sums, tally
from fees.ledger.services import reconcile
from fees.models import ClosedMonth, CollectionEntry, FeeTier, LedgerDay, RoundOfPlay, ScheduleDocument, TablePosting
from fees.quotes import quoting
from fees.schedules import services as schedules
from tests.conftest import People
from tests.factories import GEGA, make_posted_table
from tests.publishing import publish

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
DAYS = (datetime.date(2026, 6, 1), datetime.date(2026, 6, 2))
LABELS = ("KS-1", "KS-2", "KS-3")
BULK = "/api/v1/ledger/entries/bulk/"
# Facts GEGA-002888 option 43 prices (the tables' posting), for rounds expecting different fees.
FACTS = (
    {"wagers": [{"player": "p1", "base": "150", "bonus": "25", "backline": False}, {"player": "p1", "base": "20"},
                {"player": "p2", "base": "40", "backline": True}]},
    {"wagers": [{"player": "p1", "base": "20"}]},
    {"wagers": [{"player": "p1", "base": "150"}, {"player": "p2", "base": "40"}]},
)

tables = st.integers(0, len(LABELS) - 1)
days = st.sampled_from(DAYS)
amounts = st.integers(0, 2_000).map(lambda cents: Decimal(cents).scaleb(-2))  # 0.00 to 20.00
payers = st.sampled_from(FeeTier.Payer.values)
kinds = st.sampled_from(FeeTier.FeeKind.values)
collections = st.lists(st.tuples(tables, days, payers, kinds, amounts), min_size=1, max_size=4)
# The import's file (fees.imports): a room's columns, mapped once.
HEADER = ["Record", "Table", "Gaming date", "Time", "Hand #", "Payer", "Player", "Fee type", "Amount", "Facts",
          "Row id", "Corrects", "Reason"]
MAPPING = {"record": "Record", "table": "Table", "gaming_day": "Gaming date", "time": "Time", "reference": "Hand #",
           "payer": "Payer", "player": "Player", "fee_kind": "Fee type", "amount": "Amount", "facts": "Facts",
           "idempotency_key": "Row id", "corrects_key": "Corrects", "reason": "Reason"}
# A row the import refuses: a table the room does not have, an amount written with a comma, a row written twice, a
# row id recorded before for another entry (the batch is recorded in halves around it), a correction of an entry
# corrected already (the batch is checked in halves around it).
REFUSALS = ("no such table", "amount with a comma", "written twice", "row id used before", "corrected already")


def test_the_figures_cover_every_payer_and_fee_kind_and_the_model_has_them_all():
    assert set(tally.PAYERS) == set(FeeTier.Payer.values) and set(tally.FEE_KINDS) == set(FeeTier.FeeKind.values)
    assert set(tally.FIGURES) <= {field.name for field in LedgerDay._meta.fields}


def publish_a_change(people, day, raise_by):
    """A new version of GEGA-002888 with option 43's fees raised by ``raise_by`` (or lowered), in force from ``day``
    (before today: retroactive), published as people do it: one compliance officer asks, an administrator approves
    (a jurisdiction's shared schedule)."""
    document = ScheduleDocument.objects.get(code=GEGA)
    latest = document.versions.filter(status="published").order_by("-number").first()
    draft = schedules.start_draft(people.compliance, based_on=latest, reason="Bureau letter: option 43 changed",
                                  effective_from=day)
    for tier in FeeTier.objects.filter(option__version=draft, option__number=43):
        tier.fee = max(tier.fee + raise_by, Decimal("0"))
        tier.printed_fee = f"${tier.fee}"
        tier._change_reason, tier._history_user = "Bureau letter", people.compliance
        tier.save()
    return publish(draft, requested_by=people.compliance, approved_by=people.admin, reason="The Bureau's late letter",
                   retroactive=True, retroactive_reason="The letter applies from its own date")


class KeptSums(RuleBasedStateMachine):
    """Rounds, entries, re-sent batches and corrections (through the services and the bulk API), files imported
    (``fees.imports``, as a compliance officer does it on the import pages) and a retroactive schedule change
    followed by a reconciliation, in any order over three tables and two gaming days; after every step the kept
    sums equal the rows' (``check_ledger_sums``' own comparison), and the money collected equals what a plain model
    of the ledger says counts."""

    def __init__(self):
        super().__init__()
        generation.forget()  # ids come back after a rollback (SQLite): forget what the process remembered
        self.savepoint = transaction.savepoint()
        self.people = People()
        self.user = self.people.compliance
        self.tables = [make_posted_table(self.people.marysville, label=label) for label in LABELS]
        self.api = APIClient()
        self.api.force_authenticate(self.user)
        self.serial = 0
        self.sent = []  # batches recorded, to send again
        # The model: the entries that count, {idempotency key: (table id, day, amount)}; rounds per table-day.
        self.counting = {}
        self.rounds = {}
        self.played = []  # rounds recorded: (table index, day, reference, played at, facts), to record again
        self.published = False

    def teardown(self):
        transaction.savepoint_rollback(self.savepoint)
        generation.forget()

    def _key(self, prefix):
        self.serial += 1
        return f"{prefix}-{self.serial}"

    def _rows(self, drawn):
        rows = []
        for table, day, payer, kind, amount in drawn:
            played = datetime.datetime.combine(day, datetime.time(15), tzinfo=LA)
            rows.append({"idempotency_key": self._key("e"), "table": self.tables[table].pk,
                         "gaming_day": day.isoformat(), "reference": f"H-{self.serial % 5}",
                         "collected_at": played.isoformat(), "payer": payer, "player": "p1", "fee_kind": kind,
                         "amount": str(amount)})
        return rows

    def _counted(self, rows):
        """The model after ``rows`` were recorded: each counts, and stops the entry it corrects from counting."""
        for row in rows:
            corrected = row.get("corrects_key")
            if corrected is None and row.get("corrects") is not None:
                corrected = CollectionEntry.objects.get(pk=row["corrects"]).idempotency_key
            if corrected is not None:
                table_id, day, _ = self.counting.pop(corrected)
            else:
                table_id, day = row["table"], datetime.date.fromisoformat(row["gaming_day"])
            self.counting[row["idempotency_key"]] = (table_id, day, Decimal(row["amount"]))

    @rule(table=tables, day=days, facts=st.sampled_from(FACTS), again=st.booleans())
    def record_a_round(self, table, day, facts, again):
        reference = self._key("R")
        played = datetime.datetime.combine(day, datetime.time(14), tzinfo=LA)
        for _ in range(2 if again else 1):  # recorded again: the same round, nothing added
            round_, _ = ledger.record_round(table=self.tables[table], reference=reference, played_at=played,
                                            facts=facts, gaming_day=day, user=self.user)
        self.rounds.setdefault((self.tables[table].pk, day), []).append(round_.expected_total)
        self.played.append((table, day, reference, played, facts))

    @rule(drawn=collections)
    def record_entries(self, drawn):
        rows = self._rows(drawn)
        result = ledger.record_entries(rows, scope=Scope(self.user), user=self.user)
        assert result.created == len(rows)
        self.sent.append(rows)
        self._counted(rows)

    @rule(drawn=collections)
    def post_to_the_bulk_api(self, drawn):
        rows = self._rows(drawn)
        response = self.api.post(BULK, {"entries": rows}, format="json")
        assert response.status_code == 201, response.json()
        self.sent.append(rows)
        self._counted(rows)

    @precondition(lambda self: self.sent)
    @rule(data=st.data())
    def send_a_batch_again(self, data):
        rows = data.draw(st.sampled_from(self.sent))
        assert ledger.record_entries(rows, scope=Scope(self.user), user=self.user).created == 0

    @precondition(lambda self: self.counting)
    @rule(data=st.data(), amount=amounts, by_api=st.booleans())
    def correct_an_entry(self, data, amount, by_api):
        corrected = data.draw(st.sampled_from(sorted(self.counting)))
        fix = {"idempotency_key": self._key("fix"), "amount": str(amount), "reason": "Miscounted"}
        if by_api:  # by its key, through the bulk API
            fix["corrects_key"] = corrected
            response = self.api.post(BULK, {"entries": [fix]}, format="json")
            assert response.status_code == 201, response.json()
        else:
            fix["corrects"] = CollectionEntry.objects.get(idempotency_key=corrected).pk
            ledger.record_entries([fix], scope=Scope(self.user), user=self.user)
        self._counted([fix])
        self.sent.append([fix])

    @rule(data=st.data(), rounds=st.lists(st.tuples(tables, days, st.sampled_from(FACTS)), max_size=2),
          drawn=st.lists(st.tuples(tables, days, payers, kinds, amounts), max_size=3), again=st.integers(0, 2),
          correct=st.booleans(), refuse=st.none() | st.sampled_from(REFUSALS))
    def import_a_file(self, data, rounds, drawn, again, correct, refuse):
        """A room's file through the import's services: new rounds and entries, rows already recorded (skipped),
        perhaps a correction and a row refused, in any order; the job runs in-process once the start commits."""
        lines, new_rounds, entries, fixes = [], [], self._rows(drawn), []
        for table, day, facts in rounds:
            played = datetime.datetime.combine(day, datetime.time(14, 30), tzinfo=LA)
            new_rounds.append((table, day, self._key("IR"), played, facts))
        lines += [self._round_line(*played) for played in new_rounds]
        lines += [self._entry_line(row) for row in entries]
        plain = [row for rows in self.sent for row in rows if "table" in row]
        resent = (data.draw(st.lists(st.sampled_from(self.played), max_size=again, unique_by=lambda p: p[2]))
                  if self.played else [])
        resent_entries = (data.draw(st.lists(st.sampled_from(plain), max_size=again,
                                             unique_by=lambda row: row["idempotency_key"])) if plain else [])
        lines += [self._round_line(*played) for played in resent]
        lines += [self._entry_line(row) for row in resent_entries]
        if correct and self.counting:
            corrected = data.draw(st.sampled_from(sorted(self.counting)))
            fixes.append({"idempotency_key": self._key("ifix"), "corrects_key": corrected, "amount": "1.25",
                          "reason": "Recounted at the cage"})
            lines.append(["entry", "", "", "", "", "", "", "", "1.25", "", fixes[0]["idempotency_key"], corrected,
                          "Recounted at the cage"])
        if refuse is not None:
            lines.append(self._refused_line(data, refuse, entries, resent_entries))
        if not lines:
            return
        lines = data.draw(st.permutations(lines))
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([HEADER, *lines])
        upload = SimpleUploadedFile(f"day-{self.serial}.csv", out.getvalue().encode(), content_type="text/csv")

        received = imports.receive_upload(self.user, establishment=self.people.marysville, upload=upload)
        imports.save_mapping(self.user, establishment=self.people.marysville, mapping=MAPPING,
                             header=received.header)
        with TestCase.captureOnCommitCallbacks(execute=True):
            job = imports.start_import(self.user, record_import=received)
        job.refresh_from_db()
        received.refresh_from_db()
        assert job.status == Job.Status.DONE, job.error
        assert (received.rounds_recorded, received.entries_recorded, received.already_recorded, received.refused) \
            == (len(new_rounds), len(entries) + len(fixes), len(resent) + len(resent_entries), int(bool(refuse)))
        for table, day, reference, played, facts in new_rounds:
            round_ = RoundOfPlay.objects.get(table=self.tables[table], gaming_day=day, reference=reference)
            self.rounds.setdefault((self.tables[table].pk, day), []).append(round_.expected_total)
            self.played.append((table, day, reference, played, facts))
        self._counted(entries + fixes)
        self.sent += [rows for rows in (entries, fixes) if rows]

    def _refused_line(self, data, refuse, entries, resent):
        """A line of the file the import refuses (``refuse`` says which kind: one of REFUSALS)."""
        taken = {row["idempotency_key"] for row in resent}
        plain = [row for rows in self.sent for row in rows if "table" in row and row["idempotency_key"] not in taken]
        corrected = sorted({row["idempotency_key"] for rows in self.sent for row in rows} - set(self.counting))
        if refuse == "written twice" and entries:
            return self._entry_line(entries[0])
        if refuse == "row id used before" and plain:  # the same id, another amount
            used = data.draw(st.sampled_from(plain))
            return self._entry_line({**used, "amount": str(Decimal(used["amount"]) + Decimal("0.01"))})
        if refuse == "corrected already" and corrected:
            return ["entry", "", "", "", "", "", "", "", "2.00", "", self._key("ifix"),
                    data.draw(st.sampled_from(corrected)), "Recounted again"]
        line = self._entry_line(self._rows([(0, DAYS[0], "player", "player", Decimal("4.50"))])[0])
        if refuse == "amount with a comma":
            line[8] = "4,50"
        else:
            line[1] = "T-99"
        return line

    def _round_line(self, table, day, reference, played, facts):
        return ["round", LABELS[table], day.isoformat(), played.isoformat(), reference, "", "", "", "",
                json.dumps(facts), "", "", ""]

    def _entry_line(self, row):
        table = next(table for table in self.tables if table.pk == row["table"])
        return ["entry", table.label, row["gaming_day"], row["collected_at"], row["reference"], row["payer"],
                row["player"], row["fee_kind"], row["amount"], "", row["idempotency_key"], "", ""]

    @precondition(lambda self: not self.published)
    @rule(table=tables, day=days, raise_by=st.sampled_from((Decimal("1"), Decimal("-1"))))
    def publish_a_retroactive_change_and_reconcile(self, table, day, raise_by):
        """A new version of the tables' schedule, option 43's fees changed, published back to ``day`` (two
        officers, the retroactive confirmation), then the days reconciled again. What the rounds expected was fixed
        when each was recorded, as the sign showed (a round recorded again is the one stored, its price unchanged),
        reconciliation only reads the rows (what they are owed as known now is kept on the reconciliation), and nothing rewrites a round or an
        entry, so the kept sums stay as they were."""
        self.published = True
        mine = {posted.pk for posted in self.tables}
        before = {key: figures for key, figures in kept_sums.kept().items() if key[1] in mine}
        posted = self.tables[table]
        played = datetime.datetime.combine(day, datetime.time(14), tzinfo=LA)
        posting = TablePosting.objects.select_related("schedule").in_force(posted, played)
        quoted = quoting.quote_posting(posting, FACTS[0], played)[2].total

        publish_a_change(self.people, day, raise_by)
        # A play of that day is priced as its sign showed, whenever recorded (issue 42); the version now in force
        # prices it anew (what the reconciliation records beside it: fees.ledger.restating).
        assert quoting.quote_posting(posting, FACTS[0], played)[2].total == quoted
        now = quoting.schedule_snapshot(posting.schedule.code, day)
        assert quoting.quote_facts(now, posting.option_number, FACTS[0]).total != quoted
        reconcile(self.user, day_from=DAYS[0], day_to=DAYS[-1], table_ids=sorted(mine))

        for index, day_played, reference, at, facts in self.played:  # recorded again: the round as stored
            stored = RoundOfPlay.objects.get(table=self.tables[index], gaming_day=day_played, reference=reference)
            again, created = ledger.record_round(table=self.tables[index], reference=reference, played_at=at,
                                                 facts=facts, gaming_day=day_played, user=self.user)
            assert (again.pk, again.expected_total, created) == (stored.pk, stored.expected_total, False)
        assert {key: figures for key, figures in kept_sums.kept().items() if key[1] in mine} == before

    @invariant()
    def the_kept_sums_are_the_rows_sums(self):
        assert kept_sums.differences() == []

    @invariant()
    def the_kept_sums_are_what_counts(self):
        mine = {table.pk for table in self.tables}
        kept = {(key[1], key[2]): figures for key, figures in kept_sums.kept().items() if key[1] in mine}
        collected = {}
        for table_id, day, amount in self.counting.values():
            entries, total = collected.get((table_id, day), (0, Decimal("0.00")))
            collected[(table_id, day)] = (entries + 1, total + amount)
        for table_day in set(kept) | set(collected) | set(self.rounds):
            figures = kept.get(table_day, tally.zero())
            assert (figures["entries"], figures["collected_total"]) == collected.get(table_day, (0, 0))
            assert sum(figures[name] for name in tally.BY_PAYER) == figures["collected_total"]
            assert sum(figures[name] for name in tally.BY_KIND) == figures["collected_total"]
            expected = self.rounds.get(table_day, [])
            assert (figures["rounds"], figures["expected_total"]) == (len(expected), sum(expected, Decimal("0.00")))


@pytest.fixture
def media(settings, tmp_path):
    """The imported files kept apart from the installation's."""
    settings.MEDIA_ROOT = tmp_path


def test_the_kept_sums_always_equal_the_sums_of_the_rows(db, clock, media):
    # A few weeks after the days played, so that a change reaching back to them is a retroactive one whatever the
    # day the test runs (RETROACTIVE_MAX_DAYS).
    clock(datetime.datetime(2026, 6, 20, 12, tzinfo=LA))
    run_state_machine_as_test(KeptSums, settings=settings(
        max_examples=12, stateful_step_count=10, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))


# -- the check, the repair and the migration ----------------------------------------------------------------------


@pytest.fixture
def played(people):
    """Two tables, a round and two collections each on the first day, one corrected; a round on the second."""
    one, two = (make_posted_table(people.marysville, label=label) for label in ("C-1", "C-2"))
    user = people.compliance
    rows = []
    for table in (one, two):
        played_at = datetime.datetime.combine(DAYS[0], datetime.time(15), tzinfo=LA)
        ledger.record_round(table=table, reference="A", played_at=played_at, facts=FACTS[0], gaming_day=DAYS[0],
                            user=user)
        rows += [{"idempotency_key": f"{table.label}-{payer}", "table": table.pk, "reference": "A",
                  "collected_at": played_at.isoformat(), "payer": payer, "player": "p1", "fee_kind": payer,
                  "amount": amount} for payer, amount in (("player", "4.00"), ("player_dealer", "3.00"))]
    ledger.record_entries(rows, scope=Scope(user), user=user)
    ledger.record_entries([{"idempotency_key": "C-1-fix", "corrects_key": "C-1-player", "amount": "3.50",
                            "reason": "Miscounted"}], scope=Scope(user), user=user)
    ledger.record_round(table=one, reference="B", played_at=datetime.datetime.combine(
        DAYS[1], datetime.time(15), tzinfo=LA), facts=FACTS[1], gaming_day=DAYS[1], user=user)
    return one, two


def check(*args):
    out = io.StringIO()
    call_command("check_ledger_sums", *args, stdout=out)
    return out.getvalue()


def test_the_kept_sums_of_a_day_played_and_corrected(played):
    one, _ = played
    day = LedgerDay.objects.get(table=one, gaming_day=DAYS[0])
    assert (day.rounds, day.entries, day.collected_total) == (1, 2, Decimal("6.50"))
    assert (day.paid_by_player, day.paid_by_player_dealer, day.kind_player) == (
        Decimal("3.50"), Decimal("3.00"), Decimal("3.50"))
    assert "agree" in check()


def test_a_retroactive_change_and_the_days_reconciled_again_leave_the_kept_sums_as_they_were(people, played, clock):
    """Published back to the first day and the days reconciled again: the rounds keep the fee expected when they
    were recorded (the kept sums with them); a round recorded since for a play before the change is priced as its
    sign showed (issue 42), and summed; what they are owed as known now is on the reconciliation, beside."""
    one, two = played
    clock(datetime.datetime(2026, 6, 20, 12, tzinfo=LA))
    before = kept_sums.kept()
    publish_a_change(people, DAYS[0], Decimal("1"))
    reconcile(people.compliance, day_from=DAYS[0], day_to=DAYS[1], table_ids=[one.pk, two.pk])
    assert kept_sums.kept() == before and kept_sums.differences() == []
    played_at = datetime.datetime.combine(DAYS[0], datetime.time(16), tzinfo=LA)
    again, created = ledger.record_round(table=one, reference="A", played_at=datetime.datetime.combine(
        DAYS[0], datetime.time(15), tzinfo=LA), facts=FACTS[0], gaming_day=DAYS[0], user=people.compliance)
    since, _ = ledger.record_round(table=one, reference="A2", played_at=played_at, facts=FACTS[0], gaming_day=DAYS[0],
                                   user=people.compliance)
    assert not created and since.expected_total == again.expected_total
    day = LedgerDay.objects.get(table=one, gaming_day=DAYS[0])
    assert (day.rounds, day.expected_total) == (2, again.expected_total + since.expected_total)
    assert kept_sums.differences() == []
    (run,) = reconcile(people.compliance, day_from=DAYS[0], table_ids=[one.pk])
    assert run.expected_total == day.expected_total and run.owed_now_total > run.expected_total


def test_a_kept_sum_changed_behind_its_back_is_found_and_repaired(people, played):
    one, two = played
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {LedgerDay._meta.db_table} SET collected_total = collected_total + 1, rounds = 5 "
                       f"WHERE table_id = %s AND gaming_day = %s", [one.pk, DAYS[0]])
    # An entry written around the ledger's services: the rows now say more than the kept sums.
    CollectionEntry.objects.create(
        idempotency_key="around", establishment=people.marysville, table=two, gaming_day=DAYS[1], reference="Z",
        collected_at=datetime.datetime.combine(DAYS[1], datetime.time(15), tzinfo=LA), payer="pot", fee_kind="time",
        amount=Decimal("2.00"), currency="USD", recorded_at=datetime.datetime.now(tz=LA))
    with pytest.raises(CommandError, match="2 table-days"):
        check()
    found = {(key[1], key[2], name): (kept, rebuilt) for key, name, kept, rebuilt in kept_sums.differences()}
    assert found[(one.pk, DAYS[0], "rounds")] == (5, 1)
    assert found[(one.pk, DAYS[0], "collected_total")] == (Decimal("7.50"), Decimal("6.50"))
    assert found[(two.pk, DAYS[1], "kind_time")] == (Decimal("0.00"), Decimal("2.00"))
    with pytest.raises(CommandError, match="1 table-days"):  # a period: the other day is left out
        check("--from", DAYS[0].isoformat(), "--to", DAYS[0].isoformat(), "--establishment", "casino-marysville")

    said = check("--repair")
    assert "Repaired 2 table-days" in said
    assert "agree" in check()
    assert LedgerDay.objects.get(table=two, gaming_day=DAYS[1]).paid_by_pot == Decimal("2.00")
    logged = AuditLogEntry.objects.get(action="ledger.sums_repaired")
    assert logged.establishment == people.marysville and logged.data["table_days"] == 2
    assert {"table": one.pk, "gaming_day": DAYS[0].isoformat(), "currency": "USD", "figure": "rounds",
            "kept": 5, "rebuilt": 1} in logged.data["differing"]


def test_a_kept_sum_with_no_rows_left_is_removed_by_the_repair(played):
    one, _ = played
    LedgerDay.objects.filter(table=one, gaming_day=DAYS[1]).update(gaming_day=datetime.date(2026, 6, 20))
    assert len({key for key, *_ in kept_sums.differences()}) == 2
    check("--repair")
    assert not LedgerDay.objects.filter(gaming_day=datetime.date(2026, 6, 20)).exists()
    assert "agree" in check()


def test_rows_written_around_the_services_are_summed_by_the_rewrite_unlogged_and_in_its_period(people, played):
    one, two = played
    at = datetime.datetime.combine(DAYS[1], datetime.time(15), tzinfo=LA)
    for table in (one, two):  # as a test's or a benchmark's data is written: straight into the rows
        CollectionEntry.objects.create(
            idempotency_key=f"around-{table.label}", establishment=people.marysville, table=table,
            gaming_day=DAYS[1], reference="B", collected_at=at, payer="player", fee_kind="player",
            amount=Decimal("1.25"), currency="USD", recorded_at=at)
    LedgerDay.objects.filter(table=two, gaming_day=DAYS[0]).update(rounds=7)
    found = kept_sums.rewrite(people.marysville, DAYS[1], DAYS[1])
    assert {(key[1], name) for key, name, *_ in found} >= {(one.pk, "collected_total"), (two.pk, "kind_player")}
    assert LedgerDay.objects.get(table=two, gaming_day=DAYS[1]).collected_total == Decimal("1.25")
    assert LedgerDay.objects.get(table=two, gaming_day=DAYS[0]).rounds == 7  # outside the period: left alone
    assert not AuditLogEntry.objects.filter(action="ledger.sums_repaired").exists()
    assert kept_sums.rewrite() and kept_sums.differences() == [] and kept_sums.rewrite() == []


def test_a_closed_month_is_left_out_of_the_check_its_kept_sums_are_all_there_is(played):
    one, _ = played
    LedgerDay.objects.filter(table=one, gaming_day=DAYS[0]).update(rounds=9)
    assert kept_sums.differences()
    ClosedMonth.objects.create(month=DAYS[0].replace(day=1), archive_dir="archive", closed_by="test",
                               closed_at=datetime.datetime.now(tz=LA))
    assert kept_sums.differences() == [] and "agree" in check("--repair")
    assert LedgerDay.objects.get(table=one, gaming_day=DAYS[0]).rounds == 9  # the repair leaves it alone too


def test_the_migration_fills_the_kept_sums_from_the_rows(played):
    before = kept_sums.kept()
    LedgerDay.objects.all().delete()
    importlib.import_module("fees.migrations.0019_ledger_days").fill(apps, None)
    assert kept_sums.kept() == before and kept_sums.differences() == []


@pytest.mark.migrations
@pytest.mark.django_db(transaction=True)
def test_migrating_back_and_forth_fills_the_kept_sums_again(reseed, played):
    before = kept_sums.kept()
    assert before
    for target in ([("fees", "0018_variance_over_collected")], None):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(target or executor.loader.graph.leaf_nodes())
    assert kept_sums.kept() == before and kept_sums.differences() == []
