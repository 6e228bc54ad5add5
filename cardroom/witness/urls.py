"""The witness's addresses, under /witness/ (cardroom.witness.views)."""

from django.urls import path

from . import views

urlpatterns = [
    path("add-checkpoint", views.add_checkpoint, name="witness-add-checkpoint"),
    path("key", views.key, name="witness-key"),
    path("<str:origin_hash>/checkpoint", views.checkpoint, name="witness-checkpoint"),
]
