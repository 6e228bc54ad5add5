import datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from cardroom import second_factor
from cardroom.exceptions import BadInput
from cardroom.management.base import BaseCommand
from cardroom.models import Establishment, Game, Jurisdiction, Role, Table
from cardroom.roles import appoint
from demo import play
from fees.models import ScheduleDocument, TablePosting

# Who the history names for what the demo posts (no person: the demo loader).
DEMO_ACTOR = "the demo data"
# Development-only accounts, documented in the README. Never load these on a real installation.
DEMO_USERS = [
    # username, password, role, establishment slug, jurisdiction code
    ("admin", "admin-dev-only", Role.ADMIN, None, None),
    ("compliance", "compliance-dev-only", Role.COMPLIANCE_OFFICER, "casino-marysville", None),
    ("compliance-2", "compliance-dev-only", Role.COMPLIANCE_OFFICER, "casino-marysville", None),
    ("floor", "floor-dev-only", Role.FLOOR_SUPERVISOR, "casino-marysville", None),
    ("regulator-ca", "regulator-dev-only", Role.REGULATOR, None, "CA"),
    ("compliance-wa", "compliance-dev-only", Role.COMPLIANCE_OFFICER, "demo-evergreen-card-room", None),
    ("compliance-wa-2", "compliance-dev-only", Role.COMPLIANCE_OFFICER, "demo-evergreen-card-room", None),
    ("regulator-wa", "regulator-dev-only", Role.REGULATOR, None, "WA"),
]
# The demo's second factor (development only, published in the README like the passwords): the accounts whose role
# needs one on a real installation (cardroom.second_factor) have an authenticator app with this base32 secret and
# these recovery codes (made usable again by every run of load_demo).
DEMO_TOTP_SECRET = "CARDROOMDEMOONLYCARDROOMDEMOONLY"
DEMO_RECOVERY_CODES = [f"demo-recovery-{n}" for n in range(1, 6)]
DEMO_SECOND_FACTOR = {Role.ADMIN, Role.COMPLIANCE_OFFICER, Role.REGULATOR}
# When the demo postings start: the beginning of the seeded data's first demo gaming day.
DEMO_POSTED_FROM = datetime.datetime(2026, 1, 1, 8, 0, tzinfo=ZoneInfo("America/Los_Angeles"))
# Table minimum and maximum where the option states no table limit of its own.
DEMO_LIMITS = (Decimal("5"), Decimal("500"))
# Seats per table by game category (betting positions, the player-dealer's included).
SEATS = {"player_dealer": 7, "poker_drop": 9, "time_collection": 8, "house_banked": 6}
# The Evergreen Card Room's One for the Money tables: house-banked, no collection schedule, so each posts the
# approved rules version (the WSGC letter's enclosure), 6 decks and the paytable of its bonus bet. The Ante's
# $300 maximum is within WAC 230-15-140 whichever value is confirmed ($300 from 2009, $400 from 2023-07-20 to be
# checked); each bonus bet's $5 maximum is WAC 230-15-040's side-wager limit. Perfect Match pays 100 to 1, so
# OFM-2 sets an aggregate payout limit, above the least WAC 230-15-490 allows ($5 x 50 = $250).
DEMO_ANTE = (Decimal("10"), Decimal("300"))
DEMO_HOUSE_BANKED = {
    # table: (rules version, decks, [(bonus bet, minimum, maximum, paytable number)], aggregate payout limit)
    "OFM-1": ("3 Card Bonus (WSGC enclosure 2014)", 6, [("3 Card Bonus", Decimal("1"), Decimal("5"), "WSGC 1")],
              None),
    "OFM-2": ("Perfect Match (WSGC enclosure 2014)", 6, [("Perfect Match", Decimal("1"), Decimal("5"), "WSGC 1")],
              Decimal("1000")),
}

# Prerequisite conditions the demo records as met (cardroom.conditions), before the demo postings take effect:
# (approval key, condition number, establishment, compliance officer, evidence reference).
DEMO_CONDITIONS_MET_ON = datetime.date(2025, 12, 1)
DEMO_CONDITIONS_MET = [
    ("one-for-the-money-wa-2014", 2, "demo-evergreen-card-room", "compliance-wa",
     "DEMO-WSGC-IC-2025-001 (demo: the Commission's approval of the room's internal controls for One For The Money)"),
    ("three-card-poker-casino-marysville", 1, "casino-marysville", "compliance",
     "DEMO-CMV-TCP-OWNER-AGREEMENT (demo: agreement with ShuffleMaster Inc. submitted with the approval request)"),
]


# The date of the (fictional) Bureau answer the demo's interpretation cites.
DEMO_INTERPRETATION_DECIDED_ON = datetime.date(2025, 12, 15)


def _kept_emails():
    """The files of the emails kept so far where email is kept as files (EMAIL_FILE_PATH, one file per email:
    ``cardroom.notify`` sends each alone); None where it is sent or kept elsewhere."""
    if settings.EMAIL_BACKEND != "django.core.mail.backends.filebased.EmailBackend":
        return None
    folder = Path(settings.EMAIL_FILE_PATH)
    return set(folder.iterdir()) if folder.is_dir() else set()


class Command(BaseCommand):
    help = (
        "Add a demo floor on top of the seed data: tables for every California game at Casino Marysville, a "
        "Washington card room with One for the Money tables, one user per role (development-only passwords), "
        "and a month of recorded play at Casino Marysville (rounds, collections, reconciliations)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Load even when DEBUG is False (never in production).")
        parser.add_argument(
            "--days", type=int, default=play.MONTH_DAYS, metavar="N",
            help=f"Record only the first N gaming days of the demo month ({play.MONTH_START:%B %Y}; default: "
                 f"all {play.MONTH_DAYS}; 0 records no play).",
        )

    def handle(self, *args, force=False, days=play.MONTH_DAYS, **options):
        if not settings.DEBUG and not force:
            raise CommandError("load_demo creates accounts with published passwords; it runs only with DEBUG=True.")
        if not 0 <= days <= play.MONTH_DAYS:
            raise CommandError(f"--days must be from 0 to {play.MONTH_DAYS}, not {days}.")
        kept = _kept_emails()
        with transaction.atomic():  # the reviews' emails are sent as it commits (cardroom.notify)
            self.load(days, options["verbosity"])
        if options["verbosity"] and kept is not None:
            self.report_emails(kept)

    def load(self, days, verbosity):
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
            # An address under example.org (reserved, RFC 2606) so the reviews' emails have someone to go to: with
            # the console backend of the embedded default they are printed where bin/serve runs.
            user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
            if created:
                user.set_password(password)
                user.save()
            appoint(
                user, role,
                establishment=Establishment.objects.get(slug=establishment) if establishment else None,
                jurisdiction=Jurisdiction.objects.get(code=jurisdiction) if jurisdiction else None,
            )
            if role in DEMO_SECOND_FACTOR:
                second_factor.set_up_app(user, DEMO_TOTP_SECRET)
                second_factor.new_recovery_codes(user, DEMO_RECOVERY_CODES)
        self.record_conditions_met(User)  # before posting: a posting is an error while a prerequisite is outstanding
        self.post_tables(Table.objects.filter(establishment=marysville), User.objects.get(username="compliance"))
        self.post_house_banked_tables(Table.objects.filter(establishment=evergreen))
        self.record_interpretation(User)
        month = play.record_month(marysville, recorder=User.objects.get(username="floor"),
                                  corrector=User.objects.get(username="compliance-2"), days=days)
        with connection.cursor() as cursor:
            # Planner statistics for the month just written: SQLite never gathers them itself, and without them it
            # sums a month's rounds table by table (the regulator's room page: 0.8 s of CPU instead of 0.28 s).
            cursor.execute("ANALYZE")
        if verbosity:
            tables = Table.objects.filter(establishment__in=[marysville, evergreen]).count()
            posted = TablePosting.objects.filter(table__establishment__in=[marysville, evergreen]).count()
            self.stdout.write(self.style.SUCCESS(
                f"Demo floor ready: {tables} tables ({posted} posted); users {', '.join(u[0] for u in DEMO_USERS)} (see README)."
            ))
            self.report_play(marysville, month)

    def report_emails(self, before):
        """Where the emails the demo's reviews sent are (the file backend without EMAIL_HOST: project.settings),
        in a sentence rather than the emails themselves."""
        sent = len(_kept_emails() - before)
        folder = Path(settings.EMAIL_FILE_PATH)
        shown = folder.relative_to(settings.BASE_DIR) if folder.is_relative_to(settings.BASE_DIR) else folder
        self.stdout.write(f"{sent} email{'' if sent == 1 else 's'} of the demo's approvals kept in {shown}/, one file "
                          f"each (no EMAIL_HOST is set, so nothing is sent).")

    def report_play(self, establishment, month):
        if not month.hands:
            self.stdout.write("No demo play recorded (--days 0).")
            return
        period = f"{month.first_day.day} {month.first_day:%B %Y} to {month.last_day.day} {month.last_day:%B %Y}"
        self.stdout.write(
            f"Demo play at {establishment}, gaming days {period}: {month.hands} rounds at "
            f"{len(month.tables_played)} tables ({', '.join(month.tables_played)}); {month.fates['short']} collected "
            f"short, {month.fates['missing']} not collected, {month.fates['corrected']} mis-keyed and corrected."
        )
        for label, why in month.tables_skipped.items():
            self.stdout.write(f"  Table {label} has no play recorded: {why}")
        if month.added_anything:
            self.stdout.write(self.style.SUCCESS(
                f"Added {month.rounds_created} rounds, {month.entries_created} collection entries (corrections "
                f"included) and {month.reconciliations_created} nightly reconciliations."
            ))
        else:
            self.stdout.write(f"Already recorded: nothing added ({month.entries_received} entries sent again, all "
                              f"already in the ledger).")

    def post_tables(self, tables, officer):
        """Post each demo table through the same service as the API (so each posting is validated), on the first
        option with fees of a schedule listed for its game (the Bureau's own GEGA codes first) whose posting
        has no error findings; where none is clean, on the first one, which then prints only under a
        compliance override, which the demo compliance officer asks for and a second one (compliance-2) approves.
        Limits come from the option where it states them."""
        from signage.postings import post_table
        from signage.services import approve_override, request_override

        for table in tables:
            if TablePosting.objects.filter(table=table).exists():
                continue
            candidates = []
            documents = ScheduleDocument.objects.filter(games=table.game).order_by("-code")
            for document in sorted(documents, key=lambda d: not d.code.startswith("GEGA-")):
                version = document.version_as_of(DEMO_POSTED_FROM.date())
                if version is not None:
                    candidates += list(version.options.filter(tiers__isnull=False).distinct().order_by("number"))
            first = None
            for option in candidates:
                try:
                    with transaction.atomic():
                        posting, run = post_table(None, fields=self.fields(table, option), actor_label=DEMO_ACTOR)
                        if run.errors:
                            first = first or option
                            raise BadInput("has errors")  # roll this attempt back; try the next option
                    break
                except BadInput:
                    continue
            else:
                if first is not None:
                    posting, run = post_table(None, fields=self.fields(table, first), actor_label=DEMO_ACTOR)
                    request_override(officer, posting=posting, reason=(
                        "Demo: every option listed for this game breaks a rule of the approved game (see the "
                        "findings); printed while the Bureau is asked which document governs."))
                    second = get_user_model().objects.get(username="compliance-2")
                    approve_override(second, posting=posting, reason=(
                        "Demo: findings read; the sign may be printed until the Bureau answers."))

    def post_house_banked_tables(self, tables):
        """Post the WA One for the Money tables (DEMO_HOUSE_BANKED) through the same service as the API; each
        posting is validated as it is saved."""
        from fees.postings import house_banked
        from signage.postings import post_table

        for table in tables.order_by("label"):
            if table.label not in DEMO_HOUSE_BANKED or TablePosting.objects.filter(table=table).exists():
                continue
            version, decks, bets, aggregate = DEMO_HOUSE_BANKED[table.label]
            game = table.game
            posting, run = post_table(None, fields={
                "table": table, "game": game, "schedule": None, "option_number": None,
                "rules": house_banked.rules_of(game, version), "decks": house_banked.decks_of(game, decks),
                "aggregate_payout_limit": aggregate, "min_wager": DEMO_ANTE[0], "max_wager": DEMO_ANTE[1],
                "seats": table.seats, "effective_from": DEMO_POSTED_FROM, "notes": "Demo posting.",
                "bonus_limits": [(bet, low, high, house_banked.paytable_of(game, bet, number))
                                 for bet, low, high, number in bets],
            }, actor_label=DEMO_ACTOR)
            if run.errors:
                self.stderr.write(f"Table {table.label} at {table.establishment} was posted with {run.errors} error "
                                  "finding(s); its sign prints only under a compliance override.")

    def record_conditions_met(self, User):
        """Record the demo rooms' prerequisite conditions as met, through the service the API and pages use, so
        that their postings are clean: the Evergreen Card Room's WSGC internal-controls condition, and Casino
        Marysville's Three Card Poker owner agreement. Made up for the demo (the sources do not say either was
        met); a condition already recorded is left as it is."""
        from cardroom import conditions
        from cardroom.models import ApprovalCondition

        for approval, order, room, officer, evidence in DEMO_CONDITIONS_MET:
            condition = ApprovalCondition.objects.get(approval__key=approval, order=order)
            establishment = Establishment.objects.get(slug=room)
            if conditions.standing(condition, establishment) is None:
                conditions.record_condition_met(User.objects.get(username=officer), condition=condition,
                                                establishment=establishment, met_on=DEMO_CONDITIONS_MET_ON,
                                                evidence=evidence,
                                                note="Demo data: made up, not from a source document.")

    def record_interpretation(self, User):
        """How the demo room reads one value its Pai Gow schedule leaves open (fees.schedules.interpretations): the
        player-dealer column of CMV-CA-FEES-PAI-GOW option 1 stops at a closed '$101-200' row (row 7, a column whose
        basis is not stated either), read as open above $100. Proposed by compliance, approved by compliance-2, so
        table 8's sign shows the reading and says it is one. The answer it cites is made up for the demo. Table 8
        still cannot be quoted: what the column is measured on is not read."""
        from fees.schedules import interpretations, services
        from fees.models import ScheduleVersion

        version = ScheduleVersion.objects.get(document__code="CMV-CA-FEES-PAI-GOW", number=1)
        if version.interpretations.filter(option_number=1, tier_order=7, field="upper",
                                          status__in=interpretations.LIVE).exists():
            return
        reading = services.propose_interpretation(
            User.objects.get(username="compliance"), version=version, option=1, tier=7, field="upper", value="",
            statement="The player-dealer fee of the $101-200 row applies to any amount above $100; no higher "
            "player-dealer fee is charged.", decided_on=DEMO_INTERPRETATION_DECIDED_ON,
            citation="Demo: Bureau answer (fictional, for the demo)")
        services.approve_interpretation(User.objects.get(username="compliance-2"), reading=reading,
                                        reason="Demo: read against the (fictional) Bureau answer.")

    @staticmethod
    def fields(table, option):
        if option.table_limit_high:
            limits = (option.table_limit_low, option.table_limit_high)
        elif option.largest_game_high:  # poker and lowball: the smallest and largest games allowed
            limits = (option.smallest_game_low, option.largest_game_high)
        else:
            limits = DEMO_LIMITS
        return {"table": table, "game": table.game, "schedule": option.version.document,
                "option_number": option.number, "min_wager": limits[0], "max_wager": limits[1],
                "seats": table.seats, "effective_from": DEMO_POSTED_FROM, "notes": "Demo posting."}
