"""Fonts, colours and text: the embedded Bitstream Vera fonts (registered on import), the paragraph styles at a
scale, and the helpers that measure text, draw a line shrunk to its width and draw paragraphs downwards."""

from __future__ import annotations

import os

import reportlab
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

_FONT_DIR = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
for _name, _file in (("Vera", "Vera.ttf"), ("Vera-Bold", "VeraBd.ttf"), ("Vera-Italic", "VeraIt.ttf"),
                     ("Vera-BoldItalic", "VeraBI.ttf")):
    pdfmetrics.registerFont(TTFont(_name, os.path.join(_FONT_DIR, _file)))
pdfmetrics.registerFontFamily("Vera", normal="Vera", bold="Vera-Bold", italic="Vera-Italic",
                              boldItalic="Vera-BoldItalic")

INK = colors.HexColor("#111111")
RULE = colors.HexColor("#888888")
SHADE = colors.HexColor("#e8e8e8")


class Styles:
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


def flowables_height(flowables, width):
    total = 0.0
    for f in flowables:
        total += f.wrap(width, 10_000)[1] + f.getSpaceBefore() + f.getSpaceAfter()
    return total


def block_height(paragraphs, width):
    return sum(para.wrap(width, 10_000)[1] for para in paragraphs)


def draw_line(canvas, x, y, text, font, size, align="left", max_width=None):
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


def draw_paragraphs(canvas, paragraphs, x, top, width):
    """Draw paragraphs downwards from ``top``; return the y below them."""
    y = top
    for para in paragraphs:
        _, h = para.wrap(width, 10_000)
        y -= h
        para.drawOn(canvas, x, y)
    return y
