"""Schedules in the admin (administrators): browse documents, versions, options and tiers; edit drafts; publish
with a reason; start a new draft from a published version; see who changed what and why."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.forms.models import BaseInlineFormSet
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from cardroom import forms as strict
from cardroom import permissions
from cardroom.admin_site import AuditedAdmin, AuditedInline, ReadOnlyAdmin
from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.moments import format_moment

from .forms import CheckedBands
from .models import ClosedMonth, FeeOption, FeeTier, Interpretation, ScheduleDocument, ScheduleVersion
from .schedules import editing, services
from .schedules.services import APPROVE, EDIT


def editable(request, version):
    """A version's rows are changed as at every door (``fees.schedules.editing.may_edit``): drafts, by those who may change
    the schedule; published versions (and those awaiting a second officer) by nobody."""
    return version is None or editing.may_edit(request.user, version)


class ScheduleVersionInline(AuditedInline, admin.TabularInline):
    model = ScheduleVersion
    fields = ["link", "status", "effective_from", "reason", "published_by", "published_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    @admin.display(description="Version")
    def link(self, obj):
        url = reverse("admin:fees_scheduleversion_change", args=[obj.pk])
        return format_html('<a href="{}">v{}</a>', url, obj.number)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ScheduleDocument)
class ScheduleDocumentAdmin(AuditedAdmin):
    list_display = ["code", "title", "jurisdiction", "establishment", "in_force_today"]
    list_filter = ["jurisdiction", "establishment"]
    search_fields = ["code", "title", "games__name"]
    filter_horizontal = ["games"]
    inlines = [ScheduleVersionInline]


    @admin.display(description="In force today")
    def in_force_today(self, obj):
        version = obj.version_as_of(timezone.localdate())
        return f"v{version.number}" if version else "none"


class FeeOptionInline(AuditedInline, admin.TabularInline):
    model = FeeOption
    fields = ["link", "label", "basis", "tier_count"]
    readonly_fields = ["link", "tier_count"]
    extra = 0
    show_change_link = False

    @admin.display(description="Option")
    def link(self, obj):
        if obj.pk is None:
            return "-"
        return format_html('<a href="{}">Option {}</a>', reverse("admin:fees_feeoption_change", args=[obj.pk]),
                           obj.number)

    @admin.display(description="Tiers")
    def tier_count(self, obj):
        return obj.tiers.count() if obj.pk else 0

    def has_add_permission(self, request, obj=None):
        return editable(request, obj)

    def has_change_permission(self, request, obj=None):
        return editable(request, obj)

    def has_delete_permission(self, request, obj=None):
        return editable(request, obj)  # an option of a draft; a published version's rows refuse (VersionRowGuard)


def tiers_table(options):
    """The whole version as one readable table: option, what is measured, bounds, fee, who pays."""
    rows = []
    for option in options:
        for tier in option.tiers.all():
            rows.append((option.number, tier.get_fee_kind_display(), tier.get_measure_display(),
                         tier.printed_bounds or "-", tier.printed_fee, tier.get_payer_display(),
                         tier.get_taken_display(), tier.note))
    if not rows:
        return "No tiers."
    body = format_html_join("", "<tr>" + "<td>{}</td>" * 8 + "</tr>", rows)
    head = format_html_join("", "<th>{}</th>", ((h,) for h in (
        "Option", "Fee", "Measured on", "Bounds", "Fee as printed", "Paid by", "Taken", "Note")))
    return format_html("<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", head, body)


def history_table(version):
    """Who changed this version, its options or its tiers, when and why (newest first)."""
    records = [
        *ScheduleVersion.history.filter(id=version.pk),
        *FeeOption.history.filter(version_id=version.pk),
        *FeeTier.history.filter(option_id__in=FeeOption.objects.filter(version=version).values("pk")),
    ]
    records.sort(key=lambda r: r.history_date, reverse=True)
    room = version.document.establishment
    zone = room.zone if room is not None else timezone.get_current_timezone()  # a jurisdiction's: the installation's
    rows = [
        (format_moment(r.history_date, zone), r.history_user or "system", r.get_history_type_display(),
         r.instance_type._meta.verbose_name, str(r.instance), r.history_change_reason or "")
        for r in records[:200]
    ]
    if not rows:
        return "No changes recorded."
    body = format_html_join("", "<tr>" + "<td>{}</td>" * 6 + "</tr>", rows)
    return format_html(
        "<table><thead><tr><th>When</th><th>Who</th><th>Change</th><th>What</th><th>Row</th><th>Why</th></tr></thead>"
        "<tbody>{}</tbody></table>", body,
    )


class PublishForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="Asking: why this version should be published. Approving: why you approve it.")


class NewDraftForm(forms.Form):
    effective_from = strict.DayField(help_text="First day the new version will apply (YYYY-MM-DD).")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="What will change and on whose authority.")


@admin.register(ScheduleVersion)
class ScheduleVersionAdmin(AuditedAdmin):
    list_display = ["__str__", "document", "status", "effective_from", "review_requested_by", "published_by",
                    "published_at"]
    list_filter = ["status", "document"]
    search_fields = ["document__code"]
    readonly_fields = ["document", "number", "status", "based_on", "created_by", "created_at", "publication_reason",
                       "review_requested_by", "review_requested_at", "published_by", "published_at", "all_tiers",
                       "changes"]
    fields = ["document", "number", "status", "effective_from", "reason", "provisions", "based_on", "created_by",
              "created_at", "publication_reason", "review_requested_by", "review_requested_at", "published_by",
              "published_at", "change_reason", "all_tiers", "changes"]
    inlines = [FeeOptionInline]
    change_form_template = "admin/fees/scheduleversion/change_form.html"
    deletable = True  # a draft, discarded (editable() below keeps published versions)

    @admin.display(description="Options and tiers")
    def all_tiers(self, obj):
        return tiers_table(obj.options.prefetch_related("tiers")) if obj.pk else "-"

    @admin.display(description="Changes (who, when, why)")
    def changes(self, obj):
        return history_table(obj) if obj.pk else "-"

    def has_add_permission(self, request):
        return False  # versions start from "New draft from this version", so each has a parent and a reason

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and editable(request, obj)

    def save_model(self, request, obj, form, change):
        """A draft's fields are changed as through the API (``fees.schedules.editing.edit_draft``)."""
        given = {name: form.cleaned_data[name] for name in editing.DRAFT_FIELDS if name in form.cleaned_data}
        editing.edit_draft(request.user, version=obj, fields=given, why=self.reason(request, form))

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and editable(request, obj)

    def get_urls(self):
        return [
            path("<int:pk>/publish/", self.admin_site.admin_view(self.publish_view), name="fees_scheduleversion_publish"),
            path("<int:pk>/new-draft/", self.admin_site.admin_view(self.new_draft_view),
                 name="fees_scheduleversion_new_draft"),
            *super().get_urls(),
        ]

    def _version_for_action(self, request, pk):
        version = get_object_or_404(self.get_queryset(request), pk=pk)
        permission = (EDIT if version.status != ScheduleVersion.Status.IN_REVIEW else APPROVE)
        if not permissions.allowed(request.user, permission, version.document):
            raise PermissionDenied(permissions.refusal(permission, version.document))
        return version

    def get_deleted_objects(self, objs, request):
        """A draft's readings go with it (``discard_draft`` deletes them, their history kept): listed with what is
        deleted, not as protected. Anything else protected (a review record, a draft started from it) still is."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        readings = list(Interpretation.objects.filter(version__in=objs).select_related("version__document"))
        if len(objs) == 1 and readings and len(protected) == len(readings):  # every PROTECT row is a reading
            listed = [f"Interpretation: {reading}" for reading in readings]
            under = deleted[1] if len(deleted) > 1 and isinstance(deleted[1], list) else []
            deleted = [deleted[0], [*under, *listed], *deleted[1 + bool(under):]]  # under the draft's own line
            counts = {**counts, str(Interpretation._meta.verbose_name_plural): len(readings)}
            # Deleting them is the service's step (asking fees.edit_schedule), not the read-only reading admin's.
            perms_needed, protected = perms_needed - {str(Interpretation._meta.verbose_name)}, []
        return deleted, counts, perms_needed, protected

    def delete_model(self, request, obj):
        """A draft is discarded as at every door (``fees.schedules.services.discard_draft``); a refusal (a conflict: it
        changed since the page was shown) rolls the admin's transaction back."""
        try:
            services.discard_draft(request.user, version=obj)
        except (NotAllowed, StateConflict) as exc:
            raise PermissionDenied(str(exc)) from None

    def _action_page(self, request, version, form, title, button):
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "original": version,
                   "form": form, "title": title, "button": button}
        return render(request, "admin/fees/scheduleversion/action.html", context)

    def publish_view(self, request, pk):
        """A draft: ask for publication. A version awaiting a second officer: approve it (not its author's). The
        steps are ``fees.schedules.services``', which decide who may take them."""
        version = self._version_for_action(request, pk)
        asking = version.status == ScheduleVersion.Status.DRAFT
        form = PublishForm(request.POST or None, initial={"reason": version.reason if asking else ""})
        if request.method == "POST" and form.is_valid():
            reason = form.cleaned_data["reason"]
            try:
                if asking:
                    services.request_publication(request.user, version=version, reason=reason,
                                                 effective_from=version.effective_from,
                                                 retroactive=version.retroactive,
                                                 retroactive_reason=version.retroactive_reason)
                else:
                    services.approve_publication(request.user, version=version, reason=reason)
            except (BadInput, StateConflict) as exc:
                messages.error(request, str(exc))
            except NotAllowed as exc:
                raise PermissionDenied(str(exc)) from None
            else:
                messages.success(request, f"{version}: publication asked for; a second officer approves it."
                                 if asking else f"{version} is published. It can no longer be changed.")
            return redirect("admin:fees_scheduleversion_change", version.pk)
        if asking:
            return self._action_page(request, version, form, f"Ask for publication of {version}", "Ask")
        return self._action_page(request, version, form, f"Approve and publish {version}", "Approve and publish")

    def new_draft_view(self, request, pk):
        version = self._version_for_action(request, pk)
        form = NewDraftForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                draft = services.start_draft(request.user, based_on=version, **form.cleaned_data)
            except BadInput as exc:
                form.add_error(exc.field if exc.field in form.fields else None, str(exc))
                return self._action_page(request, version, form, f"New draft from {version}", "Create draft")
            except StateConflict as exc:
                messages.error(request, str(exc))
                return redirect("admin:fees_scheduleversion_change", version.pk)
            except NotAllowed as exc:
                raise PermissionDenied(str(exc)) from None
            messages.success(request, f"{draft} created from v{version.number}. Edit it, then publish it.")
            return redirect("admin:fees_scheduleversion_change", draft.pk)
        return self._action_page(request, version, form, f"New draft from {version}", "Create draft")


class TierRowsFormSet(CheckedBands, BaseInlineFormSet):
    """An option's tier rows in the admin, refused when their bands overlap or leave a gap, as the grid refuses
    them (``fees.forms.band_problems``)."""

    def clean(self):
        super().clean()
        if not any(form.errors for form in self.forms):
            self._check_bands()


class FeeTierInline(AuditedInline, admin.TabularInline):
    model = FeeTier
    formset = TierRowsFormSet
    extra = 0
    fields = ["order", "fee_kind", "payer", "measure", "lower", "upper", "fee", "taken", "printed_bounds",
              "printed_fee", "note"]

    def has_add_permission(self, request, obj=None):
        return editable(request, obj.version if obj else None)

    def has_change_permission(self, request, obj=None):
        return editable(request, obj.version if obj else None)

    def has_delete_permission(self, request, obj=None):
        return editable(request, obj.version if obj else None)


@admin.register(FeeOption)
class FeeOptionAdmin(AuditedAdmin):
    list_display = ["__str__", "label", "basis", "version"]
    list_filter = ["basis", "version__document"]
    search_fields = ["version__document__code", "label"]
    readonly_fields = ["version"]
    inlines = [FeeTierInline]
    deletable = True  # an option of a draft (editable() below keeps published versions)

    def has_add_permission(self, request):
        return False  # options are added from their version's page

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and editable(request, obj.version if obj else None)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and editable(request, obj.version if obj else None)


@admin.register(Interpretation)
class InterpretationAdmin(ReadOnlyAdmin):
    """How values the sources leave open are read: proposed, approved, refused and withdrawn through
    ``fees.schedules.interpretations`` (the compliance pages and the API), shown here, never changed here."""

    list_display = ["__str__", "status", "decided_on", "citation", "recorded_by", "reviewed_by", "reviewed_at"]
    list_filter = ["status", "field", "version__document"]
    search_fields = ["version__document__code", "statement", "citation"]
    readonly_fields = [f.name for f in Interpretation._meta.fields]


@admin.register(ClosedMonth)
class ClosedMonthAdmin(ReadOnlyAdmin):
    """Months of the ledger closed and reopened by ``manage.py close_month`` / ``reopen_month``: what was archived
    where, with each file's SHA-256; shown here, never changed here."""

    list_display = ["__str__", "rooms", "closed_at", "closed_by", "reopened_at", "reopened_by"]
    list_filter = ["archived", "establishments"]
    readonly_fields = [f.name for f in ClosedMonth._meta.fields] + ["establishments"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("establishments")

    @admin.display(description="Establishments")
    def rooms(self, obj):
        return ", ".join(sorted(e.slug for e in obj.establishments.all()))
