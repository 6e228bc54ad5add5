"""A demo gaming day's file of rounds and collections, as a room's own system would write it, for the import pages
(``fees.imports``): made by the demo's own generator (``demo.play``: the same tables, seeds and engine prices) for a
day ``load_demo`` does not record, with a few rows spoilt the way files go wrong.

    .venv/bin/python -m demo.files      # after load_demo: writes demo/files/marysville-2026-11-06.csv and .xlsx

``fixed`` is what a compliance officer does with the refused rows' download: each refused line put right (the
browser test uses it).
"""

import csv
import datetime
import io
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

DAY = datetime.date(2026, 11, 6)  # the Friday after the demo month: no play of load_demo's on it
ROOM = "casino-marysville"
HERE = Path(__file__).resolve().parent
NAME = f"marysville-{DAY.isoformat()}"
HEADER = ["Record", "Table", "Gaming date", "Time", "Hand #", "Payer", "Seat", "Player", "Fee type", "Amount", "Facts"]
# (line of the file, column, what the room's system wrote instead): the ways a file goes wrong.
SPOILS = (
    (3, "Table", "T99"),                  # a table the room does not have
    (6, "Amount", "4,50"),                # a decimal comma
    (9, "Payer", "dealer"),               # not a payer the ledger knows
    (12, "Time", "2026-11-06 25:10"),     # no such time
    (15, "Gaming date", "2026-11-07"),    # a day that does not agree with the time
)


def clean_rows(establishment=None):
    """The day's rows, unspoilt, as lists of strings under HEADER (times in the room's zone, as a floor system
    writes them)."""
    from cardroom.models import Establishment  # here, so that ``python -m demo.files`` sets Django up first
    from demo import play
    from fees.quotes import quoting

    establishment = establishment or Establishment.objects.get(slug=ROOM)
    result = play.PlayResult(first_day=DAY, last_day=DAY)
    tables = play.playable_tables(establishment, DAY, result)
    rows = []
    for hand in play.plan_hands(establishment, tables, DAY, 1):
        _, _, quote = quoting.quote_posting(hand.table.demo_posting, hand.facts, hand.played_at)
        local = hand.played_at.astimezone(establishment.zone).replace(tzinfo=None)
        rows.append(["round", hand.table.label, DAY.isoformat(), f"{local:%Y-%m-%d %H:%M:%S}", hand.reference,
                     "", "", "", "", "", json.dumps(hand.facts, separators=(",", ":"))])
        owed = defaultdict(Decimal)
        for line in quote.lines:
            owed[(str(line.payer), getattr(line, "player", None) or "", str(line.fee_kind))] += Decimal(line.fee)
        collected = (hand.played_at + hand.collected_after).astimezone(establishment.zone).replace(tzinfo=None)
        for (payer, player, fee_kind), amount in owed.items():
            if amount <= 0:
                continue
            seat = player.split("-")[1] if player.startswith("seat-") and player.count("-") == 1 else ""
            rows.append(["entry", hand.table.label, DAY.isoformat(), f"{collected:%Y-%m-%d %H:%M:%S}",
                         hand.reference, payer, seat, player, fee_kind, f"{amount:.2f}", ""])
    return rows


def spoilt(rows):
    rows = [list(row) for row in rows]
    for line, column, value in SPOILS:
        rows[line - 2][HEADER.index(column)] = value  # line 2 is the first row after the header
    return rows


def as_csv(rows, header=HEADER):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def fixed(refused_csv, establishment=None):
    """The refused rows' download put right: each row replaced by the line it came from, unspoilt (the
    "refused because" column is kept: the import ignores a column it does not map)."""
    clean = clean_rows(establishment)
    reader = csv.reader(io.StringIO(refused_csv))
    header = next(reader)
    rows = []
    for row in reader:
        line = int(row[-1].split(":", 1)[0].removeprefix("line "))
        rows.append([*clean[line - 2], row[-1]])
    return as_csv(rows, header)


def write(directory=HERE, establishment=None):
    """Write the demo day's CSV and XLSX files; returns their paths."""
    import openpyxl

    rows = spoilt(clean_rows(establishment))
    csv_path = Path(directory) / f"{NAME}.csv"
    csv_path.write_text(as_csv(rows), encoding="utf-8")
    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Rounds and collections")
    sheet.append(HEADER)
    for row in rows:
        cells = list(row)
        try:  # a spreadsheet keeps times as date cells, amounts as numbers
            cells[3] = datetime.datetime.fromisoformat(cells[3])
        except ValueError:
            pass
        if cells[9]:
            try:
                cells[9] = float(cells[9])
            except ValueError:
                pass
        sheet.append(cells)
    xlsx_path = Path(directory) / f"{NAME}.xlsx"
    workbook.save(xlsx_path)
    return csv_path, xlsx_path
