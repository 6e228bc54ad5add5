"""The project: what runs the apps (settings, URLs, the WSGI application, the Celery app), above every app, so that
no app names the apps above it (docs/architecture.md, "Layers").

The Celery app loads with the settings (Django's start, and ``celery -A project``), so every ``@shared_task`` binds
to it."""

from .celery import app as celery_app

__all__ = ["celery_app"]
