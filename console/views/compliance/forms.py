"""The compliance pages' own forms: the schedule search and timeline, version comparison, publication review,
the findings inbox and acknowledgement, approval conditions met or withdrawn, print overrides. (The draft and
tier forms are fees.forms, shared with the API.)"""

from django import forms

from cardroom import conditions as record_conditions
from cardroom import forms as strict_forms
from cardroom import values
from compliance.models import Finding
from fees.forms import reason_field


class TimelineForm(forms.Form):
    as_of = strict_forms.DayField(label="In force on", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    known_at = strict_forms.DayField(label="As the record stood on (optional)", required=False,
                                     widget=forms.DateInput(attrs={"type": "date"}),
                                     help_text="Leave out for the record as it stands now.")


class SearchForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Code or title")

    def clean_q(self):
        try:
            return values.text(self.cleaned_data["q"], max_length=100, required=False)
        except values.Invalid as error:
            raise forms.ValidationError(f"The search {error}") from None


class CompareForm(forms.Form):
    """``?from=N&to=M``: two of the versions the user may see."""

    def __init__(self, *args, versions, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(v.number, f"v{v.number} ({v.get_status_display().lower()}"
                    + (f", from {v.effective_from}" if v.effective_from else "") + ")") for v in versions]
        self.fields["from"] = forms.TypedChoiceField(coerce=int, choices=choices, label="From version")
        self.fields["to"] = forms.TypedChoiceField(coerce=int, choices=choices, label="To version")


class ReviewForm(forms.Form):
    reason = reason_field(label="Why", help_text="Kept with the step and in the audit log.")


class InboxForm(forms.Form):
    severity = forms.ChoiceField(required=False, choices=[("", "All severities"), *Finding.Severity.choices])
    show = forms.ChoiceField(required=False, choices=[("open", "Open"), ("acknowledged", "Acknowledged"),
                                                      ("all", "All")])


class AcknowledgeForm(forms.Form):
    reason = reason_field(label="How it was handled", help_text="Kept with the finding and in the audit log.")


class ConditionMetForm(forms.Form):
    met_on = strict_forms.DayField(label="Met on", widget=forms.DateInput(attrs={"type": "date"}),
                                   help_text="The day it was met (not after today).")
    evidence = strict_forms.TextField(label="Evidence", max_length=record_conditions.EVIDENCE_MAX,
                                      widget=forms.TextInput(attrs={"size": 40}),
                                      help_text="Reference of the evidence, e.g. the Commission's letter.")
    note = strict_forms.TextField(label="Note", max_length=record_conditions.NOTE_MAX, single_line=False,
                                  required=False, widget=forms.Textarea(attrs={"rows": 1, "cols": 40}))


class WithdrawMetForm(forms.Form):
    reason = reason_field(label="Why it is not met after all",
                          help_text="Kept with the record, in the history and in the audit log.")


class OverrideForm(forms.Form):
    reason = reason_field(label="Why", min_length=10,
                          help_text="Kept with the override and in the audit log (10 characters or more).")
