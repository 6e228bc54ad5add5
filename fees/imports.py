"""A room's own records in: a file (CSV or XLSX) of rounds and collection entries, written by the room's
table-game or cage system, recorded through the ledger's one door (issue 27).

The steps, each a service that takes who acts, asks ``fees.import_records`` for the room and writes the audit entry:

- ``receive``: the upload is checked before it is parsed (its size, its kind, its row count, an XLSX's unpacked
  size), kept with its SHA-256, and its header read (``ledger.import_uploaded``).
- ``save_mapping``: which column holds each ledger field, kept per room (``ledger.import_mapping``);
  ``guess_mapping`` proposes one from the header the first time; ``preview`` shows the first rows as they would be
  recorded, each value with its reading.
- ``start``: the import queued as a background job (``ledger.import``, with the file's name, size, hash, row count
  and mapping); ``run_import`` is the job: rounds through ``fees.ledger.record_round``, collection entries through
  ``fees.ledger.record_entries`` in batches, the same services and checks as the API. It ends with
  ``ledger.import_finished`` (the counts, and the hash of the refused rows' file).

A row is recorded whole or refused. ``record_entries`` refuses a whole batch for one bad row and names up to 20 of
them, so a batch is sent again without the rows it named; the rows before the last one named were all checked,
so they and the unchecked rest go as two batches (``_record_entries``): a batch costs a few queries, and a bad row
costs a share of one more batch, never a query of its own.

Idempotency: an entry keeps the row's own key when the file has one (mapped ``idempotency_key``); otherwise its key
is derived from the row's content (``_content_key``: table, time, reference, payer, seat, player, fee kind,
amount, currency, correction). Not from the row's position: a corrected file moves rows, and a row fixed and
uploaded again must not meet its old position's key. So the same file uploaded twice records nothing new, and a
fixed row is recorded once. A round is already idempotent on (table, gaming day, reference).
"""

import csv
import datetime
import hashlib
import io
import json
import re
import tempfile
import zipfile
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from celery import shared_task
from django.core.files.base import ContentFile, File
from django.db import transaction
from django.utils import timezone

from cardroom import audit, jobs, permissions
from cardroom.access import Scope
from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.models import Job, Table
from cardroom.money import CENT, format_money
from cardroom.moments import format_moment

from . import ledger
from .models import CollectionEntry, ImportMapping, LedgerConflict, RecordImport

PERMISSION = "fees.import_records"
MAX_BYTES = 256 * 1024 * 1024  # a busy room's month as CSV (a million rows is about 110 MB)
MAX_ROWS = 2_000_000
MAX_XLSX_BYTES = 64 * 1024 * 1024
MAX_XLSX_UNPACKED = 512 * 1024 * 1024  # what the workbook's parts may unpack to (a zip bomb is refused unread)
PREVIEW_ROWS = 10
ENTRY_BATCH = ledger.MAX_BATCH
ROUND_PROGRESS = 200  # rounds between two progress updates
REFUSED_SHOWN = 200  # refused rows listed on the page (all are in the download)
REFUSED_COLUMN = "refused because"


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    help: str
    guesses: tuple = ()


FIELDS = (
    Field("record", "Round or entry", "“round” or “entry”; without it a row with facts is a round, any other an "
          "entry.", ("record", "type", "kind", "row type", "record type")),
    Field("table", "Table", "The table's label at this room.", ("table", "table label", "table no", "tbl")),
    Field("time", "Time", "When the round was played or the amount collected: with its offset, or in the room's "
          "zone.", ("time", "played at", "collected at", "timestamp", "date time", "when")),
    Field("gaming_day", "Gaming day", "Optional: checked against the time.",
          ("gaming day", "gaming date", "business day", "day")),
    Field("reference", "Hand or round", "The hand or round reference.",
          ("reference", "hand", "hand no", "round", "round id", "hand id")),
    Field("facts", "Facts (rounds)", "What was played, as the quote API's JSON.", ("facts", "play", "round facts")),
    Field("payer", "Payer (entries)", "player, player_dealer, pot or house... as the ledger names them.",
          ("payer", "paid by")),
    Field("seat", "Seat (entries)", "Betting position, where known.", ("seat", "position")),
    Field("player", "Player (entries)", "Player, where known.", ("player", "player id")),
    Field("fee_kind", "Fee kind (entries)", "As the ledger names them.",
          ("fee kind", "fee type", "fee", "collection type")),
    Field("amount", "Amount (entries)", "The amount collected, e.g. 12.50.", ("amount", "collected", "fee amount")),
    Field("currency", "Currency (entries)", "Optional: must be the room's.", ("currency",)),
    Field("idempotency_key", "Row key (entries)", "Optional: the room system's own id of the row; without it a key "
          "is derived from the row's content.", ("key", "idempotency key", "row key", "entry id", "transaction id")),
    Field("corrects_key", "Corrects (entries)", "The key of the entry a correction corrects.",
          ("corrects", "corrects key")),
    Field("reason", "Reason (entries)", "Why a correction was made.", ("reason", "note", "comment")),
)
FIELD_NAMES = tuple(field.name for field in FIELDS)
REQUIRED = ("table", "time", "reference")
PAYERS = {**{v.lower(): v for v in CollectionEntry.Payer.values},
          **{label.lower(): v for v, label in CollectionEntry.Payer.choices}}
FEE_KINDS = {**{v.lower(): v for v in CollectionEntry.FeeKind.values},
             **{label.lower(): v for v, label in CollectionEntry.FeeKind.choices}}
PAYER_LABELS = dict(CollectionEntry.Payer.choices)
FEE_KIND_LABELS = dict(CollectionEntry.FeeKind.choices)


class Refused(Exception):
    """A row that cannot be recorded: ``message`` names the field and says why."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}" if field else message)
        self.message = str(self)


# -- reading files -----------------------------------------------------------------------------------------------

def _normal(header):
    return " ".join(re.sub(r"[^a-z0-9]+", " ", str(header).lower()).split())


def _header(cells):
    names, seen = [], set()
    for number, cell in enumerate(cells, start=1):
        name = (cell or "").strip() if isinstance(cell, str) else ("" if cell is None else str(cell))
        name = name or f"(column {number})"
        if name in seen:
            raise BadInput(f"The column {name!r} appears twice in the header: give each column its own name.")
        seen.add(name)
        names.append(name)
    while names and names[-1].startswith("(column "):
        names.pop()  # a spreadsheet's empty columns at the right
    if len(names) < 2:
        raise BadInput("The first row must name the file's columns (at least two): this does not read as a table "
                       "of rounds and collections.")
    return names


def _csv_lines(binary):
    text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
    return csv.reader(text)


def _xlsx_cell(cell, column):
    if cell.data_type == "f":
        raise Refused(None, f"column {column} holds a formula ({str(cell.value)[:40]}), not a value: export the "
                            "values.")
    value = cell.value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _xlsx_rows(binary):
    """(cells, formula problem) for each row of the workbook's first sheet."""
    import openpyxl  # only for XLSX files

    workbook = openpyxl.load_workbook(binary, read_only=True, data_only=False)
    try:
        sheet = workbook.worksheets[0]
        for row in sheet.iter_rows():
            problem, cells = None, []
            for column, cell in enumerate(row, start=1):
                try:
                    cells.append(_xlsx_cell(cell, getattr(cell, "column_letter", column)))
                except Refused as refused:
                    problem = problem or refused.message
                    cells.append(str(cell.value))
            yield cells, problem
    finally:
        workbook.close()


def read_rows(record_import):
    """(line, cells, problem) for each data row of the import's file (line 2 is the first after the header)."""
    with record_import.file.open("rb") as binary:
        if record_import.format == RecordImport.Format.XLSX:
            rows = _xlsx_rows(binary)
        else:
            rows = ((cells, None) for cells in _csv_lines(binary))
        next(rows, None)
        for line, (cells, problem) in enumerate(rows, start=2):
            if not any(cells):
                continue  # a blank line
            yield line, cells, problem


def _check_csv(upload):
    """The header and the number of rows of a CSV upload; BadInput for anything not a UTF-8 CSV."""
    head = upload.read(65536)
    upload.seek(0)
    if head.startswith(b"PK\x03\x04") or b"\x00" in head or head.startswith(b"%PDF"):
        raise BadInput("This file is not a CSV file (it holds binary data): export the records as CSV or XLSX.")
    lines = 0
    for chunk in upload.chunks():
        lines += chunk.count(b"\n")
        if lines > MAX_ROWS + 1:
            raise BadInput(f"The file has more than {MAX_ROWS:,} rows: split it (a month at most per file).")
    upload.seek(0)
    text = io.TextIOWrapper(upload, encoding="utf-8-sig", newline="")
    try:
        reader = csv.reader(text)
        header = _header(next(reader, []))
        rows = sum(1 for cells in reader if any(cells))
    except UnicodeDecodeError:
        raise BadInput("This file is not UTF-8 text: save the CSV as UTF-8.") from None
    except csv.Error as error:
        raise BadInput(f"This file does not read as CSV: {error}.") from None
    finally:
        text.detach()  # the upload stays open for saving
        upload.seek(0)
    return header, rows


def _check_xlsx(upload):
    if upload.size > MAX_XLSX_BYTES:
        raise BadInput(f"An XLSX file may be at most {MAX_XLSX_BYTES // 1024 // 1024} MB: export a larger one as "
                       "CSV.")
    try:
        with zipfile.ZipFile(upload) as archive:
            parts = archive.infolist()
            if len(parts) > 10_000 or sum(part.file_size for part in parts) > MAX_XLSX_UNPACKED:
                raise BadInput("This workbook unpacks to more than the import reads: export it as CSV.")
    except zipfile.BadZipFile:
        raise BadInput("This file is not an XLSX workbook: export the records as CSV or XLSX.") from None
    upload.seek(0)
    try:
        rows = _xlsx_rows(upload)
        first = next(rows, None)
        if first is None:
            raise BadInput("The workbook's first sheet is empty.")
        header = _header(first[0])
        count = 0
        for cells, _ in rows:
            if any(cells):
                count += 1
                if count > MAX_ROWS:
                    raise BadInput(f"The file has more than {MAX_ROWS:,} rows: split it.")
    except BadInput:
        raise
    except Exception as error:  # openpyxl raises many kinds for a damaged workbook
        raise BadInput(f"This workbook cannot be read ({type(error).__name__}): export it again as XLSX or CSV.") \
            from None
    finally:
        upload.seek(0)
    return header, count


# -- the steps -----------------------------------------------------------------------------------------------------

def _sha256(upload):
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def receive(user, establishment, upload):
    """Keep an uploaded file for import once it is checked; returns the RecordImport. BadInput (nothing kept) for a
    file too large, empty, of another kind, or with too many rows."""
    permissions.require(user, PERMISSION, establishment)
    name = (upload.name or "records").rsplit("/", 1)[-1][:200]
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if upload.size == 0:
        raise BadInput("The file is empty.")
    if upload.size > MAX_BYTES:
        raise BadInput(f"The file is {upload.size / 1024 / 1024:.0f} MB; the import takes at most "
                       f"{MAX_BYTES // 1024 // 1024} MB: split it.")
    if extension == "xlsx":
        kind, (header, rows) = RecordImport.Format.XLSX, _check_xlsx(upload)
    elif extension in ("csv", "txt"):
        kind, (header, rows) = RecordImport.Format.CSV, _check_csv(upload)
    else:
        raise BadInput("Upload a .csv or .xlsx file of rounds and collections.")
    if rows == 0:
        raise BadInput("The file has a header but no rows.")
    record_import = RecordImport(establishment=establishment, name=name, format=kind, size=upload.size,
                                 sha256=_sha256(upload), header=header, rows=rows, uploaded_by=user)
    with transaction.atomic():
        record_import.file.save(f"upload.{kind}", File(upload), save=False)
        record_import.save()
        audit.log_action("ledger.import_uploaded", actor=user, obj=record_import, establishment=establishment,
                         data={"file": name, "format": kind, "size": upload.size, "sha256": record_import.sha256,
                               "rows": rows, "columns": header})
    return record_import


def saved_mapping(establishment):
    found = ImportMapping.objects.filter(establishment=establishment).first()
    return dict(found.columns) if found else {}


def guess_mapping(header, saved=None):
    """Field -> column: the room's saved mapping where its column is in this header, else a guess from the names."""
    saved, columns = saved or {}, set(header)
    mapping = {field: column for field, column in saved.items() if column in columns and field in FIELD_NAMES}
    by_name = {_normal(column): column for column in header}
    taken = set(mapping.values())
    for field in FIELDS:
        if field.name in mapping:
            continue
        for guess in (field.name.replace("_", " "), *field.guesses):
            column = by_name.get(guess)
            if column is not None and column not in taken:
                mapping[field.name] = column
                taken.add(column)
                break
    return mapping


def mapping_problems(mapping, header):
    """What keeps ``mapping`` from being used with a file of ``header`` (empty when it can be)."""
    problems = [f"{next(f.label for f in FIELDS if f.name == name)}: choose its column."
                for name in REQUIRED if not mapping.get(name)]
    if not mapping.get("amount") and not mapping.get("facts"):
        problems.append("Choose the column of the amounts (collection entries) or of the facts (rounds), or both.")
    unknown = sorted(column for column in mapping.values() if column and column not in header)
    if unknown:
        problems.append(f"Not columns of this file: {', '.join(unknown)}.")
    return problems


def save_mapping(user, establishment, mapping, header):
    """Keep ``mapping`` (field -> column) as the room's; BadInput when it is incomplete for ``header``."""
    permissions.require(user, PERMISSION, establishment)
    mapping = {field: column for field, column in mapping.items() if field in FIELD_NAMES and column}
    problems = mapping_problems(mapping, header)
    if problems:
        raise BadInput(" ".join(problems))
    with transaction.atomic():
        kept, _ = ImportMapping.objects.select_for_update().get_or_create(establishment=establishment)
        kept.columns, kept.updated_by = mapping, user
        kept.save()
        audit.log_action("ledger.import_mapping", actor=user, obj=kept, establishment=establishment,
                         data={"mapping": mapping})
    return kept


def start(user, record_import):
    """Queue the import of a received file with the room's mapping; returns the Job (done already when jobs run
    in-process). StateConflict when this upload was imported already (upload the file again: nothing is recorded
    twice)."""
    establishment = record_import.establishment
    permissions.require(user, PERMISSION, establishment)
    mapping = saved_mapping(establishment)
    problems = mapping_problems(mapping, record_import.header)
    if problems:
        raise BadInput("Map the file's columns first. " + " ".join(problems))
    with transaction.atomic():
        locked = RecordImport.objects.select_for_update().get(pk=record_import.pk)
        if locked.job_id is not None:
            raise StateConflict("This upload has been imported already; upload the file again to import it again "
                                "(rows already recorded are not recorded twice).")
        job = Job.objects.create(kind=Job.Kind.LEDGER_IMPORT, establishment=establishment, requested_by=user,
                                 requested_label=user.get_username(), params={"import": str(locked.uuid)})
        locked.job, locked.mapping = job, mapping
        locked.save(update_fields=["job", "mapping"])
        audit.log_action("ledger.import", actor=user, obj=locked, establishment=establishment,
                         data={"file": locked.name, "format": locked.format, "size": locked.size,
                               "sha256": locked.sha256, "rows": locked.rows, "mapping": mapping,
                               "job": str(job.uuid)})
    jobs.submit(job, import_records)
    record_import.refresh_from_db()
    job.refresh_from_db()
    return job


# -- rows as the ledger takes them ---------------------------------------------------------------------------------

class Reader:
    """Reads a file's rows with a mapping at a room: each row to a round or a collection entry."""

    def __init__(self, establishment, mapping, header):
        self.establishment = establishment
        self.zone = establishment.zone
        self.currency = establishment.jurisdiction.currency
        position = {column: index for index, column in enumerate(header)}
        self.columns = {field: position[column] for field, column in mapping.items() if column in position}
        self.tables = {table.label: table for table in Table.objects.filter(establishment=establishment)
                       .select_related("establishment__jurisdiction")}
        self.own_keys = "idempotency_key" in self.columns

    def values(self, cells):
        """Field -> the cell's text (stripped; "" when empty or not in the file)."""
        width = len(cells)
        return {field: (cells[index].strip() if index < width and cells[index] else "")
                for field, index in self.columns.items()}

    def parse(self, cells):
        """(kind, parsed): the row read as the ledger takes it; Refused for a value the import cannot read."""
        raw = self.values(cells)
        get = raw.get
        kind = get("record", "").lower()
        if kind in ("", "-"):
            kind = "round" if get("facts") else "entry"
        elif kind in ("round", "hand", "r"):
            kind = "round"
        elif kind in ("entry", "collection", "e", "collection entry"):
            kind = "entry"
        else:
            raise Refused("record", f"must be “round” or “entry”, not {get('record')!r}.")
        label = get("table", "")
        table = self.tables.get(label)
        if table is None:
            corrects = kind == "entry" and get("corrects_key")
            if not (corrects and not label):
                raise Refused("table", f"no table {label!r} at {self.establishment.name}." if label
                              else "is required.")
        parsed = {"table": table, "time": self.moment(get("time", ""), required=not get("corrects_key"))}
        day = get("gaming_day")
        if day:
            try:
                parsed["gaming_day"] = datetime.date.fromisoformat(day[:10] if len(day) > 10 else day)
            except ValueError:
                raise Refused("gaming_day", f"must be a date written YYYY-MM-DD, not {day!r}.") from None
        parsed["reference"] = get("reference", "")
        if kind == "round":
            text = get("facts", "")
            if not text:
                raise Refused("facts", "a round needs its facts (the quote API's JSON).")
            try:
                parsed["facts"] = json.loads(text)
            except ValueError as error:
                raise Refused("facts", f"is not JSON ({error}).") from None
            if not parsed["reference"]:
                raise Refused("reference", "is required.")
            return kind, parsed
        payer = get("payer", "")
        parsed["payer"] = PAYERS.get(payer.lower(), payer) if payer else None
        fee_kind = get("fee_kind", "")
        parsed["fee_kind"] = FEE_KINDS.get(fee_kind.lower(), fee_kind) if fee_kind else None
        seat = get("seat", "")
        parsed["seat"] = int(seat) if seat.isdigit() else (seat or None)
        for field in ("player", "currency", "corrects_key", "reason", "idempotency_key"):
            parsed[field] = get(field) or None
        amount = get("amount", "")
        try:
            parsed["amount"] = Decimal(amount).quantize(CENT) if amount else None
        except InvalidOperation:
            parsed["amount"] = amount  # the ledger says what is wrong with it
        return kind, parsed

    def moment(self, text, required=True):
        if not text:
            if required:
                raise Refused("time", "is required.")
            return None
        try:
            moment = datetime.datetime.fromisoformat(text) if len(text) > 10 else None
        except ValueError:
            moment = None
        if moment is None:
            raise Refused("time", f"must be a date and time such as 2026-11-06 14:30 (the room's time) or "
                                  f"2026-11-06T14:30:00-08:00, not {text!r}.")
        if moment.tzinfo is None:
            first, second = moment.replace(tzinfo=self.zone), moment.replace(tzinfo=self.zone, fold=1)
            if first.utcoffset() != second.utcoffset():
                back = first.astimezone(datetime.UTC).astimezone(self.zone).replace(tzinfo=None)
                what = "came twice (the clocks went back)" if back == moment else "never came (the clocks went " \
                                                                                  "forward)"
                raise Refused("time", f"{text} {what} at {self.establishment.name} ({self.establishment.time_zone}):"
                                      " write it with its UTC offset.")
            moment = first
        return moment

    def content_key(self, parsed):
        """The key of an entry with no key of its own: a digest of what it records, so the same row is the same
        entry whichever file or position it comes in."""
        table = parsed["table"]
        time = parsed["time"]
        content = "\x1f".join(str(value) for value in (
            table.label if table else "", time.astimezone(datetime.UTC).isoformat() if time else "",
            parsed["reference"], parsed["payer"], parsed["seat"], parsed["player"], parsed["fee_kind"],
            parsed["amount"], parsed["currency"], parsed["corrects_key"], parsed["reason"]))
        return "import-" + hashlib.sha256(content.encode()).hexdigest()[:40]

    def entry(self, parsed):
        """The row as ``record_entries`` takes it (its own checks decide the rest)."""
        row = {"idempotency_key": parsed["idempotency_key"] or self.content_key(parsed)}
        if parsed["table"] is not None:
            row["table"] = parsed["table"].pk
        if parsed["time"] is not None:
            row["collected_at"] = parsed["time"]
        if "gaming_day" in parsed:
            row["gaming_day"] = parsed["gaming_day"].isoformat()
        for field in ("reference", "payer", "seat", "player", "fee_kind", "currency", "corrects_key", "reason"):
            if parsed[field] not in (None, ""):
                row[field] = parsed[field]
        if parsed["amount"] is not None:
            row["amount"] = str(parsed["amount"])
        return row

    def readings(self, kind, parsed):
        """Each value as the ledger will read it, for the preview."""
        table, time = parsed["table"], parsed["time"]
        said = [("Record", "round" if kind == "round" else "collection entry"),
                ("Table", f"table {table.label}" if table else "the corrected entry's")]
        if time is not None:
            said.append(("Time", format_moment(time, self.zone)))
        day = parsed.get("gaming_day") or (self.establishment.gaming_day_of(time) if time else None)
        if day:
            said.append(("Gaming day", f"{day.isoformat()}{'' if 'gaming_day' in parsed else ' (from the time)'}"))
        said.append(("Reference", parsed["reference"]))
        if kind == "round":
            facts = parsed["facts"]
            said.append(("Facts", ", ".join(f"{key}: {len(value) if isinstance(value, list) else value}"
                                            for key, value in facts.items()) if isinstance(facts, dict)
                         else "not an object"))
            return said
        said.append(("Payer", PAYER_LABELS.get(parsed["payer"], f"{parsed['payer']!r}: not a payer")))
        if parsed["seat"] is not None or parsed["player"]:
            said.append(("Seat, player", f"seat {parsed['seat'] or '–'}, {parsed['player'] or 'no player'}"))
        said.append(("Fee kind", FEE_KIND_LABELS.get(parsed["fee_kind"], f"{parsed['fee_kind']!r}: not a kind")))
        amount = parsed["amount"]
        said.append(("Amount", format_money(amount, self.currency) if isinstance(amount, Decimal)
                     else f"{amount!r}: not an amount"))
        if parsed["corrects_key"]:
            said.append(("Corrects", f"entry {parsed['corrects_key']}: {parsed['reason'] or 'no reason given'}"))
        said.append(("Key", f"the row's own: {parsed['idempotency_key']}" if parsed["idempotency_key"]
                     else "from the row's content"))
        return said


def preview(record_import, mapping, limit=PREVIEW_ROWS):
    """The first rows as they would be recorded: [{"line", "cells", "readings" or "problem"}]."""
    reader = Reader(record_import.establishment, mapping, record_import.header)
    shown = []
    for line, cells, problem in read_rows(record_import):
        row = {"line": line, "cells": cells}
        try:
            if problem:
                raise Refused(None, problem)
            kind, parsed = reader.parse(cells)
            row["readings"] = reader.readings(kind, parsed)
        except Refused as refused:
            row["problem"] = refused.message
        shown.append(row)
        if len(shown) >= limit:
            break
    return shown


# -- the job -------------------------------------------------------------------------------------------------------

class _Outcome:
    """Counts and the refused rows (written to a temporary CSV as they come, in file order per batch)."""

    def __init__(self, header):
        self.rounds = self.entries = self.already = self.refused = 0
        self.pending, self.shown = [], []
        self.file = tempfile.TemporaryFile("w+", newline="", encoding="utf-8")
        self.writer = csv.writer(self.file)
        self.writer.writerow([*header, REFUSED_COLUMN])
        self.width = len(header)

    def refuse(self, line, cells, reason):
        self.refused += 1
        self.pending.append((line, cells, reason))

    def flush(self):
        for line, cells, reason in sorted(self.pending, key=lambda row: row[0]):
            cells = list(cells[:self.width]) + [""] * (self.width - len(cells))
            self.writer.writerow([*cells, f"line {line}: {reason}"])
            if len(self.shown) < REFUSED_SHOWN:
                self.shown.append({"line": line, "reason": reason})
        self.pending = []


def _record_entries(batch, scope, user, outcome):
    """Record ``batch`` ([(line, cells, row)]): good rows recorded, each bad one refused with the ledger's reason."""
    todo = [batch]
    while todo:
        rows = todo.pop()
        try:
            result = ledger.record_entries([row for _, _, row in rows], scope=scope, user=user,
                                           label=lambda index: "")
        except ledger.LedgerInputError as error:
            named = {index: message for index, message in error.errors.items() if index is not None}
            if not named:
                for line, cells, _ in rows:
                    outcome.refuse(line, cells, str(error))
                continue
            for index, message in named.items():
                outcome.refuse(rows[index][0], rows[index][1], message)
            last = max(named) if len(named) >= 20 else len(rows) - 1  # the ledger stops naming at 20
            checked = [row for index, row in enumerate(rows[:last + 1]) if index not in named]
            rest = rows[last + 1:]
            todo += [part for part in (checked, rest) if part]
        except LedgerConflict as conflict:
            if len(rows) == 1:
                outcome.refuse(rows[0][0], rows[0][1], str(conflict))
            else:  # a key reused for other content: halve until the row is found
                middle = len(rows) // 2
                todo += [rows[:middle], rows[middle:]]
        else:
            outcome.entries += result.created
            outcome.already += result.already_recorded


def _record_round(line, cells, parsed, user, outcome):
    try:
        _, created = ledger.record_round(table=parsed["table"], reference=parsed["reference"],
                                         played_at=parsed["time"], facts=parsed["facts"],
                                         gaming_day=parsed.get("gaming_day"), user=user)
    except (ledger.LedgerInputError, LedgerConflict) as error:
        outcome.refuse(line, cells, str(error))
    else:
        if created:
            outcome.rounds += 1
        else:
            outcome.already += 1


def run_import(job, on_progress=None):
    """The job's work: every row of the file recorded or refused; the import's counts and refused rows kept."""
    record_import = RecordImport.objects.select_related("establishment__jurisdiction").get(job=job)
    establishment, user = record_import.establishment, job.requested_by
    try:
        permissions.require(user, PERMISSION, establishment)
    except NotAllowed as refused:
        raise ValueError(str(refused)) from None
    scope = Scope(user)
    reader = Reader(establishment, record_import.mapping, record_import.header)
    outcome = _Outcome(record_import.header)
    job.plan(record_import.rows, f"Reading {record_import.rows:,} rows")
    batch, done, since = [], 0, 0

    def progress():
        job.advance(done, f"{done:,} of {record_import.rows:,} rows: {outcome.rounds + outcome.entries:,} recorded, "
                          f"{outcome.refused:,} refused")
        if on_progress is not None:
            on_progress(job)

    def send():
        nonlocal batch
        if batch:
            _record_entries(batch, scope, user, outcome)
            batch = []
        outcome.flush()

    for line, cells, problem in read_rows(record_import):
        done += 1
        try:
            if problem:
                raise Refused(None, problem)
            kind, parsed = reader.parse(cells)
        except Refused as refused:
            outcome.refuse(line, cells, refused.message)
            continue
        if kind == "round":
            _record_round(line, cells, parsed, user, outcome)
            since += 1
            if since >= ROUND_PROGRESS:
                since = 0
                progress()
        else:
            batch.append((line, cells, reader.entry(parsed)))
            if len(batch) >= ENTRY_BATCH:
                send()
                progress()
    send()
    outcome.file.seek(0)
    refused_csv = outcome.file.read().encode("utf-8")
    outcome.file.close()
    record_import.rounds_recorded, record_import.entries_recorded = outcome.rounds, outcome.entries
    record_import.already_recorded, record_import.refused = outcome.already, outcome.refused
    counts = {"rows": done, "rounds_recorded": outcome.rounds, "entries_recorded": outcome.entries,
              "already_recorded": outcome.already, "refused": outcome.refused}
    with transaction.atomic():
        if outcome.refused:
            record_import.refused_file.save("refused.csv", ContentFile(refused_csv), save=False)
        record_import.save(update_fields=["rounds_recorded", "entries_recorded", "already_recorded", "refused",
                                          "refused_file"])
        audit.log_action("ledger.import_finished", actor=user, obj=record_import, establishment=establishment,
                         data={"file": record_import.name, "sha256": record_import.sha256, **counts,
                               "refused_sha256": hashlib.sha256(refused_csv).hexdigest() if outcome.refused
                               else None, "job": str(job.uuid)})
        job.status, job.done, job.finished_at, job.stage = Job.Status.DONE, job.total, timezone.now(), ""
        job.result = {**counts, "refused_rows": outcome.shown}
        job.save(update_fields=["status", "done", "finished_at", "stage", "result"])
    return None


@shared_task
def import_records(job_id):
    return jobs.run(job_id, run_import)


def refused_name(record_import):
    stem = record_import.name.rsplit(".", 1)[0]
    return f"{stem} refused rows.csv"
