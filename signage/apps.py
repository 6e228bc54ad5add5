from django.apps import AppConfig


class SignageConfig(AppConfig):
    name = "signage"
    verbose_name = "Table postings and signage"

    def ready(self):
        # Its two-person reviews, for the inbox and the emails (cardroom imports no feature app).
        from . import reviews

        reviews.register()
