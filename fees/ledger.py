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
import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from cardroom import values
from cardroom.audit import log_action
from cardroom.models import Table

from .models import CollectionEntry, LedgerConflict, Reconciliation, RoundOfPlay, TablePosting

MAX_BATCH = 50_000
MAX_ID = 2 ** 63 - 1
CENT = Decimal("0.01")
MAX_AMOUNT = Decimal("9999999999.99")
ENTRY_FIELDS = frozenset({
    "idempotency_key", "table", "gaming_day", "reference", "collected_at", "payer", "seat", "player", "fee_kind",
    "amount", "currency", "corrects", "corrects_key", "reason",
})
# What a correction inherits from the entry it corrects (and must not contradict when stated).
INHERITED = ("table", "gaming_day", "reference", "payer", "seat", "player", "fee_kind")
PAYERS = frozenset(CollectionEntry.Payer.values)
FEE_KINDS = frozenset(CollectionEntry.FeeKind.values)
MOMENT_EXAMPLE = "2026-03-03T02:30:00-08:00"


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

def is_id(value):
    """A value that could be a row id (databases answer an error, not "none", to larger numbers)."""
    return type(value) is int and 0 < value <= MAX_ID


def _text(row, key, *, required, max_length, default="", single_line=True):
    value = row.get(key)
    if value is None or value == "":
        if required:
            raise _RowError(key, "is required.")
        return default
    if not isinstance(value, str):
        raise _RowError(key, f"must be a string, not {value!r}.")
    if "\x00" in value:
        raise _RowError(key, "must not contain NUL characters.")
    value = value.strip()
    if single_line and not value.isprintable():
        raise _RowError(key, "must be one line of printable characters (no tabs, line breaks or control codes).")
    if required and not value:
        raise _RowError(key, "must not be blank.")
    if len(value) > max_length:
        raise _RowError(key, f"must be at most {max_length} characters long.")
    return value


def _read(read, value, key, *args):
    try:
        return read(value, *args)
    except values.Invalid as exc:
        raise _RowError(key, str(exc)) from None


def _integer(value, key):
    return _read(values.whole, value, key)


def _moment(value, key):
    return _read(values.moment, value, key, MOMENT_EXAMPLE)


def _day(value, key):
    return _read(values.day, value, key)


def _amount(value):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _RowError("amount", f"must be a decimal string like \"3.00\", not {value!r}.")
    try:
        amount = Decimal(value.strip() if isinstance(value, str) else value)
    except InvalidOperation:
        raise _RowError("amount", f"must be a decimal string like \"3.00\", not {value!r}.") from None
    if not amount.is_finite() or amount < 0 or amount > MAX_AMOUNT:
        raise _RowError("amount", f"must be between 0 and {MAX_AMOUNT}, not {value!r}.")
    cents = amount.quantize(CENT)
    if amount != cents:
        raise _RowError("amount", f"must have at most two decimal places, not {value!r}.")
    return cents


class _Originals:
    """The entries a batch's corrections point at, fetched in one go."""

    def __init__(self, rows, allowed_tables):
        ids, keys = set(), set()
        for row in rows:
            if isinstance(row, dict):
                target = row.get("corrects")
                if is_id(target):
                    ids.add(target)
                target = row.get("corrects_key")
                if isinstance(target, str):
                    keys.add(target)
        self.by_id, self.by_key, self.corrected_by = {}, {}, {}
        if not ids and not keys:
            return
        found = []
        fields = ("id", "idempotency_key", "table_id", "gaming_day", "reference", "collected_at", "payer", "seat",
                  "player", "fee_kind")
        if ids:
            found += CollectionEntry.objects.filter(pk__in=ids, table__in=allowed_tables).values(*fields)
        if keys:
            found += CollectionEntry.objects.filter(idempotency_key__in=keys, table__in=allowed_tables).values(*fields)
        for entry in found:
            entry["table"] = entry.pop("table_id")
            self.by_id[entry["id"]] = entry
            self.by_key[entry["idempotency_key"]] = entry
        for original, correction, key in CollectionEntry.objects.filter(corrects__in=list(self.by_id)).values_list(
            "corrects_id", "id", "idempotency_key"
        ):
            self.corrected_by[original] = (correction, key)


def _plain_text(value, max_length):
    """True for the usual case: a non-blank one-line string of the right length with no edge spaces."""
    return (type(value) is str and 0 < len(value) <= max_length and not value[0].isspace()
            and not value[-1].isspace() and value.isprintable())


def _clean_rows(rows, *, tables, originals, batch_key, label):
    """Check every row; return the rows ready to insert, or raise LedgerInputError / LedgerConflict.

    Written for speed (it runs for every one of a million rows): the common case is tested inline and the
    helpers above are called only to read an unusual value or to say what is wrong with it.
    """
    cleaned, errors, seen_keys, corrected_here = [], {}, {}, {}
    append = cleaned.append
    localdate = timezone.localdate
    fromisoformat, day_fromisoformat = datetime.datetime.fromisoformat, datetime.date.fromisoformat
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
                collected_at = original["collected_at"] if get("collected_at") is None else _moment(
                    row["collected_at"], "collected_at")
                corrects_id = original["id"]
            else:
                table_id = get("table")
                if type(table_id) is not int or table_id not in seats_of:
                    if table_id is None:
                        raise _RowError("table", "is required.")
                    _integer(table_id, "table")
                    raise _RowError("table", f"no table {table_id} among the tables you may record at.")
                reference = get("reference")
                if not _plain_text(reference, 64):
                    reference = _text(row, "reference", required=True, max_length=64)
                value = get("collected_at")
                if value is None:
                    raise _RowError("collected_at", "is required.")
                try:
                    collected_at = fromisoformat(value)
                except (TypeError, ValueError):
                    collected_at = _moment(value, "collected_at")
                if collected_at.tzinfo is None:
                    _moment(value, "collected_at")
                value = get("gaming_day")
                if value is None:
                    gaming_day = localdate(collected_at)
                else:
                    try:
                        gaming_day = day_fromisoformat(value)
                    except (TypeError, ValueError):
                        gaming_day = _day(value, "gaming_day")
                payer = get("payer")
                if payer not in payers:
                    raise _RowError("payer", f"must be one of {', '.join(sorted(payers))}, not {payer!r}.")
                seat = get("seat")
                if seat is not None:
                    if type(seat) is not int:
                        _integer(seat, "seat")
                    if not 1 <= seat <= seats_of[table_id]:
                        raise _RowError("seat", f"must be a betting position from 1 to {seats_of[table_id]} at "
                                                f"table {tables[table_id].label}, not {seat}.")
                player = get("player")
                if player is None or player == "":
                    player = ""
                elif not _plain_text(player, 64):
                    player = _text(row, "player", required=False, max_length=64)
                if payer == "player" and seat is None and not player:
                    raise _RowError("payer", "a player's payment needs the seat or the player.")
                fee_kind = get("fee_kind")
                if fee_kind not in fee_kinds:
                    raise _RowError("fee_kind", f"must be one of {', '.join(sorted(fee_kinds))}, not {fee_kind!r}.")
                reason = get("reason")
                if reason is None or reason == "":
                    reason = ""
                else:
                    reason = _text(row, "reason", required=False, max_length=500, single_line=False)
                corrects_id = None
            value = get("amount")
            if value is None:
                raise _RowError("amount", "is required.")
            amount = _amount(value)
            currency = currency_of[table_id]
            stated_currency = get("currency")
            if stated_currency is not None and stated_currency != currency:
                raise _RowError("currency", f"table {tables[table_id].label} collects in {currency}, "
                                            f"not {stated_currency!r}.")
            append((index, key, table_id, gaming_day, reference, collected_at, payer, seat, player, fee_kind,
                    amount, currency, corrects_id, reason))
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


def _missing(field):
    raise _RowError(field, "is required.")


def _as_stated(value):
    """A stored value as it would be written in a request (dates as YYYY-MM-DD)."""
    return value.isoformat() if isinstance(value, datetime.date) else value


def _original(row, originals, key, corrected_here, index):
    by_id, by_key = row.get("corrects"), row.get("corrects_key")
    if by_id is not None and by_key is not None:
        raise _RowError("corrects", "give corrects (an entry id) or corrects_key (its idempotency key), not both.")
    if by_id is not None:
        original = originals.by_id.get(_integer(by_id, "corrects"))
        if original is None:
            raise _RowError("corrects", f"no entry {by_id} that you may correct.")
    else:
        if not isinstance(by_key, str):
            raise _RowError("corrects_key", f"must be a string, not {by_key!r}.")
        original = originals.by_key.get(by_key)
        if original is None:
            raise _RowError("corrects_key", f"no recorded entry with idempotency key {by_key!r} that you may "
                                            f"correct (record it first).")
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

COPY_COLUMNS = ("idx", "idempotency_key", "table_id", "gaming_day", "reference", "collected_at", "payer", "seat",
                "player", "fee_kind", "amount", "currency", "corrects_id", "reason")
# What must match for a re-sent row to count as the same entry.
SAME_ENTRY = ("table_id", "gaming_day", "reference", "collected_at", "payer", "seat", "player", "fee_kind", "amount",
              "corrects_id")


def _reused_key(pairs):
    index, entry_id = pairs[0]
    others = f" (and {len(pairs) - 1} more rows)" if len(pairs) > 1 else ""
    return LedgerConflict(
        f"Row {index} reuses the idempotency key of entry {entry_id} for a different entry{others}; "
        f"a key names one entry for good. Nothing was recorded."
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
        f"{index}\t{field(key)}\t{table_id}\t{day}\t{field(reference)}\t{collected_at.isoformat()}\t{payer}\t"
        f"{NULL if seat is None else seat}\t{field(player)}\t{fee_kind}\t{amount}\t{currency}\t"
        f"{NULL if corrects_id is None else corrects_id}\t{field(reason)}\n"
        for index, key, table_id, day, reference, collected_at, payer, seat, player, fee_kind, amount, currency,
        corrects_id, reason in rows
    ])


def _insert_postgresql(rows, user_id, now):
    table = CollectionEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS ledger_incoming")
        cursor.execute(
            "CREATE TEMPORARY TABLE ledger_incoming (idx integer, idempotency_key varchar(100), table_id bigint, "
            "gaming_day date, reference varchar(64), collected_at timestamptz, payer varchar(16), seat smallint, "
            "player varchar(64), fee_kind varchar(20), amount numeric(12, 2), currency varchar(3), "
            "corrects_id bigint, reason varchar(500)) ON COMMIT DROP"
        )
        with cursor.cursor.copy(f"COPY ledger_incoming ({', '.join(COPY_COLUMNS)}) FROM STDIN") as copy:
            for start in range(0, len(rows), COPY_CHUNK):
                copy.write(_copy_text(rows[start:start + COPY_CHUNK]))
        same = ", ".join(f"e.{c}" for c in SAME_ENTRY), ", ".join(f"t.{c}" for c in SAME_ENTRY)
        cursor.execute(
            f"SELECT t.idx, e.id FROM ledger_incoming t JOIN {table} e ON e.idempotency_key = t.idempotency_key "
            f"WHERE ({same[0]}) IS DISTINCT FROM ({same[1]}) ORDER BY t.idx LIMIT 20"
        )
        reused = cursor.fetchall()
        if reused:
            raise _reused_key(reused)
        columns = COPY_COLUMNS[1:]
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)}, recorded_by_id, recorded_at) "
            f"SELECT {', '.join(columns)}, %s, %s FROM ledger_incoming ORDER BY idx "
            f"ON CONFLICT (idempotency_key) DO NOTHING",
            [user_id, now],
        )
        created = cursor.rowcount
        cursor.execute("DROP TABLE ledger_incoming")
    return created


def _insert_portable(rows, user_id, now, chunk=500):
    existing = {}
    keys = [row[1] for row in rows]
    for start in range(0, len(keys), chunk):
        for stored_row in CollectionEntry.objects.filter(idempotency_key__in=keys[start:start + chunk]).values_list(
            "idempotency_key", "id", *SAME_ENTRY
        ):
            existing[stored_row[0]] = stored_row[1:]
    fresh, reused = [], []
    for row in rows:
        index, key, table_id, gaming_day, reference, collected_at, payer, seat, player, fee_kind, amount, \
            currency, corrects_id, reason = row
        stored = existing.get(key)
        if stored is None:
            fresh.append(CollectionEntry(
                idempotency_key=key, table_id=table_id, gaming_day=gaming_day, reference=reference,
                collected_at=collected_at, payer=payer, seat=seat, player=player, fee_kind=fee_kind, amount=amount,
                currency=currency, corrects_id=corrects_id, reason=reason, recorded_by_id=user_id, recorded_at=now,
            ))
        elif stored[1:] != (table_id, gaming_day, reference, collected_at, payer, seat, player, fee_kind, amount,
                            corrects_id):
            reused.append((index, stored[0]))
    if reused:
        raise _reused_key(reused)
    CollectionEntry.objects.bulk_create(fresh, batch_size=chunk)
    return len(fresh)


def record_entries(rows, *, scope, user=None, batch_key=None, label=lambda index: f"entries[{index}]"):
    """Record a batch of collection entries, all or nothing. Returns an IngestResult.

    Raises LedgerInputError (bad input, nothing recorded) or LedgerConflict (a key reused for a different
    entry, an entry already corrected; nothing recorded).
    """
    if not isinstance(rows, list) or not rows:
        raise LedgerInputError("entries must be a non-empty list of collection entries.")
    if len(rows) > MAX_BATCH:
        raise LedgerInputError(f"A batch holds at most {MAX_BATCH} entries, not {len(rows)}; split it.")
    if batch_key is not None:
        if not isinstance(batch_key, str) or not batch_key.strip() or len(batch_key) > 80:
            raise LedgerInputError("The batch idempotency_key must be a non-blank string of at most 80 characters.")
        batch_key = batch_key.strip()
    allowed = writable_tables(scope)
    originals = _Originals(rows, allowed)
    table_ids = {row.get("table") for row in rows if isinstance(row, dict)}
    table_ids = {t for t in table_ids if is_id(t)}
    table_ids |= {entry["table"] for entry in originals.by_id.values()}
    tables = allowed.in_bulk(table_ids)
    cleaned = _clean_rows(rows, tables=tables, originals=originals, batch_key=batch_key, label=label)
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    now = timezone.now()
    try:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                created = _insert_postgresql(cleaned, user_id, now)
            else:
                created = _insert_portable(cleaned, user_id, now)
    except IntegrityError as error:
        # A concurrent request corrected the same entry first (the one-correction constraint).
        raise LedgerConflict(f"The ledger changed while this batch was recorded ({error}); nothing was recorded. "
                             "Send it again.") from None
    return IngestResult(received=len(cleaned), created=created)


def record_entry(row, *, scope, user=None, key=None):
    """Record one entry. Returns (entry, created)."""
    if not isinstance(row, dict):
        raise LedgerInputError("The request body must be a JSON object describing one collection entry.")
    if key is not None and row.get("idempotency_key") is None:
        row = {**row, "idempotency_key": key}
    result = record_entries([row], scope=scope, user=user, label=lambda index: "")
    entry = CollectionEntry.objects.get(idempotency_key=row["idempotency_key"].strip())
    return entry, result.created == 1


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

    if timezone.is_naive(played_at):
        played_at = timezone.make_aware(played_at)
    played_at = timezone.localtime(played_at)  # so that "the day it was played" is the local day
    gaming_day = gaming_day or timezone.localdate(played_at)
    if not isinstance(facts, dict):
        raise LedgerInputError("facts must be a JSON object: wagers, poker facts or a time-collection period.")
    if "\\u0000" in json.dumps(facts):
        raise LedgerInputError("facts must not contain NUL characters.")
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
            f"Table {table.label} at {table.establishment} had no posting at "
            f"{timezone.localtime(played_at).isoformat()}: nothing says which schedule option applied, so the "
            f"expected fee cannot be computed."
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
                table=table, gaming_day=gaming_day, reference=reference, played_at=played_at, facts=facts,
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


def _hands_sql(day_from, day_to, table_ids):
    """Per (table, gaming day, reference): expected, collected (effective entries), rounds and entries."""
    rounds, entries = RoundOfPlay._meta.db_table, CollectionEntry._meta.db_table
    params = [day_from, day_to]
    where_tables = ""
    if table_ids is not None:
        where_tables = f" AND {{alias}}.table_id IN ({', '.join(['%s'] * len(table_ids))})"
        params += list(table_ids)
    sql = (
        "SELECT table_id, gaming_day, reference, SUM(expected) AS expected, SUM(collected) AS collected, "
        "SUM(rounds) AS rounds, SUM(entries) AS entries FROM ("
        f"SELECT r.table_id, r.gaming_day, r.reference, r.expected_total AS expected, 0 AS collected, "
        f"1 AS rounds, 0 AS entries FROM {rounds} r WHERE r.gaming_day BETWEEN %s AND %s"
        + where_tables.format(alias="r")
        + " UNION ALL "
        f"SELECT e.table_id, e.gaming_day, e.reference, 0, e.amount, 0, 1 FROM {entries} e "
        "WHERE e.gaming_day BETWEEN %s AND %s" + where_tables.format(alias="e")
        + f" AND NOT EXISTS (SELECT 1 FROM {entries} c WHERE c.corrects_id = e.id)"
        ") u GROUP BY table_id, gaming_day, reference"
    )
    return sql, params + params


def _money(value):
    """A SQL sum as Decimal cents (SQLite returns floats for sums of decimals)."""
    if value is None:
        return Decimal("0.00")
    if isinstance(value, float):
        return Decimal(repr(round(value, 2))).quantize(CENT)
    return Decimal(value).quantize(CENT)


def _date(value):
    return value if isinstance(value, datetime.date) else datetime.date.fromisoformat(str(value)[:10])


def compute(day_from, day_to=None, table_ids=None):
    """Reconcile in SQL. Returns {(table_id, gaming_day): summary dict with its variance list}."""
    day_to = day_to or day_from
    if table_ids is not None and not table_ids:
        return {}
    hands, params = _hands_sql(day_from, day_to, table_ids)
    results = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT h.table_id, h.gaming_day, SUM(h.expected), SUM(h.collected), SUM(h.rounds), SUM(h.entries), "
            f"COUNT(*), SUM(CASE WHEN {VARIANCE} THEN 1 ELSE 0 END) FROM ({hands}) h "
            "GROUP BY h.table_id, h.gaming_day",
            params,
        )
        for table_id, day, expected, collected, n_rounds, n_entries, n_hands, n_variance in cursor.fetchall():
            expected, collected = _money(expected), _money(collected)
            results[(table_id, _date(day))] = {
                "expected_total": expected, "collected_total": collected, "difference": collected - expected,
                "rounds": int(n_rounds), "entries": int(n_entries), "hands": int(n_hands),
                "hands_with_variance": int(n_variance), "hands_balanced": int(n_hands) - int(n_variance),
                "variances": [],
            }
        cursor.execute(
            f"SELECT h.table_id, h.gaming_day, h.reference, h.expected, h.collected, h.rounds, h.entries "
            f"FROM ({hands}) h WHERE {VARIANCE} ORDER BY h.table_id, h.gaming_day, h.reference",
            params,
        )
        for table_id, day, reference, expected, collected, n_rounds, n_entries in cursor.fetchall():
            expected, collected = _money(expected), _money(collected)
            if not n_rounds:
                status, expected_text = "no_round", None
            elif not n_entries:
                status, expected_text = "not_collected", str(expected)
            else:
                status = "under_collected" if collected < expected else "over_collected"
                expected_text = str(expected)
            results[(table_id, _date(day))]["variances"].append({
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
                table=table, gaming_day=day, trigger=trigger, currency=table.establishment.jurisdiction.currency,
                status=Reconciliation.Status.VARIANCE if summary["hands_with_variance"] else
                Reconciliation.Status.BALANCED, run_by=run_by, **summary,
            ))
        stored = Reconciliation.objects.bulk_create(stored, batch_size=500)
        for reconciliation in stored:
            table = reconciliation.table
            log_action(
                "ledger.reconcile", actor=run_by, actor_label="" if run_by else f"reconciliation ({trigger})",
                obj=reconciliation, establishment=table.establishment, jurisdiction=table.establishment.jurisdiction,
                data={"table": table.pk, "gaming_day": reconciliation.gaming_day.isoformat(), "trigger": trigger,
                      "status": reconciliation.status, "expected_total": str(reconciliation.expected_total),
                      "collected_total": str(reconciliation.collected_total),
                      "difference": str(reconciliation.difference),
                      "hands_with_variance": reconciliation.hands_with_variance},
            )
    return stored


def previous_gaming_day(today=None):
    return (today or timezone.localdate()) - datetime.timedelta(days=1)
