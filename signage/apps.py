from django.apps import AppConfig


class SignageConfig(AppConfig):
    name = "signage"
    verbose_name = "Table postings and signage"
