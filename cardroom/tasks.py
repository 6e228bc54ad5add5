from celery import shared_task
from django.db import connection

from .models import Approval, Game


@shared_task
def worker_health():
    """What a worker sees of the database: proves the broker, the worker and the database are wired up."""
    return {"database": connection.vendor, "games": Game.objects.count(), "approvals": Approval.objects.count()}
