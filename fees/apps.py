from django.apps import AppConfig


class FeesConfig(AppConfig):
    name = "fees"
    verbose_name = "Collection-rate schedules"

    def ready(self):
        # Its two-person reviews, for the inbox and the emails (cardroom imports no feature app).
        from . import reviews

        reviews.register()
