from django.contrib import admin, messages

from cardroom import permissions
from cardroom.admin_site import AuditedAdmin, ReadOnlyAdmin
from cardroom.exceptions import BadInput, StateConflict

from . import findings
from .models import Finding, RuleParameter, ValidationRun


@admin.register(RuleParameter)
class RuleParameterAdmin(AuditedAdmin):
    """Dated rule values, never deleted: a change of limit is a new row with a later effective date, and the
    reason for it goes to the history and the audit log."""

    list_display = ["jurisdiction", "key", "value", "unit", "effective_from", "status", "citation"]
    list_filter = ["jurisdiction", "status", "key"]
    search_fields = ["key", "citation", "note"]


class FindingInline(admin.TabularInline):
    model = Finding
    extra = 0
    fields = ["severity", "rule", "table", "schedule", "option_number", "message", "acknowledged_at"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ValidationRun)
class ValidationRunAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "trigger", "as_of", "establishment", "schedule_version", "errors", "warnings",
                    "infos", "created_at"]
    list_filter = ["kind", "trigger", "establishment"]
    readonly_fields = [f.name for f in ValidationRun._meta.fields]
    inlines = [FindingInline]


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):
    """Findings per table and per schedule. The one change made here is acknowledging one, with a reason,
    through the same service as the API (compliance.findings)."""

    list_display = ["id", "severity", "rule", "establishment", "table", "schedule", "option_number", "short_message",
                    "acknowledged_at"]
    list_filter = ["severity", "rule", "establishment", "table", "schedule",
                   ("acknowledged_at", admin.EmptyFieldListFilter)]
    search_fields = ["message", "rule", "citation"]
    fields = ["run", "rule", "severity", "subject_type", "subject", "message", "citation", "parameters",
              "establishment", "table", "posting", "schedule", "schedule_version", "option_number", "approval",
              "acknowledged_at", "acknowledged_by", "acknowledgement_reason"]

    def get_readonly_fields(self, request, obj=None):
        return [f for f in self.fields if f != "acknowledgement_reason"]

    @admin.display(description="message")
    def short_message(self, obj):
        return obj.message[:120]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        """Acknowledging is the one change: an unacknowledged finding, by who may acknowledge it."""
        return (obj is None or obj.acknowledged_at is None) and permissions.allowed(
            request.user, "compliance.acknowledge_finding", obj)

    def save_model(self, request, obj, form, change):
        try:
            findings.acknowledge(request.user, finding=obj, reason=obj.acknowledgement_reason)
        except (BadInput, StateConflict) as error:
            messages.error(request, f"Not acknowledged: {error}")
