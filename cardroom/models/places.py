import datetime
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from simple_history.models import HistoricalRecords


def default_time_zone():
    return settings.TIME_ZONE


def validate_time_zone(name):
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationError(f"{name!r} is not an IANA time zone such as America/Los_Angeles.") from None


class Jurisdiction(models.Model):
    class Kind(models.TextChoices):
        STATE = "state", "US state"
        TRIBAL = "tribal", "Tribal (NIGC)"
        NATIONAL = "national", "National"

    code = models.CharField(max_length=8, unique=True, help_text="Postal code (CA, WA), GB, or NIGC.")
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    regulator = models.CharField(max_length=200, blank=True)
    currency = models.CharField(max_length=3, help_text="ISO 4217 code every amount here is stated in.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["code"]

    def __str__(self):
        # "Tribal gaming (NIGC)" already says its code: not "Tribal gaming (NIGC) (NIGC)".
        return self.name if f"({self.code})" in self.name else f"{self.name} ({self.code})"


class EstablishmentQuerySet(models.QuerySet):
    def by_key(self, key):
        """The establishment a request names by its slug or its id (a number, or a string of digits); None if
        there is none among these."""
        from cardroom import values

        if type(key) is str and key.isascii() and key.isdigit():
            key = int(key) if len(key) <= 19 else None
        if type(key) is int:
            return self.filter(pk=key).first() if values.is_id(key) else None
        return self.filter(slug=key).first() if type(key) is str and key else None


class Establishment(models.Model):
    class Kind(models.TextChoices):
        CARD_ROOM = "card_room", "Card room"
        TRIBAL_CASINO = "tribal_casino", "Tribal casino"
        CASINO = "casino", "Casino"

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    jurisdiction = models.ForeignKey(Jurisdiction, on_delete=models.PROTECT, related_name="establishments")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    licence_number = models.CharField(max_length=60, blank=True)
    address = models.CharField(max_length=300, blank=True)
    is_demo = models.BooleanField(default=False, help_text="Made up for the demo floor; not from a source document.")
    objects = EstablishmentQuerySet.as_manager()
    time_zone = models.CharField(
        max_length=64, default=default_time_zone, validators=[validate_time_zone],
        help_text="The room's IANA time zone: gaming days and every time shown for the room are in it.",
    )
    gaming_day_start = models.TimeField(
        default=datetime.time(0, 0), help_text="When the room's gaming day begins (local time); 00:00 for the "
                                               "calendar day.",
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def zone(self):
        return zoneinfo.ZoneInfo(self.time_zone)

    def gaming_day_of(self, moment):
        """The gaming day a moment belongs to, in the room's zone."""
        local = moment.astimezone(self.zone)
        start = datetime.timedelta(hours=self.gaming_day_start.hour, minutes=self.gaming_day_start.minute)
        return (local - start).date()


class Table(models.Model):
    establishment = models.ForeignKey(Establishment, on_delete=models.PROTECT, related_name="tables")
    label = models.CharField(max_length=40, help_text="The number or name on the table, e.g. 7 or PG-2.")
    seats = models.PositiveSmallIntegerField(help_text="Betting positions, the player-dealer's included.")
    game = models.ForeignKey(
        "cardroom.Game", null=True, blank=True, on_delete=models.PROTECT, related_name="tables",
        help_text="The game the table is set up for.",
    )
    active = models.BooleanField(default=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["establishment", "label"]
        constraints = [models.UniqueConstraint(fields=["establishment", "label"], name="unique_table_label")]

    def __str__(self):
        return f"{self.establishment} table {self.label}"
