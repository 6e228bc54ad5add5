from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "console"
    verbose_name = "Role pages"

    def ready(self):
        from . import links

        links.register_all()  # the pages the layers below link to, and the error page's look
