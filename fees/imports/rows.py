"""A row of a room's file read with the mapping: a round (``fees.ledger.record_round``'s arguments) or a collection
entry (a row as ``fees.ledger.check_entries`` takes it, with its key). Values the ledger checks are handed over
read (a table's id, a moment, a date) so they are parsed once; what cannot be read here is handed over as written,
for the ledger to say what is wrong with it."""

import datetime
import hashlib
import json

from cardroom import values
from cardroom.models import Table

from ..models import CollectionEntry
from .reading import Refused

PAYERS = {**{v.lower(): v for v in CollectionEntry.Payer.values},
          **{label.lower(): v for v, label in CollectionEntry.Payer.choices}}
FEE_KINDS = {**{v.lower(): v for v in CollectionEntry.FeeKind.values},
             **{label.lower(): v for v, label in CollectionEntry.FeeKind.choices}}
ROUND_WORDS, ENTRY_WORDS = ("round", "hand", "r"), ("entry", "collection", "e", "collection entry")
OPTIONAL = ("player", "currency", "corrects_key", "reason", "idempotency_key")
CACHED = 10_000  # values a Reader keeps read (times, amounts)
FACTS_EXAMPLE = '{"wagers": [{"player": "p1", "base": "150"}]}'


class Reader:
    """Reads a file's rows with a mapping at a room: each row to a round or a collection entry."""

    def __init__(self, establishment, mapping, header):
        self.establishment = establishment
        self.zone = establishment.zone
        self.currency = establishment.jurisdiction.currency
        position = {column: index for index, column in enumerate(header)}
        self.columns = {field: position[column] for field, column in mapping.items() if column in position}
        self.width = max(self.columns.values(), default=-1) + 1  # a row this wide holds every mapped cell
        self.tables = {table.label: table for table in Table.objects.filter(establishment=establishment)
                       .select_related("establishment__jurisdiction")}
        # The last day read (a hand's rows share it); the times, their UTC text and the amounts read (a file's
        # rows repeat a few of each: a hand's seats, a room's fees), each kept up to CACHED.
        self._day, self._times, self._utc, self._amounts = (None, None), {}, {}, {}

    def values(self, cells):
        """Field -> the cell's text (stripped; "" when empty or not in the file)."""
        if len(cells) >= self.width:
            return {field: cells[index].strip() for field, index in self.columns.items()}
        width = len(cells)
        return {field: (cells[index].strip() if index < width and cells[index] else "")
                for field, index in self.columns.items()}

    def parse(self, cells):
        """(kind, parsed): the row read as the ledger takes it; Refused for a value the import cannot read."""
        raw = self.values(cells)
        get = raw.get
        kind = get("record", "").lower()
        if kind in ("", "-"):
            kind = "round" if get("facts") else "entry"
        elif kind in ROUND_WORDS:
            kind = "round"
        elif kind in ENTRY_WORDS:
            kind = "entry"
        else:
            raise Refused("record", f"must be “round” or “entry”, not {get('record')!r}.")
        label = get("table", "")
        table = self.tables.get(label)
        if table is None:
            corrects = kind == "entry" and get("corrects_key")
            if not (corrects and not label):
                raise Refused("table", f"no table {label!r} at {self.establishment.name}." if label
                              else "is required.")
        parsed = {"table": table, "time": self.moment(get("time", ""), required=not get("corrects_key"))}
        day = get("gaming_day")
        if day:
            parsed["gaming_day"] = self._day[1] if day == self._day[0] else self.day(day)
        parsed["reference"] = get("reference", "")
        if kind == "round":
            text = get("facts", "")
            if not text:
                raise Refused("facts", "a round needs its facts (the quote API's JSON).")
            try:
                parsed["facts"] = json.loads(text)
            except ValueError as error:  # the parser's own words are for programmers: where, and what is wanted
                where = f" (it goes wrong at character {error.pos + 1})" if hasattr(error, "pos") else ""
                raise Refused("facts", f"is not JSON{where}: write the round's facts as the quote API's JSON, "
                                       f"such as {FACTS_EXAMPLE}.") from None
            except RecursionError:  # nested deeper than JSON reads
                raise Refused("facts", "is nested too deeply to be a round's facts.") from None
            if not parsed["reference"]:
                raise Refused("reference", "is required.")
            return kind, parsed
        payer = get("payer", "")
        parsed["payer"] = PAYERS.get(payer.lower(), payer) if payer else None
        fee_kind = get("fee_kind", "")
        parsed["fee_kind"] = FEE_KINDS.get(fee_kind.lower(), fee_kind) if fee_kind else None
        seat = get("seat", "")
        # ASCII digits only ("²" is a digit to isdigit, not to int), and short: the ledger says what else is wrong.
        parsed["seat"] = int(seat) if seat.isascii() and seat.isdigit() and len(seat) < 10 else (seat or None)
        for field in OPTIONAL:
            parsed[field] = get(field) or None
        amount = get("amount", "")
        parsed["amount"] = (self._amounts.get(amount) or self.amount(amount)) if amount else None
        return kind, parsed

    def day(self, text):
        try:
            day = datetime.date.fromisoformat(text[:10] if len(text) > 10 else text)
        except ValueError:
            raise Refused("gaming_day", f"must be a date written YYYY-MM-DD, not {text!r}.") from None
        self._day = (text, day)
        return day

    def amount(self, text):
        """A Decimal read as the ledger reads it (not rounded: 3.005 is refused, not recorded as 3.00); the text
        itself when it is not one, for the ledger to say what is wrong with it."""
        try:
            amount = values.money(text)
        except values.Invalid:
            return text
        if len(self._amounts) >= CACHED:
            self._amounts.clear()
        self._amounts[text] = amount
        return amount

    def moment(self, text, required=True):
        known = self._times.get(text)
        if known is not None:
            return known
        if not text:
            if required:
                raise Refused("time", "is required.")
            return None
        try:
            moment = datetime.datetime.fromisoformat(text) if len(text) > 10 else None
        except ValueError:
            moment = None
        if moment is None:
            raise Refused("time", f"must be a date and time such as 2026-11-06 14:30 (the room's time) or "
                                  f"2026-11-06T14:30:00-08:00, not {text!r}.")
        if moment.tzinfo is None:
            first, second = moment.replace(tzinfo=self.zone), moment.replace(tzinfo=self.zone, fold=1)
            if first.utcoffset() != second.utcoffset():
                back = first.astimezone(datetime.UTC).astimezone(self.zone).replace(tzinfo=None)
                what = "came twice (the clocks went back)" if back == moment else "never came (the clocks went " \
                                                                                  "forward)"
                raise Refused("time", f"{text} {what} at {self.establishment.name} ({self.establishment.time_zone}):"
                                      " write it with its UTC offset.")
            moment = first
        if len(self._times) >= CACHED:
            self._times.clear()
        self._times[text] = moment
        return moment

    def content_key(self, parsed):
        """The key of an entry with no key of its own: a digest of what it records, so the same row is the same
        entry whichever file or position it comes in."""
        table, time = parsed["table"], parsed["time"]
        utc = self._utc.get(time)
        if utc is None:
            if len(self._utc) >= CACHED:
                self._utc.clear()
            utc = self._utc[time] = time.astimezone(datetime.UTC).isoformat() if time else ""
        # The values joined by \x1f as str() writes them (None as "None"): the keys of rows already imported.
        content = (f"{table.label if table else ''}\x1f{utc}\x1f{parsed['reference']}\x1f"
                   f"{parsed['payer']}\x1f{parsed['seat']}\x1f{parsed['player']}\x1f{parsed['fee_kind']}\x1f"
                   f"{parsed['amount']}\x1f{parsed['currency']}\x1f{parsed['corrects_key']}\x1f{parsed['reason']}")
        return "import-" + hashlib.sha256(content.encode()).hexdigest()[:40]

    @staticmethod
    def check_names(parsed):
        """Refuse an entry whose payer or fee kind is none the file may write (a label or the ledger's code), in
        the file's words: the ledger's own refusal lists its codes, which are the API's."""
        from .mapping import FEE_KIND_WORDS, PAYER_WORDS

        for field, known, words in (("payer", CollectionEntry.Payer.values, PAYER_WORDS),
                                    ("fee_kind", CollectionEntry.FeeKind.values, FEE_KIND_WORDS)):
            if parsed[field] is not None and parsed[field] not in known:
                raise Refused(field, f"must be {words}, not {parsed[field]!r}.")

    def entry(self, parsed):
        """The row as ``check_entries`` takes it (its own checks decide the rest)."""
        row = {"idempotency_key": parsed["idempotency_key"] or self.content_key(parsed)}
        if parsed["table"] is not None:
            row["table"] = parsed["table"].id
        if parsed["time"] is not None:
            row["collected_at"] = parsed["time"]
        if "gaming_day" in parsed:
            row["gaming_day"] = parsed["gaming_day"]
        for field in ("reference", "payer", "seat", "player", "fee_kind", "currency", "corrects_key", "reason"):
            if parsed[field] not in (None, ""):
                row[field] = parsed[field]
        if parsed["amount"] is not None:
            row["amount"] = str(parsed["amount"])  # as written: the ledger reads a batch's repeated amounts once
        return row
