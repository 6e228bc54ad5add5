"""The preview: a file's first rows as they would be recorded, each value with its reading (a time in the room's
zone, the gaming day, the amount as money, the payer and fee kind by name, where the key comes from)."""

from decimal import Decimal

from cardroom.money import format_money
from cardroom.moments import format_moment

from ..models import CollectionEntry
from .reading import Refused, read_rows
from .rows import Reader

PREVIEW_ROWS = 10
PAYER_LABELS = dict(CollectionEntry.Payer.choices)
FEE_KIND_LABELS = dict(CollectionEntry.FeeKind.choices)


def readings(reader, kind, parsed):
    """Each value of a parsed row as the ledger will read it: [(what, reading)]."""
    table, time = parsed["table"], parsed["time"]
    said = [("Record", "round" if kind == "round" else "collection entry"),
            ("Table", f"table {table.label}" if table else "the corrected entry's")]
    if time is not None:
        said.append(("Time", format_moment(time, reader.zone)))
    day = parsed.get("gaming_day") or (reader.establishment.gaming_day_of(time) if time else None)
    if day:
        said.append(("Gaming day", f"{day.isoformat()}{'' if 'gaming_day' in parsed else ' (from the time)'}"))
    said.append(("Reference", parsed["reference"]))
    if kind == "round":
        facts = parsed["facts"]
        said.append(("Facts", ", ".join(f"{key}: {len(value) if isinstance(value, list) else value}"
                                        for key, value in facts.items()) if isinstance(facts, dict)
                     else "not an object"))
        return said
    said.append(("Payer", PAYER_LABELS.get(parsed["payer"], f"{parsed['payer']!r}: not a payer")))
    if parsed["seat"] is not None or parsed["player"]:
        said.append(("Seat, player", f"seat {parsed['seat'] or '–'}, {parsed['player'] or 'no player'}"))
    said.append(("Fee kind", FEE_KIND_LABELS.get(parsed["fee_kind"], f"{parsed['fee_kind']!r}: not a kind")))
    amount = parsed["amount"]
    said.append(("Amount", format_money(amount, reader.currency) if isinstance(amount, Decimal)
                 else f"{amount!r}: not an amount"))
    if parsed["corrects_key"]:
        said.append(("Corrects", f"entry {parsed['corrects_key']}: {parsed['reason'] or 'no reason given'}"))
    said.append(("Key", f"the row's own: {parsed['idempotency_key']}" if parsed["idempotency_key"]
                 else "from the row's content"))
    return said


def preview(record_import, mapping, limit=PREVIEW_ROWS):
    """The first rows as they would be recorded: [{"line", "cells", "readings" or "problem"}]."""
    reader = Reader(record_import.establishment, mapping, record_import.header)
    shown = []
    for line, cells, problem in read_rows(record_import):
        row = {"line": line, "cells": cells}
        try:
            if problem:
                raise Refused(None, problem)
            kind, parsed = reader.parse(cells)
            row["readings"] = readings(reader, kind, parsed)
        except Refused as refused:
            row["problem"] = refused.message
        shown.append(row)
        if len(shown) >= limit:
            break
    return shown
