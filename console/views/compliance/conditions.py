"""Approvals for the establishment and its jurisdiction, each condition as it stands here, and recording a
condition met or withdrawing that record (cardroom.conditions, as the API)."""

from django.contrib import messages
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from cardroom import conditions as record_conditions
from cardroom import permissions
from cardroom.conditions import conditions_at
from cardroom.exceptions import BadInput, StateConflict
from cardroom.forms import show_error
from cardroom.models import Approval, ApprovalCondition, ConditionFulfilment
from compliance.facts import APPROVAL_PREFETCH, approval_facts
from compliance.rules.postings import EXPIRING_WITHIN, approval_state

from ...access import page
from .base import render_page, room_or_404
from .forms import ConditionMetForm, WithdrawMetForm


def approval_rows(establishment, today, forms_posted=None, may_record=False):
    """Each approval for the room or its jurisdiction, with each condition as it stands at this room (met: the day,
    the evidence, who recorded it; the forms to record or withdraw it where the user may). ``forms_posted``: the
    bound form of a POST that failed, by condition id (record) or ("withdraw", record id)."""
    forms_posted = forms_posted or {}
    approvals = (Approval.objects.filter(jurisdiction_id=establishment.jurisdiction_id)
                 .filter(Q(establishment__isnull=True) | Q(establishment=establishment))
                 .select_related("game", "jurisdiction", "establishment", "source")
                 .prefetch_related(*APPROVAL_PREFETCH, "conditions__fulfilments__recorded_by")
                 .order_by("game__name", "key"))
    rows = []
    for approval, at in conditions_at(establishment, approvals):
        state = approval_state(approval_facts(approval), today)
        for c in at:
            pk = c["condition"].pk
            c["form"] = forms_posted.get(pk) or (ConditionMetForm(prefix=f"c{pk}")
                                                 if may_record and c["recordable"] and not c["met"] else None)
            c["withdraw_form"] = (forms_posted.get(("withdraw", c["record"].pk))
                                  or WithdrawMetForm(prefix=f"w{c['record'].pk}")) if may_record and c["met"] else None
        outstanding = [c["condition"] for c in at if c["state"] == record_conditions.OUTSTANDING]
        expiring = bool(state.in_force and approval.expires_on and approval.expires_on - today <= EXPIRING_WITHIN)
        trial_ending = bool(state.in_force and approval.status == Approval.Status.TRIAL and approval.trial_ends_on
                            and approval.trial_ends_on - today <= EXPIRING_WITHIN)
        rows.append({"approval": approval, "state": state, "conditions": [c["condition"] for c in at], "at": at,
                     "outstanding": outstanding, "expiring": expiring, "trial_ending": trial_ending,
                     "attention": bool(outstanding) or expiring or trial_ending or not state.in_force})
    return rows


def _approvals_page(request, establishment, scope, forms_posted=None, status=200):
    today = timezone.localdate()
    may_record = permissions.allowed(request.user, "cardroom.record_condition", establishment)
    rows = sorted(approval_rows(establishment, today, forms_posted, may_record),
                  key=lambda r: not r["attention"])  # stable: by game after
    return render_page(request, "approvals.html", establishment, {"rows": rows, "today": today,
                                                                  "may_record": may_record}, status=status)


@page("compliance")
def approvals(request, establishment, scope):
    establishment = room_or_404(scope, establishment)
    return _approvals_page(request, establishment, scope)


def _condition(establishment, pk):
    queryset = ApprovalCondition.objects.select_related("approval__jurisdiction", "approval__establishment").filter(
        approval__jurisdiction_id=establishment.jurisdiction_id)
    return get_object_or_404(queryset, pk=pk)


@require_POST
@page("compliance")
def record_condition(request, establishment, condition, scope):
    """Record that this room met a condition of an approval (cardroom.conditions.record_condition_met, as the API)."""
    establishment = room_or_404(scope, establishment)
    condition = _condition(establishment, condition)
    permissions.require(request.user, "cardroom.record_condition", establishment)
    form = ConditionMetForm(request.POST, prefix=f"c{condition.pk}")
    status = 400
    if form.is_valid():
        try:
            record_conditions.record_condition_met(request.user, condition=condition, establishment=establishment,
                                                   **form.cleaned_data)
        except (BadInput, StateConflict) as error:
            status = show_error(form, error)
        else:
            messages.success(request, f"{_named(condition)} recorded as met at {establishment.name} on "
                                      f"{form.cleaned_data['met_on']:%Y-%m-%d}.")
            return redirect(reverse("console:compliance-approvals", args=[establishment.slug])
                            + f"#condition-{condition.pk}")
    return _approvals_page(request, establishment, scope, {condition.pk: form}, status=status)


def _named(condition):
    """'Condition 2 of the One for the Money approval (WSGC letter of 2014-02-18 ...)': not its key."""
    return f"Condition {condition.order} of the {condition.approval.game.name} approval ({condition.approval.reference})"


@require_POST
@page("compliance")
def withdraw_condition(request, establishment, record, scope):
    """Withdraw, with a reason, the record that this room met a condition
    (cardroom.conditions.withdraw_condition_met)."""
    establishment = room_or_404(scope, establishment)
    record = get_object_or_404(ConditionFulfilment.objects.select_related("condition__approval"),
                               pk=record, establishment=establishment)
    permissions.require(request.user, "cardroom.record_condition", record)
    form = WithdrawMetForm(request.POST, prefix=f"w{record.pk}")
    status = 400
    if form.is_valid():
        try:
            record_conditions.withdraw_condition_met(request.user, record=record, reason=form.cleaned_data["reason"])
        except BadInput as error:
            status = show_error(form, error)
        except record_conditions.ConditionConflict as error:
            messages.error(request, str(error))
            status = 409
        else:
            condition = record.condition
            messages.success(request, f"{_named(condition)} is no longer recorded as met at {establishment.name}: "
                                      f"the tables offering {condition.approval.game.name} there may not print their "
                                      f"signs until it is met again (the floor and Findings say which).")
            return redirect(reverse("console:compliance-approvals", args=[establishment.slug])
                            + f"#condition-{condition.pk}")
    return _approvals_page(request, establishment, scope, {("withdraw", record.pk): form}, status=status)
