"""How a version's ambiguous values are read, for a compliance officer: each reading beside what is printed, and
the forms to propose one, approve or refuse one (a second officer) and withdraw one (``fees.schedules.services``, the services
the API uses, which decide who may take each step).

Scoped as the schedule pages (``compliance.base._document``: a draft only for those who may edit it). Those who may edit
the schedule see every reading of the version; everyone else the approved ones, which quotes, validation and signs
use.
"""

from django import forms
from django.contrib import messages
from django.shortcuts import redirect

from cardroom import forms as strict
from cardroom import permissions, review, values
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import Source
from fees.forms import reason_field
from fees.models import FeeOption, Interpretation
from fees.schedules import selectors as fees_drafts
from fees.schedules import interpretations, services
from fees.schedules.reviews import INTERPRETATION

from ..access import page
from .compliance.base import document_or_404, render_page, room_or_404, version_or_404

OPTION = "option"  # the "row" choice that reads the option itself (its basis)


def _places(version):
    """Every option and row of the version, as (value, label) choices: "3:" an option's basis, "3:2" a row."""
    choices = []
    for option in FeeOption.objects.filter(version=version).prefetch_related("tiers").order_by("number"):
        rows = [(f"{option.number}:{t.order}", f"Option {option.number} row {t.order}: {t}")
                for t in option.tiers.all()]
        label = f"Option {option.number}" + (f": {option.label}" if option.label else "")
        choices.append((label[:80], [(f"{option.number}:", f"Option {option.number} itself (its basis)"), *rows]))
    return choices


def _readings_choices():
    """Every value a choice field can be read as, grouped by field (the field chosen says which group counts)."""
    return [("", "—")] + [(interpretations.FIELD_LABELS[field].capitalize(),
                           [(value, label) for value, label in choices.choices
                            if value not in interpretations.NOT_A_READING])
                          for field, choices in interpretations.CHOICES.items()]


class ProposeForm(forms.Form):
    place = forms.ChoiceField(label="What is read", help_text="An option's basis, or one row of an option.")
    field = forms.ChoiceField(label="Which value", choices=[
        (f, interpretations.FIELD_LABELS[f]) for f in (*Interpretation.OPTION_FIELDS, *Interpretation.TIER_FIELDS)])
    choice = forms.ChoiceField(label="Read as", required=False, choices=_readings_choices,
                               help_text="For a basis, a measure, a kind of fee, who pays or when it is taken.")
    amount = strict.MoneyField(label="Or, for a bound, read as", required=False,
                               help_text="An amount; leave blank for no bound (open).")
    statement = strict.TextField(label="The reading in words", max_length=interpretations.STATEMENT_MAX,
                                 single_line=False, widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
                                 help_text="As a player or a regulator would be told it; signs print it.")
    decided_on = strict.DayField(label="Decided on", widget=forms.DateInput(attrs={"type": "date"}),
                                 help_text="The date of the reading, e.g. of the Bureau's answer.")
    citation = strict.TextField(label="Citation", max_length=interpretations.CITATION_MAX,
                                widget=forms.TextInput(attrs={"size": 60}),
                                help_text="Where it comes from: the answer, letter or rule.")
    source = forms.ModelChoiceField(label="Source document", queryset=Source.objects.order_by("title"),
                                    required=False, to_field_name="key", help_text="If it is recorded here.")

    def __init__(self, *args, version, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["place"].choices = _places(version)


class StepForm(forms.Form):
    reason = reason_field(label="Why", help_text="Kept with the reading, in its history and in the audit log.")


# step -> (the service, what the message says was done)
STEPS = {
    "approve": (services.approve_interpretation, "approved: quotes, validation and signs now use it"),
    "refuse": (services.refuse_interpretation, "refused"),
    "withdraw": (services.withdraw_interpretation, "withdrawn: the value is read as printed"),
}


@page("compliance")
def interpretations_page(request, establishment, code, number, scope):
    establishment = room_or_404(scope, establishment)
    document, versions = document_or_404(scope, establishment, code)
    version = version_or_404(versions, number)
    may_edit = permissions.allowed(request.user, services.EDIT, document)
    may_review = permissions.allowed(request.user, services.APPROVE, document)
    propose = ProposeForm(version=version)
    step_forms, status = {}, 200
    if request.method == "POST":
        step = request.POST.get("step")
        if step == "propose":
            propose, status = _propose(request, version)
        elif step in STEPS:
            form, status = _step(request, version, step)
            if form is not None:
                step_forms[form.prefix] = form
        else:
            messages.error(request, "Choose to propose a reading, or to approve, refuse or withdraw one.")
            status = 400
        if status == 302:
            return redirect("console:compliance-interpretations", establishment.slug, document.code, version.number)
    readings = version.interpretations.select_related("recorded_by", "reviewed_by", "source")
    if not fees_drafts.sees_drafts(request.user, document):
        readings = readings.filter(status=Interpretation.Status.APPROVED)
    readings = list(readings.order_by("option_number", "tier_order", "field", "-id"))
    printed = interpretations.printed_values(readings)
    rows = []
    for reading in readings:
        live = reading.status in interpretations.LIVE
        prefix = f"r{reading.pk}"
        # The buttons this user may use: approve and refuse (a second officer), withdraw (its proposer, an admin).
        may_decide = live and may_review and INTERPRETATION.may(reading, review.REFUSE, request.user)
        may_withdraw = live and may_edit and INTERPRETATION.may(reading, review.WITHDRAW, request.user)
        rows.append({
            "reading": reading, "where": interpretations.where(reading.option_number, reading.tier_order),
            "field": interpretations.FIELD_LABELS.get(reading.field, reading.field),
            "printed": (interpretations.label(reading.field, printed[reading.pk], document.currency)
                        if reading.pk in printed else None),
            "read_as": interpretations.label(reading.field, reading.value, document.currency),
            "footnote": interpretations.footnote(reading),
            "form": step_forms.get(prefix) or (StepForm(prefix=prefix) if may_decide or may_withdraw else None),
            "may_review": may_decide and INTERPRETATION.may(reading, review.APPROVE, request.user),
            "may_withdraw": may_withdraw,
            "for_asker": may_withdraw and reading.recorded_by_id != request.user.pk,
            "mine": reading.recorded_by_id == request.user.pk,
        })
    return render_page(request, "interpretations.html", establishment, {
        "document": document, "version": version, "rows": rows, "propose": propose if may_edit else None,
        "may_edit": may_edit, "may_review": may_review}, status=status)


def _propose(request, version):
    permissions.require(request.user, services.EDIT, version.document)  # before the form is read
    form = ProposeForm(request.POST, version=version)
    if not form.is_valid():
        return form, 400
    given = form.cleaned_data
    option, _, tier = given["place"].partition(":")
    field = given["field"]
    value = given["choice"] if field not in interpretations.BOUNDS else given["amount"]
    try:
        reading = services.propose_interpretation(
            request.user, version=version, option=int(option), tier=int(tier) if tier else None, field=field,
            value=value, statement=given["statement"], decided_on=given["decided_on"], citation=given["citation"],
            source=given["source"])
    except (BadInput, StateConflict) as error:
        return form, strict.show_error(form, error, beside={
            "option": "place", "tier": "place", "value": "amount" if field in interpretations.BOUNDS else "choice"})
    messages.success(request, f"Proposed: {interpretations.where(reading.option_number, reading.tier_order)}'s "
                              f"{interpretations.FIELD_LABELS[field]} read as "
                              f"{interpretations.label(field, reading.value, version.document.currency)}. A second "
                              "officer approves or refuses it.")
    return form, 302


def _step(request, version, step):
    service, done = STEPS[step]
    sent = request.POST.get("reading", "")
    try:
        reading = version.interpretations.get(pk=values.whole_text(sent, minimum=1, maximum=values.MAX_ID))
    except (values.Invalid, Interpretation.DoesNotExist):  # the page again, saying so; nothing is changed
        messages.error(request, f"{version.document.code} version {version.number} has no reading "
                                f"{sent[:20]!r}: it may be another version's, or the page is out of date. "
                                "Nothing was changed.")
        return None, 400
    form = StepForm(request.POST, prefix=f"r{reading.pk}")
    if not form.is_valid():
        return form, 400
    try:
        service(request.user, reading=reading, reason=form.cleaned_data["reason"])
    except (BadInput, StateConflict) as error:
        return form, strict.show_error(form, error)
    messages.success(request, f"Interpretation #{reading.pk} {done}.")
    return form, 302
