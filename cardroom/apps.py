from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class CardroomConfig(AppConfig):
    default = True
    name = "cardroom"
    verbose_name = "Card rooms, games and approvals"
    # Cosignatures are kept as the witnesses answered them (grant_service_role).
    service_role_privileges = {"cardroom.CheckpointCosignature": "SELECT, INSERT"}

    def ready(self):
        from . import checks  # noqa: F401  (registers the root-of-trust check, run with --database)
        from . import credentials  # noqa: F401  (a role granted revokes the credentials made without its factor)
        from . import permissions, registry, seed, witnessing

        # What the core itself owns, through the one registry each app registers its own with (cardroom.registry).
        registry.register(
            *permissions.PERMISSIONS,  # the named permissions user.has_perm answers
            *witnessing.INBOX_KINDS,  # a witness refusing or down, in the inbox
            registry.SeedLoader(self.name, seed.load),
        )
        from django.contrib.auth.signals import user_logged_in

        from .second_factor import remember_devices

        user_logged_in.connect(remember_devices, dispatch_uid="cardroom.second_factor")


class AdminConfig(admin_apps.AdminConfig):
    """The admin, with the site that lets administrators only in."""

    default = False
    default_site = "cardroom.admin_site.AdminSite"
