from django.apps import AppConfig


class FeesConfig(AppConfig):
    name = "fees"
    verbose_name = "Collection-rate schedules"
    # Read by manage.py grant_service_role: tables the service's database role may only read. A closed month's
    # record is written by close_month / reopen_month, run as the owner; the service must not be able to change
    # what a reopening restores (its seal guards the rest).
    service_role_privileges = {"fees.ClosedMonth": "SELECT", "fees.ClosedMonth.establishments": "SELECT"}

    def ready(self):
        # Its two-person reviews, for the inbox and the emails, and the tasks of its jobs, for their recovery
        # (cardroom imports no feature app).
        from cardroom import jobs
        from cardroom.models import Job

        from .months import held
        from .schedules import reviews
        from .imports import import_records
        from .ledger.services import reconcile_period

        from . import tasks
        from .models.schedules import version_published

        version_published.connect(tasks.published, dispatch_uid="fees.version_published")
        reviews.register()
        held.register()  # a month the nightly close left open, in the inbox
        jobs.register_task(Job.Kind.LEDGER_IMPORT, import_records)
        jobs.register_task(Job.Kind.RECONCILIATION, reconcile_period)
