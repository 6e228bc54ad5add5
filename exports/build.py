"""Building an audit export bundle (format 2): every kind once, as CSV described in columns.json, the PDF report, the
audit chains' checkpoints, a signed manifest.

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
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.utils import timezone

import cardroom
from cardroom import csv_escaping, keys
from cardroom.bundle import CHUNK, BundleWriter

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
        return csv_escaping.escape(value)
    return str(value)


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
                    # A row a message (psycopg: "an unparsed row"), a note's new lines and all; written to the zip a
                    # megabyte at a time: a write a row (hashed, checksummed, deflated) costs more than the row.
                    pending, size = [], 0
                    for data in copy:
                        pending.append(data)
                        size += len(data)
                        rows += 1
                        if size >= CHUNK:
                            handle.write(b"".join(pending))
                            pending, size = [], 0
                        if rows % PROGRESS_EVERY == 0:
                            progress.stage(f"{name}: {rows:,} rows")
                    handle.write(b"".join(pending))
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


PRICINGS = collect.PRICINGS_FILE
PRICING_FIELDS = [
    ("id", "The pricing's id: rounds.csv's pricing column names it", "integer"),
    ("schedule", "Schedule code", "text"), ("version", "Schedule version", "integer"),
    ("option", "Option number", "integer"),
    ("digest", "SHA-256 (hex) of body as JSON with its keys sorted and no spaces (UTF-8): what the pricing is known "
               "by", "text"),
    ("body", "What every round priced under it shares: the fee engine's explanation but the round's own fees (the "
             "document, its title and citation, the option, notes, interpretations read) and the option's tiers "
             "(their order, bounds and printed text), which round_fee_lines.csv's tier column names", "json"),
]


def columns_document():
    """columns.json: every CSV file's columns, what they mean and what they hold (type, unit, currency, time zone;
    the same text as docs/exports.md), and the fields of round_pricings.json's records."""
    document = {
        kind.name: {"title": kind.title, "files": [f"{kind.name}.csv"],
                    "columns": [{"name": column[0], "description": column[1], **kind_type.describe()}
                                for column, kind_type in zip(kind.columns, kind.column_types())],
                    "csv_escaping": collect.CSV_ESCAPING}
        for kind in collect.KINDS
    }
    document["round_pricings"] = {"title": collect.PRICINGS_TITLE, "files": [PRICINGS], "fields": [
        {"name": n, "description": d, "type": t} for n, d, t in PRICING_FIELDS]}
    return document


def _write_pricings(writer, scope, progress):
    """round_pricings.json: a JSON array, a record a line, of the pricings the rounds in scope name."""
    with writer.open(PRICINGS) as handle:
        handle.write(b"[")
        rows = 0
        for record in collect.pricing_records(scope):
            handle.write((("\n" if rows == 0 else ",\n") + json.dumps(record, ensure_ascii=False)).encode())
            rows += 1
        handle.write(b"\n]\n")
        handle.rows = rows
    progress.file_done(PRICINGS, rows)
    return rows


def _write_checkpoints(writer, scope):
    """Each chain's Merkle tree head as the export covers it, signed, with the proofs that tie the export's audit rows
    and earlier exports' checkpoints to it (``cardroom.transparency.export_files``, docs/audit.md): whoever keeps the
    bundle can later tell a chain rewritten after it, even one whose hashes and recorded head were recomputed."""
    from cardroom.transparency import export_files

    for name, text in export_files(scope.chain_heads, scope.start_moment, scope.end_moment).items():
        writer.add_bytes(name, text.encode())


def manifest_head(scope, started, requested_by, counts):
    """What every export's manifest says of itself (a bundle of bundles' too): when, by whom and what made it, what it
    covers, the audit chains' heads as frozen, and its rows per kind."""
    return {
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
    }


def build(scope, path, *, requested_by="", on_progress=None):
    """Write the bundle for ``scope`` to ``path``; returns the manifest (as signed)."""
    from cardroom.transparency import current_key

    signing_key, _ = current_key()  # recorded among the installation's keys before the bundle's time is taken
    scope.freeze()
    progress = Progress(len(collect.KINDS) + 3, on_progress)  # each kind's CSV, the pricings, columns, the report
    started = timezone.now()
    counts = {}
    with BundleWriter(path) as writer:
        for kind in collect.KINDS:
            progress.stage(f"{kind.name}.csv")
            counts[kind.name] = _write_csv(writer, kind, scope, progress)
        progress.stage(PRICINGS)
        counts["round_pricings"] = _write_pricings(writer, scope, progress)
        writer.add_bytes("columns.json", json.dumps(columns_document(), indent=2, ensure_ascii=False).encode())
        progress.file_done("columns.json", None)
        progress.stage("report.pdf")
        pdf = report.render(scope, counts, generated_at=started, requested_by=requested_by)
        writer.add_bytes("report.pdf", pdf)
        progress.file_done("report.pdf", None)
        _write_checkpoints(writer, scope)
        manifest = {
            **manifest_head(scope, started, requested_by, counts),
            "last_ids": {"ledger_entries": scope.last_entry, "rounds": scope.last_round},
            "signing_key": keys.key_fingerprint(),
        }
        return writer.finish(manifest, signing_key)  # as signed: with its format and files
