from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Compliance"

    def ready(self):
        from cardroom.conditions import condition_recorded

        from . import alerts
        from .tasks import check_room_after_condition

        alerts.register()

        condition_recorded.connect(check_room_after_condition, dispatch_uid="compliance.condition_recorded")
