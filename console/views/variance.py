"""Where the money goes missing, for a room's compliance officers and its regulators: fees expected vs
collected over a period by table, gaming day, shift and recorder, how unusual each is against the room's own
history, and the hands behind a row (fees.variance); the table-days collected above the schedule. The same page
under each role's section; on the compliance officer's, a form to reconcile a period again (``fees.ledger.services``, a
job: at once in the embedded default) for those who hold ``fees.record_ledger`` at the room."""

from urllib.parse import quote

from django import forms
from django.contrib import messages
from django.db.models import Max
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils import timezone

from cardroom import permissions
from cardroom.exceptions import BadInput
from cardroom.forms import show_error
from cardroom.forms import DayField
from cardroom.models import Job
from cardroom.money import format_money
from fees.ledger import restating, services as reconciling
from fees.models import Reconciliation
from fees.months.selectors import closed_months, sealed_months, shown_words
from fees.variance import selectors as variance
from fees.variance.stats import BASELINE_DAYS

from ..access import compliance_establishments, establishment_or_404, page, regulated_establishments

MAX_DAYS = 366  # a year at most: the page answers in well under a second over a busy room's year
GROUP_TITLES = {"table": "By table", "day": "By gaming day", "shift": "By shift", "recorder": "By recorder"}


class PeriodForm(forms.Form):
    day_from = DayField(label="From gaming day", widget=forms.DateInput(attrs={"type": "date"}))
    day_to = DayField(label="to gaming day", widget=forms.DateInput(attrs={"type": "date"}))
    by = forms.ChoiceField(choices=[(g, g) for g in variance.GROUPS], required=False, widget=forms.HiddenInput,
                           error_messages={"invalid_choice": "Drill down by table, day, shift or recorder."})
    key = forms.CharField(max_length=40, required=False, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        first, last = data.get("day_from"), data.get("day_to")
        if first is None or last is None:
            return data
        if last < first:
            raise forms.ValidationError("The period ends before it begins: give the earlier day first.")
        if (last - first).days + 1 > MAX_DAYS:
            raise forms.ValidationError(f"Give a period of at most {MAX_DAYS} gaming days.")
        return data


class ReconcileForm(forms.Form):
    """A period to reconcile again; the service says what is wrong with it (``fees.ledger.services.read_period``)."""

    reconcile_from = DayField(label="Reconcile from gaming day", widget=forms.DateInput(attrs={"type": "date"}))
    reconcile_to = DayField(label="Reconcile to gaming day", widget=forms.DateInput(attrs={"type": "date"}))


def _default_period(establishment):
    """The month of the room's latest reconciliation (this month when there is none)."""
    latest = Reconciliation.objects.filter(table__establishment=establishment).aggregate(
        last=Max("gaming_day"))["last"] or timezone.localdate(timezone.now(), establishment.zone)
    return latest.replace(day=1), latest


ROW = ('<tr id="{}-{}"{}><th scope="row">{}</th>{}<td class="num">{}</td><td class="num{}">{}</td>'
       '<td><svg width="120" height="12" role="img" aria-label="{} short"><rect x="0" y="1" width="{}%" height="10" '
       'fill="{}"></rect></svg></td><td{}>{}</td><td>{}</td></tr>')
SUMS = '<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>'
DRILL = '<a href="?{}&amp;by={}&amp;key={}#hands" class="drill">hands</a>'


def _rows_html(group, rows, currency, period):
    """The rows of one group's table, each with its amount short as a bar against the largest of the group.
    Written here rather than by the template: a year is 365 days and a busy room's 200 tables, and the
    template's lookups cost more than all the page's queries."""
    top = max([r.amount_short for r in rows] or [0])
    out = []
    for row in rows:
        unusual = row.judgement is not None and row.judgement.unusual
        short = format_money(row.amount_short, currency)
        sums = format_html(SUMS, format_money(row.expected, currency), format_money(row.collected, currency),
                           row.hands) if row.expected is not None else ""
        out.append(format_html(
            ROW, group, row.key, mark_safe(' class="unusual"') if unusual else "", row.label, sums, row.hands_short,
            " error" if row.hands_short else "", short, short,
            f"{float(row.amount_short / top * 100):.1f}" if top else "0", "#a4161a" if unusual else "#6b7785",
            mark_safe(' class="error"') if unusual else "", row.judgement.words if row.judgement else "",
            format_html(DRILL, period, group, quote(row.key)) if row.hands_short else ""))
    return mark_safe("\n".join(out))


def _page(request, establishment, section, reconcile_form=None, status=200):
    if "day_from" in request.GET or "day_to" in request.GET:
        form = PeriodForm(request.GET)
        if not form.is_valid():
            status = 400
    else:
        first, last = _default_period(establishment)
        form = PeriodForm({"day_from": first.isoformat(), "day_to": last.isoformat()})
        form.is_valid()
    context = {"section": section, "establishment": establishment, "form": form, "baseline_days": BASELINE_DAYS,
               "group_titles": GROUP_TITLES, "max_reconcile_days": reconciling.MAX_RECONCILE_DAYS}
    if section == "compliance" and permissions.allowed(request.user, reconciling.PERMISSION, establishment):
        if reconcile_form is None:
            shown = form.cleaned_data if form.is_valid() else {}
            reconcile_form = ReconcileForm(initial={"reconcile_from": shown.get("day_from"),
                                                    "reconcile_to": shown.get("day_to")})
        context["reconcile_form"] = reconcile_form
    if form.is_valid():
        first, last = form.cleaned_data["day_from"], form.cleaned_data["day_to"]
        report = variance.report(establishment, first, last)
        # A closed month's summaries whose rows no longer say what its closing sealed are not shown as the record.
        context["sealed_problems"] = [
            f"The variance summaries of a closed month differ from what its closing sealed ({problem}): the figures "
            f"below are not the month's record; its audit bundles are." if problem.kind == "variance" else
            f"{problem}: its figures below are not vouched for; its audit bundles are the month's record."
            for problem in sealed_months([establishment], first, last).problems_of("variance", "record")]
        # A closed month of the period says so: its reconciliations are final, its figures as its closing sealed.
        context["closed_months"] = [shown_words(c, establishment.zone) for c in closed_months(first, last)]
        period = f"day_from={first.isoformat()}&day_to={last.isoformat()}"
        context.update(report=report, period=period, groups=[
            (g, GROUP_TITLES[g], report.groups[g], _rows_html(g, report.groups[g], report.currency, period))
            for g in variance.GROUPS])
        by, key = form.cleaned_data.get("by"), form.cleaned_data.get("key")
        if by and key:
            hands, count = variance.hands_behind(establishment, first, last, by, key)
            row = next((r for r in report.groups[by] if r.key == key), None)
            context.update(drill={"by": by, "key": key, "label": row.label if row else key, "hands": hands,
                                  "count": count})
        context["short_text"] = format_money(report.total.amount_short, report.currency)
        # A retroactive version's difference: its own finding, never folded into what was short.
        context["restated"] = restating.restated(establishment, first, last)
        context["restated_in_all"] = restating.in_all(context["restated"])
        over = variance.over_days(establishment, first, last)
        context.update(over=over, hands_over=sum(d.hands_over for d in over),
                       over_text=format_money(sum((d.amount_over for d in over), variance.ZERO), report.currency))
    return render(request, "console/variance.html", context, status=status)


def _reconcile(request, establishment):
    """The reconcile form's POST: the period reconciled as a job (done already when jobs run in-process), then the
    page for the period; a bad period is the page again with the form's message (400), nothing changed."""
    form = ReconcileForm(request.POST)
    if form.is_valid():
        first, last = form.cleaned_data["reconcile_from"], form.cleaned_data["reconcile_to"]
        try:
            job = reconciling.request_reconciliation(request.user, establishment=establishment, day_from=first,
                                                     day_to=last)
        except BadInput as error:
            show_error(form, error, beside={"day_from": "reconcile_from", "day_to": "reconcile_to"})
        else:
            if job.status == Job.Status.DONE:
                done = job.result
                messages.success(request, f"Reconciled {first} to {last}: {done['reconciled']} table-day"
                                          f"{'' if done['reconciled'] == 1 else 's'} over {done['days']} gaming "
                                          f"day{'' if done['days'] == 1 else 's'} with play."
                                          + "".join(f" {line}" for line in done["skipped"]))
            elif job.status == Job.Status.FAILED:
                messages.error(request, f"The reconciliation failed: {job.error}")
            else:  # a worker runs it: its progress
                return redirect("console:job", job.uuid)
            return redirect(f"{request.path}?day_from={first.isoformat()}&day_to={last.isoformat()}")
    return _page(request, establishment, "compliance", reconcile_form=form, status=400)


@page("compliance")
def compliance_variance(request, establishment, scope):
    establishment = establishment_or_404(compliance_establishments(scope), establishment)
    if request.method == "POST":
        return _reconcile(request, establishment)
    return _page(request, establishment, "compliance")


@page("regulator")
def regulator_variance(request, establishment, scope):
    return _page(request, establishment_or_404(regulated_establishments(scope), establishment), "regulator")
