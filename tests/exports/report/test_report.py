"""The export's PDF report is one a person reads (exports/report/): page 1 sums the period up with figures that
match the data, times are local with the zone named, schedule changes read as old and new values, wide sections
are on landscape pages, table headings repeat on each page and no heading word is broken across lines."""

import datetime
import re
import subprocess
import tempfile
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db.models import Sum
from django.utils import timezone

from cardroom.models import Game, Table
from compliance.models import Finding
from exports import collect, report
from exports.report import changes, sections, summary
from fees.models import CollectionEntry, FeeTier, RoundOfPlay, ScheduleDocument, ScheduleVersion
from signage import printing
from signage.models import SignPrint
from signage.postings import post_table
from tests.publishing import publish

from tests import signs

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
START = datetime.date(2026, 3, 1)
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p2", "base": "40"}]}


@pytest.fixture
def scope(api, people):
    """A table posted on 1 March, three rounds over two gaming days (one collected short, one not at all), its
    sign printed and reprinted, and GEGA-002888 v2 published today: option 43's $101-$200 player fee $2 -> $2.50."""
    table = Table.objects.create(establishment=people.marysville, label="X-1", seats=7,
                                 game=Game.objects.get(slug="face-up-pai-gow-poker"))
    gega = ScheduleDocument.objects.get(code="GEGA-002888")
    posting, _ = post_table(None, fields={"table": table, "game": table.game, "schedule": gega, "option_number": 1,
                                          "min_wager": 5, "max_wager": 500, "seats": 7,
                                          "effective_from": datetime.datetime(2026, 3, 1, 8, tzinfo=LA)},
                            actor_label="test")
    printing.print_signs([posting], "letter", label="test", channel=SignPrint.Channel.API)
    printing.print_signs([posting], "tent", label="test", channel=SignPrint.Channel.API)
    api.force_authenticate(people.floor)
    for i, (day, paid) in enumerate((("2026-03-03", "1.00"), ("2026-03-03", "0.50"), ("2026-03-04", None)), 1):
        answer = api.post("/api/v1/ledger/rounds/", {"table": table.pk, "gaming_day": day, "reference": f"H-{i}",
                                                     "played_at": f"{day}T02:00:00-08:00", "facts": ROUND},
                          format="json")
        assert answer.status_code == 201, answer.json()
        if paid:
            answer = api.post("/api/v1/ledger/entries/", {
                "idempotency_key": f"r-{i}", "table": table.pk, "gaming_day": day, "reference": f"H-{i}",
                "collected_at": f"{day}T02:30:00-08:00", "payer": "player", "fee_kind": "player", "seat": 1,
                "amount": paid}, format="json")
            assert answer.status_code == 201, answer.json()
    api.force_authenticate(None)
    draft = gega.new_draft(based_on=gega.versions.get(number=1), reason="Report test", user=people.compliance,
                           effective_from=datetime.date(2027, 6, 1))
    tier = FeeTier.objects.get(option__version=draft, option__number=43, fee_kind="player", order=2)
    tier.fee, tier.printed_fee = Decimal("2.50"), "$2.50"
    tier.save()
    publish(draft, requested_by=people.compliance, approved_by=people.admin, reason="New fee")  # GEGA: shared
    return collect.ExportScope(establishments=[people.marysville], start=START, end=timezone.localdate()).freeze()


def render(scope):
    counts = {kind.name: sum(1 for _ in kind.rows(scope)) for kind in collect.KINDS}
    return report.render(scope, counts, generated_at=timezone.now(), requested_by="t-regulator-ca"), counts


def pages(pdf, layout=False):
    """Each page's text, spaces (non-breaking ones too) collapsed."""
    return [re.sub(r"[ \xa0]+", " ", page) for page in signs.text(pdf, layout=layout).split("\f")[:-1]]


def sizes(pdf):
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(pdf)
        f.flush()
        info = subprocess.run(["pdfinfo", "-f", "1", "-l", "9999", f.name], check=True, capture_output=True,
                              text=True).stdout
    return [(float(w), float(h)) for w, h in re.findall(r"^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)", info, re.M)]


def page_of(texts, heading):
    """The first page after the summary with ``heading``."""
    return next(i for i, text in enumerate(texts) if i and heading in text)


def test_page_one_sums_the_period_up_with_the_figures_of_the_data(people, scope):
    pdf, counts = render(scope)
    texts = pages(pdf)
    first = " ".join(texts[0].split())
    assert f"Audit export: Casino Marysville, 2026-03-01 to {timezone.localdate()}" in first  # the room's name
    assert "Casino Marysville (casino-marysville, CA)" in first
    # The zone named once, in the whole report; each time with its abbreviation.
    assert "Times are in the room's zone, America/Los_Angeles (PDT/PST)" in first and "Page 1 of" in first
    assert " ".join(texts).count("America/Los_Angeles") == 1
    # The bundle is checked with the offline verifier, and the report says how to get it.
    assert "python -m cardroom.tlog --keys keys.json --trust SHA256:... --origin ... export bundle.zip" in first
    assert "Keep the installation's fingerprint (SHA256:..., the keys file's root) and its log's name (the keys " \
        "file's origin)" in first
    assert "give them with --trust and --origin" in first and "NOT CHECKED, never HOLDS" in first
    assert "cardroom/tlog/" in first and "/api/v1/audit/keys" in first and "manage.py" not in " ".join(texts)

    # Expected and collected, summed from the ledger here, not from the export's rows.
    rounds = RoundOfPlay.objects.filter(table__label="X-1", gaming_day__gte=START)
    want = rounds.aggregate(s=Sum("expected_total"))["s"]
    got = CollectionEntry.objects.filter(table__label="X-1").aggregate(s=Sum("amount"))["s"]
    assert got == Decimal("1.50") and want > got
    # Money as the pages write it: $, and a difference with its sign before the $.
    assert (f"Expected ${want:,.2f}, collected ${got:,.2f}, difference \u2212${want - got:,.2f}."
            in first), first
    assert "USD" not in first.replace("USD per", "")  # only the chart's axis names the currency
    assert "2 table-days collected short" in first

    # What was in force at the end, and what changed.
    layout = pages(pdf, layout=True)[0]
    assert re.search(r"GEGA-002888 1 not stated\b", layout), layout  # v2 takes effect in 2027
    published = ScheduleVersion.objects.filter(status="published", published_at__date__gte=START)
    assert published.filter(document__code="GEGA-002888", number=2).exists()
    assert (f"{published.count()} schedule versions published (0 retroactive), changing "
            f"{counts['schedule_changes']:,} values" in first)
    assert "the pages after this one show them for reading" in first  # the whole summary is on page 1

    # Findings by severity, acknowledged and open, as the database has them.
    for severity in ("error", "warning", "info"):
        findings = Finding.objects.filter(establishment=people.marysville, severity=severity)
        row = rf"^ ?{severity} {findings.count()} {findings.filter(acknowledged_at__isnull=False).count()} " \
              rf"{findings.filter(acknowledged_at__isnull=True).count()}\b"
        assert re.search(row, layout, re.M), (severity, layout)
    assert "2 signs printed: 1 first print, 1 reprint; 0 under a compliance override" in first
    chain, (sequence, _) = next(iter(scope.chain_heads.items()))
    assert f"up to entry {sequence:,}" in first and f"checkpoints/{chain.replace(':', '-')}.txt" in first


def test_times_are_local_with_the_zone_named(scope):
    pdf, _ = render(scope)
    texts = pages(pdf)
    prints = texts[page_of(texts, "Signs printed and reprinted")]
    for printed in SignPrint.objects.filter(posting__table__label="X-1").values_list("printed_at", flat=True):
        assert printed.astimezone(LA).strftime("%Y-%m-%d %H:%M %Z") in prints
    postings = texts[page_of(texts, "Table postings shown during the period")]
    assert "2026-03-01 08:00 PST" in postings
    assert "Z " not in prints and "+00:00" not in " ".join(texts)  # no UTC text from the CSV


def test_a_changed_tier_shows_its_old_and_new_values(scope):
    pdf, _ = render(scope)
    texts = pages(pdf, layout=True)
    section = texts[page_of(texts, "GEGA-002888 version 2, replacing version 1")]
    section = section[section.index("GEGA-002888 version 2, replacing version 1"):]
    assert re.search(r"^ *43 row 2 amount 2\.00 2\.50$", section, re.M), section
    assert re.search(r"^ *fee as printed \$2 \$2\.50$", section, re.M), section
    # First versions (the seed's, published today) are counted, not listed value by value.
    assert "First versions (every value new" in " ".join(texts)


def test_long_changes_are_cut_with_a_pointer_to_the_csv(scope, monkeypatch):
    monkeypatch.setattr(changes, "VERSION_ROW_LIMIT", 1)
    text = " ".join(" ".join(pages(render(scope)[0])).split())
    assert "1 of the 2 changed values of this version are shown; every one is in schedule_changes.csv." in text


def test_wide_sections_are_landscape_and_headings_repeat_and_never_break(scope, monkeypatch):
    headings = set()
    table = report.pdf.table

    def spy(columns, *args, **kwargs):
        headings.update(column.heading for column in columns)
        return table(columns, *args, **kwargs)

    for module in (summary, sections, changes):  # every module of the report that draws a table
        monkeypatch.setattr(module, "table", spy)
    pdf, counts = render(scope)
    texts, size = pages(pdf), sizes(pdf)
    assert len(texts) == len(size)
    assert size[0] == (612, 792)  # the summary: portrait letter
    for heading in ("Table postings shown during the period", "Validation findings and how they were handled",
                    "Collection schedules in force during the period", "Edits in the change history"):
        width, height = size[page_of(texts, heading)]
        assert width > height, heading
    assert size[page_of(texts, "Ledger, rounds and audit log")] == (612, 792)

    # The history (the seed's publications and the test's) runs over several pages, each with the headings.
    first, last = page_of(texts, "Edits in the change history"), page_of(texts, "Ledger, rounds and audit log")
    assert last - first >= 2
    for text in texts[first:last]:
        assert re.search(r"^When\b", text, re.M) and "Reason" in text

    # No heading word broken across lines: each is whole, and no two tokens make it up.
    words = {w for heading in headings for w in re.findall(r"[A-Za-z]{4,}", heading)}
    assert {"Acknowledged", "Retroactive", "Difference", "Collected"} <= words
    tokens = set(re.findall(r"[A-Za-z]+", " ".join(texts)))
    for word in words:
        assert word in tokens, word
        assert not [word[:i] for i in range(2, len(word) - 1) if {word[:i], word[i:]} <= tokens], word

    # The big kinds are counted, not listed.
    ledger = " ".join(texts[-2:])
    assert f"{counts['ledger_entries']:,}" in ledger and "ledger_entries.csv" in ledger
    assert "ledger_entries.json" not in ledger
    assert "round_fee_lines.csv" in ledger and "round_pricings.json" in ledger  # every file of the bundle
    assert "H-1" not in " ".join(texts)


def test_the_chart_groups_days_weeks_or_months_and_keeps_decimals():
    day = datetime.date(2026, 10, 1)
    days = {day: (Decimal("1.10"), Decimal("1.00")), day + datetime.timedelta(days=2): (Decimal("0.20"),
                                                                                         Decimal("0.30"))}
    unit, bars = report.buckets(days, day, day + datetime.timedelta(days=3))
    assert unit == "day" and [label for label, _, _ in bars] == ["01", "02", "03", "04"]
    assert bars[1][1:] == (Decimal("0.00"), Decimal("0.00")) and bars[2][1:] == (Decimal("0.20"), Decimal("0.30"))
    unit, bars = report.buckets(days, day, day + datetime.timedelta(days=59))  # 1 October is a Thursday
    assert unit == "week" and bars[0] == ("09-28", Decimal("1.30"), Decimal("1.30")) and len(bars) == 9
    unit, bars = report.buckets(days, datetime.date(2026, 1, 1), datetime.date(2026, 12, 31))
    assert unit == "month" and len(bars) == 12 and bars[9] == ("2026-10", Decimal("1.30"), Decimal("1.30"))
    assert all(isinstance(v, Decimal) for _, want, got in bars for v in (want, got))


def test_columns_keep_their_longest_word_whole_within_the_page():
    from reportlab.pdfbase.pdfmetrics import stringWidth

    rows = [["2026-10-01", "Acknowledged 2026-11-24 by compliance: " + "a long reason " * 40, "$1,234.50"]]
    widths = report.widths(["Gaming day", "Handled", "Collected"], rows, 540)
    assert sum(widths) <= 540 + 1e-6
    for width, text in zip(widths, ["2026-10-01", "Acknowledged", "$1,234.50"]):
        assert width >= stringWidth(text, "Vera", report.CELL.fontSize) + 2 * report.PAD
    assert widths[1] > widths[0] and widths[1] > widths[2]  # the long text gets the room


def test_a_posting_without_table_limits_reads_as_such(people, scope):
    """Found by the year's export benchmark: a posting with no minimum or maximum (both may be left out) broke the
    whole report (None formatted as money)."""
    table = Table.objects.create(establishment=people.marysville, label="X-2", seats=7,
                                 game=Game.objects.get(slug="face-up-pai-gow-poker"))
    post_table(None,
               fields={"table": table, "game": table.game, "schedule": ScheduleDocument.objects.get(code="GEGA-002888"),
                       "option_number": 43, "seats": 7, "effective_from": datetime.datetime(2026, 3, 2, 8, tzinfo=LA)},
               actor_label="test")
    pdf, _ = render(scope)
    texts = pages(pdf)
    postings = "".join(texts[page_of(texts, "Table postings shown during the period"):])
    assert "X-2" in postings and "no limits posted" in postings
    assert "$5.00 to $500.00" in postings
