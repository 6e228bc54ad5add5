from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from cardroom.models import Establishment, Game, Jurisdiction, Role, Table
from cardroom.roles import appoint

# Development-only accounts, documented in the README. Never load these on a real installation.
DEMO_USERS = [
    # username, password, role, establishment slug, jurisdiction code
    ("admin", "admin-dev-only", Role.ADMIN, None, None),
    ("compliance", "compliance-dev-only", Role.COMPLIANCE_OFFICER, "casino-marysville", None),
    ("floor", "floor-dev-only", Role.FLOOR_SUPERVISOR, "casino-marysville", None),
    ("regulator-ca", "regulator-dev-only", Role.REGULATOR, None, "CA"),
    ("compliance-wa", "compliance-dev-only", Role.COMPLIANCE_OFFICER, "demo-evergreen-card-room", None),
    ("regulator-wa", "regulator-dev-only", Role.REGULATOR, None, "WA"),
]
# Seats per table by game category (betting positions, the player-dealer's included).
SEATS = {"player_dealer": 7, "poker_drop": 9, "time_collection": 8, "house_banked": 6}


class Command(BaseCommand):
    help = (
        "Add a demo floor on top of the seed data: tables for every California game at Casino Marysville, a "
        "Washington card room with One for the Money tables, and one user per role (development-only passwords)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Load even when DEBUG is False (never in production).")

    @transaction.atomic
    def handle(self, *args, force=False, **options):
        if not settings.DEBUG and not force:
            raise CommandError("load_demo creates accounts with published passwords; it runs only with DEBUG=True.")
        call_command("load_seed_data", verbosity=0)
        marysville = Establishment.objects.get(slug="casino-marysville")
        california_games = (
            Game.objects.filter(approvals__establishment=marysville).exclude(category="gaming_activity").distinct()
        )
        for number, game in enumerate(california_games.order_by("name"), start=1):
            Table.objects.get_or_create(establishment=marysville, label=str(number),
                                        defaults={"game": game, "seats": SEATS[game.category]})
        evergreen, _ = Establishment.objects.get_or_create(slug="demo-evergreen-card-room", defaults={
            "name": "Evergreen Card Room (demo)", "jurisdiction": Jurisdiction.objects.get(code="WA"),
            "kind": Establishment.Kind.CARD_ROOM, "is_demo": True,
        })
        one_for_the_money = Game.objects.get(slug="one-for-the-money")
        for label in ("OFM-1", "OFM-2"):
            Table.objects.get_or_create(establishment=evergreen, label=label,
                                        defaults={"game": one_for_the_money, "seats": SEATS["house_banked"]})
        User = get_user_model()
        for username, password, role, establishment, jurisdiction in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.save()
            appoint(
                user, role,
                establishment=Establishment.objects.get(slug=establishment) if establishment else None,
                jurisdiction=Jurisdiction.objects.get(code=jurisdiction) if jurisdiction else None,
            )
        if options["verbosity"]:
            tables = Table.objects.filter(establishment__in=[marysville, evergreen]).count()
            self.stdout.write(self.style.SUCCESS(
                f"Demo floor ready: {tables} tables; users {', '.join(u[0] for u in DEMO_USERS)} (see README)."
            ))
