"""The report's variance section: the variance page's view of the export's period (fees.variance), by table and
by recorder for each establishment, with exact figures and the same statistic."""

from django.db.models import Min

from fees.models import Reconciliation
from fees.variance import selectors as variance

from .pdf import H2, NOTE, Col, para, table
from .people import money


def _first_day(establishment, scope):
    """The period's first gaming day; from the beginning: the room's first reconciled day."""
    if scope.start is not None:
        return scope.start
    return Reconciliation.objects.filter(table__establishment=establishment).aggregate(
        first=Min("gaming_day"))["first"] or scope.end


def variance_section(story, data, several):
    story.section("Where the money goes missing", intro=(
        "Hands collected short (less than expected, or nothing) per the latest reconciliation of each table and "
        "gaming day. How unusual: a p-chart for tables (the share of hands short against the room's usual share), "
        "a c-chart for recorders (hands short against their own usual count), each over the 90 gaming days before "
        "the period, unusual above three standard deviations (SD); the variance page explains both."))
    for establishment in data.scope.establishments:
        first, last = _first_day(establishment, data.scope), data.scope.end
        if first > last:
            continue
        found = variance.report(establishment, first, last)
        currency = found.currency
        where = f"{establishment.name}: " if several else ""
        story.append(para(f"{where}{first.isoformat()} to {last.isoformat()}: {found.total.hands_short:,} hand(s) "
                          f"short of {found.total.hands:,}, {money(found.total.amount_short, currency)} short; "
                          f"expected {money(found.total.expected, currency)}, collected "
                          f"{money(found.total.collected, currency)}.", NOTE))
        story.append(para(f"{where}By table", H2))
        story += table([
            Col("Table", lambda r: r.label),
            Col("Expected", lambda r: money(r.expected, currency), right=True),
            Col("Collected", lambda r: money(r.collected, currency), right=True),
            Col("Hands", lambda r: f"{r.hands:,}", right=True),
            Col("Hands short", lambda r: f"{r.hands_short:,}", right=True),
            Col("Amount short", lambda r: money(r.amount_short, currency), right=True),
            Col("How unusual", lambda r: r.judgement.describe("SD")),
        ], found.groups["table"], story.width, empty="No table reconciled in the period.")
        story.append(para(f"{where}By recorder", H2))
        story += table([
            Col("Recorder", lambda r: r.label),
            Col("Hands short", lambda r: f"{r.hands_short:,}", right=True),
            Col("Amount short", lambda r: money(r.amount_short, currency), right=True),
            Col("How unusual", lambda r: r.judgement.describe("SD")),
        ], found.groups["recorder"], story.width, empty="No hand short in the period.")
