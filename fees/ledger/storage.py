"""Writing checked entries: on PostgreSQL set-based, COPY into a temporary table (``ledger_incoming``), one anti-join
against the recorded entries (a batch recorded already as it is, e.g. a file imported again, stops there), one
``INSERT ... SELECT ... ON CONFLICT DO NOTHING`` and the kept sums summed and upserted by one statement
(``kept_sums.add_collected``); ``bulk_create`` elsewhere. A key already recorded with other content is a
``LedgerConflict``."""

from django.db import connection

from ..models import CollectionEntry, LedgerConflict
from . import kept_sums
from .tally import Tally

# A batch that meets a concurrent one in a deadlock or serialization failure is tried again this many times.
RETRIES = 3
COPY_COLUMNS = ("idx", "idempotency_key", "establishment_id", "table_id", "gaming_day", "reference", "collected_at",
                "payer", "seat", "player", "fee_kind", "amount", "currency", "corrects_id", "reason")
# What must match for a re-sent row to count as the same entry (its key names it within its establishment): every
# field it stores, so a key re-sent with another correction reason is a conflict, not "already recorded".
SAME_ENTRY = ("table_id", "gaming_day", "reference", "collected_at", "payer", "seat", "player", "fee_kind", "amount",
              "currency", "corrects_id", "reason")


def _reused_key(pairs):
    """A key already recorded for another entry. Names the row and its key, never the stored entry's id: keys
    are scoped to an establishment, and the answer must not reveal anything of the ledger beyond the request."""
    index, key = pairs[0]
    others = f" (and {len(pairs) - 1} more rows)" if len(pairs) > 1 else ""
    return LedgerConflict(
        f"Row {index}'s idempotency key {key!r} is already recorded for a different entry{others}; a key names "
        f"one entry for good. Nothing was recorded."
    )


COPY_CHUNK = 5000
NULL = "\\N"
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_field(text):
    """A string as a field of COPY's text format (backslash, tab and line breaks escaped)."""
    return text.translate(_COPY_ESCAPES) if "\\" in text or not text.isprintable() else text


def _copy_text(rows):
    """Rows as COPY text: formatting them here is several times faster than psycopg's write_row."""
    field = _copy_field
    return "".join([
        f"{index}\t{field(key)}\t{establishment_id}\t{table_id}\t{day}\t{field(reference)}\t"
        f"{collected_at.isoformat()}\t{payer}\t{NULL if seat is None else seat}\t{field(player)}\t{fee_kind}\t"
        f"{amount}\t{currency}\t{NULL if corrects_id is None else corrects_id}\t{field(reason)}\n"
        for index, key, establishment_id, table_id, day, reference, collected_at, payer, seat, player, fee_kind,
        amount, currency, corrects_id, reason in rows
    ])


# A key names one entry for good, whatever its day; the database's unique key (establishment, key, gaming day:
# the table is partitioned by day, docs/scaling.md) only sees the same day. Before the batch looks for its keys on
# other days it takes a transaction lock per (establishment, bucket of keys), held to commit: of two batches
# recording one key on two days at once, the second to lock sees the first's rows, committed, and is refused.
KEY_BUCKETS = 64  # locks a batch takes at most per establishment; two single entries wait for each other 1 in 64
KEY_LOCKS = 0x6c6b  # pg_advisory_xact_lock's first key: this lock's own space ("lk")


def insert_postgresql(rows, user_id, now):
    table = CollectionEntry._meta.db_table
    same = ", ".join(f"e.{c}" for c in SAME_ENTRY), ", ".join(f"t.{c}" for c in SAME_ENTRY)
    # Through the unique key's leading columns (establishment, key): the key on any day, a probe per row in each
    # month's partition. Only the months from the ledger's first day to its last are probed (the empty months
    # made ahead, or back, are pruned): a probe costs about as much in an empty month as in a full one.
    reused_sql = (
        f"SELECT t.idx, t.idempotency_key FROM ledger_incoming t JOIN {table} e "
        f"ON e.establishment_id = t.establishment_id AND e.idempotency_key = t.idempotency_key "
        f"WHERE e.gaming_day BETWEEN %s AND %s AND ({same[0]}) IS DISTINCT FROM ({same[1]}) ORDER BY t.idx LIMIT 20"
    )
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS ledger_incoming, ledger_added")
        cursor.execute(
            "CREATE TEMPORARY TABLE ledger_incoming (idx integer, idempotency_key varchar(100), "
            "establishment_id bigint, table_id bigint, gaming_day date, reference varchar(64), "
            "collected_at timestamptz, payer varchar(16), seat smallint, player varchar(64), fee_kind varchar(20), "
            "amount numeric(12, 2), currency varchar(3), corrects_id bigint, reason varchar(500)) ON COMMIT DROP"
        )
        with cursor.cursor.copy(f"COPY ledger_incoming ({', '.join(COPY_COLUMNS)}) FROM STDIN") as copy:
            for start in range(0, len(rows), COPY_CHUNK):
                copy.write(_copy_text(rows[start:start + COPY_CHUNK]))
        columns = COPY_COLUMNS[1:]
        # The batch sent again: when every row's key is recorded already with the same content (a committed entry
        # never changes: the ledger is append-only), one anti-join says so and nothing is written or locked. It
        # stops at the first row not recorded: a batch of new rows costs it one probe.
        cursor.execute(f"SELECT min(gaming_day), max(gaming_day) FROM {table}")
        cursor.execute(
            f"SELECT NOT EXISTS (SELECT FROM ledger_incoming t WHERE NOT EXISTS (SELECT FROM {table} e "
            f"WHERE e.establishment_id = t.establishment_id AND e.idempotency_key = t.idempotency_key "
            f"AND e.gaming_day BETWEEN %s AND %s AND ({same[0]}) IS NOT DISTINCT FROM ({same[1]})))",
            cursor.fetchone())
        if cursor.fetchone()[0]:
            cursor.execute("DROP TABLE ledger_incoming")
            return 0
        # Inserted first, checked after: a row already recorded on its day is skipped by ON CONFLICT, and the one
        # check below finds both a key re-sent with other content and a key recorded on another day (raising
        # rolls the batch back). In key order, so that two batches sharing keys lock them in the same order and
        # one waits for the other instead of deadlocking.
        # The rows inserted are summed per table-day, payer and fee kind into ledger_added, for the kept sums: a
        # correction adds its amount less the amount of the entry it corrects (recorded before this batch: the
        # statement reads it as it stood), which stops counting; the entries that count grow by the others alone.
        cursor.execute(
            "CREATE TEMPORARY TABLE ledger_added (establishment_id bigint, table_id bigint, gaming_day date, "
            "currency varchar(3), payer varchar(16), fee_kind varchar(20), rows_in integer, entries integer, "
            "amount numeric(14, 2)) ON COMMIT DROP"
        )
        cursor.execute(
            f"WITH inserted AS (INSERT INTO {table} ({', '.join(columns)}, recorded_by_id, recorded_at) "
            f"SELECT {', '.join(columns)}, %s, %s FROM ledger_incoming ORDER BY establishment_id, idempotency_key "
            f"ON CONFLICT (establishment_id, idempotency_key, gaming_day) DO NOTHING "
            f"RETURNING establishment_id, table_id, gaming_day, currency, payer, fee_kind, amount, corrects_id) "
            f"INSERT INTO ledger_added SELECT i.establishment_id, i.table_id, i.gaming_day, i.currency, i.payer, "
            f"i.fee_kind, count(*), count(*) FILTER (WHERE i.corrects_id IS NULL), "
            f"sum(i.amount) - coalesce(sum(o.amount), 0) "
            f"FROM inserted i LEFT JOIN {table} o ON o.id = i.corrects_id AND o.gaming_day = i.gaming_day "
            f"GROUP BY 1, 2, 3, 4, 5, 6",
            [user_id, now],
        )
        cursor.execute("SELECT coalesce(sum(rows_in), 0) FROM ledger_added")
        created = cursor.fetchone()[0]
        # The key locks after the insert, so only the check and the commit wait for a concurrent batch; in
        # order, so that two batches never wait for each other both ways. The check is a statement begun after
        # the lock: it sees what a batch that held it committed.
        cursor.execute(
            "SELECT count(pg_advisory_xact_lock(%s, b)) FROM (SELECT DISTINCT (establishment_id %% 32768)::int "
            "* %s + (hashtext(idempotency_key) & %s) AS b FROM ledger_incoming ORDER BY b) buckets",
            [KEY_LOCKS, KEY_BUCKETS, KEY_BUCKETS - 1],
        )
        cursor.execute(f"SELECT min(gaming_day), max(gaming_day) FROM {table}")  # each month's first index entry
        cursor.execute(reused_sql, cursor.fetchone())
        reused = cursor.fetchall()
        if reused:
            raise _reused_key(reused)
        # Last: the batch is known good, and every writer locks its table-days in one order. One statement for
        # the batch's table-days, summed by the database.
        kept_sums.add_collected("ledger_added")
        cursor.execute("DROP TABLE ledger_incoming, ledger_added")
    return created


def insert_portable(rows, user_id, now, chunk=500):
    existing = {}
    for establishment_id in {row[2] for row in rows}:
        keys = [row[1] for row in rows if row[2] == establishment_id]
        for start in range(0, len(keys), chunk):
            for stored_row in CollectionEntry.objects.filter(
                establishment_id=establishment_id, idempotency_key__in=keys[start:start + chunk]
            ).values_list("idempotency_key", *SAME_ENTRY):
                existing[(establishment_id, stored_row[0])] = stored_row[1:]
    fresh, reused = [], []
    for row in sorted(rows, key=lambda r: (r[2], r[1])):
        index, key, establishment_id, table_id, gaming_day, reference, collected_at, payer, seat, player, fee_kind, \
            amount, currency, corrects_id, reason = row
        stored = existing.get((establishment_id, key))
        if stored is None:
            fresh.append(CollectionEntry(
                idempotency_key=key, establishment_id=establishment_id, table_id=table_id, gaming_day=gaming_day,
                reference=reference, collected_at=collected_at, payer=payer, seat=seat, player=player,
                fee_kind=fee_kind, amount=amount, currency=currency, corrects_id=corrects_id, reason=reason,
                recorded_by_id=user_id, recorded_at=now,
            ))
        elif stored != (table_id, gaming_day, reference, collected_at, payer, seat, player, fee_kind, amount,
                        currency, corrects_id, reason):
            reused.append((index, key))
    if reused:
        raise _reused_key(sorted(reused))
    CollectionEntry.objects.bulk_create(fresh, batch_size=chunk)
    kept_sums.add(_added(fresh, chunk))
    return len(fresh)


def _added(fresh, chunk):
    """What entries just written add to the kept sums: a correction its amount less the amount of the entry it
    corrects (which stops counting: ``EntryQuerySet.effective``), the others their amount and one entry more."""
    corrected_ids = [entry.corrects_id for entry in fresh if entry.corrects_id is not None]
    corrected = {}
    for start in range(0, len(corrected_ids), chunk):
        corrected.update(CollectionEntry.objects.filter(pk__in=corrected_ids[start:start + chunk])
                         .values_list("id", "amount"))
    added = Tally()
    for entry in fresh:
        key = (entry.establishment_id, entry.table_id, entry.gaming_day, entry.currency)
        if entry.corrects_id is None:
            added.collected(key, entry.payer, entry.fee_kind, entry.amount)
        else:
            added.correction(key, entry.payer, entry.fee_kind, entry.amount, corrected[entry.corrects_id])
    return added


def transient(error):
    """A deadlock or serialization failure: the batch met a concurrent one and may simply be tried again."""
    return getattr(getattr(error, "__cause__", None), "sqlstate", None) in ("40P01", "40001")
