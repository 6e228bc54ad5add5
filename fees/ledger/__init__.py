"""The collection ledger's services: record collections and rounds, reconcile them per table and gaming day.

Everything that writes to the ledger comes through here (the API, the Celery tasks, the benchmarks), so a row
is checked the same way whichever door it came in by.

- ``record_entries``: a batch of collection entries (one row or many thousands). The whole batch is checked
  before anything is written; one bad row rejects it (a ``BadInput`` naming the row). Each row carries an
  idempotency key (or derives one from the batch's key and its position): a row whose key is already recorded
  with the same content counts as "already recorded" and is not written again; the same key with different
  content is a ``LedgerConflict``. On PostgreSQL rows are COPied into a temporary table and inserted with one
  ``INSERT ... SELECT ... ON CONFLICT (idempotency_key) DO NOTHING``; elsewhere ``bulk_create`` is used.
- ``check_entries`` and ``record_checked``: the same in two steps, for the import (a file's good rows recorded,
  its bad rows refused alone, each row checked once): the check names every bad row, records nothing.
- Corrections: a row with ``corrects`` (an entry id) or ``corrects_key`` (its idempotency key) states the
  amount really collected for that entry. It inherits the corrected entry's table, day, reference, payer and
  fee kind, needs a reason, and an entry can be corrected once (correct the correction to change it again).
- ``record_round``: a hand or round with its facts, priced by the engine against the posting in force at
  that table at that moment; idempotent on (table, gaming day, reference).
- ``reconcile``: expected (rounds) against collected (entries no later entry corrects) per table and gaming
  day, hand by hand, aggregated in SQL; results stored as ``Reconciliation`` rows and logged.
- Kept sums (``kept_sums``, its arithmetic in ``tally``): per table and gaming day, the rounds, expected, entries
  that count and collected (by payer and fee kind) in ``LedgerDay``, added to in the same transaction as every round
  and entry written here; ``kept_sums.differences`` and ``repair`` check them against the rows.

The package: ``intake`` (checking entries, ``record_entries``), ``storage`` (writing them), ``rounds``
(``record_round``), ``compact`` (a round's explanation, fee lines and fees by payer kept compactly and rebuilt:
``rebuilt``; the export's fee-line rows) and ``reconciliation`` (``reconcile``). Callers import from
``fees.ledger`` itself, but for ``compact`` (``fees.ledger.compact``) and ``services`` (``fees.ledger.services``:
reconciling as a person, the scheduler or a job, with the permission asked; it is not gathered here).
"""

from .intake import (
    MAX_BATCH, MAX_ID, CheckedEntries, IngestResult, agreed_gaming_day, check_entries, record_checked,
    record_entries, record_entry, writable_tables,
)
from .reconciliation import (compute, empty_summary, previous_gaming_day, reconcile, table_days_with_activity,
                             tables_with_activity)
from .rounds import record_round

__all__ = [
    "MAX_BATCH", "MAX_ID", "CheckedEntries", "IngestResult", "agreed_gaming_day",
    "check_entries", "compute", "empty_summary",
    "previous_gaming_day", "reconcile", "record_checked", "record_entries", "record_entry", "record_round",
    "table_days_with_activity", "tables_with_activity", "writable_tables",
]
