"""The report's section on schedule changes: each version published in the period against the version it
replaced, every changed value with the old one struck in red and the new one in green."""

import datetime
from xml.sax.saxutils import escape

from reportlab.lib.units import inch
from reportlab.platypus import CondPageBreak

from fees.engine import diff

from .pdf import H2, NOTE, Col, para, table
from .people import Markup, clipped, local

ROW_LIMIT = 200  # rows of one section; a first version of GEGA-002888 alone is ~5,000 changed values
VERSION_ROW_LIMIT = 60  # changed values shown for one schedule version
OLD_TEXT, NEW_TEXT = "#b03030", "#1d7a35"  # old values struck in red, new ones in green


def changes_section(story, data, counts):
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
        story.append(para("No schedule version was published in the period.", NOTE))
    firsts = [group for group in groups.values() if group["head"]["replaces_version"] is None]
    if firsts:
        # A first version replaces nothing: every value is new, too many to list (the CSV has each one).
        story.append(para("First versions (every value new; each value is in schedule_changes.csv)", H2))
        story += table([
            Col("Schedule", lambda g: g["head"]["code"]), Col("Version", lambda g: g["head"]["version"], right=True),
            Col("Effective", lambda g: g["head"]["effective_from"] or "not stated"),
            Col("Published", lambda g: local(g["head"]["published_at"]) + (
                f" by {g['head']['published_by']}" if g["head"]["published_by"] else "")),
            Col("Retroactive", lambda g: retroactive(versions.get((g["head"]["code"], g["head"]["version"])))),
            Col("Options", lambda g: f"{len(g['options']):,}", right=True),
            Col("Values", lambda g: f"{g['total']:,}", right=True),
        ], firsts, story.width)
    for (code, number), group in groups.items():
        head = group["head"]
        if head["replaces_version"] is None:
            continue
        lines = [f"Effective {head['effective_from'] or 'from a date the source does not state'}; published "
                 f"{local(head['published_at'])}" + (f" by {head['published_by']}" if head["published_by"] else "")
                 + "."]
        reaching_back = retroactive(versions.get((code, number)))
        if reaching_back != "no":
            lines.append(f"Retroactive: {reaching_back}.")
        if head["reason"]:
            lines.append(f"Reason: {clipped(head['reason'])}")
        story.append(CondPageBreak(1.2 * inch))
        story += [para(f"{code} version {number}, replacing version {head['replaces_version']}", H2),
                  para(" ".join(lines), NOTE)]
        rows, option, tier = [], None, None
        for row in group["rows"]:
            # An option and a fee row are named on their first line only, so that the lines read as groups.
            rows.append({"option": row["option"] if row["option"] != option else "",
                         "tier": ("" if (row["option"], row["tier"]) == (option, tier)
                                  else f"row {row['tier']}" if row["tier"] is not None else "the option"),
                         "what": diff.LABELS.get(row["field"].split(".", 1)[1], row["field"]),
                         "old": struck(row["old"]), "new": added(row["new"])})
            option, tier = row["option"], row["tier"]
        story += table([Col("Option", lambda r: r["option"], right=True), Col("Fee row", lambda r: r["tier"]),
                        Col("What", lambda r: r["what"]), Col("Old", lambda r: r["old"]),
                        Col("New", lambda r: r["new"])], rows, story.width,
                       empty=f"Not listed here (the report lists at most {ROW_LIMIT} changed values).")
        if group["total"] > len(rows):
            story.append(para(f"{len(rows):,} of the {group['total']:,} changed values of this version are shown; "
                              "every one is in schedule_changes.csv.", NOTE))


def retroactive(version):
    """Whether a version reaches back before its publication, and why: "no", "yes", "yes: <reason>"."""
    if not version or not version["retroactive"]:
        return "no"
    return f"yes: {version['retroactive_reason']}" if version["retroactive_reason"] else "yes"


def _shown(value):
    return clipped(local(value) if isinstance(value, datetime.datetime) else diff.shown(value))


def struck(value):
    """An old value: struck through, red."""
    if value in (None, ""):
        return Markup("")
    return Markup(f'<font color="{OLD_TEXT}"><strike>{escape(_shown(value))}</strike></font>')


def added(value):
    """A new value: bold, green."""
    if value in (None, ""):
        return Markup("")
    return Markup(f'<font color="{NEW_TEXT}"><b>{escape(_shown(value))}</b></font>')

