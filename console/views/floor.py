"""A floor supervisor's pages: every table at a glance, its posting at any moment, signs and batches.

Postings and prints go through signage's services, scoped like the API (cardroom.access via console.access).
"""

import datetime

from django import forms
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from cardroom import forms as strict_forms
from cardroom import permissions
from cardroom.exceptions import BadInput, StateConflict
from cardroom.ordering import natural
from compliance.judgement import day_words, glance_postings, judge_postings
from compliance.models import ValidationRun
from fees.models import TablePosting
from signage import content, printing, render as sign_render, services as sign_services
from signage import postings as sign_postings
from signage.models import SignPrint
from signage.tasks import start_batch

from ..access import establishment_or_404, floor_establishments, page
from ..rows import badge, cell, e, plural, rows_html, td
from ..templatetags.console import money, posted_as, room_time


@page("floor")
def home(request, scope):
    """One establishment: straight to its floor; several: choose."""
    establishments = list(floor_establishments(scope))
    if len(establishments) == 1:
        return redirect("console:floor", establishments[0].slug)
    return render(request, "console/choose.html", {"establishments": establishments, "section": "floor",
                                                   "target": "console:floor"})


def _floor_rows(establishment, now):
    """Each active table with the posting in force now, its judgement now (``compliance.judgement``: what blocks its
    sign, its warnings and the problems coming within 30 days), the override it prints under and its sign's state,
    and the published versions still to come into force (a fixed few queries whatever the tables).

    Plain rows, not model objects: a 200-table floor is read on every look, and building six model objects per
    table cost most of the page's time.
    """
    tables = sorted(establishment.tables.filter(active=True).values_list("pk", "label", named=True),
                    key=lambda t: natural(t.label))
    postings = {p.table_id: p for p in (
        TablePosting.objects.in_force_at(now).filter(table__establishment=establishment, table__active=True)
        .display_rows())}
    judged = glance_postings([p.pk for p in postings.values()], now)
    states = printing.sign_states(postings.values(), now, establishment.zone)
    with_errors = [pk for pk, judgement in judged.items() if judgement.blocked]
    overrides = printing.overrides_in_use(with_errors) if with_errors else {}
    rows = []
    for table in tables:
        posting = postings.get(table.pk)
        judgement = posting and judged.get(posting.pk)
        override = posting and overrides.get(posting.pk)
        rows.append({"table": table, "posting": posting, "judgement": judgement,
                     "errors": len(judgement.errors) if judgement else 0,
                     "warnings": judgement.warnings if judgement else 0,
                     # an error with no approved override: the print gate refuses its sign (signage.postings)
                     "blocked": bool(judgement and judgement.blocked and not override),
                     "override": override, "sign": posting and states[posting.pk]})
    return rows, _upcoming(printing.upcoming_versions(postings.values(), now), rows)


def _upcoming(versions, rows):
    """The floor's "coming into force": for each version to come, the tables whose signs to reprint that day, and
    those whose signs it blocks that day (their judgement finds an error first appearing then), with why."""
    by_label = {r["table"].label: r for r in rows}
    out = []
    for version, labels in versions:
        reprint, blocked = [], []
        for label in labels:
            judgement = by_label[label]["judgement"]
            errors = judgement.errors_on(version.effective_from) if judgement else []
            if errors:
                blocked.append((label, errors))
            else:
                reprint.append(label)
        out.append({"version": version, "tables": _listed(reprint) if reprint else "", "count": len(reprint),
                    "blocked": [{"table": label, "why": "; ".join(errors)}
                                for label, errors in blocked]})
    return out


@page("floor")
def floor(request, establishment, scope):
    establishment = establishment_or_404(floor_establishments(scope), establishment)
    return _floor_page(request, establishment, scope)


def _floor_page(request, establishment, scope, print_error=None, ticked=(), status=200):
    now = timezone.now()
    rows, upcoming = _floor_rows(establishment, now)
    may_print = permissions.allowed(request.user, "signage.print_sign", establishment)
    tables_url, ticked = reverse("console:floor", args=[establishment.slug]) + "tables/", set(ticked)
    for row in rows:
        row["cells"] = _floor_cells(row, establishment, may_print, ticked, tables_url)
    return render(request, "console/floor/floor.html", {
        "section": "floor", "establishment": establishment, "rows": rows, "now": now,
        "may_print": may_print, "rows_html": rows_html(_floor_line(r["cells"], r["posting"], may_print) for r in rows),
        "table_options": cell("".join(f'<option value="{r["table"].pk}">Table {e(r["table"].label)}</option>'
                                      for r in rows)),
        "layouts": sign_render.LAYOUTS,
        "to_reprint": [r for r in rows if r["sign"] and r["sign"]["reprint"] and not r["blocked"]],
        "blocked": [r for r in rows if r["blocked"]],
        "unposted": [r for r in rows if r["posting"] is None],
        "upcoming": upcoming,
        "lookup": LookupForm(tables=[r["table"] for r in rows], zone=establishment.zone),
        "print_error": print_error,
    }, status=status)


def _floor_line(c, posting, may_print):
    """A row of the floor's table, its cells written (``console.rows.rows_html``)."""
    line = [td("Print", c["print"])] if may_print else []
    line.append(td("Table", c["table"]))
    if posting is None:
        return [*line, '<td data-label="Game" colspan="6"><span class="muted">No posting in force.</span></td>']
    return [*line, td("Game", c["game"]), td("Option", c["option"]), td("Minimum", c["minimum"], "num"),
            td("Maximum", c["maximum"], "num"), td("Findings", c["findings"]), td("Sign", c["sign"])]


def _floor_cells(row, establishment, may_print, ticked, tables_url):
    """A row of the floor's table, its cells formatted once here (console.rows): at 200 tables the template took
    ~21 ms of cpu cell by cell, ~8 ms with the cells written here (issue 25)."""
    table, posting, sign = row["table"], row["posting"], row["sign"]
    cells = {"table": cell(f'<a href="{tables_url}{table.pk}/">{e(table.label)}</a>'), "print": ""}
    if may_print and posting:
        cells["print"] = cell(f'<input type="checkbox" name="tables" value="{table.pk}" aria-label="Include table '
                              f'{e(table.label)}"{" checked" if table.pk in ticked else ""}>')
    if posting is None:
        return cells
    findings = ""
    if row["errors"]:
        findings += badge("error", plural(row["errors"], "error")) + " "
    if row["warnings"]:
        findings += badge("warning", plural(row["warnings"], "warning"))
    if not row["errors"] and not row["warnings"]:
        findings = badge("ok", "none")
    for dated in row["judgement"].upcoming if row["judgement"] else ():
        findings += (f'<br><span class="badge {"error" if dated.blocks else "warning"}">from '
                     f'{e(day_words(dated.day))}</span> <span class="small upcoming">{e(dated.message)}'
                     f"</span>")
    if override := row["override"]:
        findings += (f'<br><span class="small override">Prints under an override approved by '
                     f"{e(override.decided_by_name)} on {e(room_time(override.decided_at, establishment))}: "
                     f"“{e(override.reason)}”</span>")
    if row["blocked"]:
        state = (f'{badge("error", "may not print")} <span class="small">until its error is put right or an override '
                 f'is approved</span>')
    elif sign.get("out_of_date") or sign.get("changed"):
        state = f'{badge("error", "out of date")} <span class="small">{e(sign["why"])}</span>'
    elif sign.get("reprint"):
        state = badge("warning", f"to print: {sign['why']}")
    else:
        state = (f'{badge("ok", "current")} <span class="small">printed '
                 f'{e(room_time(sign.get("last_printed"), establishment))}</span>')
    currency = posting.currency
    return {**cells, "game": posting.game__name, "option": posted_as(posting),
            "minimum": money(posting.min_wager, currency), "maximum": money(posting.max_wager, currency),
            "findings": cell(findings), "sign": cell(state)}


def _listed(labels):
    """"2, 7 and 10"."""
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


class LookupForm(forms.Form):
    """"What was posted at table 7 at 02:30 on 3 March": a table, a day and a time in the room's zone."""

    table = forms.TypedChoiceField(coerce=int, error_messages={
        "invalid_choice": "Choose one of this room's tables (%(value)s is not one)."})
    day = strict_forms.DayField(widget=forms.DateInput(attrs={"type": "date"}))
    time = forms.TimeField(widget=forms.TimeInput(attrs={"type": "time"}))

    def __init__(self, *args, tables, zone, **kwargs):
        super().__init__(*args, **kwargs)
        self.zone = zone
        self.fields["table"].choices = [(t.pk, f"Table {t.label}") for t in tables]

    def clean(self):
        data = super().clean()
        if data.get("day") and data.get("time"):  # a time the room's clocks skip or show twice is refused, saying so
            try:
                data["moment"] = strict_forms.local_moment(datetime.datetime.combine(data["day"], data["time"]),
                                                           self.zone)
            except forms.ValidationError as error:
                self.add_error("time", error)
        return data

    def moment(self):
        return self.cleaned_data["moment"]


@page("floor")
def posted_at(request, establishment, scope):
    """What a table showed at a moment: by default as the record stood then (the posting, the schedule version and
    the readings known at that moment: what the sign said), with what a later, retroactive change makes of that
    moment as the record stands now one click away (``?view=now``)."""
    establishment = establishment_or_404(floor_establishments(scope), establishment)
    tables = sorted(establishment.tables.all(), key=lambda t: natural(t.label))
    form = LookupForm(request.GET or None, tables=tables, zone=establishment.zone)
    context = {"section": "floor", "establishment": establishment, "form": form, "at": None,
               "view_asked": request.GET.get("view") if request.GET.get("view") in ("now", "then") else None}
    if form.is_valid():
        at = form.moment()
        table = next(t for t in tables if t.pk == form.cleaned_data["table"])
        # Before the table's record began (its first posting recorded later, back-dated: a room that started
        # recording, the demo), "as it stood then" has no record to read: its postings are those recorded later,
        # and its schedule version the one its sign showed (a retroactive one counts from its publication), as the
        # rounds played then were priced (fees.models.in_force.shown).
        began = table.postings.order_by("created_at").values_list("created_at", flat=True).first()
        before_record = began is not None and began > at
        as_known_now = request.GET.get("view") == "now"
        then = _posted(table, at, shown=True) if before_record else _posted(table, at, known_at=at)
        now = _posted(table, at)
        shown = now if as_known_now else then
        context.update({"at": at, "table": table, "as_known_now": as_known_now, "posting": shown["posting"],
                        "detail": shown["detail"], "differs": _differs(then, now, at),
                        "record_began": began if before_record else None,
                        "other_url": f"{request.path}?{_query(request.GET, view='then' if as_known_now else 'now')}"})
    status = 400 if request.GET and not form.is_valid() else 200
    return render(request, "console/floor/posted_at.html", context, status=status)


def _posted(table, at, known_at=None, shown=False):
    """The posting in force at ``table`` at ``at`` and its detail, as the record stands now or stood at
    ``known_at`` (a posting recorded later, back-dated, left out), or ``shown``: every posting, with the schedule
    version its sign showed (``signage.content.schedule_version``)."""
    postings = TablePosting.objects.all() if known_at is None else TablePosting.objects.filter(created_at__lte=known_at)
    posting = postings.in_force(table, at)
    return {"posting": posting, "detail": posting and _posting_detail(posting, at, known_at=known_at, shown=shown)}


def _differs(then, now, at):
    """What the record as it stands now says of the moment that it did not say then: a sentence, or ""."""
    if (then["posting"] and then["posting"].pk) != (now["posting"] and now["posting"].pk):
        later = now["posting"]
        return (f"A posting recorded later, at {room_time(later.created_at, later.table.establishment)}, applies to "
                f"this moment as the record stands now." if later else
                "As the record stands now, the table had no posting in force then.")
    if not then["detail"]:
        return ""
    sign_then, sign_now = then["detail"]["sign"], now["detail"]["sign"]
    if (sign_then.schedule_version, sign_then.fee_tables) == (sign_now.schedule_version, sign_now.fee_tables):
        return ""
    posting = now["posting"]
    version = content.schedule_version(posting, at)
    if version is not None and version.number != sign_then.schedule_version and version.retroactive:
        establishment = posting.table.establishment
        return (f"Since changed retroactively: {sign_now.schedule_code} v{version.number}, published on "
                f"{timezone.localtime(version.published_at, establishment.zone):%Y-%m-%d}, applies from "
                f"{version.effective_from:%Y-%m-%d}: as the record stands now, this moment's fees are version "
                f"{version.number}'s; the sign showed version {sign_then.schedule_version}'s, and the rounds played "
                f"then were priced under them.")
    return (f"A change recorded later applies to this moment: as the record stands now, its fees are those of "
            f"{sign_now.schedule_code} version {sign_now.schedule_version} (then: version "
            f"{sign_then.schedule_version}, as the sign said).")


def _query(params, **changes):
    query = params.copy()
    for name, value in changes.items():
        query.pop(name, None)
        if value is not None:
            query[name] = value
    return query.urlencode()


def _posting_detail(posting, at, judgement=None, known_at=None, shown=False):
    """The whole posting as the sign showed it: limits, fees, bonus limits, findings when posted (with ``known_at``,
    as the record stood then: the findings of the last check made by that moment), and (given) its judgement now."""
    sign = content.sign_for(posting, at=at, known_at=known_at, shown=shown)
    runs = posting.validation_runs.filter(kind=ValidationRun.Kind.POSTING)
    if known_at is not None:
        runs = runs.filter(created_at__lte=known_at)
    run = runs.order_by("-created_at", "-id").first()
    fee_tables = [{"table": t, "rows": [(row.bounds, sign_render.money(row.fee, sign.currency)) for row in t.rows]}
                  for t in sign.fee_tables]
    return {"sign": sign, "fee_tables": fee_tables, "findings": list(run.findings.order_by("-severity", "id")) if run else [],
            "prints": posting.prints.order_by("-printed_at")[:20], "superseded_by": posting.superseded_by(),
            "judgement": judgement}


@page("floor")
def table(request, establishment, table, scope):
    establishment = establishment_or_404(floor_establishments(scope), establishment)
    table = get_object_or_404(establishment.tables, pk=table)
    now = timezone.now()
    posting = TablePosting.objects.in_force(table, now)
    history = (table.postings.select_related("schedule", "game", "rules", "table__establishment__jurisdiction")
               .order_by("-effective_from")[:20])
    judged = posting and judge_postings([posting], now)[posting.pk]
    override = posting and printing.overrides_in_use([posting.pk]).get(posting.pk)
    # The print gate's own words, before anyone presses a button it would refuse.
    blocked = judged and judged.blocked and override is None and sign_postings.blocked_words(
        judged.error_list(), sign_postings.pending_override(posting))
    return render(request, "console/floor/table.html", {
        "section": "floor", "establishment": establishment, "table": table, "posting": posting, "now": now,
        "detail": posting and _posting_detail(posting, now, judged), "blocked": blocked,
        "history": history,
        "may_print": permissions.allowed(request.user, "signage.print_sign", establishment),
        "layouts": sign_render.LAYOUTS,
        "sign": posting and printing.sign_states([posting], now, establishment.zone)[posting.pk],
        "override": override})


def _layout(request):
    layout = request.POST.get("layout") or request.GET.get("layout") or "letter"
    return layout if layout in sign_render.LAYOUTS else None


@page("floor")
def sign(request, establishment, table, scope):
    """GET: an unrecorded preview, watermarked. POST: print, recorded (the same service as the API)."""
    establishment = establishment_or_404(floor_establishments(scope), establishment)
    table = get_object_or_404(establishment.tables, pk=table)
    layout = _layout(request)
    if layout is None:
        return HttpResponse(f"layout must be one of {', '.join(sign_render.LAYOUTS)}.", status=400,
                            content_type="text/plain")
    posting = TablePosting.objects.in_force(table, timezone.now())
    if posting is None:
        raise Http404(f"Table {table.label} has no posting in force.")
    preview = request.method != "POST"
    try:  # NotAllowed: the 403 page
        rendered, _ = sign_services.print_sign(request.user, posting=posting, layout=layout,
                                               channel=SignPrint.Channel.API, preview=preview)
    except StateConflict as blocked:
        messages.error(request, str(blocked))
        return redirect("console:floor-table", establishment.slug, table.pk)
    name = ("preview-" if preview else "") + printing.filename(establishment, [table], layout)
    response = HttpResponse(rendered.pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'{"inline" if preview else "attachment"}; filename="{name}"'
    return response


@require_POST
@page("floor")
def print_floor(request, establishment, scope):
    """Start a batch of the tables ticked, or of the whole floor (its own button), as one PDF; the job page shows
    its progress. A selection with no table, or with ids that are not this room's, is refused on the floor page."""
    establishment = establishment_or_404(floor_establishments(scope), establishment)
    permissions.require(request.user, "signage.print_sign", establishment)  # NotAllowed: the 403 page
    layout = _layout(request)
    wanted = request.POST.getlist("tables")
    if layout is None or not all(t.isascii() and t.isdigit() for t in wanted):
        return HttpResponse("Choose a layout (letter or tent) and tables by their ids.", status=400,
                            content_type="text/plain")
    ticked = [int(t) for t in wanted]
    whole_floor = request.POST.get("print") == "floor"
    try:
        job = start_batch(request.user, establishment=establishment, layout=layout,
                          tables=None if whole_floor else ticked)
    except BadInput as refused:  # the floor page again, the refusal beside its choice
        return _floor_page(request, establishment, scope, print_error=str(refused), ticked=ticked, status=400)
    return redirect("console:job", job.uuid)


__all__ = ["floor", "home", "posted_at", "print_floor", "sign", "table"]
