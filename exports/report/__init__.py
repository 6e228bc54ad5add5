"""The export's PDF report, for a person to read (docs/exports.md): a one-page summary, then a section per kind
with the columns a person needs, named for people. The CSV files hold every row and every column; the report says
where they are wherever it shows less.

Wide sections are on landscape pages. Times are in the room's zone (``settings.TIME_ZONE`` when the rooms exported
have several), each with its abbreviation, and the zone is named once (``cardroom.moments``). Money stays Decimal,
written as the pages write it ("$1,234.50", ``cardroom.money``); it becomes float only to draw the chart.

- ``pdf``: the small PDF toolkit (styles, paragraphs, tables sized to their words, page furniture);
- ``people``: values as a person reads them (moments, money, counts, cut texts);
- ``figures``: fees expected vs collected per day, week or month, and their chart;
- ``summary``: page 1; ``sections`` and ``changes``: the pages after it.
"""

import io
from functools import partial

from reportlab.platypus import BaseDocTemplate, PageBreak

from .. import collect
from . import sections, summary
from .changes import ROW_LIMIT, VERSION_ROW_LIMIT
from .figures import buckets
from .pdf import CELL, PAD, PORTRAIT, FooterCanvas, Story, templates, widths
from .people import CELL_LIMIT, ZONE, zone_of
from .summary import SUMMARY_LIMIT, title


class Data:
    """The rows of the export's smaller kinds as dicts by column name, read once."""

    def __init__(self, scope):
        self.scope = scope
        self.kinds = {kind.name: kind for kind in collect.KINDS}
        self._cache = {}

    def rows(self, name):
        """Every row (small kinds only: the report never lists the big ones)."""
        if name not in self._cache:
            self._cache[name] = list(self.iterate(name))
        return self._cache[name]

    def iterate(self, name):
        columns = self.kinds[name].column_names
        return (dict(zip(columns, row)) for row in self.scope.rows(self.kinds[name]))


def render(scope, counts, *, generated_at, requested_by=""):
    """The report as PDF bytes. ``counts``: rows per kind, as written to the CSV files."""
    token = ZONE.set(zone_of(scope))
    try:
        data = Data(scope)
        several = len(scope.establishments) > 1
        story = Story()
        summary.write(story, data, counts, generated_at, requested_by)
        story.append(PageBreak())
        sections.write(story, data, counts, several)
        buffer = io.BytesIO()
        doc = BaseDocTemplate(buffer, pagesize=PORTRAIT, pageTemplates=templates(), title=title(scope),
                              author="cardroom", creator="cardroom")
        doc.build(story, canvasmaker=partial(FooterCanvas, footer=title(scope)))
    finally:
        ZONE.reset(token)
    return buffer.getvalue()


__all__ = ["CELL", "CELL_LIMIT", "PAD", "ROW_LIMIT", "SUMMARY_LIMIT", "VERSION_ROW_LIMIT", "buckets", "render",
           "widths"]
