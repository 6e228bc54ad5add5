"""The collection ledger's services: record collections and rounds, reconcile them per table and gaming day.

Everything that writes to the ledger comes through here (the API, the Celery tasks, the benchmarks), so a row
is checked the same way whichever door it came in by.

- ``record_entries``: a batch of collection entries (one row or many thousands). The whole batch is checked
  before anything is written; one bad row rejects it (``LedgerInputError`` naming the row). Each row carries an
  idempotency key (or derives one from the batch's key and its position): a row whose key is already recorded
  with the same content counts as "already recorded" and is not written again; the same key with different
  content is a ``LedgerConflict``. On PostgreSQL rows are COPied into a temporary table and inserted with one
  ``INSERT ... SELECT ... ON CONFLICT (idempotency_key) DO NOTHING``; elsewhere ``bulk_create`` is used.
- Corrections: a row with ``corrects`` (an entry id) or ``corrects_key`` (its idempotency key) states the
  amount really collected for that entry. It inherits the corrected entry's table, day, reference, payer and
  fee kind, needs a reason, and an entry can be corrected once (correct the correction to change it again).
- ``record_round``: a hand or round with its facts, priced by the engine against the posting in force at
  that table at that moment; idempotent on (table, gaming day, reference).
- ``reconcile``: expected (rounds) against collected (entries no later entry corrects) per table and gaming
  day, hand by hand, aggregated in SQL; results stored as ``Reconciliation`` rows and logged.
"""

import datetime
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, OperationalError, connection, transaction
from django.utils import timezone

from cardroom import bulk, values
from cardroom.audit import log_actions
from cardroom.models import Table

from .models import CollectionEntry, LedgerConflict, Reconciliation, RoundOfPlay, TablePosting

# A batch at this many rows of the documented shape stays well inside the bulk endpoint's body limit
# (settings.LEDGER_BULK_MAX_BYTES, 16 MiB: about 1.6 KiB a row, where a typical row is about 250 bytes).
MAX_BATCH = 10_000
MAX_ID = values.MAX_ID
CENT = Decimal("0.01")
ENTRY_FIELDS = frozenset({
    "idempotency_key", "table", "gaming_day", "reference", "collected_at", "payer", "seat", "player", "fee_kind",
    "amount", "currency", "corrects", "corrects_key", "reason",
})
# What a correction inherits from the entry it corrects (and must not contradict when stated).
INHERITED = ("table", "gaming_day", "reference", "payer", "seat", "player", "fee_kind")
PAYERS = frozenset(CollectionEntry.Payer.values)
FEE_KINDS = frozenset(CollectionEntry.FeeKind.values)
MOMENT_EXAMPLE = "2026-03-03T02:30:00-08:00"
# A batch that meets a concurrent one in a deadlock or serialization failure is tried again this many times.
RETRIES = 3
# What a spreadsheet opening an export's CSV would take for a formula (OWASP, CSV injection). Identifiers (keys,
# references, players) are refused if they begin with one; free text is escaped in the CSV instead.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class LedgerInputError(ValueError):
    """Bad input: nothing was recorded. ``errors`` maps row index (or None for a single entry) to messages."""

    def __init__(self, message, errors=None):
        super().__init__(message)
        self.errors = errors or {}


class _RowError(Exception):
    def __init__(self, field, message):
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class IngestResult:
    received: int
    created: int
    keys: tuple = ()  # (establishment id, idempotency key) of each row received, in order

    @property
    def already_recorded(self):
        return self.received - self.created

    def as_dict(self):
        return {"received": self.received, "created": self.created, "already_recorded": self.already_recorded}


# -- who may record where ------------------------------------------------------------------------------------

def may_record(scope):
    """Floor supervisors and compliance officers record at their establishment's tables (admins anywhere)."""
    return scope.is_admin or bool(scope.staff_establishments)


def writable_tables(scope):
    tables = Table.objects.select_related("establishment__jurisdiction")
    return tables if scope.is_admin else tables.filter(establishment__in=scope.staff_establishments)


# -- reading rows --------------------------------------------------------------------------------------------

is_id = values.is_id


def _read(read, value, key, **options):
    try:
        return read(value, **options)
    except values.Invalid as exc:
        raise _RowError(key, str(exc)) from None


def _text(row, key, *, required, max_length, single_line=True):
    return _read(values.text, row.get(key), key, max_length=max_length, required=required, single_line=single_line)


def _identifier(value, key):
    """``value`` (a key, reference or player), if no spreadsheet would read it as a formula."""
    if value.startswith(FORMULA_STARTS):
        raise _RowError(key, f"must not begin with {value[0]!r}: a spreadsheet opening the export would read "
                             f"{value[:20]!r} as a formula.")
    return value


def agreed_gaming_day(establishment, moment, stated):
    """The gaming day of ``moment`` in the room's zone; a stated day must be that one."""
    derived = establishment.gaming_day_of(moment)
    if stated is not None and stated != derived:
        raise _RowError("gaming_day", f"{stated.isoformat()} does not agree with {moment.isoformat()}, which falls "
                                      f"in gaming day {derived.isoformat()} at {establishment} "
                                      f"({establishment.time_zone}).")
    return derived


class _Originals:
    """The entries a batch's corrections point at, fetched in one go."""

    def __init__(self, rows, allowed_tables):
        ids, keys = set(), set()
        for row in rows:
            if type(row) is dict:
                target = row.get("corrects")
                if is_id(target):
                    ids.add(target)
                target = row.get("corrects_key")
                if type(target) is str:
                    keys.add(target)
        self.by_id, self.by_key, self.corrected_by = {}, {}, {}
        if not ids and not keys:
            return
        found = []
        fields = ("id", "idempotency_key", "establishment_id", "table_id", "gaming_day", "reference", "collected_at",
                  "payer", "seat", "player", "fee_kind")
        if ids:
            found += CollectionEntry.objects.filter(pk__in=ids, table__in=allowed_tables).values(*fields)
        if keys:
            found += CollectionEntry.objects.filter(idempotency_key__in=keys, table__in=allowed_tables).values(*fields)
        for entry in found:
            entry["table"] = entry.pop("table_id")
            self.by_id[entry["id"]] = entry
            # Keys are unique per establishment: one with several establishments may name several entries.
            self.by_key.setdefault(entry["idempotency_key"], {})[entry["id"]] = entry
        for original, correction, key in CollectionEntry.objects.filter(corrects__in=list(self.by_id)).values_list(
            "corrects_id", "id", "idempotency_key"
        ):
            self.corrected_by[original] = (correction, key)


def _plain_text(value, max_length):
    """True for the usual case: a non-blank one-line string of the right length with no edge spaces (and
    therefore no NUL: it is not printable)."""
    return (type(value) is str and 0 < len(value) <= max_length and not value[0].isspace()
            and not value[-1].isspace() and value.isprintable())


def _clean_rows(rows, *, tables, originals, batch_key, label):
    """Check every row; return the rows ready to insert, or raise LedgerInputError / LedgerConflict.

    Written for speed (it runs for every one of a million rows): the common case is tested inline and the
    readers of ``cardroom.values`` are called for every value that is not already a plain string.
    """
    cleaned, errors, seen_keys, corrected_here = [], {}, {}, {}
    append = cleaned.append
    moment, day, money = values.moment, values.day, values.money
    establishment_of = {pk: table.establishment for pk, table in tables.items()}
    currency_of = {pk: table.establishment.jurisdiction.currency for pk, table in tables.items()}
    seats_of = {pk: table.seats for pk, table in tables.items()}
    fields, payers, fee_kinds = ENTRY_FIELDS, PAYERS, FEE_KINDS
    for index, row in enumerate(rows):
        try:
            if type(row) is not dict:
                raise _RowError(None, "must be an object.")
            if not row.keys() <= fields:
                unknown = row.keys() - fields
                raise _RowError(None, f"has unknown field(s): {', '.join(sorted(map(str, unknown)))}.")
            get = row.get
            key = get("idempotency_key")
            if not _plain_text(key, 100):
                key = _text(row, "idempotency_key", required=False, max_length=100)
                if not key:
                    if batch_key is None:
                        raise _RowError("idempotency_key", "is required (or give the batch an idempotency_key)."
                                        if label(index) else "is required (in the body or an Idempotency-Key header).")
                    key = f"{batch_key}:{index}"
            _identifier(key, "idempotency_key")
            if key in seen_keys:
                raise _RowError("idempotency_key",
                                f"{key!r} is used twice in this batch (also by row {seen_keys[key]}).")
            seen_keys[key] = index

            if get("corrects") is not None or get("corrects_key") is not None:
                original = _original(row, originals, key, corrected_here, index)
                for field in INHERITED:
                    stated = get(field)
                    if stated is not None and stated != _as_stated(original[field]):
                        raise _RowError(field, f"a correction keeps the corrected entry's {field} "
                                               f"({_as_stated(original[field])!r}); leave it out or match it.")
                reason = _text(row, "reason", required=True, max_length=500, single_line=False)
                table_id = original["table"]
                gaming_day, reference = original["gaming_day"], original["reference"]
                payer, seat, player = original["payer"], original["seat"], original["player"]
                fee_kind = original["fee_kind"]
                if get("collected_at") is None:
                    collected_at = original["collected_at"]
                else:
                    collected_at = _read(moment, row["collected_at"], "collected_at", example=MOMENT_EXAMPLE)
                    agreed_gaming_day(establishment_of[table_id], collected_at, gaming_day)
                corrects_id = original["id"]
            else:
                table_id = get("table")
                if type(table_id) is not int or table_id not in seats_of:
                    if table_id is None:
                        raise _RowError("table", "is required.")
                    _read(values.identifier, table_id, "table")
                    raise _RowError("table", f"no table {table_id} among the tables you may record at.")
                reference = get("reference")
                if not _plain_text(reference, 64):
                    reference = _text(row, "reference", required=True, max_length=64)
                _identifier(reference, "reference")
                if get("collected_at") is None:
                    raise _RowError("collected_at", "is required.")
                collected_at = _read(moment, row["collected_at"], "collected_at", example=MOMENT_EXAMPLE)
                value = get("gaming_day")
                stated_day = None if value is None else _read(day, value, "gaming_day")
                gaming_day = agreed_gaming_day(establishment_of[table_id], collected_at, stated_day)
                payer = get("payer")
                if payer not in payers:
                    raise _RowError("payer", f"must be one of {', '.join(sorted(payers))}, not {payer!r}.")
                seat = get("seat")
                if seat is not None:
                    _read(values.whole, seat, "seat")
                    if not 1 <= seat <= seats_of[table_id]:
                        raise _RowError("seat", f"must be a betting position from 1 to {seats_of[table_id]} at "
                                                f"table {tables[table_id].label}, not {seat}.")
                player = get("player")
                if player is None or player == "":
                    player = ""
                elif not _plain_text(player, 64):
                    player = _text(row, "player", required=False, max_length=64)
                _identifier(player, "player")
                if payer == "player" and seat is None and not player:
                    raise _RowError("payer", "a player's payment needs the seat or the player.")
                fee_kind = get("fee_kind")
                if fee_kind not in fee_kinds:
                    raise _RowError("fee_kind", f"must be one of {', '.join(sorted(fee_kinds))}, not {fee_kind!r}.")
                reason = _text(row, "reason", required=False, max_length=500, single_line=False)
                corrects_id = None
            value = get("amount")
            if value is None:
                raise _RowError("amount", "is required.")
            amount = _read(money, value, "amount")
            currency = currency_of[table_id]
            stated_currency = get("currency")
            if stated_currency is not None and stated_currency != currency:
                raise _RowError("currency", f"table {tables[table_id].label} collects in {currency}, "
                                            f"not {stated_currency!r}.")
            append((index, key, establishment_of[table_id].pk, table_id, gaming_day, reference, collected_at, payer,
                    seat, player, fee_kind, amount, currency, corrects_id, reason))
        except _RowError as error:
            where = label(index)
            field = f"{where}.{error.field}" if where and error.field else (where or error.field or "entry")
            errors[index] = f"{field}: {error.message}"
            if len(errors) >= 20:
                break
    if errors:
        first = list(errors.values())[:5]
        more = len(errors) - len(first)
        prefix = "Nothing was recorded. " if len(rows) > 1 else ""
        message = prefix + " ".join(first) + (f" (and {more} more rows with errors)" if more > 0 else "")
        raise LedgerInputError(message, errors)
    return cleaned


def _as_stated(value):
    """A stored value as it would be written in a request (dates as YYYY-MM-DD)."""
    return value.isoformat() if isinstance(value, datetime.date) else value


def _original(row, originals, key, corrected_here, index):
    by_id, by_key = row.get("corrects"), row.get("corrects_key")
    if by_id is not None and by_key is not None:
        raise _RowError("corrects", "give corrects (an entry id) or corrects_key (its idempotency key), not both.")
    if by_id is not None:
        original = originals.by_id.get(_read(values.identifier, by_id, "corrects"))
        if original is None:
            raise _RowError("corrects", f"no entry {by_id} that you may correct.")
    else:
        by_key = _read(values.text, by_key, "corrects_key", max_length=100)
        found = originals.by_key.get(by_key, {})
        if not found:
            raise _RowError("corrects_key", f"no recorded entry with idempotency key {by_key!r} that you may "
                                            f"correct (record it first).")
        if len(found) > 1:
            raise _RowError("corrects_key", f"{by_key!r} is the key of entries in {len(found)} establishments; "
                                            "name the entry by its id (corrects).")
        original = next(iter(found.values()))
    if original["id"] in corrected_here:
        raise _RowError("corrects", f"entry {original['id']} is corrected twice in this batch "
                                    f"(also by row {corrected_here[original['id']]}).")
    corrected_here[original["id"]] = index
    correction = originals.corrected_by.get(original["id"])
    if correction is not None and correction[1] != key:
        raise LedgerConflict(
            f"Entry {original['id']} has already been corrected by entry {correction[0]}; correct that entry "
            f"instead. Nothing was recorded."
        )
    return original


# -- writing rows --------------------------------------------------------------------------------------------

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


def _insert_postgresql(rows, user_id, now):
    table = CollectionEntry._meta.db_table
    same = ", ".join(f"e.{c}" for c in SAME_ENTRY), ", ".join(f"t.{c}" for c in SAME_ENTRY)
    reused_sql = (
        f"SELECT t.idx, t.idempotency_key FROM ledger_incoming t JOIN {table} e "
        f"ON e.establishment_id = t.establishment_id AND e.idempotency_key = t.idempotency_key "
        f"WHERE ({same[0]}) IS DISTINCT FROM ({same[1]}) ORDER BY t.idx LIMIT 20"
    )
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS ledger_incoming")
        cursor.execute(
            "CREATE TEMPORARY TABLE ledger_incoming (idx integer, idempotency_key varchar(100), "
            "establishment_id bigint, table_id bigint, gaming_day date, reference varchar(64), "
            "collected_at timestamptz, payer varchar(16), seat smallint, player varchar(64), fee_kind varchar(20), "
            "amount numeric(12, 2), currency varchar(3), corrects_id bigint, reason varchar(500)) ON COMMIT DROP"
        )
        with cursor.cursor.copy(f"COPY ledger_incoming ({', '.join(COPY_COLUMNS)}) FROM STDIN") as copy:
            for start in range(0, len(rows), COPY_CHUNK):
                copy.write(_copy_text(rows[start:start + COPY_CHUNK]))
        cursor.execute(reused_sql)
        reused = cursor.fetchall()
        if reused:
            raise _reused_key(reused)
        columns = COPY_COLUMNS[1:]
        # In key order, so that two batches sharing keys lock them in the same order and one waits for the other
        # instead of deadlocking.
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)}, recorded_by_id, recorded_at) "
            f"SELECT {', '.join(columns)}, %s, %s FROM ledger_incoming ORDER BY establishment_id, idempotency_key "
            f"ON CONFLICT (establishment_id, idempotency_key) DO NOTHING",
            [user_id, now],
        )
        created = cursor.rowcount
        if created < len(rows):
            # Rows skipped as already recorded may have been recorded a moment ago by a concurrent batch, after
            # the check above: only rows whose stored content is the same really are "already recorded".
            cursor.execute(reused_sql)
            reused = cursor.fetchall()
            if reused:
                raise _reused_key(reused)
        cursor.execute("DROP TABLE ledger_incoming")
    return created


def _insert_portable(rows, user_id, now, chunk=500):
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
    return len(fresh)


def _transient(error):
    """A deadlock or serialization failure: the batch met a concurrent one and may simply be tried again."""
    return getattr(getattr(error, "__cause__", None), "sqlstate", None) in ("40P01", "40001")


def record_entries(rows, *, scope, user=None, batch_key=None, label=lambda index: f"entries[{index}]"):
    """Record a batch of collection entries, all or nothing. Returns an IngestResult.

    Raises LedgerInputError (bad input, nothing recorded) or LedgerConflict (a key reused for a different
    entry, an entry already corrected; nothing recorded).
    """
    try:
        values.items(rows, max_items=MAX_BATCH, what="entries")
    except values.Invalid as error:
        raise LedgerInputError(str(error)) from None
    if batch_key is not None:
        try:
            batch_key = _identifier(values.text(batch_key, max_length=80), "idempotency_key")
        except values.Invalid as error:
            raise LedgerInputError(f"The batch idempotency_key {error}") from None
        except _RowError as error:
            raise LedgerInputError(f"The batch idempotency_key {error.message}") from None
    allowed = writable_tables(scope)
    originals = _Originals(rows, allowed)
    table_ids = {row.get("table") for row in rows if type(row) is dict and is_id(row.get("table"))}
    table_ids |= {entry["table"] for entry in originals.by_id.values()}
    tables = allowed.in_bulk(table_ids)
    cleaned = _clean_rows(rows, tables=tables, originals=originals, batch_key=batch_key, label=label)
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    insert = _insert_postgresql if connection.vendor == "postgresql" else _insert_portable
    for attempt in range(1, RETRIES + 1):
        try:
            with transaction.atomic():
                created = insert(cleaned, user_id, timezone.now())
            break
        except OperationalError as error:
            if not _transient(error) or attempt == RETRIES:
                raise LedgerConflict("The ledger was busy with a concurrent batch; nothing was recorded. "
                                     "Send it again.") from None
            time.sleep(0.05 * attempt)
        except IntegrityError:
            # A concurrent request recorded one of these keys, or corrected the same entry, first.
            raise LedgerConflict("The ledger changed while this batch was recorded; nothing was recorded. "
                                 "Send it again.") from None
    return IngestResult(received=len(cleaned), created=created, keys=tuple((row[2], row[1]) for row in cleaned))


def record_entry(row, *, scope, user=None, key=None):
    """Record one entry. Returns (entry, created)."""
    if type(row) is not dict:
        raise LedgerInputError("The request body must be a JSON object describing one collection entry.")
    if key is not None and row.get("idempotency_key") is None:
        row = {**row, "idempotency_key": key}
    result = record_entries([row], scope=scope, user=user, label=lambda index: "")
    (establishment_id, key), = result.keys
    return CollectionEntry.objects.get(establishment_id=establishment_id, idempotency_key=key), result.created == 1


# -- rounds --------------------------------------------------------------------------------------------------

def _cents(amount):
    return f"{Decimal(amount).quantize(CENT)}"


def _plain(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    for attribute in ("printed_bounds", "order"):
        if hasattr(value, attribute):  # an engine tier: say which row of the schedule it is
            return {"order": getattr(value, "order", None), "printed_bounds": getattr(value, "printed_bounds", None),
                    "printed_fee": getattr(value, "printed_fee", None)}
    return str(value)


def _lines(quote):
    lines, by_payer = [], {}
    for line in getattr(quote, "lines", ()):
        fee = Decimal(line.fee)
        payer, player = str(getattr(line, "payer", "")), getattr(line, "player", None) or ""
        lines.append({
            "payer": payer, "player": player, "fee_kind": str(getattr(line, "fee_kind", "")),
            "measure": _plain(getattr(line, "measure", None)), "measured": _plain(getattr(line, "measured", None)),
            "tier": _plain(getattr(line, "tier", None)), "fee": _cents(fee),
        })
        by_payer[(payer, player)] = by_payer.get((payer, player), Decimal("0")) + fee
    return lines, [{"payer": payer, "player": player, "fee": _cents(fee)} for (payer, player), fee in by_payer.items()]


def _same_round(existing, played_at, facts):
    return existing.played_at == played_at and existing.facts == facts


def record_round(*, table, reference, played_at, facts, gaming_day=None, user=None):
    """Record a round and the fee the engine expects for it. Returns (round, created).

    The same table, gaming day and reference with the same facts returns the round already recorded; with
    different facts it is a LedgerConflict. A table with no posting at ``played_at``, or facts the engine
    cannot price, is a LedgerInputError.
    """
    from . import quoting  # the engine is imported only when a round is priced

    establishment = table.establishment
    if timezone.is_naive(played_at):
        played_at = timezone.make_aware(played_at, establishment.zone)
    try:
        values.in_range(played_at)
        values.document(facts)
    except values.Invalid as error:
        raise LedgerInputError(str(error)) from None
    if type(facts) is not dict:
        raise LedgerInputError("facts must be a JSON object: wagers, poker facts or a time-collection period.")
    try:
        _identifier(reference, "reference")
        gaming_day = agreed_gaming_day(establishment, played_at, gaming_day)
    except _RowError as error:
        raise LedgerInputError(f"{error.field} {error.message}") from None
    played_at = played_at.astimezone(establishment.zone)  # so that "the day it was played" is the room's day
    existing = RoundOfPlay.objects.filter(table=table, gaming_day=gaming_day, reference=reference).first()
    if existing is not None:
        if _same_round(existing, played_at, facts):
            return existing, False
        raise LedgerConflict(
            f"Round {reference!r} of {gaming_day.isoformat()} at table {table.label} is already recorded "
            f"(id {existing.pk}) with different facts; rounds are not changed. Use another reference."
        )
    posting = TablePosting.objects.select_related("schedule").in_force(table, played_at)
    if posting is None:
        raise LedgerInputError(
            f"Table {table.label} at {establishment} had no posting at "
            f"{played_at.isoformat()}: nothing says which schedule option applied, so the "
            f"expected fee cannot be computed."
        )
    if posting.schedule_id is None:
        raise LedgerInputError(
            f"Table {table.label} at {establishment} posts a house-banked game without a collection schedule "
            f"({posting.game.name}, {posting.rules.version}): the ledger has no fee to expect for its rounds."
        )
    try:
        schedule, option, quote = quoting.quote_posting(posting, facts, played_at)
        explanation = quoting.explain(schedule, option, quote, as_of=played_at.date())
    except quoting.QuoteError as error:
        raise LedgerInputError(f"facts: {error}") from None
    lines, by_payer = _lines(quote)
    try:
        with transaction.atomic():
            round_ = RoundOfPlay.objects.create(
                establishment=establishment, table=table, gaming_day=gaming_day, reference=reference,
                played_at=played_at, facts=facts,
                posting=posting, schedule_code=schedule.code, schedule_version=schedule.version,
                option_number=option.number, expected_total=Decimal(quote.total).quantize(CENT),
                currency=schedule.currency, expected_by_payer=by_payer, expected_lines=lines,
                explanation=explanation, recorded_by=user if getattr(user, "is_authenticated", False) else None,
            )
    except IntegrityError:
        existing = RoundOfPlay.objects.filter(table=table, gaming_day=gaming_day, reference=reference).first()
        if existing is not None and _same_round(existing, played_at, facts):
            return existing, False
        raise LedgerConflict(f"Round {reference!r} was recorded concurrently with different facts.") from None
    return round_, True


# -- reconciliation ------------------------------------------------------------------------------------------

VARIANCE = "(h.rounds = 0 OR ABS(h.expected - h.collected) >= 0.005)"


def _hands_sql(day, table_ids):
    """Per (table, reference) of one gaming day: expected, collected (effective entries), rounds and entries."""
    rounds, entries = RoundOfPlay._meta.db_table, CollectionEntry._meta.db_table
    params = [day]
    where_tables = ""
    if table_ids is not None:
        where_tables = f" AND {{alias}}.table_id IN ({', '.join(['%s'] * len(table_ids))})"
        params += list(table_ids)
    sql = (
        "SELECT table_id, reference, SUM(expected) AS expected, SUM(collected) AS collected, "
        "SUM(rounds) AS rounds, SUM(entries) AS entries FROM ("
        f"SELECT r.table_id, r.reference, r.expected_total AS expected, 0 AS collected, 1 AS rounds, 0 AS entries "
        f"FROM {rounds} r WHERE r.gaming_day = %s" + where_tables.format(alias="r")
        + " UNION ALL "
        # An entry counts unless a later one corrects it. A correction keeps the day of the entry it corrects, so
        # the day's corrections (few, read from the same index) are all it is checked against.
        f"SELECT e.table_id, e.reference, 0, e.amount, 0, 1 FROM {entries} e "
        f"LEFT JOIN (SELECT corrects_id FROM {entries} WHERE gaming_day = %s AND corrects_id IS NOT NULL) c "
        "ON c.corrects_id = e.id "
        "WHERE e.gaming_day = %s" + where_tables.format(alias="e") + " AND c.corrects_id IS NULL"
        ") u GROUP BY table_id, reference"
    )
    return sql, params + [day] + params


def _reconcile_sql(day, table_ids):
    """One pass over the hands of a gaming day: a row per table (kind 0, its sums and counts), then a row per hand
    with a variance (kind 1)."""
    hands, params = _hands_sql(day, table_ids)
    return (
        f"WITH h AS MATERIALIZED ({hands}) "
        "SELECT 0 AS kind, h.table_id, NULL AS reference, SUM(h.expected), SUM(h.collected), SUM(h.rounds), "
        f"SUM(h.entries), COUNT(*), SUM(CASE WHEN {VARIANCE} THEN 1 ELSE 0 END) FROM h GROUP BY h.table_id "
        "UNION ALL "
        f"SELECT 1, h.table_id, h.reference, h.expected, h.collected, h.rounds, h.entries, 1, 1 FROM h "
        f"WHERE {VARIANCE} "
        "ORDER BY 1, 2, 3"
    ), params


def _money(value):
    """A SQL sum as Decimal cents (SQLite returns floats for sums of decimals)."""
    if value is None:
        return Decimal("0.00")
    if isinstance(value, float):
        return Decimal(repr(round(value, 2))).quantize(CENT)
    return Decimal(value).quantize(CENT)


PARALLEL_DAYS = 2  # connections reconciling days side by side: PostgreSQL's work, a backend per core


def compute(day_from, day_to=None, table_ids=None):
    """Reconcile in SQL. Returns {(table_id, gaming_day): summary dict with its variance list}.

    A gaming day at a time: each day's hands are grouped in memory, read through the covering indexes on the
    gaming day, so a year costs 365 days, not one grouping of a year's hands. On PostgreSQL, outside a
    transaction (a nightly or on-demand run, not a test's), days go to PARALLEL_DAYS connections at once: days
    are independent, each read in one statement."""
    day_to = day_to or day_from
    if table_ids is not None and not table_ids:
        return {}
    days = [day_from + datetime.timedelta(days=n) for n in range((day_to - day_from).days + 1)]
    if connection.vendor != "postgresql" or connection.in_atomic_block or len(days) < 2:
        return _compute_days(days, table_ids)
    results = {}
    with ThreadPoolExecutor(max_workers=PARALLEL_DAYS) as pool:
        for part in pool.map(_compute_days_apart, [(days[n::PARALLEL_DAYS], table_ids) for n in range(PARALLEL_DAYS)]):
            results.update(part)
    return results


def _compute_days_apart(job):
    try:
        return _compute_days(*job)
    finally:
        connection.close()  # the thread's own connection


def _compute_days(days, table_ids):
    results = {}
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A busy day's hands (55,000 of them) grouped in memory, not sorted on disk; JIT costs more than it
            # saves on queries this short.
            cursor.execute("SET LOCAL work_mem = '64MB'")
            cursor.execute("SET LOCAL jit = off")
        for day in days:
            cursor.execute(*_reconcile_sql(day, table_ids))
            for kind, table_id, reference, expected, collected, n_rounds, n_entries, n_hands, n_variance in \
                    cursor.fetchall():
                expected, collected = _money(expected), _money(collected)
                key = (table_id, day)
                if kind == 0:
                    results[key] = {
                        "expected_total": expected, "collected_total": collected, "difference": collected - expected,
                        "rounds": int(n_rounds), "entries": int(n_entries), "hands": int(n_hands),
                        "hands_with_variance": int(n_variance), "hands_balanced": int(n_hands) - int(n_variance),
                        "variances": [],
                    }
                    continue
                if not n_rounds:
                    status, expected_text = "no_round", None
                elif not n_entries:
                    status, expected_text = "not_collected", str(expected)
                else:
                    status = "under_collected" if collected < expected else "over_collected"
                    expected_text = str(expected)
                results[key]["variances"].append({
                    "reference": reference, "status": status, "expected": expected_text, "collected": str(collected),
                    "difference": str(collected - expected), "rounds": int(n_rounds), "entries": int(n_entries),
                })
    return results


def empty_summary():
    zero = Decimal("0.00")
    return {"expected_total": zero, "collected_total": zero, "difference": zero, "rounds": 0, "entries": 0,
            "hands": 0, "hands_with_variance": 0, "hands_balanced": 0, "variances": []}


def tables_with_activity(day_from, day_to=None):
    day_to = day_to or day_from
    active = set(RoundOfPlay.objects.filter(gaming_day__range=(day_from, day_to)).values_list("table_id", flat=True)
                 .distinct())
    active |= set(CollectionEntry.objects.filter(gaming_day__range=(day_from, day_to))
                  .values_list("table_id", flat=True).distinct())
    return active


def reconcile(day_from, day_to=None, *, table_ids=None, user=None, trigger=Reconciliation.Trigger.ON_DEMAND):
    """Reconcile tables over gaming days and store one Reconciliation per table and day.

    With ``table_ids`` every named table gets a report for every day, activity or not; without, only the
    tables and days with rounds or entries do. Each stored reconciliation is logged in the audit log.
    """
    day_to = day_to or day_from
    results = compute(day_from, day_to, table_ids)
    if table_ids is not None:
        day = day_from
        while day <= day_to:
            for table_id in table_ids:
                results.setdefault((table_id, day), empty_summary())
            day += datetime.timedelta(days=1)
    tables = Table.objects.select_related("establishment__jurisdiction").in_bulk({t for t, _ in results})
    run_by = user if getattr(user, "is_authenticated", False) else None
    stored = []
    with transaction.atomic():
        for (table_id, day), summary in sorted(results.items(), key=lambda item: (item[0][1], item[0][0])):
            table = tables[table_id]
            stored.append(Reconciliation(
                establishment=table.establishment, table=table, gaming_day=day, trigger=trigger,
                currency=table.establishment.jurisdiction.currency,
                status=Reconciliation.Status.VARIANCE if summary["hands_with_variance"] else
                Reconciliation.Status.BALANCED, run_by=run_by, **summary,
            ))
        stored = bulk.insert(Reconciliation, stored)
        log_actions([("ledger.reconcile", {
            "actor": run_by, "actor_label": "" if run_by else f"reconciliation ({trigger})", "obj": reconciliation,
            "establishment": reconciliation.table.establishment,
            "jurisdiction": reconciliation.table.establishment.jurisdiction,
            "data": {"table": reconciliation.table.pk, "gaming_day": reconciliation.gaming_day.isoformat(),
                     "trigger": trigger, "status": reconciliation.status,
                     "expected_total": str(reconciliation.expected_total),
                     "collected_total": str(reconciliation.collected_total),
                     "difference": str(reconciliation.difference),
                     "hands_with_variance": reconciliation.hands_with_variance},
        }) for reconciliation in stored])
    return stored


def previous_gaming_day(today=None):
    return (today or timezone.localdate()) - datetime.timedelta(days=1)
