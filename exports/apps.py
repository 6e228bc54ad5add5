from django.apps import AppConfig


class ExportsConfig(AppConfig):
    name = "exports"
    verbose_name = "Audit exports"

    def ready(self):
        # The tasks of its jobs, for their recovery, and a closing month's bundles, for fees.months: the apps below
        # run them without naming exports.
        from cardroom import jobs
        from cardroom.models import Job
        from fees.months import services as months

        from .installation import export_month
        from .tasks import export_audit, verify_bundle

        jobs.register_task(Job.Kind.AUDIT_EXPORT, export_audit)
        jobs.register_task(Job.Kind.BUNDLE_VERIFICATION, verify_bundle)
        months.register_export(export_month)
