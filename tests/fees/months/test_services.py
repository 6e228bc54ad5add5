"""Closing a month of the ledger (issue 26, fees.months, manage.py close_month / reopen_month): a month is made,
closed (signed bundle, partitions detached, archived as files and dropped), refused for writes by the application
and by PostgreSQL, and reopened with its rows as they were; and each refusal changes nothing."""

import datetime
import gzip
import hashlib
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from cardroom import registry
from cardroom.access import Scope
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import AuditLogEntry
from cardroom.registry import Exporter
from exports.verification import check
from fees import ledger
from fees.models import ClosedMonth, CollectionEntry, RoundOfPlay
from fees.months import partitions, selectors
from fees.months import services as months
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db
# The PostgreSQL tests: partitions are PostgreSQL's.
postgresql = pytest.mark.services

JUNE, JULY = datetime.date(2024, 6, 1), datetime.date(2024, 7, 1)
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p2", "base": "40"}]}
LONG_AGO = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)


@pytest.fixture(autouse=True)
def jobs_here(settings):
    """The bundle is built and tasks run in-process (a services test would otherwise queue them for a worker)."""
    from project.celery import app

    before = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def at(table, day, hour=14):
    return datetime.datetime.combine(day, datetime.time(hour), tzinfo=table.establishment.zone)


def play(table, reference, day):
    round_, created = ledger.record_round(table=table, reference=reference, played_at=at(table, day), facts=ROUND)
    assert created
    return round_


def collect(user, table, key, day, amount="1.00", **more):
    row = {"idempotency_key": key, "table": table.pk, "reference": key.split(":")[0],
           "collected_at": at(table, day).isoformat(), "payer": "player", "seat": 1, "fee_kind": "player",
           "amount": amount, **more}
    if "corrects" in more:
        row = {k: v for k, v in row.items() if k not in ("table", "reference", "payer", "seat", "fee_kind",
                                                        "collected_at")}
    entry, created = ledger.record_entry(row, scope=Scope(user), user=user)
    assert created
    return entry


def snapshot(table, first):
    """Every column of the month's rows of ``table``, ids included, in id order."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table} WHERE gaming_day >= %s AND gaming_day < %s ORDER BY id",
                       [first, partitions.next_month(first)])
        return cursor.fetchall()


def relation(name):
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname, i.inhparent::regclass::text FROM pg_class c "
                       "LEFT JOIN pg_inherits i ON i.inhrelid = c.oid WHERE c.oid = to_regclass(%s)", [name])
        return cursor.fetchone()  # (name, parent or None), or None: no such table


def shape(name):
    """What a partition has beside its rows: checks and keys (a key onto the partition itself read as onto
    "<partition>"), indexes (their definitions, names aside) and triggers; the same for every month's partition."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT contype, replace(pg_get_constraintdef(oid), %s, '<partition>') FROM pg_constraint "
                       "WHERE conrelid = %s::regclass ORDER BY 1, 2", [f" {name}(", name])
        constraints = cursor.fetchall()
        cursor.execute("SELECT regexp_replace(indexdef, '^.* USING ', '') FROM pg_indexes WHERE tablename = %s "
                       "ORDER BY 1", [name])
        indexes = cursor.fetchall()
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal ORDER BY 1",
                       [name])
        return constraints, indexes, cursor.fetchall()


def entries_keys():
    """Every foreign key of the entries and their partitions: {(table, key): its oid}. None points at the entries
    table itself (a key there would keep PostgreSQL from detaching a month it sees referenced)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE confrelid = 'fees_collectionentry'::regclass")
        assert cursor.fetchall() == []
        cursor.execute("SELECT conrelid::regclass::text, conname, oid FROM pg_constraint WHERE contype = 'f' "
                       "AND conrelid IN (SELECT 'fees_collectionentry'::regclass UNION "
                       "SELECT inhrelid FROM pg_inherits WHERE inhparent = 'fees_collectionentry'::regclass)")
        return {(table, name): oid for table, name, oid in cursor.fetchall()}


def close(*slugs, month="2024-06", archive=None):
    out = io.StringIO()
    args = ["--month", month, *[arg for slug in slugs for arg in ("--establishment", slug)]]
    call_command("close_month", *args, *(["--archive-dir", str(archive)] if archive else []), stdout=out)
    return out.getvalue()


@pytest.fixture
def june(people):
    """Two rounds and their collections in June 2024 at Casino Marysville, one entry corrected; a round and an
    entry in July. Both months have partitions of their own."""
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    partitions.ensure_months(JUNE, JULY)
    table = make_posted_table(people.marysville, label="CLOSE-1", effective_from=LONG_AGO)
    for reference in ("H-1", "H-2"):
        play(table, reference, JUNE.replace(day=10))
    first = collect(people.floor, table, "H-1:1", JUNE.replace(day=10), amount="0.50")
    collect(people.floor, table, "H-1:2", JUNE.replace(day=10), amount="1.00", corrects=first.pk,
            reason="miskeyed")
    collect(people.floor, table, "H-2:1", JUNE.replace(day=10))
    july = play(table, "J-1", JULY.replace(day=2))
    collect(people.floor, table, "J-1:1", JULY.replace(day=2))
    return {"table": table, "july": july}


@postgresql
def test_a_month_is_closed_verified_refused_and_reopened_as_it_was(people, june, tmp_path, api):
    table = june["table"]
    names = [partitions.month_name(t, JUNE) for t in partitions.TABLES]
    before = {t: snapshot(t, JUNE) for t in ("fees_roundofplay", "fees_collectionentry")}
    assert len(before["fees_roundofplay"]) == 2 and len(before["fees_collectionentry"]) == 3
    keys = entries_keys()
    # The corrections' key: each partition's own, onto itself (June holds a correction and its original).
    for month in (names[1], partitions.month_name("fees_collectionentry", JULY), "fees_collectionentry_default"):
        assert (month, f"{month}_corrects") in keys

    said = close("casino-marysville", archive=tmp_path)
    assert "1/4" in said and "2/4" in said and "3/4" in said and "4/4" in said and "100%" in said  # each step
    # June detached with its own keys, and no key dropped and made again: the other months were not checked.
    assert entries_keys() == {(table, name): oid for (table, name), oid in keys.items() if table != names[1]}

    closed = ClosedMonth.objects.get(month=JUNE)
    assert closed.archived and closed.reopened_at is None
    assert [e.slug for e in closed.establishments.all()] == ["casino-marysville"]
    # The bundle: on disk beside the partitions' files, as recorded, and it verifies.
    (bundled,) = closed.bundles
    path = tmp_path / bundled["file"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == bundled["sha256"]
    with path.open("rb") as f:
        checked = check(f)
    assert checked.ok, checked.verification.problems
    assert checked.verification.manifest["period"] == {"from": "2024-06-01", "to": "2024-06-30"}
    assert checked.verification.manifest["rows"]["rounds"] == 2
    call_command("verify_export", str(path), stdout=io.StringIO())
    # The partitions: gone from the database, each in its file with its rows and digest.
    assert [p["partition"] for p in closed.partitions] == names
    for part in closed.partitions:
        assert relation(part["partition"]) is None
        data = (tmp_path / part["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == part["sha256"]
        assert gzip.decompress(data).count(b"\n") == part["rows"] == len(before[part["table"]])
    assert snapshot("fees_roundofplay", JUNE) == []

    # Writes into June: refused by the application (rounds, entries, the API) and by PostgreSQL.
    with pytest.raises(BadInput, match=r"2024-06-20 falls in June 2024, a closed month.*"
                                                      r"reopen_month --month 2024-06"):
        play(table, "H-3", JUNE.replace(day=20))
    with pytest.raises(BadInput, match="gaming_day: 2024-06-20 falls in June 2024, a closed month"):
        collect(people.floor, table, "H-3:1", JUNE.replace(day=20))
    api.force_authenticate(people.floor)
    answer = api.post("/api/v1/ledger/entries/", {
        "idempotency_key": "H-4:1", "table": table.pk, "reference": "H-4", "payer": "player", "seat": 1,
        "collected_at": at(table, JUNE.replace(day=21)).isoformat(), "fee_kind": "player", "amount": "1.00"},
        format="json")
    assert answer.status_code == 400
    assert "closed month" in str(answer.json()) and "reopen_month --month 2024-06" in str(answer.json())
    columns = [c for c in months._columns(connection.cursor(), "fees_roundofplay") if c != "id"]
    picked = ", ".join({"gaming_day": "'2024-06-20'", "reference": "'SQL-1'"}.get(c, c) for c in columns)
    with pytest.raises(IntegrityError, match="closed_2024_06"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO fees_roundofplay ({', '.join(columns)}) SELECT {picked} "
                           f"FROM fees_roundofplay WHERE id = %s", [june["july"].pk])
    with pytest.raises(selectors.MonthClosed, match="June 2024 is closed \\(on "):
        ledger.reconcile(JUNE.replace(day=10), table_ids=[table.pk])
    answer = api.post("/api/v1/ledger/reconciliations/run/", {"table": table.pk, "gaming_day": "2024-06-10"},
                      format="json")
    assert answer.status_code == 400 and "June 2024 is closed (on " in str(answer.json())

    # Other months are untouched: July reads, reconciles and takes new rows.
    assert RoundOfPlay.objects.get(pk=june["july"].pk).reference == "J-1"
    (july,) = ledger.reconcile(JULY.replace(day=2), table_ids=[table.pk])
    assert (july.rounds, july.entries) == (1, 1)
    play(table, "J-2", JULY.replace(day=3))

    # Each step is in the establishment's audit log, by the command.
    logged = list(AuditLogEntry.objects.filter(establishment=people.marysville, action__startswith="ledger.month_")
                  .order_by("sequence").values_list("action", "actor_label"))
    assert logged == [(f"ledger.month_{step}", months.CLOSE_LABEL)
                      for step in ("frozen", "exported", "detached", "closed")]

    # Closed twice: refused.
    with pytest.raises(CommandError, match="2024-06 is already closed"):
        close("casino-marysville", archive=tmp_path / "again")

    # Reopened: the same rows, ids and all, in their partitions again; June takes writes again.
    out = io.StringIO()
    call_command("reopen_month", "--month", "2024-06", stdout=out)
    assert "SHA-256 as sealed" in out.getvalue() and "reopened" in out.getvalue()
    for name, table_name in zip(names, partitions.TABLES):
        assert relation(name) == (name, table_name)
        constraints, indexes, triggers = shape(name)
        assert {kind for kind, _ in constraints} >= {"p", "f", "c"} and len(indexes) >= 3
        assert ("fees_ledger_append_only",) in triggers  # the rows stay append-only
        assert shape(name) == shape(partitions.month_name(table_name, JULY))  # June's corrections key too
    assert (names[1], f"{names[1]}_corrects") in entries_keys()
    assert {t: snapshot(t, JUNE) for t in before} == before
    closed.refresh_from_db()
    assert closed.reopened_at is not None and closed.reopened_by == months.REOPEN_LABEL
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE conname LIKE 'closed_2024_06%%'")
        assert cursor.fetchall() == []
    play(table, "H-3", JUNE.replace(day=20))
    collect(people.floor, table, "H-3:1", JUNE.replace(day=20))
    (found,) = ledger.reconcile(JUNE.replace(day=10), table_ids=[table.pk])
    assert (found.rounds, found.entries) == (2, 2)  # the correction replaces what it corrects
    assert AuditLogEntry.objects.filter(action="ledger.month_reopened", actor_label=months.REOPEN_LABEL).exists()


@postgresql
def test_a_file_altered_in_the_archive_is_not_read_back(people, june, tmp_path):
    close("casino-marysville", archive=tmp_path)
    part = ClosedMonth.objects.get(month=JUNE).partitions[0]
    (tmp_path / part["file"]).write_bytes(gzip.compress(b"1\t2\n"))
    with pytest.raises(CommandError, match="not the file archived. Nothing was changed"):
        call_command("reopen_month", "--month", "2024-06", stdout=io.StringIO())
    assert relation(part["partition"]) is None
    assert ClosedMonth.objects.get(month=JUNE).reopened_at is None


def rewrite_archive(path, find, replace):
    """The archive file with its rows changed, gzipped again: what someone with the files' folder could write."""
    rows = gzip.decompress(path.read_bytes())
    assert find in rows
    path.write_bytes(gzip.compress(rows.replace(find, replace)))
    return hashlib.sha256(path.read_bytes()).hexdigest()


@postgresql
def test_a_closing_record_rewritten_with_its_archive_is_not_reopened(people, june, tmp_path):
    """Issue 32: amounts changed in the gzip and the recorded SHA-256 updated to match (as the service role could,
    before the record became the owner's alone): the seal, signed by the installation's key when the month was
    archived, no longer covers the record, and nothing is restored."""
    close("casino-marysville", archive=tmp_path)
    closed = ClosedMonth.objects.get(month=JUNE)
    parts = closed.partitions
    entries = next(p for p in parts if p["table"] == "fees_collectionentry")
    entries["sha256"] = rewrite_archive(tmp_path / entries["file"], b"\t1.00\t", b"\t0.01\t")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE fees_closedmonth SET partitions = %s WHERE id = %s", [json.dumps(parts), closed.pk])
    with pytest.raises(CommandError, match="2024-06 is not reopened: the closing record of June 2024 is not as it "
                                           "was sealed .* Nothing was changed"):
        call_command("reopen_month", "--month", "2024-06", stdout=io.StringIO())
    assert all(relation(p["partition"]) is None for p in parts)
    assert ClosedMonth.objects.get(month=JUNE).reopened_at is None
    # A seal taken away is no way round it either.
    ClosedMonth.objects.filter(pk=closed.pk).update(seal={})
    with pytest.raises(CommandError, match="carries no seal"):
        call_command("reopen_month", "--month", "2024-06", stdout=io.StringIO())


@postgresql
def test_a_closed_month_gets_no_partition_through_the_month_function(people, june, tmp_path):
    """Issue 32: the SECURITY DEFINER function that makes a month's partition (the service role's only way to make
    one) makes none for a closed month, so a row of that month stays refused and reopen_month is not blocked."""
    close("casino-marysville", archive=tmp_path)
    columns = [c for c in months._columns(connection.cursor(), "fees_roundofplay") if c != "id"]
    picked = ", ".join({"gaming_day": "'2024-06-20'", "reference": "'SQL-2'"}.get(c, c) for c in columns)
    with connection.cursor() as cursor:
        for table in partitions.TABLES:
            cursor.execute(f"SELECT {table}_month(%s)", [JUNE])
            assert cursor.fetchone() == (None,)
            assert relation(partitions.month_name(table, JUNE)) is None
        with pytest.raises(IntegrityError, match="closed_2024_06"), transaction.atomic():
            cursor.execute(f"INSERT INTO fees_roundofplay ({', '.join(columns)}) SELECT {picked} "
                           f"FROM fees_roundofplay WHERE id = %s", [june["july"].pk])
    assert partitions.ensure_months(JUNE, JULY) == []
    call_command("reopen_month", "--month", "2024-06", stdout=io.StringIO())
    assert relation(partitions.month_name("fees_roundofplay", JUNE)) == ("fees_roundofplay_2024_06",
                                                                      "fees_roundofplay")


@postgresql
def test_a_month_with_another_establishments_rows_is_refused_naming_it(people, june, tmp_path):
    other = make_posted_table(people.wa_room, label="CLOSE-WA", effective_from=LONG_AGO)
    play(other, "W-1", JUNE.replace(day=11))
    with pytest.raises(CommandError, match="also holds rows of test-wa-room.*Name each one"):
        close("casino-marysville", archive=tmp_path)
    assert not ClosedMonth.objects.exists() and not any(tmp_path.iterdir())
    assert relation(partitions.month_name("fees_roundofplay", JUNE)) == ("fees_roundofplay_2024_06",
                                                                      "fees_roundofplay")
    said = close("casino-marysville", "test-wa-room", archive=tmp_path)  # both named: closed for both
    assert "4/4" in said
    assert len(ClosedMonth.objects.get(month=JUNE).bundles) == 2


@postgresql
def test_a_month_not_over_or_without_its_own_partition_is_refused(people, june, tmp_path):
    today = people.marysville.gaming_day_of(datetime.datetime.now(datetime.timezone.utc))
    with pytest.raises(CommandError, match=f"{today:%Y-%m} is not over at casino-marysville"):
        close("casino-marysville", month=f"{today:%Y-%m}", archive=tmp_path)
    play(june["table"], "OLD-1", datetime.date(2001, 3, 3))  # no month of its own: in DEFAULT
    with pytest.raises(CommandError, match="no partition of its own for 2001-03: its 1 rows of that month are in "
                                           "fees_roundofplay_default"):
        close("casino-marysville", month="2001-03", archive=tmp_path)
    with pytest.raises(CommandError, match="give the month as YYYY-MM"):
        close("casino-marysville", month="June", archive=tmp_path)
    assert not ClosedMonth.objects.exists() and not any(tmp_path.iterdir())


def test_on_sqlite_the_commands_refuse_and_a_closed_month_still_refuses_writes(people, monkeypatch, tmp_path,
                                                                                client):
    """SQLite keeps the ledger in plain tables: nothing to detach (the PostgreSQL pass runs this as SQLite would
    answer). The application's refusal needs no partition: a ClosedMonth is enough."""
    with monkeypatch.context() as patched:  # only this: undo() would take back the suite's own patches too
        patched.setattr(connection, "vendor", "sqlite")
        for command, args in (("close_month", ["--establishment", "casino-marysville"]), ("reopen_month", [])):
            with pytest.raises(CommandError, match="needs PostgreSQL.*no partitions. Nothing was changed"):
                call_command(command, "--month", "2024-06", *args, stdout=io.StringIO())
    table = make_posted_table(people.marysville, label="CLOSE-S", effective_from=LONG_AGO)
    closed = ClosedMonth.objects.create(month=JUNE, archive_dir=str(tmp_path), closed_by="test",
                                        closed_at=datetime.datetime(2024, 7, 2, tzinfo=datetime.timezone.utc))
    closed.establishments.set([people.marysville])
    with pytest.raises(BadInput, match="2024-06-05 falls in June 2024, a closed month"):
        play(table, "S-1", JUNE.replace(day=5))
    rows = [{"idempotency_key": f"S-{day}", "table": table.pk, "reference": "S", "payer": "player", "seat": 1,
             "collected_at": at(table, JUNE.replace(day=day) if day else JULY).isoformat(), "fee_kind": "player",
             "amount": "1.00"} for day in (0, 6)]
    with pytest.raises(BadInput, match=r"entries\[1\].gaming_day: 2024-06-06 falls in June 2024"):
        ledger.record_entries(rows, scope=Scope(people.floor), user=people.floor)
    assert not CollectionEntry.objects.filter(table=table).exists()  # the July row neither: all or nothing
    play(table, "S-2", JULY.replace(day=5))
    # The administrators see it in the admin, read-only.
    client.force_login(people.admin)
    page = client.get("/admin/fees/closedmonth/")
    assert page.status_code == 200 and "2024-06 (closing)" in page.text and "casino-marysville" in page.text
    page = client.get(f"/admin/fees/closedmonth/{closed.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.text


def test_a_closing_month_is_exported_by_what_the_exports_app_registered(people, monkeypatch, tmp_path):
    """fees stands below exports: a month's bundles are written by the export exports registers from its
    AppConfig.ready (the job the export_audit command runs, as the installation), never by naming exports."""
    from exports.installation import export_month

    assert registry.entry(Exporter, months.MONTH_BUNDLE).export is export_month
    said, path = [], tmp_path / "june.zip"
    export_month(people.marysville, JUNE, JULY - datetime.timedelta(days=1), path, said.append)
    assert said[0].startswith("Job ") and said[0].endswith("exporting casino-marysville, 2024-06-01 to 2024-06-30.")
    assert "100%" in said[-2] and said[-1].startswith(f"Wrote {path}: ")
    with path.open("rb") as f:
        assert check(f).ok
    monkeypatch.delitem(registry._ENTRIES[Exporter], months.MONTH_BUNDLE)
    with pytest.raises(CommandError, match="No audit export is registered"):
        close("casino-marysville", archive=tmp_path / "closed")
    assert not ClosedMonth.objects.exists() and not (tmp_path / "closed").exists()


@postgresql
def test_an_export_that_fails_leaves_the_month_as_it_was(people, june, tmp_path, monkeypatch):
    def failing(establishment, first, last, path, say):
        open(path, "wb").write(b"half a bundle")
        raise StateConflict("The export failed: the disk is full")

    monkeypatch.setitem(registry._ENTRIES[Exporter], months.MONTH_BUNDLE, Exporter(months.MONTH_BUNDLE, failing))
    with pytest.raises(CommandError, match="the disk is full"):
        close("casino-marysville", archive=tmp_path)
    assert not ClosedMonth.objects.exists() and not any(tmp_path.iterdir())  # the half bundle removed
    assert list(AuditLogEntry.objects.filter(action__startswith="ledger.month_").order_by("sequence")
                .values_list("action", flat=True)) == ["ledger.month_frozen", "ledger.month_unfrozen"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE conname LIKE 'closed_%%'")
        assert cursor.fetchall() == []
    for table in partitions.TABLES:
        assert relation(partitions.month_name(table, JUNE)) == (partitions.month_name(table, JUNE), table)
    play(june["table"], "H-5", JUNE.replace(day=25))  # June takes writes, as before
