"""Page 1 of the report: what the export covers, what was in force and what changed, fees, findings, signs and
the audit chains, with how to check the bundle."""

import datetime
from collections import Counter
from decimal import Decimal
from xml.sax.saxutils import escape

from cardroom.moments import abbreviations
from fees.models import ScheduleVersion

from .figures import buckets, chart, fee_days
from .pdf import BODY, GAP, H2, LEAD, NOTE, SUBTITLE, TITLE, Col, facts, para, rich, side_by_side, table
from .people import count, local, money, zone

SUMMARY_LIMIT = 14  # schedules (and establishments, chains) listed on page 1; the rest are in the sections
SEVERITIES = ("error", "warning", "info")


def title(scope):
    period = f"{scope.start} to {scope.end}" if scope.start else f"as of {scope.end}"
    return f"Audit export: {_where_title(scope)}, {period}"


def _where_title(scope):
    """Who the export is of, by name: the room (or rooms), or the jurisdiction."""
    if scope.jurisdiction is not None:
        return scope.jurisdiction.name
    names = [e.name for e in scope.establishments]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _period(scope):
    if scope.start is None:
        return f"from the first record to {scope.end} (as of {scope.end})"
    days = (scope.end - scope.start).days + 1
    return f"{scope.start} to {scope.end} ({count(days, 'gaming day')})"


def _in_period(scope, moment):
    return moment is not None and scope.start_moment <= datetime.datetime.fromisoformat(moment) < scope.end_moment


def checkpoint_file(chain):
    # The name cardroom.transparency.export_files gives a chain's signed checkpoint in the bundle.
    return f"checkpoints/{chain.replace(':', '-')}.txt"


def write(story, data, counts, generated_at, requested_by):
    """Page 1: what the export covers, what was in force and what changed, fees, findings, signs, audit chains."""
    scope = data.scope
    names = "/".join(abbreviations(scope.start_moment, scope.end_moment - datetime.timedelta(microseconds=1), zone()))
    story.append(para(title(scope), TITLE))
    story.append(para(f"Generated {local(generated_at)}" + (f" for {requested_by}" if requested_by else "")
                      + f". Times are in the room's zone, {zone().key} ({names}); gaming days are local days.",
                      SUBTITLE))
    establishments = data.rows("establishments")
    where = "; ".join(f"{e['name']} ({e['slug']}, {e['jurisdiction']}"
                      + (f", licence {e['licence_number']}" if e["licence_number"] else "")
                      + (", demo" if e["is_demo"] else "") + ")" for e in establishments[:SUMMARY_LIMIT])
    if len(establishments) > SUMMARY_LIMIT:
        where += f"; and {len(establishments) - SUMMARY_LIMIT:,} more (establishments.csv)"
    if scope.jurisdiction is not None:
        where = f"Every establishment of {scope.jurisdiction.code}: {where}"
    # A closed month is carried whole, as its closing sealed it: why its rows reach beyond the period (exports.closed).
    carried = [("Closed months", " ".join(scope.closed_notes))] if getattr(scope, "closed_notes", None) else []
    story.append(facts([("Establishments", where or "none"), ("Period", _period(scope))] + carried, story.width))
    _in_force_and_changed(story, data, counts)
    _fees(story, data)
    story.append(side_by_side([_findings(data, story.width), _signs_and_chains(data, counts)], story.width))
    story.append(rich("The manifest lists every file with its SHA-256 and is signed with the installation's Ed25519 "
                      "key. Check the bundle yourself, offline, with the verifier: <i>python -m cardroom.tlog --keys "
                      "keys.json --trust SHA256:... --origin ... export bundle.zip</i> (add <i>--kept</i> with "
                      "checkpoints you kept earlier). <b>Keep the installation's fingerprint</b> (SHA256:..., the keys "
                      "file's root) <b>and its log's name</b> (the keys file's origin) from when you first received "
                      "its keys, by a channel you trust, and give them with <i>--trust</i> and <i>--origin</i>: "
                      "anyone can write a keys file or a report naming others, so without them the verifier says NOT "
                      "CHECKED, never HOLDS. The verifier is plain Python 3.11 with the <i>cryptography</i> package: "
                      "cardroom/tlog/, "
                      "bundle/, merkle.py, checkpoint.py and chain.py of the cardroom source "
                      "(docs/audit.md); the keys file is the installation's GET /api/v1/audit/keys. Every row and "
                      "column is in the CSV files (columns.json describes them); the pages after this one "
                      "show them for reading.", NOTE))


def _in_force_and_changed(story, data, counts):
    """What was in force at the end (two lists side by side: page 1 must hold it all), and what changed."""
    scope = data.scope
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
    story.append(para("Schedules in force at the end of the period", H2))
    if len(shown) > 6:
        story.append(side_by_side([table(columns, shown[:half], (story.width - GAP) / 2),
                                   table(columns, shown[half:], (story.width - GAP) / 2)], story.width))
    else:
        story += table(columns, shown, story.width, empty="No published schedule applies.")
    if any(not v["in_force_at_end_as_known_then"] for v in in_force):
        story.append(para("Published later: published after the period ended, so the record at its end showed "
                          "another version (or none) in force.", NOTE))
    if len(in_force) > len(shown):
        story.append(para(f"And {len(in_force) - len(shown):,} more: see the schedules in force, and "
                          "schedule_versions.csv.", NOTE))
    postings = data.rows("postings")
    started = sum(1 for p in postings if _in_period(scope, p["effective_from"]))
    story.append(rich(
        f"<b>Changed in the period:</b> {count(published.count(), 'schedule version')} published"
        f" ({published.filter(retroactive=True).count():,} retroactive), changing "
        f"{count(counts.get('schedule_changes', 0), 'value')}; {count(started, 'table posting')} took effect "
        f"({len(postings):,} shown in the period); {count(counts.get('history', 0), 'change-history record')}.",
        LEAD))


def _fees(story, data):
    story.append(para("Fees expected vs collected", H2))
    days_of = fee_days(data)
    if not days_of:
        story.append(para("No rounds or collections in the period.", BODY))
    for currency, days in sorted(days_of.items()):
        want = sum((w for w, _ in days.values()), Decimal("0.00"))
        got = sum((g for _, g in days.values()), Decimal("0.00"))
        differences = [r["difference"] for r in data.rows("fees_by_table_day") if r["currency"] == currency]
        short, over = sum(1 for d in differences if d < 0), sum(1 for d in differences if d > 0)
        story.append(rich(f"Expected <b>{money(want, currency)}</b>, collected <b>{money(got, currency)}</b>, "
                          f"difference <b>{money(got - want, currency, signed=True)}</b>. "
                          f"{count(len(days), 'gaming day')} with play; {count(short, 'table-day')} collected "
                          f"short, {over:,} over.", BODY))
        story.append(chart(*buckets(days, data.scope.start, data.scope.end), currency, story.width))


def _findings(data, width):
    tally = {s: Counter() for s in SEVERITIES}
    for f in data.rows("findings"):
        tally.setdefault(f["severity"], Counter()).update(["all", "acknowledged" if f["acknowledged_at"] else "open"])
    lines = [{"severity": s, **tally[s]} for s in tally] + [{"severity": "total", **sum(tally.values(), Counter())}]
    return [para("Findings and how they were handled", H2)] + table([
        Col("Severity", lambda r: r["severity"]), Col("Findings", lambda r: f"{r.get('all', 0):,}", right=True),
        Col("Acknowledged", lambda r: f"{r.get('acknowledged', 0):,}", right=True),
        Col("Still open", lambda r: f"{r.get('open', 0):,}", right=True)], lines, (width - GAP) / 2)


def _signs_and_chains(data, counts):
    scope = data.scope
    prints = data.rows("sign_prints")
    reprints = sum(1 for p in prints if p["reprint"])
    overridden = sum(1 for p in prints if p["override_reason"])
    out = [para("Signs printed", H2), para(
        f"{count(len(prints), 'sign')} printed: {len(prints) - reprints:,} first "
        f"{'print' if len(prints) - reprints == 1 else 'prints'}, {count(reprints, 'reprint')}; "
        f"{overridden:,} under a compliance override of error findings." if prints else
        "No sign printed in the period.", BODY)]
    out.append(para("Audit log covered", H2))
    heads = sorted(scope.chain_heads.items())
    for chain_name, (sequence, digest) in heads[:SUMMARY_LIMIT]:
        out.append(rich(f"Chain <b>{escape(chain_name)}</b> up to entry {sequence:,} (hash {digest[:12]}...): "
                        + (f"signed checkpoint in {checkpoint_file(chain_name)}." if sequence else "no entries yet."),
                        BODY))
    if len(heads) > SUMMARY_LIMIT:
        out.append(para(f"And {len(heads) - SUMMARY_LIMIT:,} more chains (manifest.json, checkpoints/).", BODY))
    out.append(para(f"{count(counts.get('audit_log', 0), 'audit-log entry', 'audit-log entries')} in the period "
                    "(audit_log.csv).", BODY))
    return out
