from django.urls import path
from rest_framework.routers import DefaultRouter

from . import api, verify_api

# Plain (non-router) endpoints of this app, mounted under /api/v1/.
urlpatterns = [
    path("exports/public-key", verify_api.PublicKeyView.as_view(), name="exports-public-key"),
    path("exports/verify", verify_api.VerifyView.as_view(), name="exports-verify"),
    path("exports", api.ExportView.as_view(), name="exports"),
    path("exports/", api.ExportView.as_view()),
]


def register(router: DefaultRouter):
    pass
