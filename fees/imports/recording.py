"""The import's job: every row of the file recorded or refused, through the ledger's own services (the API's
door): rounds one by one through ``record_round``; collection entries in batches, each row checked once by
``check_entries``, the good rows recorded by ``record_checked`` (on a thread of its own on PostgreSQL, while the
next batch is read) and the bad ones refused with the ledger's reason. A row is recorded whole or refused. At the
end the table-days it recorded something on are reconciled (``fees.ledger.services.reconcile_table_days``, for the
importer), so the variance page shows them without waiting for the nightly run."""

import csv
import hashlib
import re
import tempfile
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from celery import shared_task
from django.core.files.base import ContentFile
from django.db import connection, connections, transaction
from django.utils import timezone

from cardroom import audit, csv_escaping, jobs, permissions
from cardroom.access import Scope
from cardroom.exceptions import BadInput, NotAllowed
from cardroom.models import Job
from cardroom.registry import JobKind

from .. import ledger
from ..ledger.services import reconcile_table_days
from ..models import LedgerConflict, RecordImport
from .preview import reason_words
from .reading import Refused, read_rows
from .rows import Reader

PERMISSION = "fees.import_records"  # asked by each step's service, and again by the job
ENTRY_BATCH = ledger.MAX_BATCH
ROUND_PROGRESS = 200  # rounds between two progress updates
REFUSED_SHOWN = 200  # refused rows listed on the page (all are in the download)
REFUSED_COLUMN = "refused because"
WRITERS = 2  # connections recording batches side by side on PostgreSQL: the database's work is most of an import's


NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")  # a plain number (-5.00): a spreadsheet reads it as one, runs nothing


def refused_cell(text):
    """A cell of the refused rows' file: escaped as the audit bundle's text cells are (``cardroom.csv_escaping``:
    a formula-like cell, or one beginning with ', gets a ' before it, which the import takes off again), so that
    opening the file runs nothing; a plain number is left as it is, as the bundle leaves its numbers."""
    return text if NUMBER.fullmatch(text) else csv_escaping.escape(text)


def _no_label(index):
    return ""  # the ledger's messages name the field alone: the refused row's line is said by the import


class _Outcome:
    """Counts and the refused rows, written to a temporary CSV in line order: a batch's refusals (its reading, its
    check, its recording) are held until its recording is done, and batches are written in the file's order."""

    def __init__(self, header, mapping):
        self.mapping = mapping
        self.rounds = self.entries = self.already = self.refused = 0
        self.touched = set()  # (table id, gaming day) where something new was recorded: reconciled at the end
        self.pending, self.shown = [], []  # the refusals of the batch being read
        self.batches = deque()  # [refusals, recordings not yet done] of the batches read, oldest first
        self.file = tempfile.TemporaryFile("w+", newline="", encoding="utf-8")
        self.writer = csv.writer(self.file)
        self.writer.writerow([refused_cell(name) for name in (*header, REFUSED_COLUMN)])
        self.width = len(header)

    def refuse(self, line, cells, reason, batch=None):
        """Refuse a row with its reason in the file's words (the field's name and column, not the ledger's)."""
        self.refused += 1
        (self.pending if batch is None else batch[0]).append((line, cells, reason_words(reason, self.mapping)))

    def end_batch(self):
        """The batch read so far, closed: its refusals are written once its recordings are done (``recorded``)."""
        batch, self.pending = [self.pending, 0], []
        self.batches.append(batch)
        return batch

    def flush(self):
        """Write the refusals of the batches whose recordings are done, oldest first, up to the first not done."""
        if self.pending:
            self.end_batch()
        while self.batches and self.batches[0][1] == 0:
            refusals, _ = self.batches.popleft()
            for line, cells, reason in sorted(refusals, key=lambda row: row[0]):
                cells = list(cells[:self.width]) + [""] * (self.width - len(cells))
                self.writer.writerow([refused_cell(cell) for cell in (*cells, f"line {line}: {reason}")])
                if len(self.shown) < REFUSED_SHOWN:
                    self.shown.append({"line": line, "reason": reason})


def _check(batch, scope, outcome):
    """Check ``batch`` ([(line, cells, row)]) once: each bad row refused with the ledger's reason; returns the
    [(checked, rows)] to record."""
    todo, ready = [batch], []
    while todo:
        rows = todo.pop()
        try:
            checked = ledger.check_entries([row for _, _, row in rows], scope=scope, label=_no_label,
                                           max_errors=None)
        except BadInput as error:  # the batch as a whole: never for the import's own batches
            for line, cells, _ in rows:
                outcome.refuse(line, cells, str(error))
            continue
        except LedgerConflict as conflict:  # a correction of an entry corrected already: halve to find it
            if len(rows) == 1:
                outcome.refuse(rows[0][0], rows[0][1], str(conflict))
            else:
                todo += [rows[len(rows) // 2:], rows[:len(rows) // 2]]
            continue
        for index, message in checked.errors.items():
            outcome.refuse(rows[index][0], rows[index][1], message)
        ready.append((checked, rows))
    return ready


def _record(checked, rows, user):
    """Record checked rows: (created, already recorded, [(line, cells, reason)] refused, {(table id, day)} where
    something was created). A key already recorded for other content is found by halving, and that row refused."""
    todo, created, already, refused, touched = [checked], 0, 0, [], set()
    while todo:
        part = todo.pop()
        try:
            result = ledger.record_checked(part, user=user)
        except LedgerConflict as conflict:
            if len(part.rows) == 1:
                line, cells, _ = rows[part.rows[0][0]]  # a checked row starts with its index in the batch
                refused.append((line, cells, str(conflict)))
            else:
                middle = len(part.rows) // 2
                todo += [part.part(middle), part.part(0, middle)]
        else:
            created += result.created
            already += result.already_recorded
            if result.created:
                touched |= result.table_days
    return created, already, refused, touched


class _Recorder:
    """Records checked batches. On PostgreSQL outside a transaction (a job) it does so on WRITERS threads, each with
    its own connection, a batch each in turn, so that batches are written side by side while the next is read and
    checked (the database's work and this process's overlap); else in line. Two writers never deadlock: each
    locks its keys and its kept sums' table-days in one order (``fees.ledger.storage``). A file with corrections is
    recorded in line: a correction may name an entry of the batch before it, which must be recorded before it is
    checked."""

    def __init__(self, user, outcome, corrections):
        self.user, self.outcome, self.running, self.sent = user, outcome, deque(), 0
        background = (connection.vendor == "postgresql" and not connection.in_atomic_block and not corrections)
        self.pools = [ThreadPoolExecutor(1, thread_name_prefix=f"import-recorder-{n}") for n in range(WRITERS)] \
            if background else []

    def record(self, checked, rows, batch):
        """Record a checked part of ``batch`` (``_Outcome.end_batch``): its refusals go there."""
        batch[1] += 1
        if not self.pools:
            self._count(_record(checked, rows, self.user), batch)
            return
        while len(self.running) >= len(self.pools):
            self._count(*self.running.popleft())
        pool = self.pools[self.sent % len(self.pools)]
        self.sent += 1
        self.running.append((pool.submit(_record, checked, rows, self.user), batch))

    def wait(self):
        while self.running:
            self._count(*self.running.popleft())

    def _count(self, recorded, batch):
        if not isinstance(recorded, tuple):
            recorded = recorded.result()
        created, already, refused, touched = recorded
        batch[1] -= 1
        self.outcome.touched |= touched
        self.outcome.entries += created
        self.outcome.already += already
        for line, cells, reason in refused:
            self.outcome.refuse(line, cells, reason, batch)

    def close(self):
        try:
            self.wait()
        finally:
            for pool in self.pools:
                pool.submit(connections.close_all).result()  # the thread's own connection
                pool.shutdown()


def _record_round(line, cells, parsed, user, outcome):
    try:
        round_, created = ledger.record_round(table=parsed["table"], reference=parsed["reference"],
                                         played_at=parsed["time"], facts=parsed["facts"],
                                         gaming_day=parsed.get("gaming_day"), user=user)
    except (BadInput, LedgerConflict) as error:
        outcome.refuse(line, cells, str(error))
    else:
        if created:
            outcome.rounds += 1
            outcome.touched.add((round_.table_id, round_.gaming_day))
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
    outcome = _Outcome(record_import.header, record_import.mapping)
    job.plan(record_import.rows, f"Reading {record_import.rows:,} rows")
    recorder = _Recorder(user, outcome, corrections="corrects_key" in reader.columns)
    batch, done, since = [], 0, 0

    def progress():
        job.advance(done, f"{done:,} of {record_import.rows:,} rows: {outcome.rounds + outcome.entries:,} recorded, "
                          f"{outcome.refused:,} refused")
        if on_progress is not None:
            on_progress(job)

    def send():
        nonlocal batch
        ready = _check(batch, scope, outcome) if batch else []
        closed = outcome.end_batch()
        for checked, rows in ready:
            recorder.record(checked, rows, closed)
        batch = []
        outcome.flush()

    try:
        for line, cells, problem in read_rows(record_import):
            done += 1
            try:
                if problem:
                    raise Refused(None, problem)
                kind, parsed = reader.parse(cells)
                if kind == "entry":
                    reader.check_names(parsed)
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
    finally:
        recorder.close()
    outcome.flush()
    reconciled = _reconcile(job, user, outcome.touched, on_progress)
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
        job.result = {**counts, "refused_rows": outcome.shown, "reconciliation": reconciled}
        job.save(update_fields=["status", "done", "finished_at", "stage", "result"])
    return None


def _reconcile(job, user, touched, on_progress):
    """The table-days the import recorded something on, reconciled for the importer, with progress a day at a
    time; a day of a closed month (or one the importer may not reconcile) is skipped and said, never a failure of
    the import. Returns what was done, for the job's result."""
    days = len({day for _, day in touched})
    job.plan(days, f"Reconciling the {days:,} gaming day{'' if days == 1 else 's'} recorded")

    def progress(done, total):
        job.advance(done, f"Reconciling: {done:,} of {total:,} gaming days")
        if on_progress is not None:
            on_progress(job)

    try:
        return reconcile_table_days(user, table_days=touched, on_progress=progress).as_dict()
    except NotAllowed as refused:
        return {"days": days, "reconciled": 0, "with_variance": 0,
                "skipped": [f"Not reconciled: {refused} The nightly reconciliation will reconcile them."]}


# Its name as queued (the job's kind registers it with cardroom.jobs): kept when the module became a package.
@shared_task(name="fees.imports.import_records")
def import_records(job_id):
    return jobs.run(job_id, run_import)


# Its kind of job (registered in FeesConfig.ready): seen by administrators only.
IMPORT_KIND = JobKind("ledger_import", "Import of a room's records", import_records)


def refused_name(record_import):
    stem = record_import.name.rsplit(".", 1)[0]
    return f"{stem} refused rows.csv"
