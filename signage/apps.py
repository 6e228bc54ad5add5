from django.apps import AppConfig


class SignageConfig(AppConfig):
    name = "signage"
    verbose_name = "Table postings and signage"

    def ready(self):
        # Its two-person reviews, for the inbox and the emails, and the task of its jobs, for their recovery
        # (cardroom imports no feature app).
        from cardroom import jobs
        from cardroom.models import Job

        from . import reviews
        from .tasks import print_batch

        reviews.register()
        jobs.register_task(Job.Kind.SIGNAGE_BATCH, print_batch)
