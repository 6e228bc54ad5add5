from rest_framework.routers import DefaultRouter

from . import conditions, jobs, views


def register(router: DefaultRouter):
    router.register("jurisdictions", views.JurisdictionViewSet)
    router.register("establishments", views.EstablishmentViewSet)
    router.register("tables", views.TableViewSet)
    router.register("games", views.GameViewSet)
    router.register("paytables", views.PaytableViewSet)
    router.register("approvals", views.ApprovalViewSet)
    router.register("approval-conditions/fulfilments", conditions.FulfilmentViewSet)
    router.register("jobs", jobs.JobViewSet)
