"""The export's PDF report: the same data as the CSV files, laid out for a person to read.

Sections with many rows show the first ``ROW_LIMIT`` and say where the rest is; the CSV and JSON files always
hold every row.
"""

import io
from collections import defaultdict
from decimal import Decimal
from xml.sax.saxutils import escape

from django.conf import settings
from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import (
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

import signage.render  # noqa: F401  (registers the embedded Vera fonts)

from . import collect

ROW_LIMIT = 200  # per section; a first version of GEGA-002888 alone is ~5,000 changed values
CELL_LIMIT = 200  # characters of one cell: the tallest row (18 narrow columns) then still fits on a page
EXPECTED, COLLECTED = colors.HexColor("#4a6fa5"), colors.HexColor("#e0a030")

TITLE = ParagraphStyle("title", fontName="Vera-Bold", fontSize=18, leading=22, spaceAfter=8)
H1 = ParagraphStyle("h1", fontName="Vera-Bold", fontSize=13, leading=16, spaceBefore=10, spaceAfter=5)
BODY = ParagraphStyle("body", fontName="Vera", fontSize=8.5, leading=11)
CELL = ParagraphStyle("cell", fontName="Vera", fontSize=6.5, leading=8)
HEAD = ParagraphStyle("head", fontName="Vera-Bold", fontSize=6.5, leading=8)


def _p(text, style=BODY):
    return Paragraph(escape("" if text is None else str(text)), style)


PAGE_WIDTH = landscape(letter)[0] - inch
MIN_COLUMN = 0.45 * inch


def _widths(columns, rows, width=PAGE_WIDTH):
    """Column widths filling ``width``: each by its longest text (capped), never narrower than MIN_COLUMN.
    Widths are always given: left to itself reportlab sizes a column of paragraphs from nothing and fails
    ("negative availWidth") on a long enough cell."""
    weights = []
    for index, column in enumerate(columns):
        longest = max([len(str(column))] + [len(collect_cell(row[index])) for row in rows[:50]])
        weights.append(min(longest, 40) + 4)
    spare = width - MIN_COLUMN * len(columns)
    if spare <= 0:
        return [width / len(columns)] * len(columns)
    return [MIN_COLUMN + spare * weight / sum(weights) for weight in weights]


def _clipped(text):
    """A cell's text cut to CELL_LIMIT characters: a table row must fit on one page (reportlab cannot split a
    row), and a reason may be thousands of characters long."""
    return text if len(text) <= CELL_LIMIT else text[:CELL_LIMIT - 6].rstrip() + " [...]"


def _table(columns, rows, widths=None, total=None, file=None):
    """A table of rows (first ROW_LIMIT), with a note when there are more or when long texts were cut."""
    shown = rows[:ROW_LIMIT]
    cells = [[collect_cell(v) for v in row] for row in shown]
    data = [[_p(c, HEAD) for c in columns]] + [[_p(_clipped(text), CELL) for text in row] for row in cells]
    table = Table(data, colWidths=widths or _widths(columns, shown), repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (-1, -1), "Vera"),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#bbbbbb")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]))
    out = [table]
    count = total if total is not None else len(rows)
    if not rows:
        out = [_p("None in the period.")]
    elif count > len(shown):
        out.append(_p(f"The first {len(shown):,} of {count:,} rows; every row is in {file}."))
    if any(len(text) > CELL_LIMIT for row in cells for text in row):
        out.append(_p(f"Texts longer than {CELL_LIMIT} characters are cut here (marked [...]); "
                      f"they are whole in {file or 'the CSV and JSON files'}."))
    return out


def collect_cell(value):
    from .build import csv_cell

    return csv_cell(value)


def _chart(days):
    """Expected and collected fees per gaming day, all tables together."""
    drawing = Drawing(9.5 * inch, 2.6 * inch)
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 50, 35, 9.5 * inch - 70, 2.6 * inch - 60
    labels = sorted(days)
    chart.data = [[float(days[d][0]) for d in labels], [float(days[d][1]) for d in labels]]
    chart.categoryAxis.categoryNames = [d.strftime("%m-%d") for d in labels]
    chart.categoryAxis.labels.fontName = "Vera"
    chart.categoryAxis.labels.fontSize = 5 if len(labels) > 20 else 7
    chart.categoryAxis.labels.angle = 90 if len(labels) > 20 else 0
    chart.categoryAxis.labels.boxAnchor = "e" if len(labels) > 20 else "n"
    chart.valueAxis.labels.fontName = "Vera"
    chart.valueAxis.labels.fontSize = 7
    chart.valueAxis.valueMin = 0
    chart.bars[0].fillColor, chart.bars[1].fillColor = EXPECTED, COLLECTED
    chart.bars.strokeWidth = 0
    drawing.add(chart)
    legend = Legend()
    legend.x, legend.y = 60, 2.6 * inch - 10
    legend.fontName, legend.fontSize = "Vera", 7
    legend.alignment = "right"
    legend.columnMaximum = 1
    legend.colorNamePairs = [(EXPECTED, "expected"), (COLLECTED, "collected")]
    drawing.add(legend)
    drawing.add(String(0, 2, "Fees per gaming day (all tables)", fontName="Vera", fontSize=7))
    return drawing


def _money(amount, currency):
    return f"{amount:,.2f} {currency}"


def render(scope, counts, *, generated_at, requested_by=""):
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=landscape(letter), leftMargin=0.5 * inch, rightMargin=0.5 * inch,
                            topMargin=0.5 * inch, bottomMargin=0.5 * inch, title="Audit export",
                            author="cardroom", creator="cardroom")
    width = PAGE_WIDTH
    kinds = {k.name: k for k in collect.KINDS}

    def rows(name):
        return list(kinds[name].rows(scope))

    story = [_p(f"Audit export: {scope.describe()}", TITLE)]
    story.append(_p(f"Generated {collect.utc(generated_at)} (UTC)" + (f" for {requested_by}" if requested_by else "")
                    + f". Times in the tables are UTC; the period and gaming days are local days "
                      f"({settings.TIME_ZONE})."))
    heads = "; ".join(f"{chain} at entry {seq} (hash {digest[:16]}...)"
                      for chain, (seq, digest) in sorted(scope.chain_heads.items()))
    story.append(_p(f"Audit-log chains covered: {heads or 'none'}. The manifest lists every file with its SHA-256 "
                    "and is signed with the installation's Ed25519 key; verify it with "
                    "`python manage.py verify_export` or POST /api/v1/exports/verify."))

    # Summary
    story.append(_p("Summary", H1))
    fee_rows = rows("fees_by_table_day")
    totals = defaultdict(lambda: [Decimal("0"), Decimal("0")])
    for _, _, _, want, got, _, currency in fee_rows:
        totals[currency][0] += want
        totals[currency][1] += got
    summary = [[kinds[name].title, f"{counts.get(name, 0):,}", f"{name}.csv / .json"] for name in kinds]
    story += _table(["What", "Rows", "Files"], summary, [width * 0.6, width * 0.1, width * 0.3])
    for currency, (want, got) in sorted(totals.items()):
        story.append(_p(f"Fees expected {_money(want, currency)}, collected {_money(got, currency)}, "
                        f"difference {_money(got - want, currency)}."))

    # Fees expected vs collected
    story += [PageBreak(), _p("Fees expected vs collected, per table and gaming day", H1)]
    days = defaultdict(lambda: [Decimal("0"), Decimal("0")])
    for day, _, _, want, got, _, _ in fee_rows:
        days[day][0] += want
        days[day][1] += got
    if days:
        story += [_chart(days), Spacer(1, 6)]
    story += _table([c for c, _ in kinds["fees_by_table_day"].columns], fee_rows, file="fees_by_table_day.csv")

    sections = [
        ("schedule_versions", "Collection schedules in force during the period", None),
        ("schedule_changes", "Schedule changes published in the period (old and new side by side)", None),
        ("history", "Edits in the change history", None),
        ("approvals", "Approvals", None),
        ("approval_conditions", "Approval conditions", None),
        ("postings", "Table postings over time", None),
        ("findings", "Validation findings and how they were handled", None),
        ("sign_prints", "Signs printed and reprinted", None),
    ]
    for name, title, _ in sections:
        kind = kinds[name]
        story += [PageBreak(), _p(title, H1)]
        data = []
        for row in kind.rows(scope):
            data.append(row)
            if len(data) > ROW_LIMIT:
                break
        story += _table(kind.column_names, data, total=counts.get(name), file=f"{name}.csv")
    story += [PageBreak(), _p("Ledger and audit log", H1),
              _p(f"{counts.get('ledger_entries', 0):,} collection entries, {counts.get('rounds', 0):,} rounds and "
                 f"{counts.get('audit_log', 0):,} audit-log entries are in ledger_entries, rounds and audit_log "
                 "(.csv and .json); they are too many to print.")]
    doc.build(story)
    return buffer.getvalue()
