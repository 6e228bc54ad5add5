from django.apps import AppConfig


class SignageConfig(AppConfig):
    name = "signage"
    verbose_name = "Table postings and signage"

    def ready(self):
        # What is its own, registered with the core (cardroom.registry; cardroom imports no feature app): its
        # permissions, its two-person review (the inbox and the emails), the kind of its jobs with its task.
        from cardroom.registry import register

        from . import permissions, reviews
        from .tasks import BATCH_KIND

        register(*permissions.PERMISSIONS, reviews.OVERRIDE_KIND, BATCH_KIND)
