"""Fitting the body into columns: the body at full size and then smaller (``SCALES``) until it fits, the sections
packed into as few, as short columns as they go, and drawn into their frames. Too big even at the floor raises
``SignOverflow``: a sign is never clipped."""

from __future__ import annotations

from reportlab.platypus import Frame

from .sections import body_sections
from .sign import SignOverflow
from .styles import Styles, flowables_height

# Body text scales tried in turn until the sign fits; below the last one it would not be readable at the table.
SCALES = (1.0, 0.92, 0.84, 0.76, 0.68, 0.6)


def _pack(sections, n_cols, col_width):
    """Split sections (lists of flowables kept together) into at most ``n_cols`` columns in order, the tallest
    column as short as it can be. Returns (columns, height of the tallest)."""
    heights = [flowables_height(s, col_width) for s in sections]
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
        (sum(flowables_height(section, col_width) for section in col) for col in cols), default=0.0)


def fit_body(sign, n_cols, width, height, base, gutter):
    col_width = (width - gutter * (n_cols - 1)) / n_cols
    full = None  # the tallest column at full size
    for scale in SCALES:
        if full is not None and scale * full > height * 1.1:
            continue  # text shrinks about in proportion, so this size cannot fit either: do not lay it out
        columns, tallest = _pack(body_sections(sign, col_width, Styles(scale, base)), n_cols, col_width)
        if tallest <= height:
            return columns, col_width, scale
        full = full or tallest
    raise SignOverflow(
        f"The sign for {sign.game} ({sign.label()}) does not fit the layout "
        f"even at {SCALES[-1]:.0%} size."
    )


def draw_column(canvas, flowables, x, y, width, height):
    frame = Frame(x, y, width, height, leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0,
                  showBoundary=0)
    rest = list(flowables)
    frame.addFromList(rest, canvas)
    if rest:  # measured to fit, so this means a measuring bug: refuse rather than print a cut sign
        raise SignOverflow("The sign's content did not fit its frame.")
