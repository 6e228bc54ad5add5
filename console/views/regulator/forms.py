"""The regulator pages' forms: the month of fees shown, a kept checkpoint to check the audit log against, an
audit export asked for, a bundle to verify."""


from django import forms

from cardroom import forms as strict_forms
from cardroom import values


class MonthForm(forms.Form):
    month = forms.RegexField(regex=r"^\d{4}-(0[1-9]|1[0-2])$", required=False, label="Month",
                             error_messages={"invalid": "Give a month as YYYY-MM, e.g. 2026-03."},
                             widget=forms.TextInput(attrs={"type": "month"}))

    def first_day(self):
        value = self.cleaned_data.get("month") if self.is_valid() else None
        if not value:
            return None
        try:
            return values.month(value)
        except values.Invalid:  # the form's pattern let it through, so it is out of the days every reader accepts
            self.add_error("month", f"Give a month between {values.FIRST_DAY:%Y-%m} and {values.LAST_DAY:%Y-%m}.")
            return None


# A checkpoint is ~150 bytes and a signature line ~100 more: this is room for a note with a dozen signatures.
KEPT_CHECKPOINT_MAX_CHARS = 4096


class KeptCheckpointForm(forms.Form):
    """A checkpoint the regulator kept (downloaded from this page or the API, or carried by an export): pasted or
    uploaded. ``clean`` gives the note's text as cardroom.checkpoint reads it; the signature is checked by the view."""

    note = forms.CharField(
        label="Paste a checkpoint you kept", required=False, strip=False, max_length=KEPT_CHECKPOINT_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 5, "cols": 64, "spellcheck": "false"}),
        error_messages={"max_length": f"A checkpoint is a few lines: at most {KEPT_CHECKPOINT_MAX_CHARS} characters."})
    upload = forms.FileField(label="or upload it (the .txt file)", required=False)

    def clean(self):
        note, upload = self.cleaned_data.get("note") or "", self.cleaned_data.get("upload")
        if self.errors:
            return self.cleaned_data
        if upload is not None:
            if note.strip():
                raise forms.ValidationError("Paste a checkpoint or upload one, not both.")
            if upload.size > KEPT_CHECKPOINT_MAX_CHARS:
                raise forms.ValidationError(f"A checkpoint is a few lines: at most {KEPT_CHECKPOINT_MAX_CHARS} bytes; "
                                            f"this file has {upload.size}.")
            try:
                note = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("The file is not text (UTF-8): not a checkpoint.") from None
        if not note.strip():
            raise forms.ValidationError("Paste a checkpoint you kept, or upload it.")
        if "\x00" in note:
            raise forms.ValidationError("The text holds a NUL character: not a checkpoint.")
        # A browser sends a textarea with CRLF line ends; a paste may lose the final newline. Neither is signed.
        self.cleaned_data["text"] = note.replace("\r\n", "\n").strip() + "\n"
        return self.cleaned_data


class ExportForm(forms.Form):
    what = forms.ChoiceField(label="What to export")
    start = strict_forms.DayField(label="From (gaming day)", widget=forms.DateInput(attrs={"type": "date"}))
    end = strict_forms.DayField(label="To (gaming day, included)", widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, choices, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["what"].choices = choices

    def request_data(self):
        """The request as the API takes it (exports.requests.read_request)."""
        kind, _, key = self.cleaned_data["what"].partition(":")
        return {kind: key, "from": self.cleaned_data["start"].isoformat(), "to": self.cleaned_data["end"].isoformat()}


class VerifyForm(forms.Form):
    bundle = forms.FileField(label="Bundle (.zip)", error_messages={
        "required": "Choose the bundle (the .zip file) to check.", "empty": "The file chosen is empty."})
    public_key = forms.CharField(
        label="Another installation's public key (optional)", required=False, strip=True,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 64, "spellcheck": "false"}),
        help_text="PEM, or base64 of the raw 32 bytes. Leave empty to check against this installation's key.")
