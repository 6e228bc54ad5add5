"""The audit log is hash-chained per establishment and tamper-evident; PostgreSQL refuses to change it.

The tamper tests change the table with raw SQL, as somebody with write access to the database would. On
SQLite nothing stops them; on PostgreSQL the append-only triggers would, so ``raw_sql`` first switches
triggers off for the test's transaction (``session_replication_role = replica``, which needs a superuser:
the attacker these tests play). Either way ``verify_audit_log`` must name the entry and what is wrong.
"""

import datetime
import decimal
import hashlib
import threading
import uuid
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from cardroom import chain
from cardroom.audit import chain_entries, chain_head, chain_name, log_action, log_actions, verify_chains
from cardroom.models import AuditChainHead, AuditLogEntry, Establishment
from cardroom.models.audit import AppendOnlyError

pytestmark = pytest.mark.django_db

TABLE = AuditLogEntry._meta.db_table
PACIFIC = datetime.timezone(datetime.timedelta(hours=-8))


@contextmanager
def raw_sql():
    """A cursor that goes around the application, and on PostgreSQL around the triggers too."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        yield cursor
        # (After an error the savepoint's rollback restores the setting.)
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def tamper(sql, params=()):
    with raw_sql() as cursor:
        cursor.execute(sql.replace("{table}", TABLE), params)


def forge(source, **columns):
    """Insert a copy of ``source`` with some columns replaced, by raw SQL; return the new row."""
    names = [f.column for f in AuditLogEntry._meta.concrete_fields if not f.primary_key]
    select = ", ".join("%s" if name in columns else connection.ops.quote_name(name) for name in names)
    params = [columns[name] for name in names if name in columns]
    tamper(f"INSERT INTO {{table}} ({', '.join(connection.ops.quote_name(n) for n in names)}) "
           f"SELECT {select} FROM {{table}} WHERE id = %s", [*params, source.pk])
    return AuditLogEntry.objects.order_by("-id").first()


def fields_of(entry, **changes):
    return {**{name: getattr(entry, name) for name in chain.FIELDS}, **changes}


def verify(*args):
    """Run verify_audit_log; its output when it passes, its error message when it fails."""
    out = []

    class Out:
        def write(self, text):
            out.append(text)

    try:
        call_command("verify_audit_log", *args, stdout=Out())
    except CommandError as error:
        return False, str(error)
    return True, "".join(out)


def new_room(people):
    """An establishment nobody works in yet: its chain is empty (appointing someone there would log)."""
    return Establishment.objects.create(slug="test-chain-room", name="Test Chain Room", jurisdiction=people.washington,
                                        kind="card_room", is_demo=True)


@pytest.fixture
def room(people):
    """A new establishment with five entries in its chain (positions 1 to 5)."""
    room = new_room(people)
    entries = [log_action(f"test.step{n}", actor=people.compliance_wa, establishment=room,
                          jurisdiction=room.jurisdiction, data={"n": n}) for n in range(1, 6)]
    room.entries = entries
    return room


def broken_message(room, entry_id, position, kind):
    return f"chain establishment:{room.pk} (Test Chain Room): entry {entry_id} at position {position}: {kind}"


# Writing: one linked chain per establishment, one for the installation.

def test_log_action_links_a_chain_per_establishment_and_one_for_the_installation(people):
    marysville, wa_room = people.marysville, new_room(people)
    sequence, head = chain_head(marysville)
    installation_sequence, installation_head = chain_head(None)
    assert sequence > 0 and installation_sequence > 0  # the seed load logged to both

    m1 = log_action("test.a", actor=people.compliance, establishment=marysville, data={"n": 1})
    w1 = log_action("test.a", actor=people.compliance_wa, establishment=wa_room)
    i1 = log_action("test.install", actor_label="a command", jurisdiction=people.washington)
    m2 = log_action("test.b", establishment=marysville, jurisdiction=marysville.jurisdiction)
    w2 = log_action("test.b", establishment=wa_room)

    assert (m1.chain, w1.chain, i1.chain) == (f"establishment:{marysville.pk}", f"establishment:{wa_room.pk}",
                                              "installation")
    assert chain_name(marysville) == m1.chain and chain_name(None) == "installation"
    assert (m1.sequence, m1.prev_hash, m2.sequence, m2.prev_hash) == (sequence + 1, head, sequence + 2, m1.entry_hash)
    assert (w1.sequence, w1.prev_hash, w2.sequence, w2.prev_hash) == (1, chain.GENESIS, 2, w1.entry_hash)
    assert (i1.sequence, i1.prev_hash) == (installation_sequence + 1, installation_head)
    assert chain_head(marysville) == (m2.sequence, m2.entry_hash)
    assert chain_head(wa_room) == (2, w2.entry_hash)

    for place in (marysville, wa_room, None):
        entries = list(chain_entries(place))
        assert [e.sequence for e in entries] == list(range(1, len(entries) + 1))
        previous = chain.GENESIS
        for entry in entries:
            assert entry.prev_hash == previous
            assert entry.entry_hash == chain.entry_hash(fields_of(entry))
            previous = entry.entry_hash
        assert chain_head(place) == (entries[-1].sequence, previous)


def test_what_is_stored_is_what_was_hashed(people):
    data = {"amount": decimal.Decimal("12.50"), "day": datetime.date(2026, 3, 1), "id": uuid.UUID(int=7),
            "when": datetime.datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=datetime.UTC), 3: ("a", "ü"),
            "whole": 2.0, "big": 1e16, "third": 1 / 3, "nested": {"b": [1, None, True]}}
    logged = log_action("test.types", actor=people.compliance, establishment=people.marysville, data=data)
    stored = AuditLogEntry.objects.get(pk=logged.pk)
    assert stored.created_at == logged.created_at and stored.created_at.microsecond == logged.created_at.microsecond
    assert stored.data["amount"] == "12.50" and stored.data["3"] == ["a", "ü"] and stored.data["day"] == "2026-03-01"
    assert stored.entry_hash == logged.entry_hash == chain.entry_hash(fields_of(stored))


def test_canonical_form_is_fixed():
    """The canonical bytes are part of the stored data's meaning: they must never change."""
    entry = {"chain": "establishment:3", "sequence": 2, "actor_id": 5, "actor_label": "ann", "action": "x.y",
             "object_type": "fees.ScheduleVersion", "object_id": "9", "object_repr": "Été", "establishment_id": 3,
             "jurisdiction_id": None, "data": {"b": 2.0, "a": [1.5]}, "prev_hash": chain.GENESIS,
             "created_at": datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=PACIFIC)}
    assert chain.canonical(entry) == (
        '{"action":"x.y","actor_id":5,"actor_label":"ann","chain":"establishment:3",'
        '"created_at":"2026-01-02T11:04:05.000006+00:00","data":{"a":[1.5],"b":2},"establishment_id":3,'
        '"jurisdiction_id":null,"object_id":"9","object_repr":"Été","object_type":"fees.ScheduleVersion",'
        f'"prev_hash":"{chain.GENESIS}","sequence":2}}'
    ).encode()
    assert chain.entry_hash(entry) == hashlib.sha256(chain.canonical(entry)).hexdigest()


# Verifying a clean log.

def test_clean_log_verifies_and_the_command_says_ok(room, people):
    log_action("test.install", actor_label="a command")
    reports = verify_chains()
    assert reports and all(report.ok for report in reports)
    assert reports[0].chain == "installation"
    mine = next(report for report in reports if report.establishment == room)
    assert (mine.entries, mine.sequence, mine.head_hash) == (5, 5, room.entries[-1].entry_hash)
    assert mine.recorded_head == (5, room.entries[-1].entry_hash)

    ok, out = verify()
    assert ok
    lines = out.splitlines()
    assert len(lines) == len(reports) and all(line.startswith("OK ") for line in lines)
    assert f"OK establishment:{room.pk} (Test Chain Room): 5 entries, head {room.entries[-1].entry_hash}" in lines

    ok, out = verify("--establishment", "test-chain-room")
    line = f"OK establishment:{room.pk} (Test Chain Room): 5 entries, head {room.entries[-1].entry_hash}"
    assert ok and out.splitlines() == [line]


def test_command_refuses_an_unknown_establishment():
    with pytest.raises(CommandError, match="No establishment with the slug 'nowhere'"):
        call_command("verify_audit_log", "--establishment", "nowhere")


def test_an_establishment_with_no_entries_has_an_empty_chain(people):
    fresh = new_room(people)
    assert chain_head(fresh) == (0, chain.GENESIS)
    [report] = verify_chains(fresh)
    assert report.ok and report.entries == 0


# The application never changes an entry.

def test_the_application_refuses_to_change_or_remove_entries(room):
    entry = room.entries[2]
    entry.action = "tampered"
    for attempt in (entry.save, entry.delete, lambda: AuditLogEntry.objects.filter(pk=entry.pk).update(action="x"),
                    lambda: AuditLogEntry.objects.filter(pk=entry.pk).delete(),
                    lambda: AuditLogEntry.objects.bulk_update([entry], ["action"]),
                    lambda: AuditLogEntry.objects.bulk_create([AuditLogEntry(action="forged")]),
                    lambda: AuditLogEntry(action="forged", actor_label="x").save()):
        with pytest.raises(AppendOnlyError):
            attempt()
    assert AuditLogEntry.objects.get(pk=entry.pk).action == "test.step3"
    assert verify()[0]


# Tampering directly in the database is detected (SQLite, and PostgreSQL with its triggers switched off).

@pytest.mark.parametrize("column, value", [
    ("action", "'test.harmless'"),
    ("data", """'{"n": 30}'"""),
    ("actor_label", "'somebody else'"),
    ("establishment_id", "NULL"),
    ("created_at", "(SELECT created_at FROM {table} WHERE id = %s)"),
])
def test_altered_content_is_detected(room, column, value):
    target, first = room.entries[2], room.entries[0]
    params = [first.pk] if "%s" in value else []
    tamper(f"UPDATE {{table}} SET {column} = {value} WHERE id = %s", [*params, target.pk])
    ok, message = verify()
    assert not ok
    assert broken_message(room, target.pk, 3, "content altered") in message
    assert "BROKEN" in message and "broken in 1 of" in message


def test_altered_content_with_a_recomputed_hash_breaks_the_link_to_the_next_entry(room):
    target = room.entries[2]
    forged_hash = chain.entry_hash(fields_of(target, action="test.harmless"))
    tamper("UPDATE {table} SET action = %s, entry_hash = %s WHERE id = %s", ["test.harmless", forged_hash, target.pk])
    ok, message = verify("--establishment", "test-chain-room")
    assert not ok
    assert broken_message(room, room.entries[3].pk, 4, "previous-hash link broken") in message


def test_a_rewritten_tail_still_disagrees_with_the_recorded_head(room):
    """Somebody who rehashes every entry after the one they changed is caught by the chain head."""
    previous = room.entries[1].entry_hash
    for entry in room.entries[2:]:
        changes = {"prev_hash": previous, **({"action": "test.harmless"} if entry is room.entries[2] else {})}
        previous = chain.entry_hash(fields_of(entry, **changes))
        tamper("UPDATE {table} SET action = %s, prev_hash = %s, entry_hash = %s WHERE id = %s",
               [changes.get("action", entry.action), changes["prev_hash"], previous, entry.pk])
    ok, message = verify("--establishment", "test-chain-room")
    assert not ok
    assert (f"chain establishment:{room.pk} (Test Chain Room): position 5: "
            "chain does not end at the recorded head") in message
    assert "is not the recorded head's" in message


def test_a_deleted_entry_in_the_middle_is_detected(room):
    tamper("DELETE FROM {table} WHERE id = %s", [room.entries[2].pk])
    ok, message = verify()
    assert not ok
    assert broken_message(room, room.entries[3].pk, 4, "position missing or out of order") in message
    assert "position 3 is missing before it" in message


def test_deleted_entries_at_the_end_are_detected_against_the_head(room):
    tamper("DELETE FROM {table} WHERE id IN (%s, %s)", [room.entries[3].pk, room.entries[4].pk])
    ok, message = verify()
    assert not ok
    assert (f"chain establishment:{room.pk} (Test Chain Room): position 4: chain does not end at the recorded head "
            "(entries missing at the end: the chain ends at position 3 but its recorded head is position 5)") in message


def test_a_deleted_chain_is_detected_against_its_head(room):
    tamper("DELETE FROM {table} WHERE chain = %s", [chain_name(room)])
    ok, message = verify()
    assert not ok and "the chain ends at position 0 but its recorded head is position 5" in message


def test_swapped_entries_are_detected_as_out_of_order(room):
    second, third = room.entries[1], room.entries[2]
    tamper("UPDATE {table} SET sequence = 1000 WHERE id = %s", [second.pk])  # (chain, sequence) is unique
    tamper("UPDATE {table} SET sequence = 2 WHERE id = %s", [third.pk])
    tamper("UPDATE {table} SET sequence = 3 WHERE id = %s", [second.pk])
    ok, message = verify()
    assert not ok
    assert broken_message(room, third.pk, 2, "position missing or out of order") in message
    assert "the entry was written at position 3 and moved here" in message


def test_a_forged_entry_with_a_made_up_hash_is_detected(room):
    forged = forge(room.entries[4], sequence=6, prev_hash=room.entries[4].entry_hash, entry_hash="f" * 64)
    ok, message = verify()
    assert not ok and broken_message(room, forged.pk, 6, "content altered") in message


def test_a_forged_entry_with_a_correct_hash_but_the_wrong_link_is_detected(room):
    last = room.entries[4]
    digest = chain.entry_hash(fields_of(last, sequence=6, prev_hash=chain.GENESIS))
    forged = forge(last, sequence=6, prev_hash=chain.GENESIS, entry_hash=digest)
    ok, message = verify()
    assert not ok and broken_message(room, forged.pk, 6, "previous-hash link broken") in message


def test_a_forged_entry_chained_correctly_is_detected_against_the_head(room):
    last = room.entries[4]
    digest = chain.entry_hash(fields_of(last, sequence=6, prev_hash=last.entry_hash))
    forge(last, sequence=6, prev_hash=last.entry_hash, entry_hash=digest)
    ok, message = verify()
    assert not ok
    assert ("entries beyond the recorded head: the chain runs to position 6 "
            "but its recorded head is position 5") in message


def test_a_forged_entry_at_a_taken_position_is_refused(room):
    third = room.entries[2]
    with pytest.raises(IntegrityError), transaction.atomic():
        forge(third, prev_hash=room.entries[1].entry_hash, action="test.forged")
    assert verify()[0]


def test_a_forged_chain_without_a_head_is_detected(room, people):
    other = Establishment.objects.create(slug="test-other", name="Other", jurisdiction=people.washington,
                                         kind="card_room", is_demo=True)
    name = chain_name(other)
    digest = chain.entry_hash(fields_of(room.entries[0], chain=name, establishment_id=other.pk))
    forged = forge(room.entries[0], chain=name, establishment_id=other.pk, entry_hash=digest)
    assert forged.chain == name
    ok, message = verify()
    assert not ok and f"chain {name} (Other): position 1: chain does not end at the recorded head " \
                      "(the chain has entries but no recorded head)" in message


def test_only_broken_chains_fail_and_every_broken_chain_is_named(room, people):
    marysville_entry = log_action("test.m", establishment=people.marysville)
    tamper("UPDATE {table} SET action = 'x' WHERE id IN (%s, %s)", [room.entries[0].pk, marysville_entry.pk])
    reports = {report.chain: report for report in verify_chains()}
    assert not reports[chain_name(room)].ok and not reports[chain_name(people.marysville)].ok
    assert reports["installation"].ok
    ok, message = verify()
    assert not ok and "broken in 2 of" in message
    assert f"entry {marysville_entry.pk} at position {marysville_entry.sequence}: content altered" in message
    assert not verify("--establishment", "casino-marysville")[0]
    assert verify("--establishment", "test-chain-room")[0] is False


# PostgreSQL itself refuses to change the log.

def _require_postgresql():
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"


@pytest.mark.services
def test_postgresql_refuses_update_and_delete_of_entries(room):
    _require_postgresql()
    target = room.entries[2]
    with connection.cursor() as cursor:
        for sql in (f"UPDATE {TABLE} SET action = 'tampered' WHERE id = %s", f"DELETE FROM {TABLE} WHERE id = %s",
                    f"UPDATE {TABLE} SET sequence = sequence + 100 WHERE chain = %s"):
            with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
                cursor.execute(sql, [target.chain if "chain =" in sql else target.pk])
    stored = AuditLogEntry.objects.get(pk=target.pk)
    assert (stored.action, stored.sequence, stored.entry_hash) == ("test.step3", 3, target.entry_hash)
    assert AuditLogEntry.objects.filter(chain=target.chain).count() == 5
    assert verify()[0]


@pytest.mark.services
def test_postgresql_lets_a_chain_head_only_move_forward(room):
    _require_postgresql()
    heads = AuditChainHead._meta.db_table
    with connection.cursor() as cursor:
        for sql, match in ((f"DELETE FROM {heads} WHERE chain = %s", "never deleted"),
                           (f"UPDATE {heads} SET sequence = 3 WHERE chain = %s", "only moves forward"),
                           (f"UPDATE {heads} SET chain = 'installation-2' WHERE chain = %s", "only moves forward")):
            with pytest.raises(DatabaseError, match=match), transaction.atomic():
                cursor.execute(sql, [chain_name(room)])
    assert chain_head(room) == (5, room.entries[-1].entry_hash)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_keep_each_chain_gapless(reseed):
    """Writers on separate connections append to the same chains at once (one chain new, so its head is
    created in a race): every chain still runs 1..n with no fork."""
    _require_postgresql()
    place = Establishment.objects.get(slug="casino-marysville")
    fresh = Establishment.objects.create(slug="test-concurrent", name="Concurrent", kind="card_room",
                                         jurisdiction=place.jurisdiction, is_demo=True)
    before = chain_head(place)[0]
    writers, per_writer, start, failures = 4, 15, threading.Barrier(4), []

    def write(n):
        try:
            start.wait(timeout=30)
            for i in range(per_writer):
                log_action("test.concurrent", actor_label=f"writer {n}", establishment=(place, fresh)[i % 2],
                           data={"writer": n, "i": i})
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures
    assert chain_head(place)[0] == before + writers * ((per_writer + 1) // 2)
    assert chain_head(fresh)[0] == writers * (per_writer // 2)
    assert all(report.ok for report in verify_chains())


# Migrating a database whose log predates the chain.

@pytest.mark.migrations
@pytest.mark.django_db(transaction=True)
def test_migration_chains_existing_entries(reseed):
    before_chain = [("cardroom", "0002_jobs")]
    MigrationExecutor(connection).migrate(before_chain)
    try:
        old = MigrationExecutor(connection).loader.project_state(before_chain).apps
        Entry = old.get_model("cardroom", "AuditLogEntry")
        place = old.get_model("cardroom", "Establishment").objects.get(slug="casino-marysville")
        made = [Entry.objects.create(action=f"test.old{n}", actor_label="old", establishment=place if n % 2 else None,
                                     data={"n": n, "x": 1.0}) for n in range(4)]
        # In the establishment's chain a timestamp out of id order; in the installation's a tie, broken by id.
        Entry.objects.filter(pk=made[3].pk).update(created_at=made[1].created_at - datetime.timedelta(seconds=1))
        Entry.objects.filter(pk=made[2].pk).update(created_at=made[0].created_at)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

    reports = verify_chains()
    rooms_with_entries = set(AuditLogEntry.objects.exclude(establishment=None).values_list("establishment", flat=True))
    assert place.pk in rooms_with_entries
    assert {report.chain for report in reports} == {"installation"} | {f"establishment:{pk}" for pk in rooms_with_entries}
    for report in reports:
        assert report.ok and report.recorded_head == (report.sequence, report.head_hash)
        entries = list(AuditLogEntry.objects.filter(chain=report.chain).order_by("sequence"))
        assert [e.sequence for e in entries] == list(range(1, report.sequence + 1))
        assert [(e.created_at, e.pk) for e in entries] == sorted((e.created_at, e.pk) for e in entries)
    order = list(AuditLogEntry.objects.order_by("chain", "sequence").values_list("pk", flat=True))
    assert order.index(made[3].pk) < order.index(made[1].pk) and order.index(made[0].pk) < order.index(made[2].pk)
    # The log goes on from the migrated heads.
    establishment = Establishment.objects.get(pk=place.pk)
    sequence, head = chain_head(establishment)
    entry = log_action("test.after", establishment=establishment)
    assert (entry.sequence, entry.prev_hash) == (sequence + 1, head)
    assert all(report.ok for report in verify_chains())


def test_a_tail_rewritten_after_an_export_is_caught_by_the_checkpoint_it_carried(room, tmp_path):
    """With the database owner's rights the tail can be rehashed and the recorded head moved with it, so
    verify_audit_log finds nothing; the signed checkpoint in the bundle exported before still tells (issue 14)."""
    import zipfile

    from cardroom.transparency import holds
    from exports.build import build
    from exports.collect import ExportScope

    today = datetime.date.today()
    build(ExportScope(establishments=[room], start=today - datetime.timedelta(days=1), end=today),
          tmp_path / "bundle.zip", requested_by="test")
    with zipfile.ZipFile(tmp_path / "bundle.zip") as bundle:
        note = bundle.read(f"checkpoints/establishment-{room.pk}.txt").decode()
    assert note.startswith(f"cardroom/audit/establishment:{room.pk}\n5\n") and holds(note)

    previous = room.entries[1].entry_hash
    for entry in room.entries[2:]:
        changes = {"prev_hash": previous, **({"action": "test.harmless"} if entry is room.entries[2] else {})}
        previous = chain.entry_hash(fields_of(entry, **changes))
        tamper("UPDATE {table} SET action = %s, prev_hash = %s, entry_hash = %s WHERE id = %s",
               [changes.get("action", entry.action), changes["prev_hash"], previous, entry.pk])
    with raw_sql() as cursor:
        cursor.execute(f"UPDATE {AuditChainHead._meta.db_table} SET entry_hash = %s WHERE chain = %s",
                       [previous, chain_name(room)])
    assert verify("--establishment", "test-chain-room")[0]  # the chain alone looks whole
    assert not holds(note)  # the checkpoint handed out before does not


def test_log_actions_appends_many_entries_as_log_action_would(people):
    """Many entries at once (a year's reconciliations): one lock and one INSERT per chain, the same chains,
    positions and hashes as one log_action each, in the order given, and the log verifies."""
    room, other = new_room(people), people.wa_room
    before = chain_head(other)
    entries = log_actions([(f"test.batch{n}", {"establishment": room if n % 3 else other, "actor": people.compliance_wa,
                                               "data": {"n": n, "amount": decimal.Decimal("1.50")}})
                           for n in range(10)])
    mine = [e for e in entries if e.establishment == room]
    assert [e.sequence for e in mine] == list(range(1, 7)) and mine[0].prev_hash == chain.GENESIS
    theirs = [e for e in entries if e.establishment == other]
    assert [e.sequence for e in theirs] == list(range(before[0] + 1, before[0] + 5))
    assert theirs[0].prev_hash == before[1]
    stored = AuditLogEntry.objects.filter(chain=chain_name(room)).order_by("sequence")
    assert [e.action for e in stored] == [f"test.batch{n}" for n in range(10) if n % 3]
    assert [e.entry_hash for e in stored] == [e.entry_hash for e in mine]
    assert stored[0].data == {"n": 1, "amount": "1.50"}
    assert chain_head(room) == (6, mine[-1].entry_hash)
    after = log_action("test.after", establishment=room)
    assert (after.sequence, after.prev_hash) == (7, mine[-1].entry_hash)
    assert all(report.ok for report in verify_chains())
