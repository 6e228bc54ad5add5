"""Audit exports: asking for one of an establishment or a whole jurisdiction (exports.requests, as the API), and
the recent ones."""

from django.shortcuts import redirect, render
from django.utils import timezone

from cardroom.api.jobs import visible_jobs
from cardroom.exceptions import BadInput, NotAllowed
from cardroom.forms import show_error
from cardroom.models import Job
from exports.requests import read_request, start_export
from exports.tasks import AUDIT_EXPORT_KIND

from ...access import page, regulated_establishments, regulated_jurisdictions
from .forms import ExportForm
from .ledger import month_end, shift_month


def export_choices(scope):
    """What a user may export, grouped by jurisdiction: each whole jurisdiction they regulate, and each
    establishment in it. Nothing else, so nothing of another jurisdiction is even named."""
    establishments = list(regulated_establishments(scope).order_by("name"))
    groups = []
    for jurisdiction in regulated_jurisdictions(scope):
        mine = [e for e in establishments if e.jurisdiction_id == jurisdiction.pk]
        groups.append((jurisdiction.name, [(f"jurisdiction:{jurisdiction.code}",
                                            f"All of {jurisdiction.name} ({len(mine)} establishment"
                                            f"{'' if len(mine) == 1 else 's'})")]
                       + [(f"establishment:{e.slug}", e.name) for e in mine]))
    return groups


def _last_month(today):
    first = shift_month(today.replace(day=1), -1)
    return first, month_end(first)


@page("regulator")
def export(request, scope):
    """Ask for an audit export of an establishment or a whole jurisdiction; its job page shows the progress."""
    choices = export_choices(scope)
    if request.method == "POST":
        form = ExportForm(request.POST, choices=choices)
        status = 400
        if form.is_valid():
            try:
                export_scope = read_request(form.request_data(), scope=scope)
            except BadInput as error:  # beside the form's field for the one the request names
                show_error(form, error, beside={"from": "start", "to": "end", "establishment": "what",
                                                "jurisdiction": "what"})
            except NotAllowed as error:  # the form's own message, beside the choices
                form.add_error(None, str(error))
                status = 403
            else:
                job = start_export(request.user, export_scope=export_scope)
                return redirect("console:job", job.uuid)
    else:
        start, end = _last_month(timezone.localdate())
        wanted = request.GET.get("establishment", "")
        initial = {"start": start, "end": end}
        if any(value == f"establishment:{wanted}" for _, options in choices for value, _ in options):
            initial["what"] = f"establishment:{wanted}"
        form = ExportForm(initial=initial, choices=choices)
        status = 200
    recent = (visible_jobs(scope).filter(kind=AUDIT_EXPORT_KIND.value).select_related("establishment", "jurisdiction")
              .order_by("-created_at", "-id")[:15])
    return render(request, "console/regulator/export.html", {
        "section": "regulator", "form": form, "recent": recent}, status=status)
