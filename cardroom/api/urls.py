from django.urls import path
from rest_framework.routers import DefaultRouter

from . import audit, conditions, jobs, views

# Plain (non-router) endpoints, mounted under /api/v1/.
urlpatterns = [
    path("audit/keys", audit.KeysView.as_view(), name="audit-keys"),
    path("audit/checkpoint", audit.CheckpointView.as_view(), name="audit-checkpoint"),
    path("audit/proof", audit.ProofView.as_view(), name="audit-proof"),
    path("audit/consistency", audit.ConsistencyView.as_view(), name="audit-consistency"),
]


def register(router: DefaultRouter):
    router.register("jurisdictions", views.JurisdictionViewSet)
    router.register("establishments", views.EstablishmentViewSet)
    router.register("tables", views.TableViewSet)
    router.register("games", views.GameViewSet)
    router.register("paytables", views.PaytableViewSet)
    router.register("approvals", views.ApprovalViewSet)
    router.register("approval-conditions/fulfilments", conditions.FulfilmentViewSet)
    router.register("jobs", jobs.JobViewSet)
