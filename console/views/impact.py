"""A schedule version's impact before it is published (issue 13): what it would have collected over the rounds
recorded in a period, against what the versions in force expected, per table and gaming day; the tier edges that
move the most; and, for a retroactive version, the reconciliations and postings publishing it would change.

The figures are ``fees.quotes.impact``'s, the same as the API's. Scoped as the other compliance pages: one of the user's
compliance establishments, one of its schedules, and a draft only for those who may edit the schedule (404 else).
"""

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from cardroom import forms as strict_forms
from cardroom.exceptions import BadInput
from fees.engine import kinds
from fees.quotes import impact as figures

from ..access import page
from .compliance.base import document_or_404, in_force, render_page, room_or_404, version_or_404
from .regulator import signed


class PeriodForm(forms.Form):
    """``?from=YYYY-MM-DD&to=YYYY-MM-DD``: both, or neither for the default period."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label in (("from", "From gaming day"), ("to", "To gaming day")):
            self.fields[name] = strict_forms.DayField(label=label, required=False,
                                                      widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        start, end = data.get("from"), data.get("to")
        if (start is None) != (end is None):
            raise ValidationError("Give both days of the period, or neither for the default period.")
        if start is not None:
            try:
                figures.check_period(start, end)
            except BadInput as error:
                strict_forms.show_error(self, error)
        return data


@page("compliance")
def impact(request, establishment, code, number, scope):
    establishment = room_or_404(scope, establishment)
    document, versions = document_or_404(scope, establishment, code)  # drafts only for those who may edit it
    version = version_or_404(versions, number)
    today = timezone.localdate()
    bound = "from" in request.GET or "to" in request.GET
    form = PeriodForm(request.GET if bound else None)
    context = {"document": document, "version": version, "today": today, "form": form,
               "current": in_force(versions, today),  # this version itself, once it is published and in force
               "retroactive": figures.is_retroactive(version, today)}
    if bound and not form.is_valid():
        return render_page(request, "impact.html", establishment, context, status=400)
    start, end = (form.cleaned_data["from"], form.cleaned_data["to"]) if bound else (None, None)
    if start is None:  # none given (an empty form sends both empty)
        start, end = figures.default_period(version, establishment, today)
        form = PeriodForm(initial={"from": start, "to": end})
    report = figures.impact(version, establishment, start, end)
    currency = report.currency
    rows = report.rows
    reach = figures.reach(version, establishment, today)
    closed = set(reach.closed_months) if reach else set()
    for row in rows:
        row["difference_text"] = signed(row["figures"].difference, currency)
        row["closed"] = row["day"].replace(day=1) in closed
    totals = report.figures.totals
    edges = [{"edge": edge, "kind": kinds.WORDS.get(edge.fee_kind, edge.fee_kind),
              "difference_text": signed(edge.difference, currency)} for edge in report.figures.edges]
    return render_page(request, "impact.html", establishment, context | {
        "form": form, "start": start, "end": end, "report": report, "rows": rows, "totals": totals,
        "totals_difference": signed(totals.difference, currency), "currency": currency,
        "priced": totals.rounds - totals.unpriced,
        "edges": [e for e in edges if e["edge"].rounds], "quiet_edges": [e for e in edges if not e["edge"].rounds],
        "unattributed": signed(report.figures.unattributed, currency) if report.figures.unattributed else "",
        "reach": reach, "reconciliations": _reached(reach, rows, start, end, currency) if reach else [],
        "closed_months": [{"month": month, "reopen": f"manage.py reopen_month --month {month:%Y-%m}"}
                          for month in sorted(closed)],
    })


def _reached(reach, rows, start, end, currency):
    """Each reconciliation a retroactive version reaches (open months only), with the retroactive difference
    publishing will record beside it: what the period shown says (``fees.ledger.restating`` prices it the same)."""
    by_day = {(row["table"].pk, row["day"]): row["figures"].difference for row in rows}
    reached = []
    for run in reach.reconciliations:
        change = by_day.get((run.table_id, run.gaming_day))
        reached.append({"run": run, "shown": start <= run.gaming_day <= end,
                        "difference_text": signed(change, currency) if change is not None else "",
                        "owed_now": run.expected_total + change if change else None})
    return reached
