from django.apps import AppConfig


class FeesConfig(AppConfig):
    name = "fees"
    verbose_name = "Collection-rate schedules"
    # Read by manage.py grant_service_role: tables the service's database role may only read. A closed month's
    # record is written by close_month / reopen_month, run as the owner; the service must not be able to change
    # what a reopening restores (its seal guards the rest).
    service_role_privileges = {"fees.ClosedMonth": "SELECT", "fees.ClosedMonth.establishments": "SELECT"}

    def ready(self):
        # What is its own, registered with the core (cardroom.registry; cardroom imports no feature app): its
        # permissions, its two-person reviews and a month left open (the inbox and the emails), the kinds of its
        # jobs with their tasks (for their recovery), its seed data.
        from cardroom.registry import SeedLoader, register

        from . import permissions, seed, tasks
        from .imports.recording import IMPORT_KIND
        from .ledger.services import RECONCILIATION_KIND
        from .models.schedules import version_published
        from .months import held
        from .schedules import reviews

        version_published.connect(tasks.published, dispatch_uid="fees.version_published")
        register(*permissions.PERMISSIONS, *reviews.INBOX_KINDS, held.MONTH_HELD_KIND, IMPORT_KIND,
                 RECONCILIATION_KIND, SeedLoader(self.name, seed.load))
