"""The export's PDF report, for a person to read (docs/exports.md): a one-page summary, then a section per kind
with the columns a person needs, named for people. The CSV and JSON files hold every row and every column; the
report says where they are wherever it shows less.

Wide sections are on landscape pages. Times are in the room's zone (``settings.TIME_ZONE`` when the rooms exported
have several), each with its abbreviation, and the zone is named once. Money stays Decimal, written as the pages
write it ("$1,234.50", console's ``money``); it becomes float only to draw the chart. Words are not broken: each
column is at least as wide as its longest word (up to ``LONG_WORD``: past that a token such as a URL may break).
"""

import contextvars
import datetime
import html
import io
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from xml.sax.saxutils import escape
from zoneinfo import ZoneInfo

from django.conf import settings
from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
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
from cardroom.ordering import natural
from console.templatetags.console import money
from fees import diff
from fees.models import ScheduleVersion

from . import collect

ROW_LIMIT = 200  # rows of one section; a first version of GEGA-002888 alone is ~5,000 changed values
VERSION_ROW_LIMIT = 60  # changed values shown for one schedule version
CELL_LIMIT = 300  # characters of one cell: a table row must fit on one page (reportlab cannot split a row)
SUMMARY_LIMIT = 14  # schedules (and establishments, chains) listed on page 1; the rest are in the sections

MARGIN = 0.5 * inch
FOOTER = 0.3 * inch  # below the frame: the footer line
PORTRAIT, LANDSCAPE = letter, landscape(letter)
PAD = 3  # a cell's left and right padding
GAP = 0.3 * inch  # between columns of page 1
LONG_WORD = 1.6 * inch  # a column is at least as wide as its longest word, up to this
WIDE_COLUMN = 3.6 * inch  # and at most this wide before its text wraps

EXPECTED, COLLECTED = colors.HexColor("#4a6fa5"), colors.HexColor("#e0a030")
OLD_TEXT, NEW_TEXT = "#b03030", "#1d7a35"  # old values struck in red, new ones in green
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
SEVERITIES = ("error", "warning", "info")
NBSP = "\xa0"  # a space reportlab does not break a line at
CLIPPED = " [...]"  # ends a cell cut to CELL_LIMIT characters


# -- values as a person reads them -----------------------------------------------------------------------------


class Markup(str):
    """Cell text that is already Paragraph markup (escaped), e.g. a struck old value."""


# The zone of the report being rendered (render sets it): the rooms' own, as on the pages.
ZONE = contextvars.ContextVar("report_zone", default=None)


def _zone():
    return ZONE.get() or ZoneInfo(settings.TIME_ZONE)


def _zone_of(scope):
    zones = {e.time_zone for e in scope.establishments}
    return ZoneInfo(zones.pop()) if len(zones) == 1 else ZoneInfo(settings.TIME_ZONE)


def _where_title(scope):
    """Who the export is of, by name: the room (or rooms), or the jurisdiction."""
    if scope.jurisdiction is not None:
        return scope.jurisdiction.name
    names = [e.name for e in scope.establishments]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _title(scope):
    period = f"{scope.start} to {scope.end}" if scope.start else f"as of {scope.end}"
    return f"Audit export: {_where_title(scope)}, {period}"


def _local(value):
    """A moment (aware datetime, or collect's UTC text) as local time with the zone: "2026-03-02 14:05 PDT"."""
    if value in (None, ""):
        return ""
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    return value.astimezone(_zone()).strftime("%Y-%m-%d %H:%M %Z")


def _money(amount, currency, signed=False):
    """``$1,234.50`` as the pages write it, from a Decimal (never through float); ``signed`` writes a difference as
    the pages do: +$1.00, −$2.50 with a true minus sign."""
    text = money(abs(amount) if signed else amount, currency).replace(" ", NBSP)
    if signed and amount:
        return ("+" if amount > 0 else "\u2212") + text
    return text


def _wagers(row):
    """A posting's table limits; a posting may leave either out (the model allows it), and says so."""
    low, high = row["min_wager"], row["max_wager"]
    if low is None and high is None:
        return "no limits posted"
    low = _money(low, row["currency"]) if low is not None else "no minimum posted"
    return f"{low} to {_money(high, row['currency']) if high is not None else 'no maximum posted'}"


def _text(value):
    if value is None:
        return ""
    if isinstance(value, str):
        return value  # a Markup stays one
    if value is True or value is False:
        return "yes" if value else "no"
    if isinstance(value, datetime.datetime):
        return _local(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def _count(number, thing, things=None):
    return f"{number:,} {thing if number == 1 else (things or thing + 's')}"


def _clipped(text):
    """A cell's text cut to CELL_LIMIT characters: a reason may be thousands of characters long."""
    return text if len(text) <= CELL_LIMIT else text[:CELL_LIMIT - len(CLIPPED)].rstrip() + CLIPPED


def _p(text, style=BODY):
    return Paragraph(text if isinstance(text, Markup) else escape(_text(text)), style)


def _m(markup, style=BODY):
    """A paragraph of markup whose values the caller escaped."""
    return _p(Markup(markup), style)


def _checkpoint(chain):
    # The name cardroom.transparency.export_files gives a chain's signed checkpoint in the bundle.
    return f"checkpoints/{chain.replace(':', '-')}.txt"


# -- tables ----------------------------------------------------------------------------------------------------


@dataclass
class Col:
    heading: str
    value: object  # row dict -> text (str or Markup)
    right: bool = False  # numbers and money: right-aligned, on one line
    whole: bool = False  # kept on one line (a time)

    def text(self, row):
        text = _text(self.value(row))
        return text.replace(" ", NBSP) if (self.right or self.whole) and not isinstance(text, Markup) else text


def _plain(text):
    return html.unescape(re.sub(r"<[^>]*>", "", text)) if isinstance(text, Markup) else text


def _measure(text, font):
    """(longest word, longest line) of ``text`` in points."""
    text = _plain(text)
    words = max((stringWidth(w, font, CELL.fontSize) for w in re.split(r"[ \t\n]+", text)), default=0)
    lines = max((stringWidth(line, font, CELL.fontSize) for line in text.splitlines()), default=0)
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


def _table(columns, rows, width, *, total=None, file=None, empty="None in the period."):
    """A table for people: the given columns of ``rows`` (dicts), headings repeated on every page, and a note
    when it shows fewer rows than there are or cut a long text."""
    if not rows:
        return [_p(empty, NOTE)]
    cells = [[column.text(row) for column in columns] for row in rows]
    cells = [[text if isinstance(text, Markup) else _clipped(text) for text in row] for row in cells]
    clipped = any(_plain(text).endswith(CLIPPED) for row in cells for text in row)
    headings = [column.heading for column in columns]
    data = [[_p(h, HEAD_R if c.right else HEAD) for h, c in zip(headings, columns)]]
    data += [[_p(text, CELL_R if c.right else CELL) for text, c in zip(row, columns)] for row in cells]
    table = Table(data, colWidths=widths(headings, cells, width), repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e4e4e4")),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, SHADE]),
        ("LINEBELOW", (0, 0), (-1, 0), 0.5, GREY),
        ("LINEBELOW", (0, 1), (-1, -1), 0.25, RULE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD), ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]))
    out = [table]
    total = len(rows) if total is None else total
    if total > len(rows) and file:
        out.append(_p(f"The first {len(rows):,} of {total:,} rows; every row is in {file}.", NOTE))
    if clipped:
        out.append(_p(f"Texts longer than {CELL_LIMIT} characters are cut here (marked [...]); they are whole in "
                      f"{file or 'the CSV and JSON files'}.", NOTE))
    return out


def _take(rows, limit=ROW_LIMIT, keep=None):
    """The first ``limit`` rows that ``keep`` (all by default), and how many there are in all."""
    shown, total = [], 0
    for row in rows:
        if keep is None or keep(row):
            total += 1
            if len(shown) < limit:
                shown.append(row)
    return shown, total


# -- the chart -------------------------------------------------------------------------------------------------


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


def _chart(unit, bars, currency, width, height=1.75 * inch):
    drawing = Drawing(width, height)
    chart = VerticalBarChart()
    # A few bars stay bar-sized rather than spread over the page.
    chart.x, chart.y, chart.width, chart.height = 42, 22, min(width - 50, 150 + 30 * len(bars)), height - 40
    chart.data = [[float(want) for _, want, _ in bars], [float(got) for _, _, got in bars]]  # drawing only
    chart.categoryAxis.categoryNames = [label for label, _, _ in bars]
    many = len(bars) * stringWidth(max((b[0] for b in bars), key=len), "Vera", 6) * 1.3 > chart.width
    chart.categoryAxis.labels.fontName = "Vera"
    chart.categoryAxis.labels.fontSize = 6
    chart.categoryAxis.labels.angle = 90 if many else 0
    chart.categoryAxis.labels.boxAnchor = "e" if many else "n"
    chart.valueAxis.labels.fontName = "Vera"
    chart.valueAxis.labels.fontSize = 6
    chart.valueAxis.valueMin = 0
    chart.valueAxis.gridStrokeColor, chart.valueAxis.visibleGrid = RULE, True
    chart.bars[0].fillColor, chart.bars[1].fillColor = EXPECTED, COLLECTED
    chart.bars.strokeWidth = 0
    chart.groupSpacing = 2
    drawing.add(chart)
    legend = Legend()
    legend.x, legend.y = chart.x + chart.width - 120, height - 5
    legend.fontName, legend.fontSize = "Vera", 7
    legend.columnMaximum, legend.dx, legend.dy, legend.deltax = 1, 7, 7, 60
    legend.colorNamePairs = [(EXPECTED, "expected"), (COLLECTED, "collected")]
    drawing.add(legend)
    drawing.add(String(0, height - 10, f"{currency} per {'gaming day' if unit == 'day' else unit}, all tables",
                       fontName="Vera", fontSize=7, fillColor=GREY))
    return drawing


# -- pages -----------------------------------------------------------------------------------------------------


class _Canvas(Canvas):
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


def _templates():
    def template(name, size):
        frame = Frame(MARGIN, MARGIN + FOOTER - 0.15 * inch, size[0] - 2 * MARGIN, size[1] - 2 * MARGIN - FOOTER,
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0, id=name)
        return PageTemplate(id=name, frames=[frame], pagesize=size)

    return [template("portrait", PORTRAIT), template("landscape", LANDSCAPE)]


class _Story(list):
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
        self.append(_p(title, H1))
        if intro:
            self.append(_p(intro))


# -- the report ------------------------------------------------------------------------------------------------


class _Data:
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


def _period(scope):
    if scope.start is None:
        return f"from the first record to {scope.end} (as of {scope.end})"
    days = (scope.end - scope.start).days + 1
    return f"{scope.start} to {scope.end} ({_count(days, 'gaming day')})"


def _abbreviations(scope):
    """The zone's names in the period ("PDT/PST"): a zone keeps a name for over a month, so the first moment of the
    period, of each month in it and the last moment find them all."""
    first, last = scope.start_moment.astimezone(_zone()), scope.end_moment.astimezone(_zone())
    moments, month = [first, last - datetime.timedelta(microseconds=1)], first.date().replace(day=1)
    while month < last.date():
        moments.append(datetime.datetime.combine(month, datetime.time(12), _zone()))
        month = (month + datetime.timedelta(days=32)).replace(day=1)
    return sorted({moment.astimezone(_zone()).strftime("%Z") for moment in moments})


def _in_period(scope, moment):
    return moment is not None and scope.start_moment <= datetime.datetime.fromisoformat(moment) < scope.end_moment


def _fee_days(data):
    """Expected and collected per currency and gaming day, as Decimals."""
    days = defaultdict(lambda: defaultdict(lambda: [Decimal("0.00"), Decimal("0.00")]))
    for row in data.rows("fees_by_table_day"):
        days[row["currency"]][row["gaming_day"]][0] += row["expected"]
        days[row["currency"]][row["gaming_day"]][1] += row["collected"]
    return days


def _summary(story, data, counts, generated_at, requested_by):
    """Page 1: what the export covers, what was in force and what changed, fees, findings, signs, audit chains."""
    scope = data.scope
    names = "/".join(_abbreviations(scope))
    story.append(_p(_title(scope), TITLE))
    story.append(_p(f"Generated {_local(generated_at)}" + (f" for {requested_by}" if requested_by else "")
                    + f". Times are in the room's zone, {_zone().key} ({names}); gaming days are local days.",
                    SUBTITLE))
    establishments = data.rows("establishments")
    where = "; ".join(f"{e['name']} ({e['slug']}, {e['jurisdiction']}"
                      + (f", licence {e['licence_number']}" if e["licence_number"] else "")
                      + (", demo" if e["is_demo"] else "") + ")" for e in establishments[:SUMMARY_LIMIT])
    if len(establishments) > SUMMARY_LIMIT:
        where += f"; and {len(establishments) - SUMMARY_LIMIT:,} more (establishments.csv)"
    if scope.jurisdiction is not None:
        where = f"Every establishment of {scope.jurisdiction.code}: {where}"
    story.append(_facts([("Establishments", where or "none"), ("Period", _period(scope))], story.width))

    # What was in force at the end (two lists side by side: page 1 must hold it all), and what changed.
    versions = data.rows("schedule_versions")
    in_force = [v for v in versions if v["in_force_at_end"]]
    # Read here, not from schedule_versions: that kind leaves out versions taking effect after the period.
    published = ScheduleVersion.objects.filter(document__in=scope.documents(), status="published",
                                               published_at__gte=scope.start_moment, published_at__lt=scope.end_moment)

    def note(v):
        return "; ".join(filter(None, ["retroactive" if v["retroactive"] else "", "published later"
                                       if not v["in_force_at_end_as_known_then"] else ""]))

    columns = [Col("Schedule", lambda v: v["code"]), Col("Version", lambda v: v["version"], right=True),
               Col("Effective", lambda v: v["effective_from"] or "not stated")]
    columns += [Col("Note", note)] if any(map(note, in_force)) else []
    shown, half = in_force[:SUMMARY_LIMIT], (min(len(in_force), SUMMARY_LIMIT) + 1) // 2
    story.append(_p("Schedules in force at the end of the period", H2))
    if len(shown) > 6:
        story.append(_side_by_side([_table(columns, shown[:half], (story.width - GAP) / 2),
                                    _table(columns, shown[half:], (story.width - GAP) / 2)], story.width))
    else:
        story += _table(columns, shown, story.width, empty="No published schedule applies.")
    if any(not v["in_force_at_end_as_known_then"] for v in in_force):
        story.append(_p("Published later: published after the period ended, so the record at its end showed "
                        "another version (or none) in force.", NOTE))
    if len(in_force) > len(shown):
        story.append(_p(f"And {len(in_force) - len(shown):,} more: see the schedules in force, and "
                        "schedule_versions.csv.", NOTE))
    postings = data.rows("postings")
    started = sum(1 for p in postings if _in_period(scope, p["effective_from"]))
    story.append(_m(
        f"<b>Changed in the period:</b> {_count(published.count(), 'schedule version')} published"
        f" ({published.filter(retroactive=True).count():,} retroactive), changing "
        f"{_count(counts.get('schedule_changes', 0), 'value')}; {_count(started, 'table posting')} took effect "
        f"({len(postings):,} shown in the period); {_count(counts.get('history', 0), 'change-history record')}.",
        LEAD))

    story.append(_p("Fees expected vs collected", H2))
    fee_days = _fee_days(data)
    if not fee_days:
        story.append(_p("No rounds or collections in the period.", BODY))
    for currency, days in sorted(fee_days.items()):
        want = sum((w for w, _ in days.values()), Decimal("0.00"))
        got = sum((g for _, g in days.values()), Decimal("0.00"))
        differences = [r["difference"] for r in data.rows("fees_by_table_day") if r["currency"] == currency]
        short, over = sum(1 for d in differences if d < 0), sum(1 for d in differences if d > 0)
        story.append(_m(f"Expected <b>{_money(want, currency)}</b>, collected <b>{_money(got, currency)}</b>, "
                        f"difference <b>{_money(got - want, currency, signed=True)}</b>. "
                        f"{_count(len(days), 'gaming day')} with play; {_count(short, 'table-day')} collected "
                        f"short, {over:,} over.", BODY))
        story.append(_chart(*buckets(days, scope.start, scope.end), currency, story.width))

    findings = data.rows("findings")
    tally = {s: Counter() for s in SEVERITIES}
    for f in findings:
        tally.setdefault(f["severity"], Counter()).update(["all", "acknowledged" if f["acknowledged_at"] else "open"])
    lines = [{"severity": s, **tally[s]} for s in tally] + [{"severity": "total", **sum(tally.values(), Counter())}]
    left = [_p("Findings and how they were handled", H2)] + _table([
        Col("Severity", lambda r: r["severity"]), Col("Findings", lambda r: f"{r.get('all', 0):,}", right=True),
        Col("Acknowledged", lambda r: f"{r.get('acknowledged', 0):,}", right=True),
        Col("Still open", lambda r: f"{r.get('open', 0):,}", right=True)], lines, (story.width - GAP) / 2)

    prints = data.rows("sign_prints")
    reprints = sum(1 for p in prints if p["reprint"])
    overridden = sum(1 for p in prints if p["override_reason"])
    right = [_p("Signs printed", H2), _p(
        f"{_count(len(prints), 'sign')} printed: {len(prints) - reprints:,} first "
        f"{'print' if len(prints) - reprints == 1 else 'prints'}, {_count(reprints, 'reprint')}; "
        f"{overridden:,} under a compliance override of error findings." if prints else
        "No sign printed in the period.", BODY)]
    right.append(_p("Audit log covered", H2))
    heads = sorted(scope.chain_heads.items())
    for chain, (sequence, digest) in heads[:SUMMARY_LIMIT]:
        right.append(_m(f"Chain <b>{escape(chain)}</b> up to entry {sequence:,} (hash {digest[:12]}...): "
                        + (f"signed checkpoint in {_checkpoint(chain)}." if sequence else "no entries yet."), BODY))
    if len(heads) > SUMMARY_LIMIT:
        right.append(_p(f"And {len(heads) - SUMMARY_LIMIT:,} more chains (manifest.json, checkpoints/).", BODY))
    right.append(_p(f"{_count(counts.get('audit_log', 0), 'audit-log entry', 'audit-log entries')} in the period "
                    "(audit_log.csv).", BODY))
    story.append(_side_by_side([left, right], story.width))
    story.append(_m("The manifest lists every file with its SHA-256 and is signed with the installation's Ed25519 "
                    "key. Check the bundle yourself, offline, with the verifier: <i>python -m cardroom.tlog --keys "
                    "keys.json export bundle.zip</i> (add <i>--kept</i> with checkpoints you kept earlier). The "
                    "verifier is plain Python 3.11 with the <i>cryptography</i> package: cardroom/tlog.py, merkle.py, "
                    "checkpoint.py, chain.py and exports/bundle.py of the cardroom source (docs/audit.md); the keys "
                    "file is the installation's GET /api/v1/audit/keys. Every row and column is in the CSV "
                    "and JSON files (columns.json describes them); the pages after this one show them for reading.",
                    NOTE))


def _side_by_side(columns, width):
    """Flowables in columns across the page."""
    table = Table([columns], colWidths=[(width - GAP) / len(columns) + GAP] * (len(columns) - 1)
                  + [(width - GAP) / len(columns)], hAlign="LEFT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                               ("RIGHTPADDING", (0, 0), (-1, -1), 0), ("TOPPADDING", (0, 0), (-1, -1), 0),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 0)]))
    return table


def _facts(facts, width):
    data = [[_p(label, HEAD), _p(value, BODY)] for label, value in facts]
    table = Table(data, colWidths=[1.1 * inch, width - 1.1 * inch], hAlign="LEFT")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                               ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
    return table


def _where(several):
    """The table column: "casino-marysville 3" when the export covers several establishments, else "3"."""
    return lambda r: f"{r['establishment']} {r['table']}" if several else r["table"]


def _fees_section(story, data, several):
    story.section("Fees expected vs collected", intro=(
        "Expected: the fees of the rounds played, priced against the posting in force. Collected: the entries "
        "recorded (a corrected entry counts as its correction)."))
    for currency, days in sorted(_fee_days(data).items()):
        unit, bars = buckets(days, data.scope.start, data.scope.end)
        rows = [{"label": label, "expected": want, "collected": got} for label, want, got in bars]
        if unit == "day":
            rows = [{"label": day.isoformat(), "expected": w, "collected": g} for day, (w, g) in sorted(days.items())]
        story.append(_p(f"Per {'gaming day' if unit == 'day' else unit + ' (from the date shown)'}, all tables", H2))
        story += _table([
            Col("Gaming day" if unit == "day" else unit.capitalize(), lambda r: r["label"]),
            Col("Expected", lambda r: _money(r["expected"], currency), right=True),
            Col("Collected", lambda r: _money(r["collected"], currency), right=True),
            Col("Difference", lambda r: _money(r["collected"] - r["expected"], currency, signed=True), right=True),
        ], rows[:ROW_LIMIT], story.width, total=len(rows), file="fees_by_table_day.csv")
    differing, total = _take(data.rows("fees_by_table_day"), keep=lambda r: r["difference"] != 0)
    story.append(_p("Table-days where the collected fees differ from the expected", H2))
    story += _table([
        Col("Gaming day", lambda r: r["gaming_day"]), Col("Table", _where(several)),
        Col("Expected", lambda r: _money(r["expected"], r["currency"]), right=True),
        Col("Collected", lambda r: _money(r["collected"], r["currency"]), right=True),
        Col("Difference", lambda r: _money(r["difference"], r["currency"], signed=True), right=True),
    ], differing, story.width, total=total, file="fees_by_table_day.csv",
        empty="None: every table collected what was expected.")
    story.append(_p(f"Every table and gaming day ({len(data.rows('fees_by_table_day')):,} rows) is in "
                    "fees_by_table_day.csv.", NOTE))


def _changes_section(story, data, counts):
    story.section("Schedule changes published in the period", intro=(
        "Each version published, against the version it replaced: every changed value of an option, or of a fee "
        "row (tier) of an option, old value struck in red, new value in green. Tiers are paired by what they are "
        "(fee, payer, measure and bounds), as on the compare page."))
    versions = {(v["code"], v["version"]): v for v in data.rows("schedule_versions")}
    groups = {}  # (code, version) -> {"head": row, "rows": [...], "total": n, "options": set}
    shown = 0
    for row in data.iterate("schedule_changes"):
        if row["old"] in (None, "") and row["new"] in (None, ""):
            continue  # a blank field of an added row
        group = groups.setdefault((row["code"], row["version"]), {"head": row, "rows": [], "total": 0,
                                                                   "options": set()})
        group["total"] += 1
        group["options"].add(row["option"])
        if row["replaces_version"] is not None and len(group["rows"]) < VERSION_ROW_LIMIT and shown < ROW_LIMIT:
            group["rows"].append(row)
            shown += 1
    if not groups:
        story.append(_p("No schedule version was published in the period.", NOTE))
    firsts = [group for group in groups.values() if group["head"]["replaces_version"] is None]
    if firsts:
        # A first version replaces nothing: every value is new, too many to list (the CSV has each one).
        story.append(_p("First versions (every value new; each value is in schedule_changes.csv)", H2))
        story += _table([
            Col("Schedule", lambda g: g["head"]["code"]), Col("Version", lambda g: g["head"]["version"], right=True),
            Col("Effective", lambda g: g["head"]["effective_from"] or "not stated"),
            Col("Published", lambda g: _local(g["head"]["published_at"]) + (
                f" by {g['head']['published_by']}" if g["head"]["published_by"] else "")),
            Col("Retroactive", lambda g: _retroactive(versions.get((g["head"]["code"], g["head"]["version"])))),
            Col("Options", lambda g: f"{len(g['options']):,}", right=True),
            Col("Values", lambda g: f"{g['total']:,}", right=True),
        ], firsts, story.width)
    for (code, number), group in groups.items():
        head = group["head"]
        if head["replaces_version"] is None:
            continue
        lines = [f"Effective {head['effective_from'] or 'from a date the source does not state'}; published "
                 f"{_local(head['published_at'])}" + (f" by {head['published_by']}" if head["published_by"] else "")
                 + "."]
        retroactive = _retroactive(versions.get((code, number)))
        if retroactive != "no":
            lines.append(f"Retroactive: {retroactive}.")
        if head["reason"]:
            lines.append(f"Reason: {_clipped(head['reason'])}")
        story.append(CondPageBreak(1.2 * inch))
        story += [_p(f"{code} version {number}, replacing version {head['replaces_version']}", H2),
                  _p(" ".join(lines), NOTE)]
        rows, option, tier = [], None, None
        for row in group["rows"]:
            # An option and a fee row are named on their first line only, so that the lines read as groups.
            rows.append({"option": row["option"] if row["option"] != option else "",
                         "tier": ("" if (row["option"], row["tier"]) == (option, tier)
                                  else f"row {row['tier']}" if row["tier"] is not None else "the option"),
                         "what": diff.LABELS.get(row["field"].split(".", 1)[1], row["field"]),
                         "old": _struck(row["old"]), "new": _added(row["new"])})
            option, tier = row["option"], row["tier"]
        story += _table([Col("Option", lambda r: r["option"], right=True), Col("Fee row", lambda r: r["tier"]),
                         Col("What", lambda r: r["what"]), Col("Old", lambda r: r["old"]),
                         Col("New", lambda r: r["new"])], rows, story.width,
                        empty=f"Not listed here (the report lists at most {ROW_LIMIT} changed values).")
        if group["total"] > len(rows):
            story.append(_p(f"{len(rows):,} of the {group['total']:,} changed values of this version are shown; every "
                            "one is in schedule_changes.csv.", NOTE))


def _retroactive(version):
    if not version or not version["retroactive"]:
        return "no"
    return f"yes: {version['retroactive_reason']}" if version["retroactive_reason"] else "yes"


def _shown(value):
    return _clipped(_local(value) if isinstance(value, datetime.datetime) else diff.shown(value))


def _struck(value):
    """An old value: struck through, red."""
    if value in (None, ""):
        return Markup("")
    return Markup(f'<font color="{OLD_TEXT}"><strike>{escape(_shown(value))}</strike></font>')


def _added(value):
    """A new value: bold, green."""
    if value in (None, ""):
        return Markup("")
    return Markup(f'<font color="{NEW_TEXT}"><b>{escape(_shown(value))}</b></font>')


def _sections(story, data, counts, several):
    scope = data.scope
    est = [Col("Establishment", lambda r: r["establishment"])] if several else []

    story.section("Establishments covered")
    story += _table([Col("Name", lambda r: r["name"]), Col("Key", lambda r: r["slug"]),
                     Col("Jurisdiction", lambda r: r["jurisdiction"]),
                     Col("Kind", lambda r: r["kind"].replace("_", " ")), Col("Licence", lambda r: r["licence_number"]),
                     Col("Address", lambda r: r["address"]), Col("Demo data", lambda r: r["is_demo"])],
                    data.rows("establishments"), story.width,
                    empty="None.")
    _fees_section(story, data, several)
    _changes_section(story, data, counts)

    story.section("Collection schedules in force during the period", "landscape", intro=(
        "Every published version that applied on a day of the period; the last column says which one is in force "
        "on its last day (as the record stands now, and as it stood at the end of the period where that differs)."))
    story += _table([
        Col("Schedule", lambda r: r["code"]), Col("Title", lambda r: r["title"]),
        Col("Version", lambda r: r["version"], right=True),
        Col("Effective", lambda r: r["effective_from"] or "not stated"),
        Col("Published", lambda r: f"{_local(r['published_at'])}" + (f" by {r['published_by']}"
                                                                       if r["published_by"] else "")),
        Col("Retroactive", _retroactive),
        Col("Why", lambda r: r["reason"]), Col("Source", lambda r: r["source"]),
        Col("In force at the end", lambda r: ("yes" if r["in_force_at_end"] else "no") + (
            "" if r["in_force_at_end"] == r["in_force_at_end_as_known_then"]
            else f" (as known then: {'yes' if r['in_force_at_end_as_known_then'] else 'no'})")),
    ], data.rows("schedule_versions"), story.width, file="schedule_versions.csv", empty="None.")

    findings = sorted(data.rows("findings"), key=lambda f: (
        SEVERITIES.index(f["severity"]) if f["severity"] in SEVERITIES else 9, f["run_at"], f["id"]))
    story.section("Validation findings and how they were handled", "landscape", intro=(
        "Findings of the validation runs in the period, errors first."))
    story += _table(est + [
        Col("Severity", lambda r: r["severity"]), Col("Found", lambda r: _local(r["run_at"]), whole=True),
        Col("About", lambda r: ", ".join(filter(None, [
            f"table {r['table']}" if r["table"] else "", f"posting {r['posting']}" if r["posting"] else "",
            r["schedule"] or "", f"version {r['schedule_version']}" if r["schedule_version"] else "",
            f"option {r['option']}" if r["option"] else ""]))),
        Col("Rule", lambda r: r["rule"]), Col("What was found", lambda r: r["message"]),
        Col("Source of the rule", lambda r: r["citation"]),
        Col("Handled", lambda r: (f"Acknowledged {_local(r['acknowledged_at'])} by {r['acknowledged_by']}: "
                                  f"{r['acknowledgement_reason'] or ''}") if r["acknowledged_at"] else "Open"),
    ], findings[:ROW_LIMIT], story.width, total=len(findings), file="findings.csv")

    postings = sorted(data.rows("postings"), key=lambda r: (r["establishment"], natural(r["table"]),
                                                            r["effective_from"]))  # floor order: 2 before 10
    story.section("Table postings shown during the period", "landscape", intro=(
        "What each table's sign said: the posting in force at the start of the period and each one after it."))
    story += _table([
        Col("Table", _where(several)), Col("Game", lambda r: r["game"]),
        Col("Schedule", lambda r: f"{r['schedule']} option {r['option']}" if r["schedule"] else (
            f"house rules {r['rules'] or ''}" + (f", {r['decks']} decks" if r["decks"] else ""))),
        Col("Wagers", _wagers),
        Col("Seats", lambda r: r["seats"], right=True),
        Col("Bonus limits", lambda r: "; ".join(filter(None, [r["bonus_limits"], (
            f"aggregate payout limit {_money(r['aggregate_payout_limit'], r['currency'])}"
            if r["aggregate_payout_limit"] is not None else "")]))),
        Col("From", lambda r: _local(r["effective_from"]), whole=True),
        Col("Until", lambda r: _local(r["superseded_at"]), whole=True),
        Col("Findings when saved", lambda r: ", ".join(filter(None, [
            _count(r["errors"], "error") if r["errors"] else "", _count(r["warnings"], "warning")
            if r["warnings"] else ""])) or "none"),
        Col("Printed under override", lambda r: (
            f"{r['override_reason']} (asked by {r['override_by']}, approved by {r['override_approved_by']})"
            if r["override_reason"] else "")),
        Col("Notes", lambda r: r["notes"]),
    ], postings[:ROW_LIMIT], story.width, total=len(postings), file="postings.csv")

    prints = data.rows("sign_prints")
    story.section("Signs printed and reprinted", "landscape")
    story += _table([
        Col("Printed", lambda r: _local(r["printed_at"]), whole=True), Col("Table", _where(several)),
        Col("Posting", lambda r: r["posting"], right=True),
        Col("Schedule", lambda r: f"{r['schedule']} option {r['option']}" if r["schedule"] else "house rules"),
        Col("Print", lambda r: f"reprint (print {r['number']})" if r["reprint"] else "first print"),
        Col("Layout", lambda r: r["layout"]), Col("Channel", lambda r: r["channel"]),
        Col("By", lambda r: r["printed_by"]), Col("Batch job", lambda r: (r["job"] or "")[:8]),
        Col("Under override", lambda r: r["override_reason"]),
    ], prints[:ROW_LIMIT], story.width, total=len(prints), file="sign_prints.csv")

    approvals = data.rows("approvals")
    story.section("Game approvals", "landscape")
    story += _table([
        Col("Game", lambda r: r["game"] + (f" ({r['registration_number']})" if r["registration_number"] else "")),
        Col("Applies to", lambda r: ", ".join(filter(None, [r["establishment"] or f"all of {r['jurisdiction']}",
                                                            r["scope"] if r["scope"] != "all" else ""]))),
        Col("Status", lambda r: r["status"]), Col("Reference", lambda r: r["reference"]),
        Col("Decided", lambda r: r["decided_on"]), Col("Effective", lambda r: r["effective_from"]),
        Col("Expires", lambda r: r["expires_on"] or (f"trial ends {r['trial_ends_on']}" if r["trial_ends_on"]
                                                     else "")),
        Col("Granted to", lambda r: r["licensee"]), Col("Source", lambda r: r["source"]),
    ], approvals[:ROW_LIMIT], story.width, total=len(approvals), file="approvals.csv")
    games = {a["key"]: a["game"] for a in approvals}
    story.append(_p("Conditions of those approvals", H2))
    conditions = data.rows("approval_conditions")
    story += _table([
        Col("Game", lambda r: games.get(r["approval"], r["approval"])), Col("No.", lambda r: r["order"], right=True),
        Col("Condition", lambda r: r["text"]), Col("Applies to", lambda r: r["applies_to"]),
        Col("Status", lambda r: r["status"]), Col("Where it is written", lambda r: r["citation"]),
    ], conditions[:ROW_LIMIT], story.width, total=len(conditions), file="approval_conditions.csv", empty="None.")

    created, edits, total = Counter(), [], 0
    for row in data.iterate("history"):
        if row["change"] == "created":
            created[row["object"]] += 1  # counted, not listed: loading one schedule creates hundreds of records
        else:
            total += 1
            edits += [row] if len(edits) < ROW_LIMIT else []
    story.section("Edits in the change history", "landscape", intro=(
        "Field by field, who changed what and why, in the period. "
        + (("Records created (" + ", ".join(f"{_count(n, what)}" for what, n in sorted(created.items()))
            + ") are not listed; they are in history.csv.") if created else "")))
    story += _table([
        Col("When", lambda r: _local(r["at"]), whole=True), Col("By", lambda r: r["by"] or "system"),
        Col("What", lambda r: f"{r['object']} id {r['object_id']}"), Col("Change", lambda r: r["change"]),
        Col("Field", lambda r: r["field"]), Col("Old", lambda r: _struck(r["old"])),
        Col("New", lambda r: _added(r["new"])), Col("Reason", lambda r: r["reason"]),
    ], edits, story.width, total=total, file="history.csv", empty="No edits in the period.")

    story.section("Ledger, rounds and audit log", "portrait", intro=(
        "These are too many to print: their rows are in the files below, and are summed in the fees pages."))
    big = [kind for kind in collect.KINDS if kind.big]
    story += _table([Col("What", lambda k: k.title), Col("Rows", lambda k: f"{counts.get(k.name, 0):,}", right=True),
                     Col("Files", lambda k: f"{k.name}.csv, {k.name}.json")], big, story.width)
    story.append(_p(f"Ledger entries up to id {scope.last_entry:,} and rounds up to id {scope.last_round:,} "
                    "were read: the export's fixed end (manifest: last_ids).", NOTE))
    story.append(_p("Every file of the bundle", H2))
    story += _table([Col("What", lambda k: k.title), Col("Rows", lambda k: f"{counts.get(k.name, 0):,}", right=True),
                     Col("Files", lambda k: f"{k.name}.csv, {k.name}.json")], collect.KINDS, story.width)


def render(scope, counts, *, generated_at, requested_by=""):
    """The report as PDF bytes. ``counts``: rows per kind, as written to the CSV files."""
    token = ZONE.set(_zone_of(scope))
    try:
        data = _Data(scope)
        several = len(scope.establishments) > 1
        title = _title(scope)
        story = _Story()
        _summary(story, data, counts, generated_at, requested_by)
        story.append(PageBreak())
        _sections(story, data, counts, several)
        buffer = io.BytesIO()
        doc = BaseDocTemplate(buffer, pagesize=PORTRAIT, pageTemplates=_templates(), title=title, author="cardroom",
                              creator="cardroom")
        doc.build(story, canvasmaker=partial(_Canvas, footer=title))
    finally:
        ZONE.reset(token)
    return buffer.getvalue()
