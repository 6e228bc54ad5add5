"""Table signs as PDF, drawn with reportlab. Plain Python: no Django here.

``signage.content`` turns a posting into a ``Sign`` (everything the sign says, already looked up); this
module only lays it out. Two layouts:

- ``letter``: US Letter portrait, one sign per page, for a stand or the wall by the table;
- ``tent``: US Letter landscape folded across the middle into a tabletop tent. Both halves carry the whole
  sign; the upper half is drawn upside down so that, folded, each face reads upright from its side.

Nothing is ever clipped: the body is laid out at full size and, if it does not fit, at smaller sizes down to
a floor; a sign that still does not fit raises ``SignOverflow`` instead of printing a cut-off sign. The
fonts (Bitstream Vera, shipped with reportlab) are embedded, so the sign prints the same everywhere.

The parts: ``sign`` (what a sign says, ``SignOverflow``), ``styles`` (fonts, colours, text measuring),
``sections`` (the body's sections), ``fitting`` (scales and columns), ``furniture`` (QR code, footer),
``layouts`` (the letter and tent pages); this module puts the pages into one PDF.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from reportlab.lib.pagesizes import landscape, letter
from reportlab.pdfgen.canvas import Canvas

from .fitting import SCALES
from .layouts import LAYOUTS, drawer
from .sign import (
    BonusLimit,
    FeeRow,
    FeeTable,
    HouseBanked,
    Payouts,
    Sign,
    SignOverflow,
    limits_text,
    money,
)
from .styles import INK, RULE, SHADE


@dataclass
class Rendered:
    pdf: bytes
    pages: int
    scales: list[float]  # the body scale each sign fitted at, in order
    skipped: list[tuple[int, SignOverflow]] = field(default_factory=list)  # (index, why) of signs left out


def fit(sign: Sign, layout: str) -> float:
    """The scale ``sign`` fits ``layout`` at, without drawing it; raises SignOverflow if it does not fit."""
    return drawer(layout)(None, sign, [])


def render(signs, layout: str = "letter", *, title: str = "Table signs", on_page=None, skip_overflow=False
           ) -> Rendered:
    """Lay out ``signs`` (any iterable, read one at a time) one per page; ``on_page(i)`` is called after the
    i-th sign is done (for progress). A sign that does not fit raises SignOverflow or, with ``skip_overflow``,
    is left out (nothing of it is drawn) and listed in ``skipped``."""
    draw = drawer(layout)
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
           "fit", "money", "render",
           # Also named from here by the pages and printing (and kept for callers of the one-module renderer).
           "INK", "RULE", "SCALES", "SHADE", "limits_text"]
