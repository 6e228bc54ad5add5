"""The preview: a file's first rows as they would be recorded, each value with its reading (a time in the room's
zone, the gaming day, the amount as money, the payer and fee kind by name, where the key comes from), as a table:
a column per reading, a bad value marked, and what is wrong said in words (the field's name, the file's column).
Bounded whatever the file holds: ``PREVIEW_ROWS`` rows, the readings' columns, each value cut at ``SHOWN_CHARS``."""

from decimal import Decimal

from cardroom.money import format_money
from cardroom.moments import format_moment

from ..models import CollectionEntry
from .mapping import FIELDS
from .reading import Refused, read_rows
from .rows import Reader

PREVIEW_ROWS = 10
SHOWN_CHARS = 60  # of a value as written, or of a reading quoting one
PAYER_LABELS = dict(CollectionEntry.Payer.choices)
FEE_KIND_LABELS = dict(CollectionEntry.FeeKind.choices)
COLUMNS = ("Record", "Table", "Time", "Gaming day", "Hand or round", "Facts", "Payer", "Seat, player", "Fee kind",
           "Amount", "Corrects", "Key")
# The columns whose values are short and not to be broken (at a hyphen or a space): a table, a date, a time, a
# hand's reference; the others wrap.
KEPT_WHOLE = ("Table", "Time", "Gaming day", "Hand or round")
# The preview's column each ledger field is shown in (a row that cannot be read shows its cells as written).
FIELD_COLUMNS = {"record": "Record", "table": "Table", "time": "Time", "gaming_day": "Gaming day",
                 "reference": "Hand or round", "facts": "Facts", "payer": "Payer", "seat": "Seat, player",
                 "player": "Seat, player", "fee_kind": "Fee kind", "amount": "Amount", "corrects_key": "Corrects",
                 "reason": "Corrects", "idempotency_key": "Key"}
# A field's name as people say it: its label on the mapping page without the "(entries)" it adds there.
FIELD_WORDS = {field.name: field.label.split(" (")[0] for field in FIELDS}


def _cut(text):
    text = str(text)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "…"


def _quoted(text):
    return repr(_cut(text))


def readings(reader, kind, parsed):
    """Each value of a parsed row as the ledger will read it: ([(column, reading)], {columns of bad values})."""
    table, time = parsed["table"], parsed["time"]
    said, bad = [("Record", "round" if kind == "round" else "entry"),
                 ("Table", f"table {table.label}" if table else "the corrected entry's")], set()
    if time is not None:
        said.append(("Time", format_moment(time, reader.zone)))
    day = parsed.get("gaming_day") or (reader.establishment.gaming_day_of(time) if time else None)
    if day:
        said.append(("Gaming day", f"{day.isoformat()}{'' if 'gaming_day' in parsed else ' (from the time)'}"))
    said.append(("Hand or round", _cut(parsed["reference"])))
    if kind == "round":
        facts = parsed["facts"]
        if isinstance(facts, dict):
            said.append(("Facts", _cut(", ".join(f"{key}: {len(value) if isinstance(value, list) else value}"
                                                 for key, value in facts.items()))))
        else:
            said.append(("Facts", "not an object: the quote API's JSON is an object, {…}"))
            bad.add("Facts")
        return said, bad
    payer = PAYER_LABELS.get(parsed["payer"])
    said.append(("Payer", payer or f"{_quoted(parsed['payer'] or '')}: not a payer"))
    if parsed["seat"] is not None or parsed["player"]:
        said.append(("Seat, player", _cut(f"seat {parsed['seat'] or '–'}, {parsed['player'] or 'no player'}")))
    fee_kind = FEE_KIND_LABELS.get(parsed["fee_kind"])
    said.append(("Fee kind", fee_kind or f"{_quoted(parsed['fee_kind'] or '')}: not a kind of fee"))
    amount = parsed["amount"]
    good_amount = isinstance(amount, Decimal)
    said.append(("Amount", format_money(amount, reader.currency) if good_amount
                 else f"{_quoted(amount or '')}: not an amount"))
    bad |= {column for column, ok in (("Payer", payer), ("Fee kind", fee_kind), ("Amount", good_amount)) if not ok}
    if parsed["corrects_key"]:
        said.append(("Corrects", _cut(f"entry {parsed['corrects_key']}: {parsed['reason'] or 'no reason given'}")))
    if parsed["idempotency_key"]:  # else it is made from the row's content (the page says so once)
        said.append(("Key", _cut(f"the row's own: {parsed['idempotency_key']}")))
    return said, bad


def problem_words(refused, mapping):
    """What is wrong with a row, for a person: the field by its name and the file's column that holds it."""
    if not refused.field:
        return refused.message
    column = mapping.get(refused.field)
    name = FIELD_WORDS.get(refused.field, refused.field)
    return f"{name}, column “{_cut(column)}”: {refused.reason}" if column else f"{name}: {refused.reason}"


# The ledger's names of fields it refuses that the file's mapping calls otherwise.
LEDGER_FIELDS = {"collected_at": "time", "played_at": "time", "corrects": "corrects_key"}


def reason_words(message, mapping):
    """A refusal written "field: why" (the reader's, the ledger's) said as ``problem_words`` says it, with the
    field's name and the file's column: "Gaming day, column “Gaming date”: October 2026 is closed..."; any other
    message as it is."""
    field, said, why = message.partition(": ")
    field = LEDGER_FIELDS.get(field, field)
    if not said or field not in FIELD_WORDS:
        return message
    return problem_words(Refused(field, why), mapping)


def preview(record_import, mapping, limit=PREVIEW_ROWS):
    """The first rows as they would be recorded: [{"line", "readings" [(column, text)], "bad" {columns}, and
    "problem" (words) for a row that cannot be read (its readings are then its cells as written)}]."""
    reader = Reader(record_import.establishment, mapping, record_import.header)
    shown = []
    for line, cells, problem in read_rows(record_import):
        row = {"line": line}
        try:
            if problem:
                raise Refused(None, problem)
            kind, parsed = reader.parse(cells)
            row["readings"], row["bad"] = readings(reader, kind, parsed)
        except Refused as refused:
            written = {}
            for field, text in reader.values(cells).items():
                if text:
                    column = FIELD_COLUMNS[field]
                    written[column] = _cut(f"{written[column]}, {text}" if column in written else text)
            row["readings"] = [(column, written[column]) for column in COLUMNS if column in written]
            row["bad"] = {FIELD_COLUMNS[refused.field]} if refused.field in FIELD_COLUMNS else set()
            row["problem"] = problem_words(refused, mapping)
        shown.append(row)
        if len(shown) >= limit:
            break
    return shown


def as_table(rows):
    """The preview's rows as a table: (the columns some row has, [{"line", "cells" [{"text", "bad"}], "problem",
    "bad" (the bad values' columns, in order), "reasons" (each bad value in words: "amount '4,50': not an
    amount")}])."""
    used = [column for column in COLUMNS if any(column == name for row in rows for name, _ in row["readings"])]
    table = []
    for row in rows:
        said = dict(row["readings"])
        table.append({"line": row["line"], "problem": row.get("problem"),
                      "bad": [column for column in used if column in row["bad"]],
                      "reasons": [f"{column.lower()} {said.get(column, '')}".strip() for column in used
                                  if column in row["bad"]],
                      "cells": [{"column": column, "text": said.get(column, ""), "bad": column in row["bad"],
                                 "whole": column in KEPT_WHOLE}
                                for column in used]})
    return used, table
