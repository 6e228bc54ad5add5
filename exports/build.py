"""Building an audit export bundle: every kind as CSV and JSON, the PDF report, a signed manifest.

``build(scope, path, on_progress=None)`` writes the bundle to ``path`` and returns its manifest. Files are
streamed into the zip as their rows are read (``cardroom.bundle.BundleWriter`` hashes them on the way), so
memory stays flat whatever the period holds. The file format is in docs/exports.md.
"""

import contextlib
import csv
import datetime
import json
import logging
import queue
import subprocess
import threading
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

import cardroom
from cardroom import keys
from cardroom.bundle import BundleWriter

from . import collect, report

PROGRESS_EVERY = 50_000  # rows between progress reports within one file
logger = logging.getLogger(__name__)


def generator():
    """What made the bundle: the release, and the git commit when the code runs from a checkout."""
    commit = None
    if (Path(settings.BASE_DIR) / ".git").exists():
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True,
                                    text=True, timeout=5).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            commit = None
    return {"name": "cardroom", "version": cardroom.__version__, "commit": commit}


def csv_cell(value):
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, str):  # text, never a number: escaped if a spreadsheet would run it (collect.CSV_ESCAPING)
        return "'" + value if value.startswith(collect.FORMULA_STARTS) else value
    return str(value)


def json_cell(value):
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


class Progress:
    """Reports (files done, stage) to the job as the bundle is written.

    While a COPY streams, psycopg holds its connection's lock until the last row, so a report written through
    that connection waits forever (issue 23). Reports made then go to a thread of their own (``streaming``):
    Django gives each thread its own connection, so the progress bar still moves while a big file streams, and
    the reports keep their order because one thread writes them all.
    """

    def __init__(self, total_files, callback):
        self.total, self.done, self.callback = total_files, 0, callback
        self._aside = None

    def stage(self, text):
        if self.callback is None:
            return
        if self._aside is not None:
            self._aside.put((self.done, self.total, text))
        else:
            self.callback(self.done, self.total, text)

    @contextlib.contextmanager
    def streaming(self):
        """Around a COPY: reports are written on another connection until it ends."""
        if self.callback is None:
            yield
            return
        reports = queue.Queue()
        thread = threading.Thread(target=_report_aside, args=(reports, self.callback), daemon=True,
                                  name="export-progress")
        thread.start()
        self._aside = reports
        try:
            yield
        finally:
            self._aside = None
            reports.put(None)
            thread.join()

    def file_done(self, name, rows):
        self.done += 1
        self.stage(f"{name}: {rows:,} rows" if rows is not None else name)


def _report_aside(reports, callback):
    try:
        while (report := reports.get()) is not None:
            try:
                callback(*report)
            except Exception:  # a lost progress report must not stop the export
                logger.exception("progress report %r not written", report[2])
    finally:
        connection.close()  # this thread's own connection


class _Utf8:
    """What csv.writer writes to: text gathered and written to the zip entry as UTF-8 in large pieces."""

    def __init__(self, handle):
        self.handle, self.parts = handle, []

    def write(self, text):
        self.parts.append(text)
        if len(self.parts) >= 2000:
            self.flush()

    def flush(self):
        if self.parts:
            self.handle.write("".join(self.parts).encode())
            self.parts = []


def _write_csv(writer, kind, scope, progress):
    name = f"{kind.name}.csv"
    with writer.open(name) as handle:
        text = _Utf8(handle)
        out = csv.writer(text, lineterminator="\n")
        out.writerow(kind.column_names)
        text.flush()
        rows = 0
        if kind.copy_sql is not None and collect.use_copy():
            from psycopg import sql

            # PostgreSQL formats the rows itself (COPY), much faster than Python for the big kinds.
            with connection.cursor() as cursor, progress.streaming():
                statement = sql.SQL("COPY ({}) TO STDOUT (FORMAT csv)").format(collect.csv_copy_sql(kind, scope))
                with cursor.cursor.copy(statement) as copy:
                    for data in copy:
                        data = bytes(data)
                        handle.write(data)
                        rows += data.count(b"\n")  # the big kinds' fields are single-line
                        if rows // PROGRESS_EVERY != (rows - data.count(b"\n")) // PROGRESS_EVERY:
                            progress.stage(f"{name}: {rows:,} rows")
        else:
            for row in scope.rows(kind):
                out.writerow([csv_cell(v) for v in row])
                rows += 1
                if rows % PROGRESS_EVERY == 0:
                    progress.stage(f"{name}: {rows:,} rows")
        text.flush()
        handle.rows = rows
    progress.file_done(name, rows)
    return rows


def _write_json(writer, kind, scope, progress):
    name = f"{kind.name}.json"
    columns = kind.column_names
    with writer.open(name) as handle:
        if kind.copy_sql is not None and collect.use_copy():
            rows = _copy_json(handle, kind, scope, progress, name)
        else:
            handle.write(b"[")
            rows = 0
            buffer = []
            for row in scope.rows(kind):
                record = {c: json_cell(v) for c, v in zip(columns, row)}
                buffer.append(("\n" if rows == 0 else ",\n") + json.dumps(record, ensure_ascii=False))
                rows += 1
                if len(buffer) >= 1000:
                    handle.write("".join(buffer).encode())
                    buffer = []
                if rows % PROGRESS_EVERY == 0:
                    progress.stage(f"{name}: {rows:,} rows")
            handle.write(("".join(buffer) + "\n]\n").encode())
        handle.rows = rows
    progress.file_done(name, rows)
    return rows


NUMERIC_OID = 1700  # PostgreSQL's numeric: a Decimal, written as a JSON string as json_cell writes it
INTEGER_OIDS = {20, 21, 23}  # bigint, smallint, integer: their text is their JSON


def json_lines_sql(kind, scope):
    """A SELECT giving each row of ``kind.copy_sql`` as one line of JSON followed by a comma, byte for byte what
    ``json.dumps(record, ensure_ascii=False)`` makes of the Python path's record: keys in column order, ", " and ": "
    between them, decimals as strings, NULL as null. PostgreSQL's to_json escapes text as Python does (\\", \\\\,
    \\n, \\t, \\u00XX for other control characters; other characters as they are)."""
    from psycopg import sql

    select = kind.copy_sql(scope)
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("SELECT * FROM ({}) s LIMIT 0").format(select))
        types = [column.type_code for column in cursor.description]
    names = kind.column_names
    parts = []
    for index, (column, oid) in enumerate(zip(names, types)):
        value = sql.Identifier("s", column)
        if oid in INTEGER_OIDS:
            value = sql.SQL("{}::text").format(value)
        else:
            value = sql.SQL("to_json({}{})::text").format(value, sql.SQL("::text" if oid == NUMERIC_OID else ""))
        key = ("{" if index == 0 else ", ") + json.dumps(column) + ": "
        parts.append(sql.SQL("{}, coalesce({}, 'null')").format(sql.Literal(key), value))
    return sql.SQL("SELECT concat({}, '}},') FROM ({}) s ({}) ORDER BY s.{}").format(
        sql.SQL(", ").join(parts), select, sql.SQL(", ").join(sql.Identifier(c) for c in names),
        sql.Identifier(names[0]))


def _copy_json(handle, kind, scope, progress, name):
    """The JSON array streamed from PostgreSQL: one line per row (json_lines_sql), as the Python path joins them.
    CSV format with a quote and delimiter that JSON text never holds raw gives each line back as it is."""
    from psycopg import sql

    statement = sql.SQL("COPY ({}) TO STDOUT (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')").format(
        json_lines_sql(kind, scope))
    rows, parts, size = 0, [b"[\n"], 0
    with transaction.atomic(), connection.cursor() as cursor, progress.streaming():
        cursor.execute("SET LOCAL jit = off")  # compiling the expressions costs more than it saves here
        with cursor.cursor.copy(statement) as copy:
            for data in copy:  # whole lines (PostgreSQL sends a row a message); no raw newline inside JSON text
                data = bytes(data)
                parts.append(data)
                size += len(data)
                lines = data.count(b"\n")
                if (rows + lines) // PROGRESS_EVERY != rows // PROGRESS_EVERY:
                    progress.stage(f"{name}: {rows + lines:,} rows")
                rows += lines
                if size >= 1 << 20:  # write in large pieces, keeping the last line back for the closing bracket
                    handle.write(b"".join(parts[:-1]))
                    parts, size = parts[-1:], 0
    tail = b"".join(parts)
    handle.write(tail[:-2] + b"\n]\n" if rows else b"[\n]\n")
    return rows


def columns_document():
    """columns.json: every file's columns and what they mean (the same text as docs/exports.md)."""
    return {
        kind.name: {"title": kind.title, "files": [f"{kind.name}.csv", f"{kind.name}.json"],
                    "columns": [{"name": n, "description": d} for n, d in kind.columns],
                    "csv_escaping": collect.CSV_ESCAPING}
        for kind in collect.KINDS
    }


def _write_checkpoints(writer, scope):
    """Each chain's Merkle tree head as the export covers it, signed, with the proofs that tie the export's audit rows
    and earlier exports' checkpoints to it (``cardroom.transparency.export_files``, docs/audit.md): whoever keeps the
    bundle can later tell a chain rewritten after it, even one whose hashes and recorded head were recomputed."""
    from cardroom.transparency import export_files

    for name, text in export_files(scope.chain_heads, scope.start_moment, scope.end_moment).items():
        writer.add_bytes(name, text.encode())


def build(scope, path, *, requested_by="", on_progress=None):
    """Write the bundle for ``scope`` to ``path``; returns the manifest (as signed)."""
    from cardroom.transparency import current_key

    signing_key, _ = current_key()  # recorded among the installation's keys before the bundle's time is taken
    scope.freeze()
    progress = Progress(2 * len(collect.KINDS) + 2, on_progress)
    started = timezone.now()
    counts = {}
    with BundleWriter(path) as writer:
        for kind in collect.KINDS:
            progress.stage(f"{kind.name}.csv")
            counts[kind.name] = _write_csv(writer, kind, scope, progress)
            _write_json(writer, kind, scope, progress)
        writer.add_bytes("columns.json", json.dumps(columns_document(), indent=2, ensure_ascii=False).encode())
        progress.file_done("columns.json", None)
        progress.stage("report.pdf")
        pdf = report.render(scope, counts, generated_at=started, requested_by=requested_by)
        writer.add_bytes("report.pdf", pdf)
        progress.file_done("report.pdf", None)
        _write_checkpoints(writer, scope)
        manifest = {
            "generated_at": collect.utc(started),
            "generated_by": requested_by,
            "generator": generator(),
            "scope": {"establishments": [e.slug for e in scope.establishments],
                      "jurisdiction": scope.jurisdiction.code if scope.jurisdiction is not None else None},
            "period": ({"from": scope.start.isoformat(), "to": scope.end.isoformat()} if scope.start
                       else {"as_of": scope.end.isoformat()}),
            "time_zone": settings.TIME_ZONE,
            "audit_chains": [{"chain": chain, "sequence": sequence, "entry_hash": entry_hash}
                             for chain, (sequence, entry_hash) in sorted(scope.chain_heads.items())],
            "rows": counts,
            "last_ids": {"ledger_entries": scope.last_entry, "rounds": scope.last_round},
            "signing_key": keys.key_fingerprint(),
        }
        writer.finish(manifest, signing_key)
    return manifest
