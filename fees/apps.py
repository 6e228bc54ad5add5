from django.apps import AppConfig


class FeesConfig(AppConfig):
    name = "fees"
    verbose_name = "Collection-rate schedules"
    # Read by manage.py grant_service_role: tables the service's database role may only read. A closed month's
    # record is written by close_month / reopen_month, run as the owner; the service must not be able to change
    # what a reopening restores (its seal guards the rest).
    service_role_privileges = {"fees.ClosedMonth": "SELECT", "fees.ClosedMonth.establishments": "SELECT"}

    def ready(self):
        # Its two-person reviews, for the inbox and the emails (cardroom imports no feature app).
        from . import reviews

        reviews.register()
