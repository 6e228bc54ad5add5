"""Forms for editing a draft schedule version on the role pages: every value read as the API reads it
(``cardroom.values`` through ``cardroom.forms``), so a form accepts exactly what the API accepts."""

from decimal import Decimal
from types import SimpleNamespace

from django import forms
from django.forms import BaseModelFormSet, modelformset_factory
from django.forms.formsets import ManagementForm

from cardroom import forms as strict
from fees.engine.bands import band_edges, is_banded

from .models import FeeTier
from .models.publication import publication_problems, reaches_back
from .engine import kinds
from .schedules.option_label import bounds_text

# The most rows one grid may send: far above any printed option, and checked before a single row's form is built,
# so an absurd count is answered at once.
MAX_ROWS = 500


def reason_field(label="Reason", help_text="Why: kept in the history and the audit log.", min_length=3):
    return strict.TextField(label=label, max_length=2000, single_line=False, min_length=min_length,
                            help_text=help_text, widget=forms.Textarea(attrs={"rows": 2, "cols": 60}))


# The grid's choices in a few words, so each select shows its whole choice in a 1280 px wide grid (the schedule
# pages show the full names).
GRID_CHOICES = {
    "fee_kind": kinds.GRID,
    "payer": {},
    "measure": {"player_wager": "Player's wager", "base_wager": "Each base wager", "total_table_action": "Table action",
                "players": "Players in hand", "elapsed_time": "Each interval", "flat": "Flat",
                "wager_unspecified": "Wager (unstated)", "unstated": "Not stated"},
    "taken": {"before_deal": "Before the deal", "after_flop": "After the flop", "after_river": "After the river",
              "each_interval": "Each interval"},
}


class TierForm(forms.ModelForm):
    order = strict.IntegerField(min_value=1, max_value=32000,
                                widget=forms.TextInput(attrs={"inputmode": "numeric", "size": 3}))
    lower = strict.MoneyField(required=False)
    upper = strict.MoneyField(required=False)
    fee = strict.MoneyField()
    printed_bounds = strict.TextField(max_length=60, required=False, widget=forms.TextInput(attrs={"size": 10}))
    printed_fee = strict.TextField(max_length=60, widget=forms.TextInput(attrs={"size": 8}))
    note = strict.TextField(max_length=500, required=False, widget=forms.TextInput(attrs={"size": 12}))

    class Meta:
        model = FeeTier
        fields = ["order", "fee_kind", "payer", "measure", "lower", "upper", "fee", "taken", "printed_bounds",
                  "printed_fee", "note"]

    def __init__(self, *args, option=None, **kwargs):
        super().__init__(*args, **kwargs)
        if option is not None and self.instance.pk is None:
            self.instance.option = option
        for name in ("fee_kind", "payer", "measure", "taken"):
            choices = [(value, GRID_CHOICES[name].get(value, text)) for value, text in self.fields[name].choices
                       if value != ""]
            self.fields[name].choices = choices if self.instance.pk else [("", "—"), *choices]

    def clean(self):
        data = super().clean()
        lower, upper = data.get("lower"), data.get("upper")
        if lower is not None and upper is not None and lower > upper:
            self.add_error("upper", f"Must be at least the lower bound ({lower}).")
        return data


def band_problems(rows, currency):
    """Overlapping or gapped bands among one option's tier rows (each with ``order``, ``fee_kind``, ``measure``,
    ``lower`` and ``upper``), as the schedule lint finds them (``fees.engine.bands.band_edges``): a sentence
    each, none when the bands fit."""
    by_kind = {}
    for row in rows:
        by_kind.setdefault(row.fee_kind, []).append(row)
    problems = []
    for kind, rows in by_kind.items():
        if not is_banded(rows):
            continue
        # Checked in order of the bands, whatever their row numbers (rows may be printed top band first).
        rows.sort(key=lambda r: (Decimal("Infinity") if r.upper is None else r.upper,
                                 Decimal("-Infinity") if r.lower is None else r.lower))
        ordered, edges = band_edges(rows)
        if ordered is None:  # two bands end at the same amount: they overlap
            edges = [("overlap", a, b, None) for a, b in zip(rows, rows[1:]) if a.upper == b.upper]
        name = kinds.WORDS.get(kind, kind)

        def bounds(r):
            return bounds_text(r.lower, r.upper, r.measure, currency)
        for what, before, after, step in edges:
            pair = f"rows {min(before.order, after.order)} and {max(before.order, after.order)}"
            if what == "overlap":
                problems.append(f"The {name} {pair} overlap: {bounds(before)} and {bounds(after)}.")
            else:
                gap = bounds_text(before.upper + step, after.lower - step, before.measure, currency)
                problems.append(f"The {name} {pair} leave a gap: nothing covers {gap} (between {bounds(before)} "
                                f"and {bounds(after)}).")
    return problems


class CheckedBands:
    """A formset of one option's tier rows that refuses overlapping or gapped bands (``band_problems``): the grid
    editor's and the admin's tier rows, so that both doors keep the same rule."""

    def tier_option(self):
        return self.form_kwargs.get("option") or getattr(self, "instance", None)

    def _check_bands(self):
        option = self.tier_option()
        currency = option.version.document.currency if getattr(option, "version_id", None) else "USD"
        rows = []
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or (self.can_delete and self._should_delete_form(form)) or (
                    form.instance.pk is None and not form.has_changed()):
                continue
            rows.append(SimpleNamespace(**{name: data.get(name) for name in ("order", "fee_kind", "measure", "lower",
                                                                             "upper")}))
        problems = band_problems(rows, currency)
        if problems:
            raise forms.ValidationError(problems)


class BaseTierFormSet(CheckedBands, BaseModelFormSet):
    def clean(self):
        super().clean()
        seen = {}
        for form in self.forms:
            if not form.has_changed() and form.instance.pk is None:
                continue
            if self.can_delete and self._should_delete_form(form):
                continue
            order = form.cleaned_data.get("order") if hasattr(form, "cleaned_data") else None
            if order is None:
                continue
            if order in seen:
                form.add_error("order", f"Row {order} is used twice: each tier needs its own row number.")
            seen[order] = form
        self._check_rows_are_the_options()
        if not any(form.errors for form in self.forms):
            self._check_bands()

    def _check_rows_are_the_options(self):
        """A row sent with the id of a tier that is not this option's (another option's, or one removed meanwhile)
        is refused: the formset would otherwise skip it and the page say "saved"."""
        option = self.form_kwargs.get("option")
        initial = self.initial_form_count()
        for i, form in enumerate(self.forms):
            sent = getattr(form, "cleaned_data", {}).get("id")
            if (i < initial and form.instance.pk is None) or (i >= initial and sent):
                form.add_error(None, f"This row is not one of option {option.number}'s tiers (it may have been "
                                     "removed meanwhile, or the page is out of date): reload the page.")

GRID_LABELS = {"order": "row number", "fee_kind": "fee", "payer": "paid by", "measure": "measured on", "lower": "from",
               "upper": "to", "fee": "amount", "taken": "taken", "printed_bounds": "bounds as printed",
               "printed_fee": "fee as printed", "note": "note", "DELETE": "remove"}


def too_many_rows(data):
    """Why a grid's POST is refused before any row is read (None when it is not): more rows than ``MAX_ROWS``, or
    more existing rows claimed than rows sent. A malformed count is left to the formset, which says so."""
    management = ManagementForm(data, prefix="tiers")
    if not management.is_valid():
        return None
    total, initial = management.cleaned_data["TOTAL_FORMS"], management.cleaned_data["INITIAL_FORMS"]
    if total > MAX_ROWS:
        return f"The grid sent {total} rows; an option has at most {MAX_ROWS}. Nothing was saved."
    if initial > total:
        return f"The grid claims {initial} existing rows but sent {total}: reload the page. Nothing was saved."
    return None


def tier_formset(option, data=None, extra=1):
    """The tiers of one option of a draft, as a grid (each cell labelled for screen readers). Call
    ``too_many_rows`` on the data first."""
    FormSet = modelformset_factory(FeeTier, form=TierForm, formset=BaseTierFormSet, extra=extra, can_delete=True,
                                   max_num=MAX_ROWS, absolute_max=MAX_ROWS, validate_max=True)
    formset = FormSet(data, queryset=option.tiers.order_by("order"), prefix="tiers", form_kwargs={"option": option})
    for form in formset.forms:
        row = f"row {form.instance.order}" if form.instance.pk else "new row"
        for name, field in form.fields.items():
            if name in GRID_LABELS:
                field.widget.attrs["aria-label"] = f"{GRID_LABELS[name].capitalize()}, {row}"
    return formset


class NewDraftForm(forms.Form):
    effective_from = strict.DayField(label="Effective from", help_text="First day the new version will apply.",
                                     widget=forms.DateInput(attrs={"type": "date"}))
    reason = reason_field(help_text="What will change and on whose authority.")


class TierReasonForm(forms.Form):
    reason = reason_field(help_text="Why these tiers change: kept in the history and the audit log of each row.")


class PublishForm(forms.Form):
    effective_from = strict.DayField(label="Effective from", required=False,
                                     widget=forms.DateInput(attrs={"type": "date"}),
                                     help_text="First day the version applies.")
    reason = reason_field(help_text="Why this version is published: what changed and on whose authority.")
    retroactive = forms.BooleanField(
        required=False, label="I confirm this version is retroactive",
        help_text="It takes effect before today, the day it is published.")
    retroactive_reason = strict.TextField(label="Why it must reach back", max_length=4000, single_line=False,
                                   required=False, widget=forms.Textarea(attrs={"rows": 2, "cols": 60}))

    def __init__(self, *args, version, today, **kwargs):
        super().__init__(*args, **kwargs)
        self.version, self.today = version, today
        if version.number == 1 and not version.document.versions.exclude(pk=version.pk).exists():
            self.fields["effective_from"].help_text += " Only a first version whose source states none may be blank."

    def clean(self):
        """Every problem of the draft as asked (``fees.models.publication.publication_problems``, the one answer of
        every door), each beside the field it names (nothing is saved)."""
        data = super().clean()
        if self.errors:
            return data
        effective_from = data.get("effective_from")
        for problem in publication_problems(
                self.version, today=self.today, effective_from=effective_from,
                publication_reason=data.get("reason", ""), retroactive=bool(data.get("retroactive")),
                retroactive_reason=data.get("retroactive_reason", "")):
            self.add_error(problem.field if problem.field in self.fields else None, str(problem))
        if not reaches_back(effective_from, self.today):  # nothing to confirm, nor a reason to keep
            data["retroactive"], data["retroactive_reason"] = False, ""
        return data
