"""The two layouts, each drawing a whole page: ``letter`` (portrait, one sign per page, limits in a band across
the top, the body in two columns, the footer and QR code at the foot) and ``tent`` (landscape, folded across the
middle: two faces of the whole sign, the upper one upside down, the body in four columns)."""

from __future__ import annotations

from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph

from .fitting import draw_column, fit_body
from .furniture import draw_footer, draw_qr, draw_watermark
from .sign import Sign, limits_shown
from .styles import INK, RULE, SHADE, block_height, draw_line, draw_paragraphs

LAYOUTS = ("letter", "tent")


def _heading(sign: Sign, title, sub):
    """The game's name, and its registration where the game has one on record."""
    heading = [Paragraph(escape(sign.game), title)]
    if sign.registration:
        heading.append(Paragraph(escape(f"Game registration {sign.registration}"), sub))
    return heading


def _draw_letter(canvas, sign: Sign, fitted) -> float:
    """Lay the sign out (filling ``fitted``, or using it) and draw it; with no canvas, only lay it out."""
    page_w, page_h = letter
    m = 0.5 * inch
    w = page_w - 2 * m
    top = page_h - m
    title = ParagraphStyle("title", fontName="Vera-Bold", fontSize=30, leading=34, textColor=INK)
    sub = ParagraphStyle("sub", fontName="Vera", fontSize=14, leading=18, textColor=INK)
    heading = _heading(sign, title, sub)
    box_h = 1.05 * inch
    box_top = top - 20 - block_height(heading, w) - 10
    body_top = box_top - box_h - 8
    footer_h = 1.75 * inch
    if not fitted:  # before anything is drawn, so a sign that does not fit leaves the page blank
        fitted.extend(fit_body(sign, 2, w, body_top - (m + footer_h), base=13, gutter=18))
    columns, col_width, scale = fitted
    if canvas is None:
        return scale
    canvas.setFillColor(INK)
    draw_line(canvas, m, top - 11, f"{sign.establishment} \u00b7 Table {sign.table}", "Vera", 11, max_width=w * 0.7)
    if sign.banner or sign.watermark:  # the watermark's words also in the header, where text tools read them
        draw_line(canvas, page_w - m, top - 11, sign.banner or sign.watermark, "Vera-Bold", 12, "right",
                  max_width=w * 0.3)
    draw_paragraphs(canvas, heading, m, top - 20, w)
    # The limits, as large as the page allows.
    y = box_top
    canvas.setFillColor(SHADE)
    canvas.rect(m, y - box_h, w, box_h, stroke=0, fill=1)
    canvas.setFillColor(INK)
    shown = limits_shown(sign, sign.limit_labels())
    for i, (label, amount) in enumerate(shown):
        cx = m + w * (0.5 if len(shown) == 1 else 0.25 + 0.5 * i)
        draw_line(canvas, cx, y - 22, label, "Vera-Bold", 13, "center")
        draw_line(canvas, cx, y - box_h + 16, amount, "Vera-Bold", 34, "center", max_width=w * 0.46)
    for i, column in enumerate(columns):
        draw_column(canvas, column, m + i * (col_width + 18), m + footer_h, col_width, body_top - (m + footer_h))
    draw_footer(canvas, sign, m, m, w, footer_h, qr_size=1.45 * inch, size=9)
    if sign.watermark:
        draw_watermark(canvas, sign.watermark, 0, 0, page_w, page_h)
    return scale


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
    heading = _heading(sign, title, sub)
    body_top = min(top - 12 - block_height(heading, title_w), by, top - qr) - 6
    foot = ParagraphStyle("tent_foot", fontName="Vera", fontSize=6, leading=7.4, textColor=INK)
    footer = Paragraph(escape(
        f"{sign.source_line()} Posted at this table from {sign.posted_from}. Seats: {sign.seats}. "
        f"Check this sign is current: scan the code or open {sign.verify_url}. {sign.stamp}"), foot)
    _, footer_h = footer.wrap(inner, 1000)
    body_bottom = y + m + footer_h + 4
    if not fitted:  # both faces are the same size: lay the body out once, before anything is drawn
        fitted.extend(fit_body(sign, 4, inner, body_top - body_bottom, base=8.5, gutter=12))
    columns, col_width, scale = fitted
    if canvas is None:
        return scale
    draw_qr(canvas, sign.verify_url, right - qr, top - qr, qr)
    canvas.setFillColor(SHADE)
    canvas.rect(bx, by, box_w, box_h, stroke=0, fill=1)
    canvas.setFillColor(INK)
    labels = ("MINIMUM", "MAXIMUM") if sign.house_banked is None else sign.limit_labels()
    shown = limits_shown(sign, labels)
    for i, (label, amount) in enumerate(shown):
        cx = bx + box_w * (0.5 if len(shown) == 1 else 0.25 + 0.5 * i)
        draw_line(canvas, cx, by + box_h - 15, label, "Vera-Bold", 10, "center")
        draw_line(canvas, cx, by + 14, amount, "Vera-Bold", 24, "center", max_width=box_w * 0.46)
    banner = sign.banner or sign.watermark
    line = f"{sign.establishment} \u00b7 Table {sign.table}" + (f"   {banner}" if banner else "")
    draw_line(canvas, left, top - 8, line, "Vera-Bold" if banner else "Vera", 8, max_width=title_w)
    draw_paragraphs(canvas, heading, left, top - 12, title_w)
    footer.drawOn(canvas, left, y + m)
    for i, column in enumerate(columns):
        draw_column(canvas, column, left + i * (col_width + 12), body_bottom, col_width, body_top - body_bottom)
    if sign.watermark:
        draw_watermark(canvas, sign.watermark, x, y, w, h)
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


def drawer(layout):
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}.")
    return _draw_letter if layout == "letter" else _draw_tent
