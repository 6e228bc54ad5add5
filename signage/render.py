"""Table signs as PDF, drawn with reportlab. Plain Python: no Django here.

``signage.content`` turns a posting into a ``Sign`` (everything the sign says, already looked up); this
module only lays it out. Two layouts:

- ``letter``: US Letter portrait, one sign per page, for a stand or the wall by the table;
- ``tent``: US Letter landscape folded across the middle into a tabletop tent. Both halves carry the whole
  sign; the upper half is drawn upside down so that, folded, each face reads upright from its side.

Nothing is ever clipped: the body is laid out at full size and, if it does not fit, at smaller sizes down to
a floor; a sign that still does not fit raises ``SignOverflow`` instead of printing a cut-off sign. The
fonts (Bitstream Vera, shipped with reportlab) are embedded, so the sign prints the same everywhere.
"""

from __future__ import annotations

import functools
import io
import os
from dataclasses import dataclass, field
from decimal import Decimal
from xml.sax.saxutils import escape

import reportlab
import segno
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Frame, Paragraph, Table, TableStyle

from cardroom.money import format_money

LAYOUTS = ("letter", "tent")
# Body text scales tried in turn until the sign fits; below the last one it would not be readable at the table.
SCALES = (1.0, 0.92, 0.84, 0.76, 0.68, 0.6)

_FONT_DIR = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
for _name, _file in (("Vera", "Vera.ttf"), ("Vera-Bold", "VeraBd.ttf"), ("Vera-Italic", "VeraIt.ttf"),
                     ("Vera-BoldItalic", "VeraBI.ttf")):
    pdfmetrics.registerFont(TTFont(_name, os.path.join(_FONT_DIR, _file)))
pdfmetrics.registerFontFamily("Vera", normal="Vera", bold="Vera-Bold", italic="Vera-Italic",
                              boldItalic="Vera-BoldItalic")

INK = colors.HexColor("#111111")
RULE = colors.HexColor("#888888")
SHADE = colors.HexColor("#e8e8e8")


class SignOverflow(ValueError):
    """The sign's content does not fit its layout even at the smallest readable size."""


# -- what a sign says -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FeeRow:
    bounds: str  # the amount or player count the row applies to, as the schedule prints it
    fee: Decimal
    printed_fee: str = ""


@dataclass(frozen=True)
class FeeTable:
    title: str  # e.g. "Player-dealer fee by total table action"
    payer: str  # e.g. "Paid by the player-dealer"
    measured_on: str  # column heading for the bounds, e.g. "Total table action"
    rows: tuple[FeeRow, ...]
    note: str = ""  # e.g. "No flop, no drop: ..."


@dataclass(frozen=True)
class BonusLimit:
    bet: str
    minimum: Decimal | None
    maximum: Decimal | None
    paytable: str = ""  # house-banked posting: the paytable the bet pays by, e.g. "WSGC 1"


@dataclass(frozen=True)
class HouseBanked:
    """What the sign of a house-banked game without a collection schedule says instead of the schedule's fees."""

    main_bet: str  # the main wager's name, e.g. "Ante": the posting's minimum and maximum are its limits
    approval: str  # e.g. "WSGC letter of 2014-02-18 (...) re: One For The Money"
    rules: str  # the rules version's title
    rules_version: str  # its version, e.g. "3 Card Bonus (WSGC enclosure 2014)"
    decks: int | None
    aggregate_payout_limit: Decimal | None = None


@dataclass(frozen=True)
class Payouts:
    bet: str
    paytable: str
    lines: tuple[tuple[str, str], ...]  # (hand, payout as printed)


@dataclass(frozen=True)
class Sign:
    establishment: str
    table: str
    game: str
    registration: str
    currency: str
    min_wager: Decimal | None
    max_wager: Decimal | None
    seats: int
    schedule_code: str  # "" on a house-banked posting's sign (see house_banked)
    schedule_version: int
    schedule_in_force: str  # "from 2026-03-01" or "no effective date stated"
    option_number: int
    option_label: str
    posted_from: str  # the posting's effective moment, local time, as text
    verify_url: str
    fee_tables: tuple[FeeTable, ...] = ()
    bonus_limits: tuple[BonusLimit, ...] = ()
    payouts: tuple[Payouts, ...] = ()
    notices: tuple[str, ...] = ()
    notes: str = ""
    no_fees_note: str = ""  # said instead of fee tables when the option prints no fee
    stamp: str = ""  # print record: when, which print of this posting
    banner: str = ""  # "REPRINT" or "PREVIEW - NOT FOR POSTING"
    house_banked: HouseBanked | None = None  # a house-banked posting: no schedule, its rules and approval instead
    extra: dict = field(default_factory=dict, compare=False)

    def label(self) -> str:
        """What the sign is, for messages: the schedule option, or the house-banked game's rules and decks."""
        if self.house_banked is not None:
            return f"{self.house_banked.rules}, {self.house_banked.decks} decks"
        return f"{self.schedule_code} option {self.option_number}"

    def source_line(self) -> str:
        """The footer's first sentence: where the fees (or, house-banked, the rules) come from."""
        h = self.house_banked
        if h is not None:
            decks = f", {h.decks} decks" if h.decks else ""
            return f"House-banked game, no collection fee schedule: rules version {h.rules_version}{decks}."
        return (f"Collection schedule {self.schedule_code}, version {self.schedule_version} "
                f"({self.schedule_in_force}), option {self.option_number}.")

    def limit_labels(self) -> tuple[str, str]:
        if self.house_banked is not None:
            name = self.house_banked.main_bet.upper()
            return f"MINIMUM {name}", f"MAXIMUM {name}"
        return "MINIMUM WAGER", "MAXIMUM WAGER"


def money(amount: Decimal | None, currency: str) -> str:
    """An amount as the pages write it ("$1,234.50"); a limit the posting leaves out is "not stated"."""
    return format_money(amount, currency, missing="not stated")


def limits_text(sign: Sign) -> tuple[str, str]:
    return money(sign.min_wager, sign.currency), money(sign.max_wager, sign.currency)


# -- styles ------------------------------------------------------------------------------------------------------


class _Styles:
    """Paragraph styles at one scale; sizes are in points at full size."""

    def __init__(self, scale: float, base: float):
        def style(name, size, font="Vera", leading=1.2, **kw):
            size = size * scale
            return ParagraphStyle(name, fontName=font, bulletFontName=font, fontSize=size, leading=size * leading,
                                  textColor=INK, **kw)

        self.scale = scale
        self.body_size = base * scale
        self.heading = style("heading", base * 1.25, "Vera-Bold", spaceBefore=base * 0.6 * scale,
                             spaceAfter=base * 0.25 * scale)
        self.fee_title = style("fee_title", base * 1.05, "Vera-Bold", spaceBefore=base * 0.45 * scale,
                               spaceAfter=base * 0.15 * scale)
        self.cell = style("cell", base)
        self.cell_right = style("cell_right", base, alignment=TA_RIGHT)
        self.cell_head = style("cell_head", base * 0.85, "Vera-Bold")
        self.cell_head_right = style("cell_head_right", base * 0.85, "Vera-Bold", alignment=TA_RIGHT)
        self.note = style("note", base * 0.85, "Vera-Italic", spaceBefore=base * 0.15 * scale)
        self.small = style("small", base * 0.8)
        self.payout = style("payout", base * 0.75)
        self.payout_right = style("payout_right", base * 0.75, alignment=TA_RIGHT)
        self.notice = style("notice", base * 0.85, leftIndent=base * 0.9 * scale, bulletIndent=0,
                            spaceBefore=base * 0.15 * scale)


def _p(text, style):
    return Paragraph(escape(text), style)


def _grid(rows, widths, styles: _Styles, head=True):
    table = Table(rows, colWidths=widths, hAlign="LEFT")
    pad = 2.5 * styles.scale
    commands = [
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("FONTNAME", (0, 0), (-1, -1), "Vera"),  # the default Helvetica would be referenced, not embedded
        ("LINEBELOW", (0, 0), (-1, -1), 0.4, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), pad),
        ("BOTTOMPADDING", (0, 0), (-1, -1), pad),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    if head:
        commands.append(("BACKGROUND", (0, 0), (-1, 0), SHADE))
    table.setStyle(TableStyle(commands))
    return table


def _fee_section(fee_table: FeeTable, sign: Sign, width, styles: _Styles):
    parts = [_p(f"{fee_table.title}. {fee_table.payer}.", styles.fee_title)]
    rows = [[_p(fee_table.measured_on, styles.cell_head), _p("Fee", styles.cell_head_right)]]
    rows += [[_p(row.bounds, styles.cell), _p(money(row.fee, sign.currency), styles.cell_right)]
             for row in fee_table.rows]
    parts.append(_grid(rows, [width * 0.68, width * 0.32], styles))
    if fee_table.note:
        parts.append(_p(fee_table.note, styles.note))
    return parts


def _bonus_section(sign: Sign, width, styles: _Styles):
    rows = [[_p("Bonus bet", styles.cell_head), _p("Minimum", styles.cell_head_right),
             _p("Maximum", styles.cell_head_right)]]
    rows += [[_p(b.bet, styles.cell), _p(money(b.minimum, sign.currency), styles.cell_right),
              _p(money(b.maximum, sign.currency), styles.cell_right)] for b in sign.bonus_limits]
    return [_p("Bonus bet limits", styles.heading), _grid(rows, [width * 0.5, width * 0.25, width * 0.25], styles)]


def _house_banked_sections(sign: Sign, width, styles: _Styles):
    """A house-banked posting: the approval and rules, the limits of every bet with the paytable it pays by, and
    the aggregate payout limit where one is set."""
    h = sign.house_banked
    about = [_p("Approval and rules", styles.heading), _p(f"Approved: {h.approval}.", styles.cell),
             _p(f"Rules of play: {h.rules}" + (f". Dealt from {h.decks} decks." if h.decks else "."), styles.note)]
    rows = [[_p("Bet", styles.cell_head), _p("Minimum", styles.cell_head_right), _p("Maximum", styles.cell_head_right)],
            [_p(h.main_bet, styles.cell), _p(money(sign.min_wager, sign.currency), styles.cell_right),
             _p(money(sign.max_wager, sign.currency), styles.cell_right)]]
    rows += [[[_p(b.bet, styles.cell), _p(f"paytable {b.paytable}", styles.small)] if b.paytable
              else _p(b.bet, styles.cell),
              _p(money(b.minimum, sign.currency), styles.cell_right),
              _p(money(b.maximum, sign.currency), styles.cell_right)] for b in sign.bonus_limits]
    limits = [_p("Wager limits", styles.heading), _grid(rows, [width * 0.44, width * 0.28, width * 0.28], styles)]
    sections = [about, limits]
    if h.aggregate_payout_limit is not None:
        sections.append([
            _p("Aggregate payout limit", styles.fee_title),
            _p(f"{money(h.aggregate_payout_limit, sign.currency)}: the most paid in total on odds-based prizes in "
               "one round, to all players together (WAC 230-15-490; WAC 230-15-060).", styles.cell),
        ])
    return sections


def _payout_sections(sign: Sign, width, styles: _Styles):
    sections = []
    for payouts in sign.payouts:
        numbered = payouts.paytable not in ("", "unnumbered")
        title = f"{payouts.bet} (paytable {payouts.paytable})" if numbered else payouts.bet
        rows = [[_p(hand, styles.payout), _p(paid, styles.payout_right)] for hand, paid in payouts.lines]
        grid = _grid(rows, [width * 0.66, width * 0.34], styles, head=False)
        sections.append([_p(f"Payouts: {title}", styles.fee_title), grid])
    return sections


def _notice_section(sign: Sign, styles: _Styles):
    items = [_p("Notices", styles.heading)]
    items += [Paragraph(escape(text), styles.notice, bulletText="\u2022") for text in sign.notices]
    if sign.notes:
        items.append(Paragraph(escape(sign.notes), styles.notice, bulletText="\u2022"))
    return items


def _fees(sign: Sign, width, styles: _Styles):
    """The fee sections: the heading travels with the first fee table; a column may break between tables."""
    head = [_p("Collection fees", styles.heading)]
    if sign.option_label:
        head.append(_p(f"Schedule {sign.schedule_code}, option {sign.option_number}: {sign.option_label}",
                       styles.small))
    if not sign.fee_tables:
        return [head + [_p(sign.no_fees_note or "The schedule prints no fee for this option.", styles.cell)]]
    sections = [_fee_section(t, sign, width, styles) for t in sign.fee_tables]
    sections[0] = head + sections[0]
    return sections


def _height(flowables, width):
    total = 0.0
    for f in flowables:
        total += f.wrap(width, 10_000)[1] + f.getSpaceBefore() + f.getSpaceAfter()
    return total


def _draw_column(canvas, flowables, x, y, width, height):
    frame = Frame(x, y, width, height, leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0,
                  showBoundary=0)
    rest = list(flowables)
    frame.addFromList(rest, canvas)
    if rest:  # measured to fit, so this means a measuring bug: refuse rather than print a cut sign
        raise SignOverflow("The sign's content did not fit its frame.")


@functools.lru_cache(maxsize=512)
def _qr_matrix(url):
    """The QR code's modules; choosing the mask is the slow part, and a tent draws the same code twice."""
    return tuple(tuple(bool(m) for m in row) for row in segno.make(url, error="m").matrix)


def _qr(canvas, url, x, y, size):
    matrix = _qr_matrix(url)
    modules = len(matrix) + 8  # four modules of quiet zone each side
    unit = size / modules
    canvas.setFillColor(colors.white)
    canvas.rect(x, y, size, size, stroke=0, fill=1)
    canvas.setFillColor(colors.black)
    path = canvas.beginPath()
    for r, row in enumerate(matrix):
        top = y + size - (r + 4 + 1) * unit
        c = 0
        while c < len(row):
            if row[c]:
                start = c
                while c < len(row) and row[c]:
                    c += 1
                path.rect(x + (start + 4) * unit, top, (c - start) * unit + 0.01, unit + 0.01)
            else:
                c += 1
    canvas.drawPath(path, stroke=0, fill=1)


def _text(canvas, x, y, text, font, size, align="left", max_width=None):
    """One line of text; shrinks it to ``max_width`` rather than letting it run off the page."""
    if max_width:
        width = pdfmetrics.stringWidth(text, font, size)
        if width > max_width:
            size = size * max_width / width
    canvas.setFont(font, size)
    if align == "center":
        canvas.drawCentredString(x, y, text)
    elif align == "right":
        canvas.drawRightString(x, y, text)
    else:
        canvas.drawString(x, y, text)
    return size


def _paragraph_block(canvas, paragraphs, x, top, width):
    """Draw paragraphs downwards from ``top``; return the y below them."""
    y = top
    for para in paragraphs:
        _, h = para.wrap(width, 10_000)
        y -= h
        para.drawOn(canvas, x, y)
    return y


# -- layouts -------------------------------------------------------------------------------------------------------


def _pack(sections, n_cols, col_width):
    """Split sections (lists of flowables kept together) into at most ``n_cols`` columns in order, the tallest
    column as short as it can be. Returns (columns, height of the tallest)."""
    heights = [_height(s, col_width) for s in sections]
    low, high = max(heights, default=0.0), sum(heights)

    def split(limit):
        cols, current, used = [], [], 0.0
        for section, h in zip(sections, heights):
            if current and used + h > limit:
                cols.append(current)
                current, used = [], 0.0
            current.append(section)
            used += h
        cols.append(current)
        return cols

    # The smallest column height that packs into n_cols columns, to the nearest point.
    while high - low > 1:
        mid = (low + high) / 2
        if len(split(mid)) <= n_cols:
            high = mid
        else:
            low = mid
    cols = split(high)
    flat = [[f for section in col for f in section] for col in cols]
    return flat + [[] for _ in range(n_cols - len(cols))], max(
        (sum(_height(section, col_width) for section in col) for col in cols), default=0.0)


def _body_sections(sign, col_width, styles):
    if sign.house_banked is not None:
        sections = _house_banked_sections(sign, col_width, styles)
        sections += _payout_sections(sign, col_width, styles)
        sections.append(_notice_section(sign, styles))
        return sections
    sections = []
    if sign.bonus_limits:
        sections.append(_bonus_section(sign, col_width, styles))
    sections += _fees(sign, col_width, styles)
    sections += _payout_sections(sign, col_width, styles)
    sections.append(_notice_section(sign, styles))
    return sections


def _fit_body(sign, n_cols, width, height, base, gutter):
    col_width = (width - gutter * (n_cols - 1)) / n_cols
    full = None  # the tallest column at full size
    for scale in SCALES:
        if full is not None and scale * full > height * 1.1:
            continue  # text shrinks about in proportion, so this size cannot fit either: do not lay it out
        columns, tallest = _pack(_body_sections(sign, col_width, _Styles(scale, base)), n_cols, col_width)
        if tallest <= height:
            return columns, col_width, scale
        full = full or tallest
    raise SignOverflow(
        f"The sign for {sign.game} ({sign.label()}) does not fit the layout "
        f"even at {SCALES[-1]:.0%} size."
    )


def _block_height(paragraphs, width):
    return sum(para.wrap(width, 10_000)[1] for para in paragraphs)


def _draw_letter(canvas, sign: Sign, fitted) -> float:
    """Lay the sign out (filling ``fitted``, or using it) and draw it; with no canvas, only lay it out."""
    page_w, page_h = letter
    m = 0.5 * inch
    w = page_w - 2 * m
    top = page_h - m
    title = ParagraphStyle("title", fontName="Vera-Bold", fontSize=30, leading=34, textColor=INK)
    sub = ParagraphStyle("sub", fontName="Vera", fontSize=14, leading=18, textColor=INK)
    heading = [Paragraph(escape(sign.game), title), Paragraph(escape(f"Game registration {sign.registration}"), sub)]
    box_h = 1.05 * inch
    box_top = top - 20 - _block_height(heading, w) - 10
    body_top = box_top - box_h - 8
    footer_h = 1.75 * inch
    if not fitted:  # before anything is drawn, so a sign that does not fit leaves the page blank
        fitted.extend(_fit_body(sign, 2, w, body_top - (m + footer_h), base=13, gutter=18))
    columns, col_width, scale = fitted
    if canvas is None:
        return scale
    canvas.setFillColor(INK)
    _text(canvas, m, top - 11, f"{sign.establishment} \u00b7 Table {sign.table}", "Vera", 11, max_width=w * 0.7)
    if sign.banner:
        _text(canvas, page_w - m, top - 11, sign.banner, "Vera-Bold", 12, "right", max_width=w * 0.3)
    _paragraph_block(canvas, heading, m, top - 20, w)
    # The limits, as large as the page allows.
    low, high = limits_text(sign)
    y = box_top
    canvas.setFillColor(SHADE)
    canvas.rect(m, y - box_h, w, box_h, stroke=0, fill=1)
    canvas.setFillColor(INK)
    for i, (label, amount) in enumerate(zip(sign.limit_labels(), (low, high))):
        cx = m + w * (0.25 + 0.5 * i)
        _text(canvas, cx, y - 22, label, "Vera-Bold", 13, "center")
        _text(canvas, cx, y - box_h + 16, amount, "Vera-Bold", 34, "center", max_width=w * 0.46)
    for i, column in enumerate(columns):
        _draw_column(canvas, column, m + i * (col_width + 18), m + footer_h, col_width, body_top - (m + footer_h))
    _footer(canvas, sign, m, m, w, footer_h, qr_size=1.45 * inch, size=9)
    return scale


def _footer(canvas, sign, x, y, width, height, qr_size, size):
    canvas.setStrokeColor(RULE)
    canvas.setLineWidth(0.6)
    canvas.line(x, y + height - 4, x + width, y + height - 4)
    _qr(canvas, sign.verify_url, x + width - qr_size, y, qr_size)
    style = ParagraphStyle("footer", fontName="Vera", fontSize=size, leading=size * 1.3, textColor=INK)
    bold = ParagraphStyle("footer_bold", parent=style, fontName="Vera-Bold")
    lines = [
        Paragraph(escape(sign.source_line()), bold),
        Paragraph(escape(f"Posted at this table from {sign.posted_from}. Seats: {sign.seats}."), style),
        Paragraph(escape(f"Check this sign is current: scan the code or open {sign.verify_url}"), style),
    ]
    if sign.stamp:
        lines.append(Paragraph(escape(sign.stamp), style))
    _paragraph_block(canvas, lines, x, y + height - 10, width - qr_size - 12)


def _draw_tent_face(canvas, sign: Sign, x, y, w, h, fitted) -> float:
    """One face: title, limits and QR code across the top, the body in four columns, the codes along the foot.
    Lays the body out first (filling ``fitted``, or using it); with no canvas, only lays it out."""
    m = 0.28 * inch
    left, right, top = x + m, x + w - m, y + h - m
    inner = right - left
    qr = 0.95 * inch
    box_w, box_h = inner * 0.34, 0.8 * inch
    bx, by = right - qr - 10 - box_w, top - box_h
    title_w = bx - left - 10
    title = ParagraphStyle("tent_title", fontName="Vera-Bold", fontSize=20, leading=22, textColor=INK)
    sub = ParagraphStyle("tent_sub", fontName="Vera", fontSize=9, leading=11, textColor=INK)
    heading = [Paragraph(escape(sign.game), title), Paragraph(escape(f"Game registration {sign.registration}"), sub)]
    body_top = min(top - 12 - _block_height(heading, title_w), by, top - qr) - 6
    foot = ParagraphStyle("tent_foot", fontName="Vera", fontSize=6, leading=7.4, textColor=INK)
    footer = Paragraph(escape(
        f"{sign.source_line()} Posted at this table from {sign.posted_from}. Seats: {sign.seats}. "
        f"Check this sign is current: scan the code or open {sign.verify_url}. {sign.stamp}"), foot)
    _, footer_h = footer.wrap(inner, 1000)
    body_bottom = y + m + footer_h + 4
    if not fitted:  # both faces are the same size: lay the body out once, before anything is drawn
        fitted.extend(_fit_body(sign, 4, inner, body_top - body_bottom, base=8.5, gutter=12))
    columns, col_width, scale = fitted
    if canvas is None:
        return scale
    _qr(canvas, sign.verify_url, right - qr, top - qr, qr)
    canvas.setFillColor(SHADE)
    canvas.rect(bx, by, box_w, box_h, stroke=0, fill=1)
    canvas.setFillColor(INK)
    low, high = limits_text(sign)
    labels = ("MINIMUM", "MAXIMUM") if sign.house_banked is None else sign.limit_labels()
    for i, (label, amount) in enumerate(zip(labels, (low, high))):
        cx = bx + box_w * (0.25 + 0.5 * i)
        _text(canvas, cx, by + box_h - 15, label, "Vera-Bold", 10, "center")
        _text(canvas, cx, by + 14, amount, "Vera-Bold", 24, "center", max_width=box_w * 0.46)
    line = f"{sign.establishment} \u00b7 Table {sign.table}" + (f"   {sign.banner}" if sign.banner else "")
    _text(canvas, left, top - 8, line, "Vera-Bold" if sign.banner else "Vera", 8, max_width=title_w)
    _paragraph_block(canvas, heading, left, top - 12, title_w)
    footer.drawOn(canvas, left, y + m)
    for i, column in enumerate(columns):
        _draw_column(canvas, column, left + i * (col_width + 12), body_bottom, col_width, body_top - body_bottom)
    return scale


def _draw_tent(canvas, sign: Sign, fitted) -> float:
    page_w, page_h = landscape(letter)
    half = page_h / 2
    scale = _draw_tent_face(canvas, sign, 0, 0, page_w, half, fitted)
    if canvas is None:
        return scale
    canvas.saveState()
    canvas.translate(page_w, page_h)
    canvas.rotate(180)  # the far face, upside down on the flat sheet, upright once folded
    _draw_tent_face(canvas, sign, 0, 0, page_w, half, fitted)
    canvas.restoreState()
    canvas.setDash(4, 4)
    canvas.setStrokeColor(RULE)
    canvas.line(0, half, page_w, half)
    canvas.setFont("Vera", 6)
    canvas.drawCentredString(page_w / 2, half + 2, "fold here")
    return scale


@dataclass
class Rendered:
    pdf: bytes
    pages: int
    scales: list[float]  # the body scale each sign fitted at, in order
    skipped: list[tuple[int, SignOverflow]] = field(default_factory=list)  # (index, why) of signs left out


def _draw(layout):
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}.")
    return _draw_letter if layout == "letter" else _draw_tent


def fit(sign: Sign, layout: str) -> float:
    """The scale ``sign`` fits ``layout`` at, without drawing it; raises SignOverflow if it does not fit."""
    return _draw(layout)(None, sign, [])


def render(signs, layout: str = "letter", *, title: str = "Table signs", on_page=None, skip_overflow=False
           ) -> Rendered:
    """Lay out ``signs`` (any iterable, read one at a time) one per page; ``on_page(i)`` is called after the
    i-th sign is done (for progress). A sign that does not fit raises SignOverflow or, with ``skip_overflow``,
    is left out (nothing of it is drawn) and listed in ``skipped``."""
    draw = _draw(layout)
    buffer = io.BytesIO()
    size = letter if layout == "letter" else landscape(letter)
    canvas = Canvas(buffer, pagesize=size, pageCompression=1, initialFontName="Vera")
    canvas.setTitle(title)
    canvas.setAuthor("cardroom")
    canvas.setCreator("cardroom")
    scales, skipped = [], []
    for i, sign in enumerate(signs):
        fitted = []
        try:
            draw(None, sign, fitted)  # lays the body out before anything of this sign is drawn
        except SignOverflow as error:
            if not skip_overflow:
                raise
            skipped.append((i, error))
        else:
            scales.append(draw(canvas, sign, fitted))
            canvas.showPage()
        if on_page is not None:
            on_page(i + 1)
    canvas.save()
    return Rendered(pdf=buffer.getvalue(), pages=len(scales), scales=scales, skipped=skipped)


__all__ = ["BonusLimit", "FeeRow", "FeeTable", "HouseBanked", "LAYOUTS", "Payouts", "Rendered", "Sign", "SignOverflow",
           "fit", "money", "render"]
