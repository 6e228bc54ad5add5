from django.contrib import admin
from django.utils.html import format_html
from simple_history.admin import SimpleHistoryAdmin

from .access import scope_of
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

admin.site.site_header = "cardroom - regulatory data"
admin.site.site_title = "cardroom"
admin.site.index_title = "Schedules, games, approvals and the audit log"


class ScopedAdmin(SimpleHistoryAdmin):
    """Lists only the rows the user may see (see cardroom.access)."""

    def scope_queryset(self, queryset, scope):
        return queryset

    def get_queryset(self, request):
        return self.scope_queryset(super().get_queryset(request), scope_of(request))


@admin.register(Jurisdiction)
class JurisdictionAdmin(ScopedAdmin):
    list_display = ["code", "name", "kind", "currency", "regulator"]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(pk__in=scope.jurisdictions_qs().values("pk"))


@admin.register(Source)
class SourceAdmin(SimpleHistoryAdmin):
    list_display = ["key", "title", "issuer", "issued_on", "seed_file"]
    search_fields = ["key", "title", "issuer"]


class TableInline(admin.TabularInline):
    model = Table
    extra = 0
    fields = ["label", "seats", "game", "active"]
    autocomplete_fields = ["game"]


@admin.register(Establishment)
class EstablishmentAdmin(ScopedAdmin):
    list_display = ["name", "slug", "jurisdiction", "kind", "is_demo"]
    list_filter = ["jurisdiction", "kind"]
    search_fields = ["name", "slug"]
    inlines = [TableInline]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.establishments_q())


@admin.register(Table)
class TableAdmin(ScopedAdmin):
    list_display = ["label", "establishment", "game", "seats", "active"]
    list_filter = ["establishment", "active"]
    autocomplete_fields = ["game"]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.establishments_q("establishment__"))


class GameRulesInline(admin.StackedInline):
    model = GameRules
    extra = 0


class BetLimitInline(admin.TabularInline):
    model = BetLimit
    extra = 0


class GameScopedAdmin(ScopedAdmin):
    game_path = "game__"

    def scope_queryset(self, queryset, scope):
        return queryset.filter(**{f"{self.game_path}in": Game.objects.filter(scope.games_q()).values("pk")})


@admin.register(Game)
class GameAdmin(GameScopedAdmin):
    game_path = "pk__"
    list_display = ["name", "registration_number", "category", "owner", "max_collection_rates"]
    list_filter = ["category"]
    search_fields = ["name", "registration_number", "slug"]
    inlines = [GameRulesInline, BetLimitInline]


class PaytableLineInline(admin.TabularInline):
    model = PaytableLine
    extra = 0


class StatedHouseEdgeInline(admin.TabularInline):
    model = StatedHouseEdge
    extra = 0
    fk_name = "paytable"
    exclude = ["approval"]


@admin.register(Paytable)
class PaytableAdmin(GameScopedAdmin):
    list_display = ["game", "bet", "number", "citation"]
    list_filter = ["game"]
    inlines = [PaytableLineInline, StatedHouseEdgeInline]


@admin.register(StatedHouseEdge)
class StatedHouseEdgeAdmin(GameScopedAdmin):
    list_display = ["game", "bet", "decks", "strategy", "edge_percent", "approval"]


class ApprovalConditionInline(admin.TabularInline):
    model = ApprovalCondition
    extra = 0
    fields = ["order", "text", "applies_to", "status", "citation"]


@admin.register(Approval)
class ApprovalAdmin(ScopedAdmin):
    list_display = ["game", "jurisdiction", "establishment", "status", "scope", "decided_on", "effective_from",
                    "expires_on"]
    list_filter = ["status", "jurisdiction", "establishment"]
    search_fields = ["key", "game__name", "reference"]
    inlines = [ApprovalConditionInline]

    def scope_queryset(self, queryset, scope):
        return queryset.filter(scope.placed_q())


@admin.register(Membership)
class MembershipAdmin(SimpleHistoryAdmin):
    list_display = ["user", "role", "establishment", "jurisdiction"]
    list_filter = ["role"]


@admin.register(AuditLogEntry)
class AuditLogAdmin(admin.ModelAdmin):
    """Read-only for everybody: the log is append-only."""

    list_display = ["created_at", "actor_label", "action", "object_repr", "establishment", "jurisdiction",
                    "sequence", "short_hash"]
    list_filter = ["action"]
    search_fields = ["object_repr", "actor_label", "action"]
    date_hierarchy = "created_at"

    @admin.display(description="hash")
    def short_hash(self, obj):
        return obj.entry_hash[:12]

    def get_queryset(self, request):
        scope = scope_of(request)
        queryset = super().get_queryset(request)
        return queryset if scope.is_admin else queryset.filter(scope.placed_q())

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    """Background jobs (sign batches, audit exports): progress while they run, the file when done."""

    list_display = ["created_at", "kind", "establishment", "requested_label", "status", "progress", "download"]
    list_filter = ["kind", "status"]
    readonly_fields = ["uuid", "kind", "status", "establishment", "jurisdiction", "params", "requested_label",
                       "progress", "stage", "error", "result", "download", "created_at", "started_at", "finished_at"]
    fields = readonly_fields

    def get_queryset(self, request):
        from .api.jobs import visible_jobs

        return visible_jobs(scope_of(request))

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
        job = self.get_queryset(request).filter(pk=object_id).first()
        if job is not None and job.status in (Job.Status.QUEUED, Job.Status.RUNNING):
            response["Refresh"] = "2"  # follow the progress without pressing reload
        return response

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_staff
