from django.urls import path, re_path
from rest_framework.routers import DefaultRouter

from . import interpretations, ledger, views
from .impact import ImpactView
from .quotes import QuoteView

# Plain (non-router) endpoints of this app, mounted under /api/v1/.
urlpatterns = [
    path("fees/quote", QuoteView.as_view(), name="fee-quote"),
    path("fees/quote/", QuoteView.as_view()),
    # GET schedules/{code}/diff?from=N&to=M, as written in the issue, beside the router's diff/ (one operation).
    path("schedules/<str:code>/diff", views.ScheduleViewSet.as_view(
        {"get": "version_diff"}, basename="scheduledocument", detail=True, **views.ScheduleViewSet.version_diff.kwargs),
        name="scheduledocument-diff-alias"),
    # GET ledger/reconciliations/{id}/receipt, as written in issue 13, beside the router's receipt/ (one operation).
    re_path(r"^ledger/reconciliations/(?P<pk>[0-9]{1,18})/receipt$", ledger.ReconciliationViewSet.as_view(
        {"get": "receipt"}, basename="reconciliation", detail=True, **ledger.ReconciliationViewSet.receipt.kwargs),
        name="reconciliation-receipt-alias"),
    # GET ledger/months?establishment=: a room's months (the Months page's twin, issue 42).
    path("ledger/months", ledger.MonthsView.as_view(), name="ledger-months"),
    path("ledger/months/", ledger.MonthsView.as_view()),
    # GET schedules/{code}/versions/{number}/impact?establishment=&from=&to= (issue 13: impact before publishing).
    path("schedules/<str:code>/versions/<int:number>/impact", ImpactView.as_view(), name="schedule-impact"),
    path("schedules/<str:code>/versions/<int:number>/impact/", ImpactView.as_view()),
]


def register(router: DefaultRouter):
    router.register("schedules", views.ScheduleViewSet)
    router.register(r"schedules/(?P<code>[^/]+)/interpretations", interpretations.InterpretationViewSet,
                    basename="interpretation")
    router.register("ledger/entries", ledger.CollectionEntryViewSet)
    router.register("ledger/rounds", ledger.RoundViewSet)
    router.register("ledger/reconciliations", ledger.ReconciliationViewSet)
