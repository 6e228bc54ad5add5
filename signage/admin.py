"""Postings and signs in the admin (administrators): post a table, look up what a table showed at a moment,
print or preview its sign, ask for an override of a print block with a reason (a second officer approves or refuses
it), start a batch and follow its progress. Every
one of these goes through the same services as the API (signage.postings, signage.services, signage.tasks)."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from cardroom import forms as strict
from cardroom import permissions, review
from cardroom.access import scope_of
from cardroom.admin_site import ReadOnlyAdmin
from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.models import Table
from fees.models import ScheduleDocument, TablePosting

from . import content, printing, services, tasks
from . import render as signs
from .models import PrintOverride, SignPrint
from .reviews import OVERRIDE
from .postings import (
    current_override,
    error_findings,
    pending_override,
    post_table,
    postable_tables,
    read_posting,
    validation_run,
)

OVERRIDE_STEPS = {  # step: (service, what is said once it is done)
    "request": (services.request_override, "Override asked for; the sign may be printed once a second compliance "
                                           "officer approves it."),
    "approve": (services.approve_override, "Override approved; the sign may be printed."),
    "refuse": (services.refuse_override, "Override refused; the sign stays blocked."),
    "withdraw": (services.withdraw_override, "Override request withdrawn; the sign stays blocked."),
}


class PostingForm(forms.Form):
    table = forms.ModelChoiceField(queryset=Table.objects.none())
    schedule = forms.ModelChoiceField(queryset=ScheduleDocument.objects.none(), to_field_name="code", required=False,
                                      help_text="Blank for a house-banked game posted with its rules instead.")
    option = forms.IntegerField(min_value=1, required=False, help_text="The one schedule option the table uses.")
    rules = forms.CharField(required=False, max_length=40,
                            help_text="House-banked game without a schedule: the approved rules version, e.g. "
                                      "3 Card Bonus (WSGC enclosure 2014).")
    decks = forms.IntegerField(min_value=1, required=False, help_text="With rules: the decks dealt (6 or 8).")
    aggregate_payout_limit = strict.DecimalField(max_digits=12, decimal_places=2, required=False,
                                                 help_text="With rules: the aggregate payout limit, if any.")
    min_wager = strict.DecimalField(max_digits=12, decimal_places=2, help_text="Posted table minimum.")
    max_wager = strict.DecimalField(max_digits=12, decimal_places=2, help_text="Posted table maximum.")
    seats = forms.IntegerField(min_value=1, required=False, help_text="Blank: the table's seats.")
    effective_from = strict.LocalMomentField(required=False, help_text="Local time, YYYY-MM-DD HH:MM. Blank: now.")
    bonus_limits = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One per line: bet, minimum (may be blank), maximum, and with rules the paytable. E.g. "
                  "Fortune Bonus, 1, 20 or 3 Card Bonus, 1, 5, WSGC 1",
    )
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, scope, **kwargs):
        super().__init__(*args, **kwargs)
        self.scope = scope
        self.fields["table"].queryset = postable_tables(scope)
        self.fields["schedule"].queryset = ScheduleDocument.objects.filter(scope.placed_q()).order_by("code")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        limits = []
        for number, line in enumerate((data.get("bonus_limits") or "").splitlines(), start=1):
            if not line.strip():
                continue
            parts = [p.strip() for p in line.split(",")]
            if len(parts) not in (3, 4):
                raise forms.ValidationError(f"Bonus limits line {number}: write bet, minimum, maximum[, paytable].")
            limit = {"bet": parts[0], "minimum": parts[1] or None, "maximum": parts[2]}
            if len(parts) == 4:
                limit["paytable"] = parts[3]
            limits.append(limit)
        request = {
            "table": data["table"].pk, "schedule": data["schedule"].code if data.get("schedule") else None,
            "option": data.get("option"), "rules": data.get("rules") or None, "decks": data.get("decks"),
            "aggregate_payout_limit": None if data.get("aggregate_payout_limit") is None
            else str(data["aggregate_payout_limit"]),
            "min_wager": str(data["min_wager"]), "max_wager": str(data["max_wager"]), "notes": data.get("notes"),
            "bonus_limits": limits,
        }
        if data.get("seats"):
            request["seats"] = data["seats"]
        if data.get("effective_from"):
            request["effective_from"] = data["effective_from"].isoformat()
        try:
            data["fields"] = read_posting(request, scope=self.scope, now=timezone.now())
        except BadInput as error:
            strict.show_error(self, error)
        return data


class LookupForm(forms.Form):
    table = forms.ModelChoiceField(queryset=Table.objects.none())
    at = strict.LocalMomentField(label="At", help_text="Local time, YYYY-MM-DD HH:MM, e.g. 2026-03-03 02:30.")

    def __init__(self, *args, scope, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["table"].queryset = Table.objects.filter(scope.establishments_q("establishment__")).select_related(
            "establishment")


class OverrideForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), min_length=10,
                             help_text="Why the sign may be printed despite its errors (asking), or why you approve "
                                       "or refuse it. Kept in the audit log.")


class BatchForm(forms.Form):
    establishment = forms.ModelChoiceField(queryset=None)
    layout = forms.ChoiceField(choices=[(name, name) for name in signs.LAYOUTS])
    tables = forms.ModelMultipleChoiceField(queryset=Table.objects.none(), required=False,
                                            help_text="Leave empty for every active table.")

    def __init__(self, *args, scope, **kwargs):
        super().__init__(*args, **kwargs)
        from cardroom.models import Establishment

        allowed = permissions.rows(scope, services.PRINT_SIGN, Establishment.objects.all())
        self.fields["establishment"].queryset = allowed
        self.fields["tables"].queryset = Table.objects.filter(establishment__in=allowed)


@admin.register(TablePosting)
class TablePostingAdmin(ReadOnlyAdmin):
    list_display = ["table", "game", "schedule", "option_number", "min_wager", "max_wager", "effective_from",
                    "state", "errors", "prints"]
    list_filter = ["table__establishment", "schedule"]
    search_fields = ["table__label", "game__name", "schedule__code"]
    date_hierarchy = "effective_from"
    readonly_fields = ["table", "game", "schedule", "option_number", "rules", "decks", "aggregate_payout_limit",
                       "min_wager", "max_wager", "seats", "bonus_bets", "notes", "effective_from", "created_by",
                       "created_at", "state", "findings", "print_status", "print_history", "verification"]
    fields = readonly_fields
    actions = ["print_letter", "print_tent"]
    # Postings are made through "Post a table" (post_view), which validates them; never changed afterwards.

    @admin.display(description="State")
    def state(self, obj):
        later = obj.superseded_by()
        if later is not None:
            return f"superseded {content.local(later.effective_from)}"
        return "not yet in force" if obj.effective_from > timezone.now() else "in force"

    @admin.display(description="Bonus bets")
    def bonus_bets(self, obj):
        rows = obj.bonus_limits.select_related("paytable")
        if not rows:
            return "None."
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}: {} to {}{}</li>", (
            (b.bet, b.minimum if b.minimum is not None else "-", b.maximum,
             f" (paytable {b.paytable.number})" if b.paytable_id else "") for b in rows)))

    @admin.display(description="Errors when posted")  # the record; printing judges it now (print_status)
    def errors(self, obj):
        return validation_run(obj).errors

    @admin.display(description="Prints")
    def prints(self, obj):
        return obj.prints.count()

    @admin.display(description="Findings when saved")
    def findings(self, obj):
        run = validation_run(obj)
        rows = run.findings.order_by("id")
        if not rows:
            return "None: the posting passed every rule."
        return format_html("<ul>{}</ul>", format_html_join(
            "", "<li><strong>{}</strong> {}: {} <em>({})</em></li>",
            ((f.severity, f.rule, f.message, f.citation) for f in rows)))

    @admin.display(description="Printing")
    def print_status(self, obj):
        errors = error_findings(obj)
        granted = current_override(obj) if errors else None
        if not errors:
            return "May be printed."
        if granted is None:
            waiting = pending_override(obj)
            if waiting is not None:
                return (f"Blocked: an override asked for by {waiting.requested_by} "
                        f"({content.local(waiting.requested_at)}) awaits a second officer: {waiting.reason}")
            return "Blocked: error findings and no approved override."
        return (f"May be printed under an override asked for by {granted.requested_by} "
                f"({content.local(granted.requested_at)}): {granted.reason}; approved by {granted.decided_by} "
                f"({content.local(granted.decided_at)}): {granted.decision_reason}")

    @admin.display(description="Signs printed")
    def print_history(self, obj):
        rows = obj.prints.order_by("number")
        if not rows:
            return "None yet."
        return format_html("<ul>{}</ul>", format_html_join(
            "", "<li>{} {} ({}, {}) by {} on {}</li>",
            (("Reprint" if p.is_reprint else "Print", p.number, p.layout, p.get_channel_display(), p.printed_label,
              content.local(p.printed_at)) for p in rows)))

    @admin.display(description="Public verification page")
    def verification(self, obj):
        url = content.verify_url(obj)
        return format_html('<a href="{}">{}</a>', url, url)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("post/", view(self.post_view), name="fees_tableposting_post"),
            path("lookup/", view(self.lookup_view), name="fees_tableposting_lookup"),
            path("batch/", view(self.batch_view), name="fees_tableposting_batch"),
            path("<int:pk>/print/<str:layout>/", view(self.print_view), name="fees_tableposting_print"),
            path("<int:pk>/override/", view(self.override_view), name="fees_tableposting_override"),
            *super().get_urls(),
        ]

    def _page(self, request, form, title, button, **extra):
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "form": form, "title": title,
                   "button": button, **extra}
        return render(request, "admin/signage/form.html", context)

    def post_view(self, request):
        if not permissions.allowed(request.user, "signage.post_table"):
            raise PermissionDenied
        form = PostingForm(request.POST or None, scope=scope_of(request))
        if request.method == "POST" and form.is_valid():
            try:
                posting, run = post_table(request.user, fields=form.cleaned_data["fields"])
            except BadInput as error:  # found as it is saved, e.g. notes too long for the sign
                strict.show_error(form, error)
            else:
                level = messages.WARNING if run.errors else messages.SUCCESS
                messages.add_message(request, level, f"Posted {posting}: {run.errors} error(s), {run.warnings} "
                                                     "warning(s) when validated." + (
                                         " It cannot be printed until a compliance officer asks for an override "
                                         "and a second one approves it." if run.errors else ""))
                return redirect("admin:fees_tableposting_change", posting.pk)
        return self._page(request, form, "Post a table", "Post", intro=(
            "A posting is never changed: it stays in force until the table's next posting takes effect. "
            "It is checked against the schedule and the rules as it is saved."))

    def lookup_view(self, request):
        scope = scope_of(request)
        form = LookupForm(request.GET or None, scope=scope)
        extra = {}
        if request.GET and form.is_valid():
            table, at = form.cleaned_data["table"], form.cleaned_data["at"]
            extra = {"found": TablePosting.objects.in_force(table, at), "looked_up": table,
                     "at": content.local(at)}
        return self._page(request, form, "What was posted at a table at a moment", "Look up", method="get", **extra)

    def _posting(self, request, pk):
        return get_object_or_404(self.get_queryset(request), pk=pk)

    def print_view(self, request, pk, layout):
        posting = self._posting(request, pk)
        preview = request.method != "POST"  # a GET never records anything: it is a preview
        if layout not in signs.LAYOUTS:
            raise PermissionDenied
        try:
            rendered, _ = services.print_sign(request.user, posting=posting, layout=layout,
                                              channel=SignPrint.Channel.ADMIN, preview=preview)
        except (NotAllowed, StateConflict) as error:
            messages.error(request, str(error))
            return redirect("admin:fees_tableposting_change", posting.pk)
        return pdf(rendered.pdf, printing.filename(posting.table.establishment, [posting.table], layout))

    def override_view(self, request, pk):
        """Ask for an override; or, with one awaiting a second officer, approve or refuse it (not its asker), or
        withdraw it. Every step is a ``signage.services`` service, which decides who may take it."""
        posting = self._posting(request, pk)
        if not permissions.allowed(request.user, services.OVERRIDE_PRINT, posting.table.establishment):
            messages.error(request, permissions.refusal(services.OVERRIDE_PRINT))
            return redirect("admin:fees_tableposting_change", posting.pk)
        form = OverrideForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            service, done = OVERRIDE_STEPS.get(request.POST.get("step") or "request", (None, ""))
            try:
                if service is None:
                    raise BadInput("step must be request, approve, refuse or withdraw.")
                service(request.user, posting=posting, reason=form.cleaned_data["reason"])
            except (BadInput, StateConflict, NotAllowed) as error:
                messages.error(request, str(error))
            else:
                messages.success(request, done)
            return redirect("admin:fees_tableposting_change", posting.pk)
        waiting = pending_override(posting)
        if waiting is None:
            return self._page(request, form, f"Ask for an override of the print block of {posting}",
                              "Ask a second officer", original=posting, errors=error_findings(posting), intro=(
                                  "A second compliance officer of the establishment (or an administrator) approves "
                                  "or refuses it; the sign prints only once it is approved."))
        asked = (f"Asked for by {waiting.requested_by} on {content.local(waiting.requested_at)}: "
                 f"“{waiting.reason}”.")
        if waiting.requested_by_id == request.user.pk:
            return self._page(request, form, f"Override of {posting}: awaiting a second officer", "",
                              original=posting, errors=error_findings(posting),
                              intro=f"{asked} Another compliance officer must approve or refuse it.",
                              steps=[("withdraw", "Withdraw the request")])
        steps = [("approve", "Approve: the sign may be printed"), ("refuse", "Refuse")]
        if OVERRIDE.may(waiting, review.WITHDRAW, request.user):  # an administrator, for the asker
            steps.append(("withdraw", f"Withdraw {waiting.requested_by}'s request, as an administrator"))
        return self._page(request, form, f"Approve or refuse the override of {posting}", "", original=posting,
                          errors=error_findings(posting), intro=asked, steps=steps)

    def batch_view(self, request):
        scope = scope_of(request)
        form = BatchForm(request.POST or None, scope=scope)
        if request.method == "POST" and form.is_valid():
            establishment = form.cleaned_data["establishment"]
            chosen = [t.pk for t in form.cleaned_data["tables"]] or None  # none chosen: every active table
            try:
                job = tasks.start_batch(request.user, establishment=establishment, layout=form.cleaned_data["layout"],
                                        tables=chosen)
            except BadInput as refused:  # another room's tables: named, never the whole floor
                strict.show_error(form, refused)
            else:
                return redirect("admin:cardroom_job_change", job.pk)
        return self._page(request, form, "Print the signs of many tables", "Start printing", intro=(
            "The signs are printed by a background job into one PDF; its page shows progress and the download."))

    @permissions.declares("signage.print_sign")
    @admin.action(description="Print signs of the selected postings (letter)")
    def print_letter(self, request, queryset):
        return self._print_many(request, queryset, "letter")

    @permissions.declares("signage.print_sign")
    @admin.action(description="Print signs of the selected postings (tent)")
    def print_tent(self, request, queryset):
        return self._print_many(request, queryset, "tent")

    def _print_many(self, request, queryset, layout):
        postings = queryset.order_by("table__establishment", "table__label").select_related("table__establishment")
        try:
            rendered, _ = services.print_signs(request.user, postings=postings, layout=layout,
                                               channel=SignPrint.Channel.ADMIN)
        except (NotAllowed, StateConflict) as error:
            self.message_user(request, str(error), messages.ERROR)
            return None
        return pdf(rendered.pdf, f"signs-{layout}-{timezone.localtime():%Y%m%d-%H%M}.pdf")


def pdf(data, name):
    response = HttpResponse(data, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@admin.register(SignPrint)
class SignPrintAdmin(ReadOnlyAdmin):
    list_display = ["posting", "number", "reprint", "layout", "schedule_version", "channel", "printed_label",
                    "printed_at", "job"]
    list_filter = ["posting__table__establishment", "channel", "layout"]
    date_hierarchy = "printed_at"


    @admin.display(boolean=True, description="Reprint")
    def reprint(self, obj):
        return obj.is_reprint


@admin.register(PrintOverride)
class PrintOverrideAdmin(ReadOnlyAdmin):
    list_display = ["posting", "status", "requested_by", "requested_at", "reason", "decided_by", "decided_at",
                    "decision_reason"]
    list_filter = ["status", "posting__table__establishment"]



