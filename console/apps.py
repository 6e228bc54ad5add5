from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "console"
    verbose_name = "Role pages"

    def ready(self):
        from cardroom.registry import register

        from . import links, permissions

        # Registered with the core (cardroom.registry): its permissions, the pages the layers below link to, and
        # the error page's look.
        register(*permissions.PERMISSIONS, *links.ENTRIES)
