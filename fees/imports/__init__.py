"""A room's own records in: a file (CSV or XLSX) of rounds and collection entries, written by the room's
table-game or cage system, recorded through the ledger's one door (issue 27).

The steps, each a service that takes who acts, asks ``fees.import_records`` for the room and writes the audit entry
(``services``):

- ``receive_upload``: the upload is checked before it is parsed (its size, its kind, its row count, an XLSX's
  unpacked size: ``reading``), kept with its SHA-256, and its header read (``ledger.import_uploaded``).
- ``save_mapping``: which column holds each ledger field, kept per room (``ledger.import_mapping``);
  ``guess_mapping`` proposes one from the header the first time (``mapping``); ``preview`` shows the first rows as
  they would be recorded, each value with its reading (``preview``).
- ``start_import``: the import queued as a background job (``ledger.import``, with the file's name, size, hash, row
  count and mapping); ``run_import`` is the job (``recording``): rounds through ``fees.ledger.record_round``, collection
  entries in batches through ``fees.ledger.check_entries`` and ``record_checked``, the same services and checks as
  the API. It ends with ``ledger.import_finished`` (the counts, and the hash of the refused rows' file).

A row is recorded whole or refused: each row is checked once, the batch's good rows recorded together, the bad
ones refused with the ledger's own reason.

Idempotency: an entry keeps the row's own key when the file has one (mapped ``idempotency_key``); otherwise its key
is derived from the row's content (``Reader.content_key`` in ``rows``: table, time, reference, payer, seat, player,
fee kind, amount, currency, correction). Not from the row's position: a corrected file moves rows, and a row fixed
and uploaded again must not meet its old position's key. So the same file uploaded twice records nothing new, and a
fixed row is recorded once. A round is already idempotent on (table, gaming day, reference).
"""

from .mapping import FIELD_NAMES, FIELDS, REQUIRED, Field, guess_mapping, mapping_problems, saved_mapping
from .preview import PREVIEW_ROWS, as_table, preview
from .reading import (MAX_COLUMN_NAME, MAX_ROWS, MAX_XLSX_BYTES, MAX_XLSX_UNPACKED, Refused, max_bytes, max_columns,
                      read_rows, size_words, too_large)
from .recording import ENTRY_BATCH, PERMISSION, REFUSED_COLUMN, import_records, refused_name, run_import
from .rows import Reader
from .services import receive_upload, save_mapping, start_import

__all__ = [
    "ENTRY_BATCH", "FIELDS", "FIELD_NAMES", "MAX_COLUMN_NAME", "MAX_ROWS", "MAX_XLSX_BYTES", "MAX_XLSX_UNPACKED",
    "PERMISSION", "PREVIEW_ROWS", "REFUSED_COLUMN", "REQUIRED", "Field", "Reader", "Refused", "as_table",
    "guess_mapping", "import_records", "mapping_problems", "max_bytes", "max_columns", "preview", "read_rows",
    "receive", "refused_name", "run_import", "size_words", "start", "save_mapping", "saved_mapping", "too_large",
]
