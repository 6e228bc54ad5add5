"""Reading an import's file: an upload checked before it is parsed (its size, kind, row count, an XLSX's unpacked
size, a CSV's encoding), its header, and then its rows as lists of text cells."""

import csv
import datetime
import hashlib
import io
import zipfile

from django.conf import settings

from cardroom import bundle, csv_escaping
from cardroom.exceptions import BadInput

from ..models import RecordImport

MAX_ROWS = 2_000_000
MAX_COLUMN_NAME = 100  # characters
MAX_XLSX_BYTES = 64 * 1024 * 1024
MAX_XLSX_UNPACKED = 512 * 1024 * 1024  # what the workbook's parts may unpack to (a zip bomb is refused unread)


def max_bytes():
    """The largest file the import takes (``settings.IMPORT_MAX_BYTES``, 256 MB: a busy room's month as CSV, a
    million rows, is about 110 MB)."""
    return settings.IMPORT_MAX_BYTES


def max_columns():
    return settings.IMPORT_MAX_COLUMNS


def size_words(size):
    """A size as people say it: 256 MB, 300 kB, 12 bytes."""
    for unit, scale in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("kB", 1024)):
        if size >= scale:
            amount = size / scale
            return f"{amount:.0f} {unit}" if amount >= 10 or amount == int(amount) else f"{amount:.1f} {unit}"
    return f"{size:,} bytes"


def too_large(size):
    return f"The file is {size_words(size)}; the import takes files of at most {size_words(max_bytes())}: split it."


class Refused(Exception):
    """A row that cannot be recorded: ``message`` names the field and says why."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}" if field else message)
        self.message, self.field, self.reason = str(self), field, message


def _text(cell):
    return cell.strip() if isinstance(cell, str) else ("" if cell is None else str(cell))


def _header(cells):
    """The file's column names from its first row; BadInput for a row that does not name a table's columns (too
    few, too many for the mapping page to offer, a name too long or said twice)."""
    cells = list(cells)
    while cells and not _text(cells[-1]):
        cells.pop()  # a spreadsheet's empty columns at the right
    if len(cells) > max_columns():
        raise BadInput(f"The file has {len(cells):,} columns; the import reads at most {max_columns():,} (a room's "
                       "system writes a dozen or two): export only the columns of rounds and collections.")
    names, seen = [], set()
    for number, cell in enumerate(cells, start=1):
        name = _text(cell) or f"(column {number})"
        if len(name) > MAX_COLUMN_NAME:
            raise BadInput(f"Column {number}'s name is {len(name):,} characters long; a column's name may have at "
                           f"most {MAX_COLUMN_NAME}: the first row must name the columns.")
        if name in seen:
            raise BadInput(f"The column {name!r} appears twice in the header: give each column its own name.")
        seen.add(name)
        names.append(name)
    if len(names) < 2:
        raise BadInput("The first row must name the file's columns (at least two): this does not read as a table "
                       "of rounds and collections.")
    return names


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


def _csv_rows(text):
    """A CSV's rows, each cell as the installation's own CSVs mean it (``cardroom.csv_escaping``): a cell written
    with a ' before it (the refused rows' download escapes formula-like cells so) is read as the text it escapes."""
    unescape = csv_escaping.unescape
    for cells in csv.reader(text):
        yield [unescape(cell) if cell[:1] == "'" else cell for cell in cells]


def read_rows(record_import):
    """(line, cells, problem) for each data row of the import's file (line 2 is the first after the header)."""
    with record_import.file.open("rb") as binary:
        if record_import.format == RecordImport.Format.XLSX:
            rows = _xlsx_rows(binary)
        else:
            rows = ((cells, None) for cells in _csv_rows(io.TextIOWrapper(binary, encoding="utf-8-sig",
                                                                          newline="")))
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
        reader = _csv_rows(text)
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
    # The zip's end record and directory read strictly before zipfile lists them (it would build a record of every
    # part, however many the directory claims): the audit bundle's own check (cardroom.bundle).
    if bundle.directory_problem(upload, bundle.Limits(max_members=10_000)) is not None:
        raise BadInput("This workbook's list of parts is not one the import reads (too many parts, or a damaged or "
                       "altered zip): export it again as XLSX, or as CSV.")
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


def check_upload(upload, name):
    """(format, header, rows) of an upload named ``name``, checked before it is parsed; BadInput for a file too
    large, empty, of another kind, or with too many rows or none."""
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if upload.size == 0:
        raise BadInput("The file is empty.")
    if upload.size > max_bytes():
        raise BadInput(too_large(upload.size))
    if extension == "xlsx":
        kind, (header, rows) = RecordImport.Format.XLSX, _check_xlsx(upload)
    elif extension in ("csv", "txt"):
        kind, (header, rows) = RecordImport.Format.CSV, _check_csv(upload)
    else:
        raise BadInput("Upload a .csv or .xlsx file of rounds and collections.")
    if rows == 0:
        raise BadInput("The file has a header but no rows.")
    return kind, header, rows


def sha256(upload):
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()
