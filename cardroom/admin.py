"""The Django admin: for administrators only (every other role works through the API and its own pages).

Every model admin derives from ``AuditedAdmin``: each save, inline row and deletion goes through
``cardroom.changes`` with a required reason, so it reaches the hash-chained audit log like a change made
through the API. Nothing is deleted unless its admin says so, history "revert" is off
(SIMPLE_HISTORY_REVERT_DISABLED) and bulk "delete selected" is removed (cardroom.admin_site).
"""

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.html import format_html
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from . import permissions, tokens
from .admin_site import AuditedAdmin, AuditedInline, AuditedMixin, ReadOnlyAdmin
from .audit import log_action
from .models import (
    Approval,
    ApprovalCondition,
    AuditLogEntry,
    BetLimit,
    Establishment,
    Game,
    GameRules,
    Job,
    Jurisdiction,
    Membership,
    Paytable,
    PaytableLine,
    Source,
    StatedHouseEdge,
    Table,
)


@admin.register(Jurisdiction)
class JurisdictionAdmin(AuditedAdmin):
    list_display = ["code", "name", "kind", "currency", "regulator"]


@admin.register(Source)
class SourceAdmin(AuditedAdmin):
    """Source documents are never deleted (cardroom.models.guards)."""

    list_display = ["key", "title", "issuer", "issued_on", "seed_file"]
    search_fields = ["key", "title", "issuer"]


class TableInline(AuditedInline, admin.TabularInline):
    model = Table
    extra = 0
    fields = ["label", "seats", "game", "active"]
    autocomplete_fields = ["game"]


@admin.register(Establishment)
class EstablishmentAdmin(AuditedAdmin):
    list_display = ["name", "slug", "jurisdiction", "kind", "time_zone", "is_demo"]
    list_filter = ["jurisdiction", "kind"]
    search_fields = ["name", "slug"]
    inlines = [TableInline]


@admin.register(Table)
class TableAdmin(AuditedAdmin):
    list_display = ["label", "establishment", "game", "seats", "active"]
    list_filter = ["establishment", "active"]
    autocomplete_fields = ["game"]
    deletable = True  # a table never posted nor recorded at (anything else protects it)


class GameRulesInline(AuditedInline, admin.StackedInline):
    model = GameRules
    extra = 0


class BetLimitInline(AuditedInline, admin.TabularInline):
    model = BetLimit
    extra = 0


@admin.register(Game)
class GameAdmin(AuditedAdmin):
    list_display = ["name", "registration_number", "category", "owner", "max_collection_rates"]
    list_filter = ["category"]
    search_fields = ["name", "registration_number", "slug"]
    inlines = [GameRulesInline, BetLimitInline]


class PaytableLineInline(AuditedInline, admin.TabularInline):
    model = PaytableLine
    extra = 0


class StatedHouseEdgeInline(AuditedInline, admin.TabularInline):
    model = StatedHouseEdge
    extra = 0
    fk_name = "paytable"
    exclude = ["approval"]


@admin.register(Paytable)
class PaytableAdmin(AuditedAdmin):
    list_display = ["game", "bet", "number", "citation"]
    list_filter = ["game"]
    inlines = [PaytableLineInline, StatedHouseEdgeInline]


@admin.register(StatedHouseEdge)
class StatedHouseEdgeAdmin(AuditedAdmin):
    list_display = ["game", "bet", "decks", "strategy", "edge_percent", "approval"]


class ApprovalConditionInline(AuditedInline, admin.TabularInline):
    model = ApprovalCondition
    extra = 0
    fields = ["order", "text", "applies_to", "status", "status_reason", "citation"]


@admin.register(Approval)
class ApprovalAdmin(AuditedAdmin):
    """Approvals and their conditions are never deleted: set the status (withdrawn, revoked, superseded) and
    say why in the status reason."""

    list_display = ["game", "jurisdiction", "establishment", "status", "scope", "decided_on", "effective_from",
                    "expires_on"]
    list_filter = ["status", "jurisdiction", "establishment"]
    search_fields = ["key", "game__name", "reference"]
    inlines = [ApprovalConditionInline]


@admin.register(Membership)
class MembershipAdmin(AuditedAdmin):
    list_display = ["user", "role", "establishment", "jurisdiction"]
    list_filter = ["role"]
    deletable = True  # taking a role away


@admin.register(AuditLogEntry)
class AuditLogAdmin(ReadOnlyAdmin):
    """The log is append-only: entries are written by ``cardroom.audit.log_action`` only."""

    list_display = ["created_at", "actor_label", "action", "object_repr", "establishment", "jurisdiction",
                    "sequence", "short_hash"]
    list_filter = ["action"]
    search_fields = ["object_repr", "actor_label", "action"]
    date_hierarchy = "created_at"

    @admin.display(description="hash")
    def short_hash(self, obj):
        return obj.entry_hash[:12]


@admin.register(Job)
class JobAdmin(ReadOnlyAdmin):
    """Background jobs (sign batches, audit exports): progress while they run, the file when done."""

    list_display = ["created_at", "kind", "establishment", "requested_label", "status", "progress", "download"]
    list_filter = ["kind", "status"]
    readonly_fields = ["uuid", "kind", "status", "establishment", "jurisdiction", "params", "requested_label",
                       "progress", "stage", "error", "result", "download", "created_at", "started_at", "finished_at"]
    fields = readonly_fields

    @admin.display(description="Progress")
    def progress(self, obj):
        return f"{obj.percent}% ({obj.done} of {obj.total})" if obj.total else obj.get_status_display()

    @admin.display(description="File")
    def download(self, obj):
        if obj.status != Job.Status.DONE or not obj.file:
            return "-"
        return format_html('<a href="{}">{}</a>', f"/api/v1/jobs/{obj.uuid}/download/",
                           obj.file.name.rsplit("/", 1)[-1])

    def change_view(self, request, object_id, form_url="", extra_context=None):
        response = super().change_view(request, object_id, form_url, extra_context)
        job = Job.objects.filter(pk=object_id).first()
        if job is not None and job.status in (Job.Status.QUEUED, Job.Status.RUNNING):
            response["Refresh"] = "2"  # follow the progress without pressing reload
        return response


# Django's own user admin: saved through the audited mixin like every other (cardroom.admin_site), and its
# password form, which saves the user itself, logged here (the hash never is).
User = get_user_model()
admin.site.unregister(User)


class MembershipInline(AuditedInline, admin.TabularInline):
    """The person's roles, on the person (issue 42: an administrator looked for them here, not on a page of their
    own). Saved, each row, through ``cardroom.changes`` with the user's reason, so credentials follow roles as on
    the Memberships page (``cardroom.credentials``)."""

    model = Membership
    fk_name = "user"
    extra = 1
    deletable = True  # taking a role away
    fields = ["role", "establishment", "jurisdiction"]
    verbose_name, verbose_name_plural = "role", "roles (what this person may do, and where)"

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        fields = formset.form.base_fields
        fields["role"].help_text = ("A compliance officer or floor supervisor works at one establishment; a "
                                    "regulator reads one jurisdiction; an administrator needs neither.")
        fields["establishment"].help_text = "For a compliance officer or a floor supervisor only."
        fields["jurisdiction"].help_text = "For a regulator only."
        return formset


@admin.register(User)
class CardroomUserAdmin(AuditedMixin, UserAdmin):
    deletable = True
    inlines = [MembershipInline]

    def user_change_password(self, request, id, form_url=""):
        response = super().user_change_password(request, id, form_url)
        if request.method == "POST" and response.status_code == 302:
            log_action("auth.user.password_change", actor=request.user, obj=User.objects.get(pk=id),
                       data={"reason": f"password set by {request.user.get_username()} in the admin"})
        return response


# API tokens (cardroom.tokens): listed without their keys, revoked by deleting them; made here only for accounts that
# need no second factor (those that do make their own on their account page, after passing it).
admin.site.unregister(TokenProxy)


class TokenForm(forms.ModelForm):
    def clean_user(self):
        user = self.cleaned_data["user"]
        if (refusal := tokens.refusal_for(user)) is not None:
            raise forms.ValidationError(refusal)
        return user


@admin.register(TokenProxy)
class CardroomTokenAdmin(AuditedMixin, TokenAdmin):
    deletable = True  # revoking a token
    form = TokenForm
    list_display = ["user", "created", "key_ends"]

    @admin.display(description="key ends with")
    def key_ends(self, obj):
        return f"…{obj.key[-4:]}"


# Login locks (django-axes' failed attempts, cardroom.authentication): cleared in one go, the selected or every one
# ("Select all"), each deletion audited as one made row by row would be (issue 42).
admin.site.unregister(AccessAttempt)


@admin.register(AccessAttempt)
class CardroomAccessAttemptAdmin(AuditedMixin, AccessAttemptAdmin):
    deletable = True  # clearing a lock
    actions = ["cleanup_expired_attempts", "unlock"]

    @permissions.declares("cardroom.use_admin")
    @admin.action(description="Unlock: clear the selected failed logins (the accounts and addresses may log in)")
    def unlock(self, request, queryset):
        locks = list(queryset)
        for attempt in locks:
            self.delete_model(request, attempt)
        who = sorted({a.username or a.ip_address for a in locks})
        self.message_user(request, f"{len(locks)} lock{'s' if len(locks) != 1 else ''} cleared: {', '.join(who)}.")
