"""Reading schedules: the list (with a search), one schedule or version an option at a time with both
timelines, and two versions compared."""

import datetime

from django.db.models import Count, Prefetch, Q
from django.http import Http404
from django.utils import timezone

from cardroom import permissions
from cardroom.exceptions import BadInput
from fees.engine import diff
from fees.models import FeeOption, FeeTier, ScheduleVersion
from fees.schedules.option_label import option_label

from ...access import page
from .base import (document_or_404, in_force, number_from, render_page, room_or_404, schedule_documents,
                   version_or_404, visible_versions)
from .forms import CompareForm, SearchForm, TimelineForm


def _looked_up(timeline, versions):
    """Both timelines for the day asked: the version in force then, now and as the record stood on a day."""
    if not timeline.is_valid() or not timeline.cleaned_data.get("as_of"):
        return None
    day, known = timeline.cleaned_data["as_of"], timeline.cleaned_data.get("known_at")
    known_at = (datetime.datetime.combine(known, datetime.time.max, timezone.get_current_timezone())
                if known else None)
    return {"as_of": day, "known_at": known, "now": in_force(versions, day),
            "then": in_force(versions, day, known_at) if known_at else None}


@page("compliance")
def schedules(request, establishment, scope):
    establishment = room_or_404(scope, establishment)
    form = SearchForm(request.GET or None)
    documents = schedule_documents(scope, establishment).prefetch_related(
        Prefetch("versions", queryset=ScheduleVersion.objects.order_by("number")), "games").order_by("code")
    status = 200
    query = ""
    if form.is_bound:
        if form.is_valid():
            query = form.cleaned_data["q"]
        else:
            status = 400
            documents = documents.none()
    if query:
        documents = documents.filter(Q(code__icontains=query) | Q(title__icontains=query))
    today = timezone.localdate()
    rows = []
    for document in documents:
        versions = list(document.versions.all())
        rows.append({"document": document, "in_force": in_force(versions, today),
                     "drafts": [v for v in visible_versions(scope, document, versions) if not v.is_published],
                     "later": [v for v in versions
                               if v.is_published and v.effective_from and v.effective_from > today]})
    counts = dict(FeeOption.objects.filter(version__in=[r["in_force"] for r in rows if r["in_force"]])
                  .values("version").annotate(n=Count("id")).values_list("version", "n"))
    for row in rows:
        row["options"] = counts.get(row["in_force"].pk, 0) if row["in_force"] else 0
    return render_page(request, "schedules.html", establishment, {"form": form, "rows": rows, "query": query,
                                                                  "today": today}, status=status)


@page("compliance")
def schedule(request, establishment, code, scope, number=None):
    """A schedule as in force today (or one version): an option picker and one option's tiers at a time."""
    establishment = room_or_404(scope, establishment)
    document, versions = document_or_404(scope, establishment, code)
    today = timezone.localdate()
    current = in_force(versions, today)
    version = version_or_404(versions, number) if number is not None else current
    if version is None:  # nothing in force yet: the latest published version, else the latest draft
        published = [v for v in versions if v.is_published]
        version = (published or versions or [None])[-1]
    try:
        wanted = number_from(request.GET.get("option"), "option")
    except BadInput as error:  # the schedule's page still, saying what is wrong
        return render_page(request, "schedule.html", establishment, _schedule_context(
            scope, document, versions, version, current, None, [], today) | {"bad": str(error)}, status=400)
    options = list(FeeOption.objects.filter(version=version).prefetch_related("tiers").order_by("number")
                   ) if version else []
    for o in options:  # what tells the options apart, not the table limits they may all share
        o.picker_label = option_label(o.number, o.tiers.all(), document.currency)
    option = options[0] if options and wanted is None else next((o for o in options if o.number == wanted), None)
    if wanted is not None and option is None:
        raise Http404(f"{document.code} version {version.number} has no option {wanted}.")
    tiers = list(FeeTier.objects.filter(option=option).order_by("order")) if option else []
    context = _schedule_context(scope, document, versions, version, current, option, tiers, today, options)
    if request.htmx and request.htmx.target == "option-panel":
        return render_page(request, "_option.html", establishment, context)
    timeline = TimelineForm(request.GET if "as_of" in request.GET else None)
    context.update(timeline=timeline, looked_up=_looked_up(timeline, versions))
    return render_page(request, "schedule.html", establishment, context, status=400 if timeline.errors else 200)


def _schedule_context(scope, document, versions, version, current, option, tiers, today, options=()):
    options = list(options)
    at = next((i for i, o in enumerate(options) if option and o.pk == option.pk), None)
    may_edit = permissions.allowed(scope.user, "fees.edit_schedule", document)
    return {
        "document": document, "versions": list(reversed(versions)), "version": version, "current": current,
        "option": option, "tiers": tiers, "options": options, "today": today,
        "previous": options[at - 1] if at else None,
        "next": options[at + 1] if at is not None and at + 1 < len(options) else None,
        "may_edit": may_edit, "editable": bool(version and not version.is_locked and may_edit),
        "may_validate": bool(version and version.is_published
                             and permissions.allowed(scope.user, "compliance.run_validation", document)),
        "compare": CompareForm(versions=versions, initial=_compare_defaults(version, versions)),
    }


def _compare_defaults(version, versions):
    """The shown version against the one it was started from, else against the newest other version."""
    if version is None:
        return {}
    if version.based_on_id and any(v.pk == version.based_on_id for v in versions):
        return {"from": version.based_on.number, "to": version.number}
    others = [v for v in versions if v.pk != version.pk]
    if not others:
        return {"from": version.number, "to": version.number}
    other = others[-1]
    return ({"from": other.number, "to": version.number} if other.number < version.number
            else {"from": version.number, "to": other.number})


@page("compliance")
def compare(request, establishment, code, scope):
    """Two versions side by side, tier by tier, with what changed marked."""
    establishment = room_or_404(scope, establishment)
    document, versions = document_or_404(scope, establishment, code)
    form = CompareForm(request.GET or None, versions=versions)
    context = {"document": document, "form": form, "show_all": request.GET.get("all") == "1"}
    if not form.is_bound:
        return render_page(request, "compare.html", establishment, context)
    if not form.is_valid():
        return render_page(request, "compare.html", establishment, context, status=400)
    old = version_or_404(versions, form.cleaned_data["from"])
    new = version_or_404(versions, form.cleaned_data["to"])
    context |= {"old": old, "new": new, "diff": diff.diff_versions(old.diff_records(labels=True),
                                                                 new.diff_records(labels=True))}
    return render_page(request, "compare.html", establishment, context)
