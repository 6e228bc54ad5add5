from django.urls import path
from rest_framework.routers import DefaultRouter

from . import api

# Plain (non-router) endpoints of this app, mounted under /api/v1/.
urlpatterns = [
    path("compliance/check", api.CheckView.as_view(), name="compliance-check"),
    path("compliance/check/", api.CheckView.as_view()),
    path("compliance/lint", api.LintView.as_view(), name="compliance-lint"),
    path("compliance/lint/", api.LintView.as_view()),
]


def register(router: DefaultRouter):
    router.register("compliance/runs", api.RunViewSet)
    router.register("compliance/findings", api.FindingViewSet)
    router.register("compliance/parameters", api.ParameterViewSet)
