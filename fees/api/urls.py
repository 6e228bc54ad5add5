from django.urls import path
from rest_framework.routers import DefaultRouter

from . import ledger, views
from .quotes import QuoteView

# Plain (non-router) endpoints of this app, mounted under /api/v1/.
urlpatterns = [
    path("fees/quote", QuoteView.as_view(), name="fee-quote"),
    path("fees/quote/", QuoteView.as_view()),
]


def register(router: DefaultRouter):
    router.register("schedules", views.ScheduleViewSet)
    router.register("ledger/entries", ledger.CollectionEntryViewSet)
    router.register("ledger/rounds", ledger.RoundViewSet)
    router.register("ledger/reconciliations", ledger.ReconciliationViewSet)
