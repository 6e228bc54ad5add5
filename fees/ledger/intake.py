"""Collection entries coming in: every row of a batch checked before anything is written (one bad row rejects
the batch, a ``BadInput`` naming the row), corrections matched to the entries they correct, then the batch
handed to ``storage``. ``check_entries`` is the check alone and ``record_checked`` the writing of its good rows
(the import records a file's good rows and refuses the bad ones, each row checked once); ``record_entries`` is
both, all or nothing."""

import datetime
import time
from dataclasses import dataclass

from django.db import IntegrityError, OperationalError, connection, transaction
from django.utils import timezone

from cardroom import permissions, values
from cardroom.csv_escaping import FORMULA_STARTS
from cardroom.exceptions import BadInput
from cardroom.models import Table

from ..models import CollectionEntry, LedgerConflict
from ..months.selectors import closed_for
from .storage import RETRIES, insert_portable, insert_postgresql, transient

# A batch at this many rows of the documented shape stays well inside the bulk endpoint's body limit
# (settings.LEDGER_BULK_MAX_BYTES, 16 MiB: about 1.6 KiB a row, where a typical row is about 250 bytes).
MAX_BATCH = 10_000
MAX_ID = values.MAX_ID
ENTRY_FIELDS = frozenset({
    "idempotency_key", "table", "gaming_day", "reference", "collected_at", "payer", "seat", "player", "fee_kind",
    "amount", "currency", "corrects", "corrects_key", "reason",
})
# What a correction inherits from the entry it corrects (and must not contradict when stated).
INHERITED = ("table", "gaming_day", "reference", "payer", "seat", "player", "fee_kind")
PAYERS = frozenset(CollectionEntry.Payer.values)
FEE_KINDS = frozenset(CollectionEntry.FeeKind.values)
MOMENT_EXAMPLE = "2026-03-03T02:30:00-08:00"
# Identifiers (keys, references, players) that a spreadsheet opening an export's CSV would take for a formula are
# refused (cardroom.csv_escaping.FORMULA_STARTS); free text is escaped in the CSV instead.
MAX_ERRORS = 20  # bad rows a refused batch names (the check stops there)


class RowError(Exception):
    def __init__(self, field, message):
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class IngestResult:
    received: int
    created: int
    keys: tuple = ()  # (establishment id, idempotency key) of each row received, in order
    table_days: frozenset = frozenset()  # (table id, gaming day) of the rows received: what to reconcile again

    @property
    def already_recorded(self):
        return self.received - self.created

    def as_dict(self):
        return {"received": self.received, "created": self.created, "already_recorded": self.already_recorded}


# -- who may record where ------------------------------------------------------------------------------------

def writable_tables(scope):
    return permissions.rows(scope, "fees.record_ledger", Table.objects.select_related("establishment__jurisdiction"))


# -- reading rows --------------------------------------------------------------------------------------------

is_id = values.is_id


def _read(read, value, key, **options):
    try:
        return read(value, **options)
    except values.Invalid as exc:
        raise RowError(key, str(exc)) from None


def _text(row, key, *, required, max_length, single_line=True):
    return _read(values.text, row.get(key), key, max_length=max_length, required=required, single_line=single_line)


def checked_identifier(value, key):
    """``value`` (a key, reference or player), if no spreadsheet would read it as a formula."""
    if value.startswith(FORMULA_STARTS):
        raise RowError(key, f"must not begin with {value[0]!r}: a spreadsheet opening the export would read "
                       f"{value[:20]!r} as a formula.")
    return value


def agreed_gaming_day(establishment, moment, stated):
    """The gaming day of ``moment`` in the room's zone; a stated day must be that one."""
    derived = establishment.gaming_day_of(moment)
    if stated is not None and stated != derived:
        raise RowError("gaming_day", f"{stated.isoformat()} does not agree with {moment.isoformat()}, which falls "
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


def _input_error(errors, received, *, batch):
    """The refusal of a batch (naming its ``entries``) or of one entry (naming the entry's field at fault)."""
    first = list(errors.values())[:5]
    more = len(errors) - len(first)
    prefix = "Nothing was recorded. " if received > 1 else ""
    return BadInput(prefix + " ".join(first) + (f" (and {more} more rows with errors)" if more > 0 else ""),
                    field="entries" if batch else first[0].partition(": ")[0])  # a row's message: "<field>: ..."


def _check_rows(rows, *, tables, originals, batch_key, label, max_errors=MAX_ERRORS):
    """Check every row: (the rows ready to insert, {index: message} of the bad ones, at most ``max_errors``: the
    check stops there; None for all). Raises LedgerConflict (a correction of an entry corrected already).

    Written for speed (it runs for every one of a million rows): the common case is tested inline and the
    readers of ``cardroom.values`` are called for every value that is not already a plain string.
    """
    cleaned, errors, seen_keys, corrected_here = [], {}, {}, {}
    amounts = {}  # text -> the amount it reads as: a batch's amounts repeat (the same few fees)
    days = {}  # (room, collected_at as given) -> (the moment read, its gaming day): a hand's entries share one
    append = cleaned.append
    moment, day, money = values.moment, values.day, values.money
    establishment_of = {pk: table.establishment for pk, table in tables.items()}
    establishment_id_of = {pk: table.establishment_id for pk, table in tables.items()}
    currency_of = {pk: table.establishment.jurisdiction.currency for pk, table in tables.items()}
    seats_of = {pk: table.seats for pk, table in tables.items()}
    fields, payers, fee_kinds = ENTRY_FIELDS, PAYERS, FEE_KINDS
    for index, row in enumerate(rows):
        try:
            if type(row) is not dict:
                raise RowError(None, "must be an object.")
            if not row.keys() <= fields:
                unknown = row.keys() - fields
                raise RowError(None, f"has unknown field(s): {', '.join(sorted(map(str, unknown)))}.")
            get = row.get
            key = get("idempotency_key")
            if not _plain_text(key, 100):
                key = _text(row, "idempotency_key", required=False, max_length=100)
                if not key:
                    if batch_key is None:
                        raise RowError("idempotency_key", "is required (or give the batch an idempotency_key)."
                                       if label(index) else "is required (in the body or an Idempotency-Key header).")
                    key = f"{batch_key}:{index}"
            checked_identifier(key, "idempotency_key")
            if key in seen_keys:
                raise RowError("idempotency_key",
                               f"{key!r} is used twice in this batch (also by row {seen_keys[key]}).")
            seen_keys[key] = index

            if get("corrects") is not None or get("corrects_key") is not None:
                original = _original(row, originals, key, corrected_here, index)
                for field in INHERITED:
                    stated = get(field)
                    if stated is not None and stated != _as_stated(original[field]):
                        raise RowError(field, f"a correction keeps the corrected entry's {field} "
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
                        raise RowError("table", "is required.")
                    _read(values.identifier, table_id, "table")
                    raise RowError("table", f"no table {table_id} among the tables you may record at.")
                reference = get("reference")
                if not _plain_text(reference, 64):
                    reference = _text(row, "reference", required=True, max_length=64)
                checked_identifier(reference, "reference")
                value = get("collected_at")
                if value is None:
                    raise RowError("collected_at", "is required.")
                known = (establishment_id_of[table_id], value)
                read = days.get(known) if type(value) in (str, datetime.datetime) else None
                if read is None:
                    read = _read(moment, value, "collected_at", example=MOMENT_EXAMPLE)
                    read = (read, establishment_of[table_id].gaming_day_of(read))
                    if type(value) in (str, datetime.datetime):
                        days[known] = read
                collected_at, gaming_day = read
                value = get("gaming_day")
                if value is not None:
                    stated_day = _read(day, value, "gaming_day")
                    if stated_day != gaming_day:
                        agreed_gaming_day(establishment_of[table_id], collected_at, stated_day)  # raises: why
                payer = get("payer")
                if payer not in payers:
                    raise RowError("payer", f"must be one of {', '.join(sorted(payers))}, not {payer!r}.")
                seat = get("seat")
                if seat is not None:
                    _read(values.whole, seat, "seat")
                    if not 1 <= seat <= seats_of[table_id]:
                        raise RowError("seat", f"must be a betting position from 1 to {seats_of[table_id]} at "
                                       f"table {tables[table_id].label}, not {seat}.")
                player = get("player")
                if player is None or player == "":
                    player = ""
                elif not _plain_text(player, 64):
                    player = _text(row, "player", required=False, max_length=64)
                checked_identifier(player, "player")
                if payer == "player" and seat is None and not player:
                    raise RowError("payer", "a player's payment needs the seat or the player.")
                fee_kind = get("fee_kind")
                if fee_kind not in fee_kinds:
                    raise RowError("fee_kind", f"must be one of {', '.join(sorted(fee_kinds))}, not {fee_kind!r}.")
                reason = _text(row, "reason", required=False, max_length=500, single_line=False)
                corrects_id = None
            value = get("amount")
            if value is None:
                raise RowError("amount", "is required.")
            amount = amounts.get(value) if type(value) is str else None
            if amount is None:
                amount = _read(money, value, "amount")
                if type(value) is str:
                    amounts[value] = amount
            currency = currency_of[table_id]
            stated_currency = get("currency")
            if stated_currency is not None and stated_currency != currency:
                raise RowError("currency", f"table {tables[table_id].label} collects in {currency}, "
                                            f"not {stated_currency!r}.")
            append((index, key, establishment_id_of[table_id], table_id, gaming_day, reference, collected_at, payer,
                    seat, player, fee_kind, amount, currency, corrects_id, reason))
        except RowError as error:
            where = label(index)
            field = f"{where}.{error.field}" if where and error.field else (where or error.field or "entry")
            errors[index] = f"{field}: {error.message}"
            if len(errors) == max_errors:
                break
    return cleaned, errors


def _as_stated(value):
    """A stored value as it would be written in a request (dates as YYYY-MM-DD)."""
    return value.isoformat() if isinstance(value, datetime.date) else value


def _original(row, originals, key, corrected_here, index):
    by_id, by_key = row.get("corrects"), row.get("corrects_key")
    if by_id is not None and by_key is not None:
        raise RowError("corrects", "give corrects (an entry id) or corrects_key (its idempotency key), not both.")
    if by_id is not None:
        original = originals.by_id.get(_read(values.identifier, by_id, "corrects"))
        if original is None:
            raise RowError("corrects", f"no entry {by_id} that you may correct.")
    else:
        by_key = _read(values.text, by_key, "corrects_key", max_length=100)
        found = originals.by_key.get(by_key, {})
        if not found:
            raise RowError("corrects_key", f"no recorded entry with idempotency key {by_key!r} that you may "
                                            f"correct (record it first).")
        if len(found) > 1:
            raise RowError("corrects_key", f"{by_key!r} is the key of entries in {len(found)} establishments; "
                                            "name the entry by its id (corrects).")
        original = next(iter(found.values()))
    if original["id"] in corrected_here:
        raise RowError("corrects", f"entry {original['id']} is corrected twice in this batch "
                                    f"(also by row {corrected_here[original['id']]}).")
    corrected_here[original["id"]] = index
    correction = originals.corrected_by.get(original["id"])
    if correction is not None and correction[1] != key:
        raise LedgerConflict(
            f"Entry {original['id']} has already been corrected by entry {correction[0]}; correct that entry "
            f"instead. Nothing was recorded."
        )
    return original


@dataclass(frozen=True)
class CheckedEntries:
    """A batch checked by ``check_entries``: the rows ready to record (each with its index in the batch) and the
    bad rows' messages by index. ``record_checked`` records the rows without checking them again."""
    rows: tuple
    errors: dict

    def part(self, start, stop=None):
        """The checked rows from ``start`` to ``stop``, to record apart (e.g. to find a reused key by halving)."""
        return CheckedEntries(rows=self.rows[start:stop], errors={})


def check_entries(rows, *, scope, batch_key=None, label=lambda index: f"entries[{index}]", max_errors=MAX_ERRORS):
    """Check a batch of collection entries as ``record_entries`` does, recording nothing: a CheckedEntries with
    the good rows and each bad row's message (the first ``max_errors``, where the check stops; None: every row
    checked, e.g. to record the good rows of a file and refuse only the bad ones).

    Raises BadInput for the batch as a whole (not a list, empty, too long, a bad batch key),
    LedgerConflict (a correction of an entry corrected already) or NotAllowed (``fees.record_ledger`` nowhere;
    a row's table that is not one of the scope's is that row's error).
    """
    permissions.require_of(scope, "fees.record_ledger")
    try:
        values.items(rows, max_items=MAX_BATCH, what="entries")
    except values.Invalid as error:
        raise BadInput(str(error), field="entries") from None
    if batch_key is not None:
        try:
            batch_key = checked_identifier(values.text(batch_key, max_length=80), "idempotency_key")
        except (values.Invalid, RowError) as error:
            raise BadInput(f"The batch idempotency_key {error}", field="idempotency_key") from None
    allowed = writable_tables(scope)
    originals = _Originals(rows, allowed)
    table_ids = {row.get("table") for row in rows if type(row) is dict and is_id(row.get("table"))}
    table_ids |= {entry["table"] for entry in originals.by_id.values()}
    tables = allowed.in_bulk(table_ids)
    cleaned, errors = _check_rows(rows, tables=tables, originals=originals, batch_key=batch_key, label=label,
                                  max_errors=max_errors)
    if closed := closed_for({row[4] for row in cleaned}):  # rows of a closed month are bad rows
        for index, gaming_day in ((row[0], row[4]) for row in cleaned if row[4] in closed):
            errors[index] = f"{label(index) + '.' if label(index) else ''}gaming_day: {closed[gaming_day]}"
        errors = dict(sorted(errors.items()))
        cleaned = [row for row in cleaned if row[4] not in closed]
    return CheckedEntries(rows=tuple(cleaned), errors=errors)


def record_checked(checked, *, user=None):
    """Record the good rows of a CheckedEntries, all or nothing (its bad rows are the caller's to refuse).
    Returns an IngestResult; raises LedgerConflict (a key already recorded for a different entry, a concurrent
    batch; nothing recorded)."""
    cleaned = list(checked.rows)
    if not cleaned:
        return IngestResult(received=0, created=0)
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    insert = insert_postgresql if connection.vendor == "postgresql" else insert_portable
    for attempt in range(1, RETRIES + 1):
        try:
            with transaction.atomic():
                created = insert(cleaned, user_id, timezone.now())
            break
        except OperationalError as error:
            if not transient(error) or attempt == RETRIES:
                raise LedgerConflict("The ledger was busy with a concurrent batch; nothing was recorded. "
                                     "Send it again.") from None
            time.sleep(0.05 * attempt)
        except IntegrityError:
            # A concurrent request recorded one of these keys, or corrected the same entry, first.
            raise LedgerConflict("The ledger changed while this batch was recorded; nothing was recorded. "
                                 "Send it again.") from None
    return IngestResult(received=len(cleaned), created=created, keys=tuple((row[2], row[1]) for row in cleaned),
                        table_days=frozenset((row[3], row[4]) for row in cleaned))


def record_entries(rows, *, scope, user=None, batch_key=None, label=lambda index: f"entries[{index}]"):
    """Record a batch of collection entries, all or nothing. Returns an IngestResult.

    Raises BadInput (bad input, nothing recorded; it names the first 20 bad rows) or LedgerConflict (a
    key reused for a different entry, an entry already corrected; nothing recorded), or NotAllowed
    (``fees.record_ledger`` nowhere; each row's table must be one of the scope's).
    """
    checked = check_entries(rows, scope=scope, batch_key=batch_key, label=label)
    if checked.errors:
        raise _input_error(checked.errors, len(rows), batch=bool(label(0)))
    return record_checked(checked, user=user)


def record_entry(row, *, scope, user=None, key=None):
    """Record one entry. Returns (entry, created)."""
    if type(row) is not dict:
        raise BadInput("The request body must be a JSON object describing one collection entry.")
    if key is not None and row.get("idempotency_key") is None:
        row = {**row, "idempotency_key": key}
    result = record_entries([row], scope=scope, user=user, label=lambda index: "")
    (establishment_id, key), = result.keys
    return CollectionEntry.objects.get(establishment_id=establishment_id, idempotency_key=key), result.created == 1
