"""The report's sections after page 1, each with the columns a person needs, named for people: establishments,
fees, schedule changes and versions, findings, postings, sign prints, approvals, the change history and the files
too big to print."""

from collections import Counter

from cardroom.ordering import natural

from .. import collect
from .changes import ROW_LIMIT, added, changes_section, retroactive, struck
from .figures import buckets, fee_days
from .pdf import H2, NOTE, Col, para, table
from .people import count, local, money
from .summary import SEVERITIES
from .variance import variance_section


def _wagers(row):
    """A posting's table limits; a posting may leave either out (the model allows it), and says so."""
    low, high = row["min_wager"], row["max_wager"]
    if low is None and high is None:
        return "no limits posted"
    low = money(low, row["currency"]) if low is not None else "no minimum posted"
    return f"{low} to {money(high, row['currency']) if high is not None else 'no maximum posted'}"


def _take(rows, limit=ROW_LIMIT, keep=None):
    """The first ``limit`` rows that ``keep`` (all by default), and how many there are in all."""
    shown, total = [], 0
    for row in rows:
        if keep is None or keep(row):
            total += 1
            if len(shown) < limit:
                shown.append(row)
    return shown, total


def _where(several):
    """The table column: "casino-marysville 3" when the export covers several establishments, else "3"."""
    return lambda r: f"{r['establishment']} {r['table']}" if several else r["table"]


def _fees_section(story, data, several):
    story.section("Fees expected vs collected", intro=(
        "Expected: the fees of the rounds played, priced against the posting in force. Collected: the entries "
        "recorded (a corrected entry counts as its correction)."))
    for currency, days in sorted(fee_days(data).items()):
        unit, bars = buckets(days, data.scope.start, data.scope.end)
        rows = [{"label": label, "expected": want, "collected": got} for label, want, got in bars]
        if unit == "day":
            rows = [{"label": day.isoformat(), "expected": w, "collected": g} for day, (w, g) in sorted(days.items())]
        story.append(para(f"Per {'gaming day' if unit == 'day' else unit + ' (from the date shown)'}, all tables", H2))
        story += table([
            Col("Gaming day" if unit == "day" else unit.capitalize(), lambda r: r["label"]),
            Col("Expected", lambda r: money(r["expected"], currency), right=True),
            Col("Collected", lambda r: money(r["collected"], currency), right=True),
            Col("Difference", lambda r: money(r["collected"] - r["expected"], currency, signed=True), right=True),
        ], rows[:ROW_LIMIT], story.width, total=len(rows), file="fees_by_table_day.csv")
    differing, total = _take(data.rows("fees_by_table_day"), keep=lambda r: r["difference"] != 0)
    story.append(para("Table-days where the collected fees differ from the expected", H2))
    story += table([
        Col("Gaming day", lambda r: r["gaming_day"]), Col("Table", _where(several)),
        Col("Expected", lambda r: money(r["expected"], r["currency"]), right=True),
        Col("Collected", lambda r: money(r["collected"], r["currency"]), right=True),
        Col("Difference", lambda r: money(r["difference"], r["currency"], signed=True), right=True),
    ], differing, story.width, total=total, file="fees_by_table_day.csv",
        empty="None: every table collected what was expected.")
    story.append(para(f"Every table and gaming day ({len(data.rows('fees_by_table_day')):,} rows) is in "
                      "fees_by_table_day.csv.", NOTE))


def write(story, data, counts, several):
    """Every section after page 1, in order."""
    scope = data.scope
    est = [Col("Establishment", lambda r: r["establishment"])] if several else []

    story.section("Establishments covered")
    story += table([Col("Name", lambda r: r["name"]), Col("Key", lambda r: r["slug"]),
                    Col("Jurisdiction", lambda r: r["jurisdiction"]),
                    Col("Kind", lambda r: r["kind"].replace("_", " ")), Col("Licence", lambda r: r["licence_number"]),
                    Col("Address", lambda r: r["address"]), Col("Demo data", lambda r: r["is_demo"])],
                   data.rows("establishments"), story.width, empty="None.")
    _fees_section(story, data, several)
    variance_section(story, data, several)
    changes_section(story, data, counts)

    story.section("Collection schedules in force during the period", "landscape", intro=(
        "Every published version that applied on a day of the period; the last column says which one is in force "
        "on its last day (as the record stands now, and as it stood at the end of the period where that differs)."))
    story += table([
        Col("Schedule", lambda r: r["code"]), Col("Title", lambda r: r["title"]),
        Col("Version", lambda r: r["version"], right=True),
        Col("Effective", lambda r: r["effective_from"] or "not stated"),
        Col("Published", lambda r: local(r["published_at"]) + (f" by {r['published_by']}" if r["published_by"]
                                                                else "")),
        Col("Retroactive", retroactive),
        Col("Why", lambda r: r["reason"]), Col("Source", lambda r: r["source"]),
        Col("In force at the end", lambda r: ("yes" if r["in_force_at_end"] else "no") + (
            "" if r["in_force_at_end"] == r["in_force_at_end_as_known_then"]
            else f" (as known then: {'yes' if r['in_force_at_end_as_known_then'] else 'no'})")),
    ], data.rows("schedule_versions"), story.width, file="schedule_versions.csv", empty="None.")

    findings = sorted(data.rows("findings"), key=lambda f: (
        SEVERITIES.index(f["severity"]) if f["severity"] in SEVERITIES else 9, f["run_at"], f["id"]))
    story.section("Validation findings and how they were handled", "landscape", intro=(
        "Findings of the validation runs in the period, errors first."))
    story += table(est + [
        Col("Severity", lambda r: r["severity"]), Col("Found", lambda r: local(r["run_at"]), whole=True),
        Col("About", lambda r: ", ".join(filter(None, [
            f"table {r['table']}" if r["table"] else "", f"posting {r['posting']}" if r["posting"] else "",
            r["schedule"] or "", f"version {r['schedule_version']}" if r["schedule_version"] else "",
            f"option {r['option']}" if r["option"] else ""]))),
        Col("Rule", lambda r: r["rule"]), Col("What was found", lambda r: r["message"]),
        Col("Source of the rule", lambda r: r["citation"]),
        Col("Handled", lambda r: (f"Acknowledged {local(r['acknowledged_at'])} by {r['acknowledged_by']}: "
                                  f"{r['acknowledgement_reason'] or ''}") if r["acknowledged_at"] else "Open"),
    ], findings[:ROW_LIMIT], story.width, total=len(findings), file="findings.csv")

    postings = sorted(data.rows("postings"), key=lambda r: (r["establishment"], natural(r["table"]),
                                                            r["effective_from"]))  # floor order: 2 before 10
    story.section("Table postings shown during the period", "landscape", intro=(
        "What each table's sign said: the posting in force at the start of the period and each one after it."))
    story += table([
        Col("Table", _where(several)), Col("Game", lambda r: r["game"]),
        Col("Schedule", lambda r: f"{r['schedule']} option {r['option']}" if r["schedule"] else (
            f"house rules {r['rules'] or ''}" + (f", {r['decks']} decks" if r["decks"] else ""))),
        Col("Wagers", _wagers),
        Col("Seats", lambda r: r["seats"], right=True),
        Col("Bonus limits", lambda r: "; ".join(filter(None, [r["bonus_limits"], (
            f"aggregate payout limit {money(r['aggregate_payout_limit'], r['currency'])}"
            if r["aggregate_payout_limit"] is not None else "")]))),
        Col("From", lambda r: local(r["effective_from"]), whole=True),
        Col("Until", lambda r: local(r["superseded_at"]), whole=True),
        Col("Findings when saved", lambda r: ", ".join(filter(None, [
            count(r["errors"], "error") if r["errors"] else "", count(r["warnings"], "warning")
            if r["warnings"] else ""])) or "none"),
        Col("Printed under override", lambda r: (
            f"{r['override_reason']} (asked by {r['override_by']}, approved by {r['override_approved_by']})"
            if r["override_reason"] else "")),
        Col("Notes", lambda r: r["notes"]),
    ], postings[:ROW_LIMIT], story.width, total=len(postings), file="postings.csv")

    prints = data.rows("sign_prints")
    story.section("Signs printed and reprinted", "landscape")
    story += table([
        Col("Printed", lambda r: local(r["printed_at"]), whole=True), Col("Table", _where(several)),
        Col("Posting", lambda r: r["posting"], right=True),
        Col("Schedule", lambda r: f"{r['schedule']} option {r['option']}" if r["schedule"] else "house rules"),
        Col("Print", lambda r: f"reprint (print {r['number']})" if r["reprint"] else "first print"),
        Col("Layout", lambda r: r["layout"]), Col("Channel", lambda r: r["channel"]),
        Col("By", lambda r: r["printed_by"]), Col("Batch job", lambda r: (r["job"] or "")[:8]),
        Col("Under override", lambda r: r["override_reason"]),
    ], prints[:ROW_LIMIT], story.width, total=len(prints), file="sign_prints.csv")

    approvals = data.rows("approvals")
    story.section("Game approvals", "landscape")
    story += table([
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
    story.append(para("Conditions of those approvals", H2))
    conditions = data.rows("approval_conditions")
    story += table([
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
        + (("Records created (" + ", ".join(f"{count(n, what)}" for what, n in sorted(created.items()))
            + ") are not listed; they are in history.csv.") if created else "")))
    story += table([
        Col("When", lambda r: local(r["at"]), whole=True), Col("By", lambda r: r["by"] or "system"),
        Col("What", lambda r: f"{r['object']} id {r['object_id']}"), Col("Change", lambda r: r["change"]),
        Col("Field", lambda r: r["field"]), Col("Old", lambda r: struck(r["old"])),
        Col("New", lambda r: added(r["new"])), Col("Reason", lambda r: r["reason"]),
    ], edits, story.width, total=total, file="history.csv", empty="No edits in the period.")

    story.section("Ledger, rounds and audit log", "portrait", intro=(
        "These are too many to print: their rows are in the files below, and are summed in the fees pages."))
    big = [kind for kind in collect.KINDS if kind.big]
    story += table([Col("What", lambda k: k.title), Col("Rows", lambda k: f"{counts.get(k.name, 0):,}", right=True),
                    Col("File", lambda k: f"{k.name}.csv")], big, story.width)
    story.append(para(f"Ledger entries up to id {scope.last_entry:,} and rounds up to id {scope.last_round:,} "
                      "were read: the export's fixed end (manifest: last_ids).", NOTE))
    story.append(para("Every file of the bundle", H2))
    files = [(k.title, counts.get(k.name, 0), f"{k.name}.csv") for k in collect.KINDS]
    files.append((collect.PRICINGS_TITLE, counts.get("round_pricings", 0), collect.PRICINGS_FILE))
    story += table([Col("What", lambda f: f[0]), Col("Rows", lambda f: f"{f[1]:,}", right=True),
                    Col("File", lambda f: f[2])], files, story.width)

