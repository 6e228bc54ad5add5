"""The admin site, for administrators only, and the base every model admin on it writes through.

Every model admin, ours and other apps' (auth, authtoken, axes), saves, deletes and saves inline rows through
``cardroom.changes`` with a required reason, so each change reaches the hash-chained audit log like a change
made through the API: ``AdminSite.register`` mixes ``AuditedMixin`` into any admin that does not have it.
History "revert" is off (SIMPLE_HISTORY_REVERT_DISABLED, and a POST to a past version is refused), bulk
"delete selected" is removed, and nothing is deleted unless its admin says so (``deletable``).
"""

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import PermissionDenied
from django.db import models
from simple_history.admin import SimpleHistoryAdmin

from . import changes
from . import forms as strict
from . import credentials, permissions

REASON = "change_reason"


def reason_field():
    return forms.CharField(
        max_length=2000, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why you are making this change: kept in the history and the audit log.",
    )


class AuditedMixin:
    """Saves, inline rows and deletions through ``cardroom.changes``, with the reason every form asks for."""

    deletable = False  # a model admin that may delete says so
    # Values are read as the API reads them (cardroom.values): bounded dates, plain decimals and whole numbers.
    formfield_overrides = {
        models.DateField: {"form_class": strict.DayField},
        models.DateTimeField: {"form_class": strict.MomentField},
        models.DecimalField: {"form_class": strict.DecimalField},
        models.IntegerField: {"form_class": strict.IntegerField},
    }

    def _writable(self, request, obj):
        return self.has_change_permission(request, obj) if obj is not None else self.has_add_permission(request)

    def get_fields(self, request, obj=None):
        fields = [f for f in super().get_fields(request, obj) if f != REASON]
        return [*fields, REASON] if self._writable(request, obj) else fields

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if self.fieldsets and self._writable(request, obj):
            fieldsets = [*fieldsets, ("Why", {"fields": [REASON]})]
        return fieldsets

    def get_form(self, request, obj=None, change=False, **kwargs):
        # The model form is built without the reason (it is no model field), which is then added to it.
        fields = kwargs["fields"] if "fields" in kwargs else flatten_fieldsets(self.get_fieldsets(request, obj))
        kwargs["fields"] = None if fields is None else [f for f in fields if f != REASON]
        form = super().get_form(request, obj, change=change, **kwargs)
        if REASON not in form.base_fields:
            form = type(form.__name__, (form,), {REASON: reason_field()})
        return form

    def reason(self, request, form=None):
        reason = form.cleaned_data.get(REASON) if form is not None else None
        return reason or f"{request.user.get_username()} in the admin"

    def save_model(self, request, obj, form, change):
        changes.save(obj, user=request.user, reason=self.reason(request, form))

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        many = {field.name for field in form.instance._meta.many_to_many}
        for name in sorted(many & set(form.changed_data)):
            changes.save_related(form.instance, name, user=request.user, reason=self.reason(request, form))

    def save_formset(self, request, form, formset, change):
        reason = self.reason(request, form)
        for instance in formset.save(commit=False):
            changes.save(instance, user=request.user, reason=reason)
        for instance in formset.deleted_objects:
            changes.delete(instance, user=request.user, reason=reason)
        formset.save_m2m()

    def delete_model(self, request, obj):
        changes.delete(obj, user=request.user, reason=self.reason(request))

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.deletable and super().has_delete_permission(request, obj)


class AuditedAdmin(AuditedMixin, SimpleHistoryAdmin):
    """The base of every model admin of the project: audited, with its history readable."""

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        """A past version may be looked at, never saved back: django-simple-history's form would save a POST
        even with revert disabled (its setting only hides the button)."""
        if request.method != "GET":
            raise PermissionDenied("History is read-only here: make the change as a new one, with its reason.")
        return super().history_form_view(request, object_id, version_id, extra_context)


class AuditedInline:
    """Inline rows are saved by the parent's ``save_formset`` (with its reason); deleting one needs ``deletable``."""

    deletable = False

    def has_delete_permission(self, request, obj=None):
        return self.deletable and super().has_delete_permission(request, obj)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written only by their services (the audit log, jobs, prints): shown, never changed here."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AdminSite(admin.AdminSite):
    site_header = "cardroom - administration"
    site_title = "cardroom"
    index_title = "Administration: every record, every change logged"

    def __init__(self, name="admin"):
        super().__init__(name)
        self.disable_action("delete_selected")  # deletions one at a time, each through cardroom.changes.delete

    def has_permission(self, request):
        """Administrators only. A floor supervisor, compliance officer or regulator gets nothing here, not even a
        list filter: each works through the API and the pages made for their role. An administrator's session must
        also have passed its second factor (cardroom.middleware sends it to do so first, from the admin's own login
        too): the admin is no way around it."""
        return permissions.allowed(request.user, "cardroom.use_admin") and not credentials.refusal(
            request.user, credentials.SESSION, request=request)

    def register(self, model_or_iterable, admin_class=None, **options):
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, (AuditedMixin, ReadOnlyAdmin)):
            # Another app's admin (auth's groups, authtoken's tokens, axes' attempts): audited all the same; it
            # may delete what it deleted before (an unlocked account's failed attempts, a revoked token).
            admin_class = type(admin_class.__name__, (AuditedMixin, admin_class), {"deletable": True})
        return super().register(model_or_iterable, admin_class, **options)
