"""The report's small PDF toolkit (reportlab): styles, paragraphs, tables sized to their words, two-column
layouts and the page furniture (portrait and landscape pages, the footer with "Page N of M").

Words are not broken: each column is at least as wide as its longest word (up to ``LONG_WORD``: past that a token
such as a URL may break).
"""

import html
import re
from dataclasses import dataclass
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    CondPageBreak,
    Frame,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Table,
    TableStyle,
)

import signage.render  # noqa: F401  (registers the embedded Vera fonts)

from .people import CELL_LIMIT, CLIPPED, NBSP, Markup, clipped, text

MARGIN = 0.5 * inch
FOOTER = 0.3 * inch  # below the frame: the footer line
PORTRAIT, LANDSCAPE = letter, landscape(letter)
PAD = 3  # a cell's left and right padding
GAP = 0.3 * inch  # between columns of page 1
LONG_WORD = 1.6 * inch  # a column is at least as wide as its longest word, up to this
WIDE_COLUMN = 3.6 * inch  # and at most this wide before its text wraps

GREY, RULE, SHADE = colors.HexColor("#666666"), colors.HexColor("#bbbbbb"), colors.HexColor("#f3f3f3")

TITLE = ParagraphStyle("title", fontName="Vera-Bold", fontSize=16, leading=20, spaceAfter=2)
SUBTITLE = ParagraphStyle("subtitle", fontName="Vera", fontSize=9, leading=12, textColor=GREY, spaceAfter=6)
H1 = ParagraphStyle("h1", fontName="Vera-Bold", fontSize=12.5, leading=16, spaceBefore=10, spaceAfter=4)
H2 = ParagraphStyle("h2", fontName="Vera-Bold", fontSize=9.5, leading=12, spaceBefore=7, spaceAfter=2)
BODY = ParagraphStyle("body", fontName="Vera", fontSize=8.5, leading=11, spaceAfter=3)
LEAD = ParagraphStyle("lead", parent=BODY, spaceBefore=5)
NOTE = ParagraphStyle("note", parent=BODY, fontSize=7.5, leading=9.5, textColor=GREY)
CELL = ParagraphStyle("cell", fontName="Vera", fontSize=7, leading=8.6, uriWasteReduce=0.3)
HEAD = ParagraphStyle("head", parent=CELL, fontName="Vera-Bold")
CELL_R = ParagraphStyle("cell_r", parent=CELL, alignment=TA_RIGHT)
HEAD_R = ParagraphStyle("head_r", parent=HEAD, alignment=TA_RIGHT)


# -- paragraphs ------------------------------------------------------------------------------------------------


def para(value, style=BODY):
    """A paragraph of any value as text (escaped), or of Markup as it is."""
    return Paragraph(value if isinstance(value, Markup) else escape(text(value)), style)


def rich(markup, style=BODY):
    """A paragraph of markup whose values the caller escaped."""
    return para(Markup(markup), style)


# -- tables ----------------------------------------------------------------------------------------------------


@dataclass
class Col:
    heading: str
    value: object  # row dict -> text (str or Markup)
    right: bool = False  # numbers and money: right-aligned, on one line
    whole: bool = False  # kept on one line (a time)

    def text(self, row):
        shown = text(self.value(row))
        return shown.replace(" ", NBSP) if (self.right or self.whole) and not isinstance(shown, Markup) else shown


def _plain(value):
    return html.unescape(re.sub(r"<[^>]*>", "", value)) if isinstance(value, Markup) else value


def _measure(value, font):
    """(longest word, longest line) of ``value`` in points."""
    value = _plain(value)
    words = max((stringWidth(w, font, CELL.fontSize) for w in re.split(r"[ \t\n]+", value)), default=0)
    lines = max((stringWidth(line, font, CELL.fontSize) for line in value.splitlines()), default=0)
    return words, lines


def widths(headings, rows, width):
    """Column widths within ``width``: as wide as the content where it fits; otherwise each column keeps its longest
    word whole (up to LONG_WORD) and the space left goes to the columns with the longest texts. Only a table
    whose words alone are wider than the page (none of the report's) is scaled down."""
    lows, highs = [], []
    for index, heading in enumerate(headings):
        word, line = _measure(heading, HEAD.fontName)
        for row in rows:
            font = HEAD.fontName if isinstance(row[index], Markup) else CELL.fontName
            w, l_ = _measure(row[index], font)
            word, line = max(word, w), max(line, l_)
        low = min(word, LONG_WORD) + 2 * PAD + 1
        lows.append(low)
        highs.append(max(low, min(line, WIDE_COLUMN) + 2 * PAD + 1))
    if sum(highs) <= width:
        return highs
    if sum(lows) <= width:
        share = (width - sum(lows)) / (sum(highs) - sum(lows))
        return [low + (high - low) * share for low, high in zip(lows, highs)]
    return [low * width / sum(lows) for low in lows]


def table(columns, rows, width, *, total=None, file=None, empty="None in the period."):
    """A table for people: the given columns of ``rows`` (dicts), headings repeated on every page, and a note
    when it shows fewer rows than there are or cut a long text."""
    if not rows:
        return [para(empty, NOTE)]
    cells = [[column.text(row) for column in columns] for row in rows]
    cells = [[cell if isinstance(cell, Markup) else clipped(cell) for cell in row] for row in cells]
    cut = any(_plain(cell).endswith(CLIPPED) for row in cells for cell in row)
    headings = [column.heading for column in columns]
    data = [[para(h, HEAD_R if c.right else HEAD) for h, c in zip(headings, columns)]]
    data += [[para(cell, CELL_R if c.right else CELL) for cell, c in zip(row, columns)] for row in cells]
    drawn = Table(data, colWidths=widths(headings, cells, width), repeatRows=1, hAlign="LEFT")
    drawn.setStyle(TableStyle([
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e4e4e4")),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, SHADE]),
        ("LINEBELOW", (0, 0), (-1, 0), 0.5, GREY),
        ("LINEBELOW", (0, 1), (-1, -1), 0.25, RULE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD), ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]))
    out = [drawn]
    total = len(rows) if total is None else total
    if total > len(rows) and file:
        out.append(para(f"The first {len(rows):,} of {total:,} rows; every row is in {file}.", NOTE))
    if cut:
        out.append(para(f"Texts longer than {CELL_LIMIT} characters are cut here (marked [...]); they are whole in "
                        f"{file or 'the CSV files'}.", NOTE))
    return out


def side_by_side(columns, width):
    """Flowables in columns across the page."""
    drawn = Table([columns], colWidths=[(width - GAP) / len(columns) + GAP] * (len(columns) - 1)
                  + [(width - GAP) / len(columns)], hAlign="LEFT")
    drawn.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                               ("RIGHTPADDING", (0, 0), (-1, -1), 0), ("TOPPADDING", (0, 0), (-1, -1), 0),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 0)]))
    return drawn


def facts(pairs, width):
    """Label and value, one pair a line."""
    data = [[para(label, HEAD), para(value, BODY)] for label, value in pairs]
    drawn = Table(data, colWidths=[1.1 * inch, width - 1.1 * inch], hAlign="LEFT")
    drawn.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                               ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
    return drawn


# -- pages -----------------------------------------------------------------------------------------------------


class FooterCanvas(Canvas):
    """Draws each page's footer once the number of pages is known: the export's title and "Page N of M"."""

    def __init__(self, *args, footer="", **kwargs):
        super().__init__(*args, **kwargs)
        self._footer, self._states = footer, []

    def showPage(self):
        self._states.append(dict(self.__dict__))
        self._startPage()

    def save(self):
        for number, state in enumerate(self._states, 1):
            self.__dict__.update(state)
            width, _ = self._pagesize
            self.setStrokeColor(RULE)
            self.setLineWidth(0.5)
            self.line(MARGIN, MARGIN, width - MARGIN, MARGIN)
            self.setFont("Vera", 7)
            self.setFillColor(GREY)
            self.drawString(MARGIN, MARGIN - 9, self._footer)
            self.drawRightString(width - MARGIN, MARGIN - 9, f"Page {number} of {len(self._states)}")
            super().showPage()
        super().save()


def templates():
    """A portrait and a landscape page, each one frame within the margins above the footer."""
    def template(name, size):
        frame = Frame(MARGIN, MARGIN + FOOTER - 0.15 * inch, size[0] - 2 * MARGIN, size[1] - 2 * MARGIN - FOOTER,
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0, id=name)
        return PageTemplate(id=name, frames=[frame], pagesize=size)

    return [template("portrait", PORTRAIT), template("landscape", LANDSCAPE)]


class Story(list):
    """The flowables, with each section on the page orientation it needs."""

    def __init__(self):
        super().__init__()
        self.orientation = "portrait"

    @property
    def width(self):
        size = PORTRAIT if self.orientation == "portrait" else LANDSCAPE
        return size[0] - 2 * MARGIN

    def section(self, title, orientation="portrait", intro=None):
        if orientation != self.orientation:
            self.extend([NextPageTemplate(orientation), PageBreak()])
            self.orientation = orientation
        else:
            self.append(CondPageBreak(1.6 * inch))  # no heading alone at the foot of a page
        self.append(para(title, H1))
        if intro:
            self.append(para(intro))
