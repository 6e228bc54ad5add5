from django.apps import AppConfig


class FeesConfig(AppConfig):
    name = "fees"
    verbose_name = "Collection-rate schedules"
