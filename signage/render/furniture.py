"""Page furniture around the body: the QR code the verification page opens, and the footer that says where the
sign's fees come from, when it was posted and how to check it is current."""

from __future__ import annotations

import functools
import math
import os
from xml.sax.saxutils import escape

import reportlab
import segno
from PIL import Image, ImageDraw, ImageFont
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.utils import ImageReader
from reportlab.platypus import Paragraph

from .styles import INK, RULE, draw_paragraphs


@functools.lru_cache(maxsize=512)
def _qr_matrix(url):
    """The QR code's modules; choosing the mask is the slow part, and a tent draws the same code twice."""
    return tuple(tuple(bool(m) for m in row) for row in segno.make(url, error="m").matrix)


def draw_qr(canvas, url, x, y, size):
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


def draw_footer(canvas, sign, x, y, width, height, qr_size, size):
    canvas.setStrokeColor(RULE)
    canvas.setLineWidth(0.6)
    canvas.line(x, y + height - 4, x + width, y + height - 4)
    draw_qr(canvas, sign.verify_url, x + width - qr_size, y, qr_size)
    style = ParagraphStyle("footer", fontName="Vera", fontSize=size, leading=size * 1.3, textColor=INK)
    bold = ParagraphStyle("footer_bold", parent=style, fontName="Vera-Bold")
    lines = [
        Paragraph(escape(sign.source_line()), bold),
        Paragraph(escape(f"Posted at this table from {sign.posted_from}. Seats: {sign.seats}."), style),
        Paragraph(escape(f"Check this sign is current: scan the code or open {sign.verify_url}"), style),
    ]
    if sign.stamp:
        lines.append(Paragraph(escape(sign.stamp), style))
    draw_paragraphs(canvas, lines, x, y + height - 10, width - qr_size - 12)



@functools.lru_cache(maxsize=8)
def _watermark_image(text, width, height):
    """``text`` along the diagonal of a ``width`` x ``height`` point area, light grey on transparent, as an image
    at 100 dpi: an image, not text, so that the page's text (copied, read aloud, searched) is the sign's alone."""
    scale = 100 / 72
    w, h = round(width * scale), round(height * scale)
    font_file = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "VeraBd.ttf")
    size = 100
    font = ImageFont.truetype(font_file, size)
    size = int(size * 0.8 * math.hypot(w, h) / font.getlength(text))  # 80% of the diagonal
    font = ImageFont.truetype(font_file, size)
    left, top, right, bottom = font.getbbox(text)
    strip = Image.new("RGBA", (right - left, bottom - top), (0, 0, 0, 0))
    ImageDraw.Draw(strip).text((-left, -top), text, font=font, fill=(120, 120, 120, 70))
    strip = strip.rotate(math.degrees(math.atan2(h, w)), expand=True, resample=Image.Resampling.BICUBIC)
    page = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    page.alpha_composite(strip, ((w - strip.width) // 2, (h - strip.height) // 2))
    return ImageReader(page)


def draw_watermark(canvas, text, x, y, width, height):
    """``text`` large and light along the diagonal of the area, over everything drawn, so that no part of the
    page (a preview's) can be cut out and posted as a sign; the sign under it stays readable."""
    canvas.drawImage(_watermark_image(text, width, height), x, y, width, height, mask="auto")
