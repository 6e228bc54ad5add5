from django.apps import AppConfig


class ExportsConfig(AppConfig):
    name = "exports"
    verbose_name = "Audit exports"

    def ready(self):
        # What is its own, registered with the core (cardroom.registry): its permissions, the kinds of its jobs with
        # their tasks (for their recovery), and what writes a closing month's bundles, for fees.months: the apps
        # below run them without naming exports.
        from cardroom.registry import Exporter, register
        from fees.months.services import MONTH_BUNDLE

        from . import permissions
        from .installation import export_month
        from .tasks import AUDIT_EXPORT_KIND, CHECK_KIND

        register(*permissions.PERMISSIONS, AUDIT_EXPORT_KIND, CHECK_KIND, Exporter(MONTH_BUNDLE, export_month))
