from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Compliance"

    def ready(self):
        from cardroom.conditions import condition_recorded

        from . import alerts, kept
        from .tasks import check_room_after_condition

        alerts.register()

        condition_recorded.connect(check_room_after_condition, dispatch_uid="compliance.condition_recorded")
        kept.register()  # what a kept judgement was judged from: every change of it draws a new generation
