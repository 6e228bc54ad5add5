"""Fees expected vs collected: summed per currency and gaming day, grouped into days, weeks or months, and drawn as
a bar chart. Money stays Decimal; it becomes float only to draw the chart."""

import datetime
from collections import defaultdict
from decimal import Decimal

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth

from .pdf import GREY, RULE

EXPECTED, COLLECTED = colors.HexColor("#4a6fa5"), colors.HexColor("#e0a030")


def fee_days(data):
    """Expected and collected per currency and gaming day, as Decimals."""
    days = defaultdict(lambda: defaultdict(lambda: [Decimal("0.00"), Decimal("0.00")]))
    for row in data.rows("fees_by_table_day"):
        days[row["currency"]][row["gaming_day"]][0] += row["expected"]
        days[row["currency"]][row["gaming_day"]][1] += row["collected"]
    return days


def buckets(days, first=None, last=None):
    """``{day: (expected, collected)}`` summed per gaming day from ``first`` to ``last`` (a day without play is
    zero), or per week (from Monday) when that is more than a month, or per month past half a year:
    ``(unit, [(label, expected, collected)])`` in order."""
    if not days:
        return "day", []
    first, last = first or min(days), last or max(days)
    span = (last - first).days + 1
    if span <= 31:
        unit, key, label = "day", (lambda d: d), ("%d" if first.month == last.month else "%m-%d")
    elif span <= 183:
        unit, key, label = "week", (lambda d: d - datetime.timedelta(days=d.weekday())), "%m-%d"
    else:
        unit, key, label = "month", (lambda d: d.replace(day=1)), "%Y-%m"
    sums = {}
    for offset in range(span):
        sums.setdefault(key(first + datetime.timedelta(days=offset)), [Decimal("0.00"), Decimal("0.00")])
    for day, (want, got) in days.items():
        total = sums.setdefault(key(day), [Decimal("0.00"), Decimal("0.00")])
        total[0] += want
        total[1] += got
    return unit, [(k.strftime(label), *sums[k]) for k in sorted(sums)]


def chart(unit, bars, currency, width, height=1.75 * inch):
    drawing = Drawing(width, height)
    bar_chart = VerticalBarChart()
    # A few bars stay bar-sized rather than spread over the page.
    bar_chart.x, bar_chart.y = 42, 22
    bar_chart.width, bar_chart.height = min(width - 50, 150 + 30 * len(bars)), height - 40
    bar_chart.data = [[float(want) for _, want, _ in bars], [float(got) for _, _, got in bars]]  # drawing only
    bar_chart.categoryAxis.categoryNames = [label for label, _, _ in bars]
    many = len(bars) * stringWidth(max((b[0] for b in bars), key=len), "Vera", 6) * 1.3 > bar_chart.width
    bar_chart.categoryAxis.labels.fontName = "Vera"
    bar_chart.categoryAxis.labels.fontSize = 6
    bar_chart.categoryAxis.labels.angle = 90 if many else 0
    bar_chart.categoryAxis.labels.boxAnchor = "e" if many else "n"
    bar_chart.valueAxis.labels.fontName = "Vera"
    bar_chart.valueAxis.labels.fontSize = 6
    bar_chart.valueAxis.valueMin = 0
    bar_chart.valueAxis.gridStrokeColor, bar_chart.valueAxis.visibleGrid = RULE, True
    bar_chart.bars[0].fillColor, bar_chart.bars[1].fillColor = EXPECTED, COLLECTED
    bar_chart.bars.strokeWidth = 0
    bar_chart.groupSpacing = 2
    drawing.add(bar_chart)
    legend = Legend()
    legend.x, legend.y = bar_chart.x + bar_chart.width - 120, height - 5
    legend.fontName, legend.fontSize = "Vera", 7
    legend.columnMaximum, legend.dx, legend.dy, legend.deltax = 1, 7, 7, 60
    legend.colorNamePairs = [(EXPECTED, "expected"), (COLLECTED, "collected")]
    drawing.add(legend)
    drawing.add(String(0, height - 10, f"{currency} per {'gaming day' if unit == 'day' else unit}, all tables",
                       fontName="Vera", fontSize=7, fillColor=GREY))
    return drawing
