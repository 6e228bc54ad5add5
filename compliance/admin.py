from django.contrib import admin
from django.db.models import Q
from django.utils import timezone

from cardroom.admin import ScopedAdmin, scope_of

from .models import Finding, RuleParameter, ValidationRun


@admin.register(RuleParameter)
class RuleParameterAdmin(ScopedAdmin):
    """Dated rule values. A change of limit is a new row with a later effective date (history is kept)."""

    list_display = ["jurisdiction", "key", "value", "unit", "effective_from", "status", "citation"]
    list_filter = ["jurisdiction", "status", "key"]
    search_fields = ["key", "citation", "note"]

    def scope_queryset(self, queryset, scope):
        return queryset if scope.is_admin else queryset.filter(jurisdiction__in=scope.jurisdictions)


class FindingInline(admin.TabularInline):
    model = Finding
    extra = 0
    fields = ["severity", "rule", "table", "schedule", "option_number", "message", "acknowledged_at"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


def findings_q(scope):
    if scope.is_admin:
        return Q()
    return scope.establishments_q("establishment__") | Q(establishment__isnull=True,
                                                       jurisdiction__in=scope.jurisdictions)


@admin.register(ValidationRun)
class ValidationRunAdmin(ScopedAdmin):
    list_display = ["id", "kind", "trigger", "as_of", "establishment", "schedule_version", "errors", "warnings",
                    "infos", "created_at"]
    list_filter = ["kind", "trigger", "establishment"]
    readonly_fields = [f.name for f in ValidationRun._meta.fields]
    inlines = [FindingInline]

    def scope_queryset(self, queryset, scope):
        if scope.is_admin:
            return queryset
        return queryset.filter(
            Q(establishment__isnull=False) & scope.establishments_q("establishment__")
            | Q(schedule_version__isnull=False) & scope.placed_q("schedule_version__document__")
        )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Finding)
class FindingAdmin(ScopedAdmin):
    """Findings per table and per schedule; a compliance officer acknowledges one with a reason."""

    list_display = ["id", "severity", "rule", "establishment", "table", "schedule", "option_number", "short_message",
                    "acknowledged_at"]
    list_filter = ["severity", "rule", "establishment", "table", "schedule", ("acknowledged_at", admin.EmptyFieldListFilter)]
    search_fields = ["message", "rule", "citation"]
    fields = ["run", "rule", "severity", "subject_type", "subject", "message", "citation", "parameters",
              "establishment", "table", "posting", "schedule", "schedule_version", "option_number", "approval",
              "acknowledged_at", "acknowledged_by", "acknowledgement_reason"]

    def get_readonly_fields(self, request, obj=None):
        return [f for f in self.fields if f != "acknowledgement_reason"]

    @admin.display(description="message")
    def short_message(self, obj):
        return obj.message[:120]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(findings_q(scope))

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        scope = scope_of(request)
        if obj is None:
            return scope.is_admin or bool(scope.compliance_establishments)
        if obj.acknowledged_at is not None:
            return False
        if scope.is_admin:
            return True
        if obj.establishment_id:
            return obj.establishment_id in scope.compliance_establishments
        return obj.jurisdiction_id in scope.compliance_jurisdictions

    def save_model(self, request, obj, form, change):
        if obj.acknowledgement_reason.strip() and obj.acknowledged_at is None:
            obj.acknowledged_at = timezone.now()
            obj.acknowledged_by = request.user
            obj._change_reason = f"Acknowledged: {obj.acknowledgement_reason}"
        super().save_model(request, obj, form, change)
