"""Postings in force and to come with their latest check, and print overrides: asked for by one officer,
approved or refused by a second, or withdrawn (signage.services)."""

from urllib.parse import quote

from django.contrib import messages
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe

from cardroom import permissions, review
from cardroom.exceptions import BadInput, StateConflict
from cardroom.forms import show_error
from cardroom.models import Table
from cardroom.ordering import natural
from compliance.judgement import day_words, glance_postings, judge_postings
from fees.models import TablePosting
from fees.models.postings import posted_as as describe
from signage import services as signage_services
from signage.models import PrintOverride
from signage.reviews import OVERRIDE

from ...access import page
from ...rows import e as _e, plural as _plural, rows_html, td
from ...templatetags.console import money, posted_as, room_time
from .base import render_page, room_or_404
from .forms import OverrideForm


def posting_rows(establishment, now):
    """Each posting in force now or to come at the establishment, with its judgement (``compliance.judgement``: now,
    or as of its first moment for one to come, and the problems coming within 30 days), the print override approved
    for its errors and the one awaiting a second officer (a fixed few queries; plain rows, as the floor's)."""
    order = {pk: i for i, (pk, label) in enumerate(sorted(
        Table.objects.filter(establishment=establishment, active=True).values_list("pk", "label"),
        key=lambda t: natural(t[1])))}
    in_force = TablePosting.objects.in_force_at(now).filter(table__establishment=establishment).values("pk")
    postings = sorted(
        TablePosting.objects.filter(table__in=list(order)).filter(Q(pk__in=in_force) | Q(effective_from__gt=now))
        .display_rows(),
        key=lambda p: (order[p.table_id], p.effective_from))
    judged = glance_postings([p.pk for p in postings], now)
    overrides = {}
    for answer in (PrintOverride.objects.filter(posting__in=[p.pk for p in postings])
                   .exclude(status=PrintOverride.Status.REFUSED)
                   .values("posting_id", "status", "requested_at", "requested_by_id", "requested_by__username",
                           "reason", "decided_at", "decided_by__username", "decision_reason")):
        overrides.setdefault((answer["posting_id"], answer["status"]), answer)  # newest first (the model's ordering)
    rows = []
    for posting in postings:
        judgement = judged[posting.pk]
        found = list(judgement.errors)
        granted = overrides.get((posting.pk, PrintOverride.Status.APPROVED)) if found else None
        rows.append({"posting": posting, "judgement": judgement, "errors": found, "error_count": len(found),
                     "warnings": judgement.warnings, "upcoming_problems": judgement.upcoming,
                     "override": granted,
                     "pending": overrides.get((posting.pk, PrintOverride.Status.REQUESTED)) if found and not granted
                     else None,
                     "upcoming": posting.effective_from > now, "blocked": bool(found) and granted is None})
    return rows


def _posting_cells(row, establishment, user, may_override, urls):
    """A row of the postings table, its cells formatted once here: 200 rows cell by cell in the template cost
    ~0.3 ms each (issue 25). Each cell is HTML with every value escaped."""
    posting, zone = row["posting"], establishment
    if posting.schedule__code:
        code, number = posting.schedule__code, posting.option_number
        href = f'{urls["schedules"]}{_e(quote(code))}/?option={number}'
        option = f'<a href="{href}">{_e(code)} option {number}</a>'
    else:
        option = _e(posted_as(posting))
    badges = []
    if row["error_count"]:
        badges.append(f'<span class="badge error">{_plural(row["error_count"], "error")}</span>')
    if row["warnings"]:
        badges.append(f'<span class="badge warning">{_plural(row["warnings"], "warning")}</span>')
    check = " ".join(badges) or '<span class="badge ok">no error or warning</span>'
    check += "".join(f'<br><span class="small">{_e(error)}</span>' for error in row["errors"])
    check += "".join(f'<br><span class="badge {"error" if dated.blocks else "warning"}">from '
                     f'{_e(day_words(dated.day))}</span> <span class="small">{_e(dated.message)}</span>'
                     for dated in row["upcoming_problems"])
    link = f"{urls['postings']}{posting.pk}/override/"
    if row["override"]:
        granted = row["override"]
        printing = (f'<span class="badge ok">overridden</span> <span class="small">asked by '
                    f'{_e(granted["requested_by__username"])}: “{_e(granted["reason"])}”; approved '
                    f'{_e(room_time(granted["decided_at"], zone))} by {_e(granted["decided_by__username"])}: '
                    f'“{_e(granted["decision_reason"])}”</span>')
    elif row["pending"]:
        printing = '<span class="badge warning">blocked: override awaiting a second officer</span>'
        if may_override:
            mine = row["pending"]["requested_by_id"] == user.pk
            printing += f' <a href="{link}">{"Yours, awaiting…" if mine else "Approve or refuse…"}</a>'
    elif row["blocked"]:
        printing = '<span class="badge error">blocked</span>'
        if may_override:
            printing += f' <a href="{link}">Ask for an override…</a>'
    else:
        printing = '<span class="badge ok">may print</span>'
    if blocked_from := row["judgement"].blocked_from:
        printing += f' <span class="small">(blocked from {_e(day_words(blocked_from))})</span>'
    upcoming = ' <span class="tag">to come</span>' if row["upcoming"] else ""
    limits = f"{money(posting.min_wager, posting.currency)} to {money(posting.max_wager, posting.currency)}"
    return {"table": mark_safe(_e(posting.table__label) + upcoming), "from": room_time(posting.effective_from, zone),
            "option": mark_safe(f'{option} <span class="small">{_e(posting.game__name)}</span>'),
            "limits": limits, "check": mark_safe(check), "printing": mark_safe(printing)}


HISTORY_FIELDS = ("status", "requested_at", "reason", "findings", "decided_at", "decision_reason",
                  "requested_by__username", "decided_by__username", "posting__table__label", "posting__effective_from",
                  "posting__schedule__code", "posting__option_number", "posting__rules__version", "posting__decks")


def _history_cells(override, establishment):
    """A row of the overrides asked for (one of ``HISTORY_FIELDS``' rows: plain values, as the postings'), formatted
    once."""
    zone = establishment
    status = override["status"]
    badge = {"approved": "ok", "refused": "error"}.get(status, "warning")
    answer = f'<span class="badge {badge}">{_e(PrintOverride.Status(status).label)}</span>'
    if override["decided_by__username"] is not None:
        answer += (f" {_e(room_time(override['decided_at'], zone))} by {_e(override['decided_by__username'])}: "
                   f"{_e(override['decision_reason'])}")
    posted = describe(override["posting__schedule__code"], override["posting__option_number"],
                      override["posting__rules__version"], override["posting__decks"])
    return {
        "asked": room_time(override["requested_at"], zone),
        "posting": f"Table {override['posting__table__label']}, {posted} from "
                   f"{room_time(override['posting__effective_from'], zone)}",
        "by": f"{override['requested_by__username']}: {override['reason']}",
        "answer": mark_safe(answer),
        "errors": mark_safe("<br>".join(_e(e["message"]) for e in override["findings"])),
    }


@page("compliance")
def postings(request, establishment, scope):
    """Postings in force and to come, their findings and print overrides; the overrides awaiting a second officer;
    every override asked for, approved or refused, with the reasons."""
    establishment = room_or_404(scope, establishment)
    now = timezone.now()
    rows = posting_rows(establishment, now)
    may_override = permissions.allowed(request.user, "signage.override_print", establishment)
    urls = {"schedules": reverse("console:compliance-schedules", args=[establishment.slug]),
            "postings": reverse("console:compliance-postings", args=[establishment.slug])}
    for row in rows:
        row["cells"] = _posting_cells(row, establishment, request.user, may_override, urls)
    lines = [[td("Table", c["table"]), td("From", c["from"]), td("Option", c["option"]),
              td("Limits", c["limits"], "num"), td("Check", c["check"]), td("Printing", c["printing"])]
             for c in (r["cells"] for r in rows)]
    history = [_history_cells(o, establishment) for o in
               PrintOverride.objects.filter(posting__table__establishment=establishment).values(*HISTORY_FIELDS)[:100]]
    answered = [[td("Asked", o["asked"]), td("Posting", o["posting"]), td("Asked by", o["by"]),
                 td("Answer", o["answer"]), td("Errors", o["errors"], "small")] for o in history]
    return render_page(request, "postings.html", establishment, {
        "rows": rows, "rows_html": rows_html(lines), "history": history, "history_html": rows_html(answered),
        "pending": [r for r in rows if r["pending"]], "now": now,
        "may_override": may_override})


OVERRIDE_STEPS = {  # step: (service, what is said once it is done)
    "request": (signage_services.request_override, "an override is asked for; the sign may be printed once a "
                                                   "second compliance officer approves it."),
    "approve": (signage_services.approve_override, "the override is approved: the sign may now be printed; your "
                                                   "reason is recorded."),
    "refuse": (signage_services.refuse_override, "the override is refused: the sign stays blocked; your reason is "
                                                 "recorded."),
    "withdraw": (signage_services.withdraw_override, "the request is withdrawn: the sign stays blocked; your reason "
                                                     "is recorded."),
}


@page("compliance")
def override_posting(request, establishment, posting, scope):
    """Print a posting with error findings anyway: one officer asks, with a reason; a second one (not the asker)
    approves or refuses it, with theirs (signage's override services)."""
    establishment = room_or_404(scope, establishment)
    posting = get_object_or_404(TablePosting.objects.filter(table__establishment=establishment)
                                .select_related("table__establishment__jurisdiction", "schedule", "rules", "game"),
                                pk=posting)
    permissions.require(request.user, signage_services.OVERRIDE_PRINT, establishment)
    form = OverrideForm(request.POST or None)
    status = 200
    if request.method == "POST":
        service, done = OVERRIDE_STEPS.get(request.POST.get("step") or "request", (None, ""))
        if service is None:
            form.add_error(None, "Choose to ask for an override, or to approve or refuse the one asked for.")
            status = 400
        elif form.is_valid():
            try:
                service(request.user, posting=posting, reason=form.cleaned_data["reason"])
            except (BadInput, StateConflict) as error:
                status = show_error(form, error)
            else:
                messages.success(request, f"Table {posting.table.label}: {done}")
                return redirect("console:compliance-postings", establishment.slug)
        else:
            status = 400
    judgement = judge_postings([posting], timezone.now())[posting.pk]  # as the print gate judges it
    overrides = list(posting.print_overrides.select_related("requested_by", "decided_by"))
    waiting = next((o for o in overrides if o.status == PrintOverride.Status.REQUESTED), None)
    return render_page(request, "override.html", establishment, {
        "posting": posting, "form": form, "judgement": judgement, "findings": judgement.findings,
        "has_errors": judgement.blocked, "overrides": overrides,
        "approved": next((o for o in overrides if o.is_approved), None), "waiting": waiting,
        "asked_by_me": waiting is not None and waiting.requested_by_id == request.user.pk,
        # an administrator may withdraw someone else's request too (cardroom.review's table), saying why
        "may_withdraw": waiting is not None and OVERRIDE.may(waiting, review.WITHDRAW, request.user)},
        status=status)
