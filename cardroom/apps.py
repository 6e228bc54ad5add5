from django.apps import AppConfig


class CardroomConfig(AppConfig):
    name = "cardroom"
    verbose_name = "Card rooms, games and approvals"
