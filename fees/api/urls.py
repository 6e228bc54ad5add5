from django.urls import path
from rest_framework.routers import DefaultRouter

from . import ledger, views
from .quotes import QuoteView

# Plain (non-router) endpoints of this app, mounted under /api/v1/.
urlpatterns = [
    path("fees/quote", QuoteView.as_view(), name="fee-quote"),
    path("fees/quote/", QuoteView.as_view()),
    # GET schedules/{code}/diff?from=N&to=M, as written in the issue, beside the router's diff/ (one operation).
    path("schedules/<str:code>/diff", views.ScheduleViewSet.as_view(
        {"get": "version_diff"}, basename="scheduledocument", detail=True, **views.ScheduleViewSet.version_diff.kwargs),
        name="scheduledocument-diff-alias"),
]


def register(router: DefaultRouter):
    router.register("schedules", views.ScheduleViewSet)
    router.register("ledger/entries", ledger.CollectionEntryViewSet)
    router.register("ledger/rounds", ledger.RoundViewSet)
    router.register("ledger/reconciliations", ledger.ReconciliationViewSet)
