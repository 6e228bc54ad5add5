"""Changing a schedule's drafts: starting one from a version, editing an option's tiers, discarding one (through
fees.schedules.services and fees.schedules.editing, as the API)."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse

from cardroom.exceptions import BadInput, StateConflict
from cardroom.forms import show_error
from fees.forms import NewDraftForm, TierReasonForm, tier_formset, too_many_rows
from fees.models import FeeOption
from fees.schedules import editing, services

from ...access import page
from .base import editable_version, number_from, published_refusal, render_page, room_or_404


@page("compliance")
def new_draft(request, establishment, code, number, scope):
    """Start a new draft from a version: its effective date and the reason are asked for."""
    establishment = room_or_404(scope, establishment)
    document, _, based_on = editable_version(scope, establishment, code, number)
    form = NewDraftForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                draft = services.start_draft(request.user, based_on=based_on, **form.cleaned_data)
            except BadInput as error:  # a date no version of the schedule may take effect on: beside the field
                show_error(form, error)
                return render_page(request, "new_draft.html", establishment,
                                   {"document": document, "based_on": based_on, "form": form}, status=400)
            except StateConflict as error:
                messages.error(request, str(error))
                return render_page(request, "new_draft.html", establishment,
                                   {"document": document, "based_on": based_on, "form": form}, status=409)
            messages.success(request, f"Draft version {draft.number} started from version {based_on.number}. "
                                      "Edit its tiers, then publish it.")
            return redirect("console:compliance-version", establishment.slug, document.code, draft.number)
        return render_page(request, "new_draft.html", establishment,
                           {"document": document, "based_on": based_on, "form": form}, status=400)
    return render_page(request, "new_draft.html", establishment, {"document": document, "based_on": based_on,
                                                                  "form": form})


@page("compliance")
def edit_tiers(request, establishment, code, number, option, scope):
    """One option's tiers of a draft, as a grid; saved row by row through the audited path, with the reason."""
    establishment = room_or_404(scope, establishment)
    document, _, version = editable_version(scope, establishment, code, number)
    if version.is_locked:
        return published_refusal(request, establishment, document, version)
    option = get_object_or_404(FeeOption.objects.filter(version=version), number=option)
    try:
        extra = min(number_from(request.GET.get("add"), "add") or 1, 20)
    except BadInput:
        extra = 1
    data = request.POST if request.method == "POST" else None
    if data is not None and (too_many := too_many_rows(data)):  # before building a form per claimed row
        return render_page(request, "refused.html", establishment, {"document": document, "version": version,
                                                                    "message": too_many}, status=400)
    formset = tier_formset(option, data, extra=extra)
    reason = TierReasonForm(data)
    context = {"document": document, "version": version, "option": option, "formset": formset, "reason": reason,
               "extra": extra}
    if request.method != "POST":
        return render_page(request, "edit_tiers.html", establishment, context)
    if not (formset.is_valid() and reason.is_valid()):
        return render_page(request, "edit_tiers.html", establishment, context, status=400)
    try:
        changed, added, removed = editing.save_tiers(request.user, option=option, formset=formset,
                                                      reason=reason.cleaned_data["reason"])
    except StateConflict as error:
        messages.error(request, str(error))
        return render_page(request, "edit_tiers.html", establishment, context, status=409)
    if changed or added or removed:
        messages.success(request, f"Option {option.number}: {changed} tier(s) changed, {added} added, "
                                  f"{removed} removed.")
    else:
        messages.info(request, f"Option {option.number}: nothing changed.")
    url = reverse("console:compliance-version", args=[establishment.slug, document.code, version.number])
    return redirect(f"{url}?option={option.number}")


@page("compliance")
def discard(request, establishment, code, number, scope):
    establishment = room_or_404(scope, establishment)
    document, _, version = editable_version(scope, establishment, code, number)
    if version.is_locked:
        return published_refusal(request, establishment, document, version)
    if request.method == "POST":
        try:
            services.discard_draft(request.user, version=version)
        except StateConflict as error:
            messages.error(request, str(error))
            return redirect("console:compliance-version", establishment.slug, document.code, version.number)
        messages.success(request, f"Draft version {number} of {document.code} discarded.")
        return redirect("console:compliance-schedule", establishment.slug, document.code)
    return render_page(request, "discard.html", establishment, {"document": document, "version": version})
