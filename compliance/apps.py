from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Compliance"

    def ready(self):
        from cardroom import conditions
        from cardroom.registry import Listener, SeedLoader, register

        from . import alerts, kept, permissions, seed
        from .tasks import check_room_after_condition

        # What is its own, registered with the core (cardroom.registry): its permissions, the error findings in the
        # inbox, a condition recorded checking the room's postings again, its seed data.
        register(*permissions.PERMISSIONS, alerts.FINDING_ERROR_KIND,
                 Listener(conditions.RECORDED, check_room_after_condition), SeedLoader(self.name, seed.load))
        kept.register()  # what a kept judgement was judged from: every change of it draws a new generation
