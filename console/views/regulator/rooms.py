"""The regulator's establishments: every one of their jurisdiction(s) at a glance, and one establishment's tables
and postings, findings (a page at a time), approvals and fees."""

from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import capfirst

from cardroom.conditions import conditions_at
from cardroom.models import Approval, ConditionFulfilment
from cardroom.ordering import natural
from compliance import inbox
from compliance.judgement import day_words, glance_postings
from compliance.models import Finding
from fees.models import TablePosting
from signage import printing

from ...access import establishment_or_404, page, regulated_establishments
from ...rows import badge, cell, e, plural, rows_html, td
from ...templatetags.console import cited, money, posted_as, room_time, rule_title
from .forms import MonthForm
from .ledger import fees_month

FINDINGS_PAGE_SIZE = 50
HANDLED_SHOWN = 25


@page("regulator")
def home(request, scope):
    """Every establishment of the jurisdiction(s): tables posted and error findings open (a fixed few queries)."""
    now = timezone.now()
    establishments = list(regulated_establishments(scope).order_by("jurisdiction__name", "name")
                          .annotate(active_tables=Count("tables", filter=Q(tables__active=True))))
    posted = dict(TablePosting.objects.in_force_at(now)
                  .filter(table__establishment__in=establishments, table__active=True)
                  .values("table__establishment").annotate(n=Count("id")).values_list("table__establishment", "n"))
    errors = inbox.open_errors(establishments, now)
    rows = [{"establishment": e, "posted": posted.get(e.pk, 0), "open_errors": errors.get(e.pk, 0)}
            for e in establishments]
    return render(request, "console/regulator/home.html", {
        "section": "regulator", "rows": rows, "now": now,
        "several": len({e.jurisdiction_id for e in establishments}) > 1})


def _approvals(establishment):
    """The approvals that apply: the establishment's own and its jurisdiction's (as in the audit export); each
    condition carries ``here``, where it stands at this establishment (cardroom.conditions.conditions_at)."""
    here = Q(establishment=establishment) | Q(establishment__isnull=True, jurisdiction=establishment.jurisdiction_id)
    records = ConditionFulfilment.objects.filter(establishment=establishment).select_related("recorded_by")
    approvals = list(Approval.objects.filter(here).select_related("game")
                     .prefetch_related(Prefetch("conditions__fulfilments", queryset=records))
                     .order_by("game__name", "key"))
    for _, at in conditions_at(establishment, approvals):
        for row in at:
            row["condition"].here = row
    return approvals


@page("regulator")
def establishment(request, establishment, scope):
    establishment = establishment_or_404(regulated_establishments(scope), establishment)
    now = timezone.now()
    # The ledger's figures count tables since retired too; plain rows, as every look reads 200 of them.
    every_table = list(establishment.tables.values_list("pk", "label", "active", named=True))
    tables = sorted((t for t in every_table if t.active), key=lambda t: natural(t.label))
    in_force = {p.table_id: p for p in TablePosting.objects.in_force_at(now)
                .filter(table__establishment=establishment, table__active=True).display_rows()}
    kept = inbox.standing(establishment, now)  # as the compliance officers' inbox shows them
    handled_q = Q(finding__acknowledged_at__isnull=False)
    per_table = {row.pop("table_id"): row for row in (  # per table: errors and warnings open, and those acknowledged
        kept.exclude(severity=Finding.Severity.INFO).filter(table__isnull=False).order_by().values("table_id")
        .annotate(error=Count("pk", filter=Q(severity=Finding.Severity.ERROR) & ~handled_q),
                  warning=Count("pk", filter=Q(severity=Finding.Severity.WARNING) & ~handled_q),
                  acknowledged=Count("pk", filter=handled_q)))}
    counts = inbox.standing_counts(kept)
    # Errors first, then warnings, then notes; a 200-table room stands on hundreds: a page at a time.
    findings = Paginator(kept.order_by("position"), FINDINGS_PAGE_SIZE).get_page(request.GET.get("findings"))
    # The overrides the signs print under, shown beside the postings and the error findings they override.
    # Each table as it stands now (compliance.judgement: what blocks its sign, as the floor and the print gate read
    # it), beside what the runs found and how it was handled.
    judged = glance_postings([p.pk for p in in_force.values()], now)
    overrides = printing.overrides_in_use(p.pk for p in in_force.values()
                                          if p.table_id in per_table or judged[p.pk].blocked)
    rows = [{"table": t, "posting": in_force.get(t.pk), "findings": per_table.get(t.pk),
             "judgement": t.pk in in_force and judged[in_force[t.pk].pk],
             "override": t.pk in in_force and overrides.get(in_force[t.pk].pk)} for t in tables]
    for row in rows:
        row["cells"] = _posting_cells(row, establishment)
    finding_rows = [_finding_cells(f, overrides.get(f.posting_id) if f.severity == Finding.Severity.ERROR else None,
                                   establishment) for f in inbox.shown(findings.object_list)]
    month_form = MonthForm(request.GET or None)
    fees = fees_month(establishment, every_table, month_form)
    if not month_form.is_bound or not month_form.errors:
        month_form = MonthForm(initial={"month": fees["first"].strftime("%Y-%m")})
    for day in fees["days"]:
        day["cells"] = _fee_day_cells(day)
    handled = (Finding.objects.filter(establishment=establishment, acknowledged_at__isnull=False)
               .select_related("acknowledged_by", "table", "run").order_by("-acknowledged_at", "-id")[:HANDLED_SHOWN])
    return render(request, "console/regulator/establishment.html", {
        "section": "regulator", "establishment": establishment, "now": now, "rows": rows,
        "unposted": sum(1 for r in rows if r["posting"] is None),
        "rows_html": rows_html(_posting_line(r) for r in rows),
        "findings": findings, "finding_rows": finding_rows, "finding_rows_html": rows_html(
            [td("Severity", c["severity"]), td("Where", c["where"]), td("Rule", c["rule"]),
             td("What was found", c["found"]), td("Found", c["found_at"], "nowrap"), td("Handled", c["handled"])]
            for c in finding_rows),
        "infos": counts["info"]["open"] + counts["info"]["acknowledged"], "open_errors": counts["error"]["open"],
        "handled": [_handled_cells(f, establishment) for f in handled],
        "approvals": list(_approvals(establishment)),
        "month_form": month_form, "fees": fees, "fee_rows_html": rows_html(_fee_day_line(d) for d in fees["days"]),
    }, status=400 if month_form.is_bound and month_form.errors else 200)


# The page's long tables, their cells formatted once here (console.rows): at 200 tables the template took ~23 ms of
# cpu cell by cell, ~9 ms with the cells written here (issue 25). The words are the ones the template wrote.

def _posting_line(row):
    """A row of the postings' table, its cells written (``console.rows.rows_html``)."""
    head = f'<th scope="row" data-label="Table">{e(row["table"].label)}</th>'
    c = row["cells"]
    if c is None:
        return [head, '<td data-label="Game" colspan="7"><span class="muted">No posting in force.</span></td>']
    return [head, td("Game", c["game"]), td("Schedule option", c["option"]), td("Minimum", c["minimum"], "num"),
            td("Maximum", c["maximum"], "num"), td("Seats", c["seats"], "num"),
            td("In force since", c["since"], "nowrap"), td("Findings", c["findings"])]


def _fee_day_line(day):
    """A gaming day of the fees' table, its cells written."""
    c = day["cells"]
    return [f'<th scope="row" class="nowrap plain">{e(day["label"])}</th>', f'<td class="num">{e(c["expected"])}</td>',
            f'<td class="num">{e(c["collected"])}</td>',
            f'<td class="num nowrap{c["short"]}">{e(day["difference_text"])}</td>',
            f'<td class="num nowrap">{c["variance"]}</td>']


def _posting_cells(row, establishment):
    """A table's posting in force, its findings counted and the override its sign prints under."""
    posting, counts, override, judgement = row["posting"], row["findings"], row["override"], row["judgement"]
    if posting is None:
        return None
    badges = ""
    now = {"error": len(judgement.errors), "warning": judgement.warnings}  # as the table stands now
    for kind in ("error", "warning"):
        if now[kind]:
            badges += badge(kind, plural(now[kind], kind)) + " "
    if counts and counts["acknowledged"]:
        badges += badge("info", f"{counts['acknowledged']} acknowledged")
    if not badges:
        badges = badge("ok", "none")
    for dated in judgement.upcoming:
        badges += (f'<br>{badge("error" if dated.blocks else "warning", f"from {day_words(dated.day)}")} '
                   f'<span class="small">{e(dated.message)}</span>')
    if override:
        badges += (f'<br><span class="small override">Its sign prints under an override approved by '
                   f'{e(override.decided_by_name)} on {e(room_time(override.decided_at, establishment))}: '
                   f'“{e(override.reason)}”</span>')
    currency = posting.currency
    return {"game": posting.game__name, "option": posted_as(posting), "seats": posting.seats,
            "minimum": money(posting.min_wager, currency), "maximum": money(posting.max_wager, currency),
            "since": room_time(posting.effective_from, establishment), "findings": cell(badges)}


def _finding_cells(f, override, establishment):
    """A standing finding (compliance.inbox.InboxFinding) and the override its posting prints under."""
    where = f"Table {f.table_label}" if f.table_label else f.schedule_code or "—"
    found = e(f.message) + (f'<br><span class="small muted">{e(cited(f.citation))}</span>' if f.citation else "")
    if f.acknowledged:
        handled = (f"Acknowledged by {e(f.acknowledged_by_name or '—')}, "
                   f"{e(room_time(f.acknowledged_at, establishment))}: {e(f.acknowledgement_reason)}")
    else:
        handled = f'<span class="{"error" if f.severity == "error" else "warning"}">Open</span>'
        if earlier := f.earlier:
            handled += (f'<br><span class="small">Found again; acknowledged before by '
                        f"{e(earlier.acknowledged_by_name or '—')}, "
                        f"{e(room_time(earlier.acknowledged_at, establishment))}: "
                        f"{e(earlier.acknowledgement_reason)}</span>")
    if override:
        handled += (f'<br><span class="small override">Overridden for printing: asked for by '
                    f"{e(override.requested_by_name)} (“{e(override.reason)}”), approved by "
                    f"{e(override.decided_by_name)} on "
                    f"{e(room_time(override.decided_at, establishment))}.</span>")
    return {"severity": cell(badge(f.severity, capfirst(f.severity))), "where": where,
            "rule": rule_title(f.rule), "found": cell(found), "found_at": room_time(f.found_at, establishment),
            "handled": cell(handled)}


def _handled_cells(f, establishment):
    """An acknowledged finding (a Finding)."""
    return {"at": room_time(f.acknowledged_at, establishment),
            "by": (f.acknowledged_by.get_username() if f.acknowledged_by else "") or "—",
            "severity": cell(badge(f.severity, capfirst(f.severity))),
            "table": (f.table.label if f.table else "") or "—",
            "found": cell(f'{e(f.message)}<br><span class="small muted">{e(rule_title(f.rule))}, found '
                          f"{e(room_time(f.run.created_at, establishment))}</span>"),
            "reason": f.acknowledgement_reason}


def _fee_day_cells(day):
    """A gaming day of the fees' table (console.views.regulator.ledger.fees_month)."""
    reconciled = day["reconciled"]
    if reconciled:
        variance = (f'<span class="{"warning" if reconciled["variance"] else "ok"}">'
                    f'{reconciled["variance"]} of {reconciled["tables"]}</span>')
    else:
        variance = '<span class="muted">not reconciled</span>'
    return {"expected": money(day["expected"], day["currency"]), "collected": money(day["collected"], day["currency"]),
            "short": " error" if day["difference"] < 0 else "", "variance": cell(variance)}
