from django.urls import path
from rest_framework.routers import DefaultRouter

from . import api, views

# Plain (non-router) endpoints of this app, mounted under /api/v1/.
urlpatterns = [
    path("tables/<int:pk>/posting", api.TablePostingView.as_view(), name="table-posting"),
    path("tables/<int:pk>/signage.pdf", api.TableSignageView.as_view(), name="table-signage"),
    path("signage/batches", api.BatchView.as_view(), name="signage-batches"),
    path("signage/batches/", api.BatchView.as_view()),
]

# Public pages, no login: what the QR code on a sign opens.
public_urlpatterns = [
    path("verify/<str:token>/", views.verify, name="signage-verify"),
]


def register(router: DefaultRouter):
    router.register("postings", api.PostingViewSet)
