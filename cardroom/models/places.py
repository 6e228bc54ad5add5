from django.db import models
from simple_history.models import HistoricalRecords


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
        return f"{self.name} ({self.code})"


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
    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


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
