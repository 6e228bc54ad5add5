from django.db import models
from simple_history.models import HistoricalRecords

from .sources import Cited

MONEY = {"max_digits": 12, "decimal_places": 2}


class Game(Cited):
    class Category(models.TextChoices):
        HOUSE_BANKED = "house_banked", "House-banked"
        PLAYER_DEALER = "player_dealer", "California player-dealer game"
        POKER_DROP = "poker_drop", "Poker with drop"
        TIME_COLLECTION = "time_collection", "Time-collection game"
        GAMING_ACTIVITY = "gaming_activity", "Gaming activity (bonus bet on other games)"

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    registration_number = models.CharField(
        max_length=20, unique=True, null=True, blank=True,
        help_text="California GEGA-/GEGR- number where the source states one.",
    )
    owner = models.CharField(max_length=200, blank=True, help_text="Owner or manufacturer, as the source names it.")
    category = models.CharField(max_length=20, choices=Category.choices)
    decks_min = models.PositiveSmallIntegerField(null=True, blank=True)
    decks_max = models.PositiveSmallIntegerField(null=True, blank=True)
    equipment = models.CharField(
        max_length=300, blank=True, help_text="Cards or tiles as described, e.g. '52 cards plus one joker'."
    )
    max_collection_rates = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Collection rates the game's own rules allow per table, where they say."
    )
    max_collection_rates_citation = models.CharField(max_length=300, blank=True)
    description = models.TextField(blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]

    def __str__(self):
        if self.registration_number:
            return f"{self.name} ({self.registration_number})"
        return self.name


class GameRules(Cited):
    """One version of a game's rules document."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="rules")
    version = models.CharField(max_length=40, help_text="Version as the document names it, or its date.")
    title = models.CharField(max_length=300)
    effective_from = models.DateField(null=True, blank=True, help_text="Blank where the document states no date.")
    summary = models.TextField(blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["game", "version"]
        verbose_name_plural = "game rules"
        constraints = [models.UniqueConstraint(fields=["game", "version"], name="unique_rules_version")]

    def __str__(self):
        return f"{self.title} ({self.version})"


class BetLimit(Cited):
    """A limit a game's rules or a gaming activity puts on one bet (side-bet caps, increments, eligibility)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="bet_limits")
    bet = models.CharField(max_length=120)
    minimum = models.DecimalField(**MONEY, null=True, blank=True)
    maximum = models.DecimalField(**MONEY, null=True, blank=True)
    increment = models.DecimalField(**MONEY, null=True, blank=True)
    maximum_is_lesser_of_base_wager = models.BooleanField(
        default=False, help_text="The cap is the lesser of the base wager and the maximum."
    )
    currency = models.CharField(max_length=3)
    note = models.TextField(blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["game", "bet", "id"]

    def __str__(self):
        return f"{self.game.name}: {self.bet}"


class Paytable(Cited):
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="paytables")
    bet = models.CharField(max_length=120, help_text="The bet this paytable pays, e.g. '3 Card Bonus'.")
    number = models.CharField(max_length=20, help_text="Paytable number or name as printed, e.g. 1, 2, FPG-04.")
    currency = models.CharField(max_length=3, help_text="Currency of fixed-amount payouts (e.g. Envy).")
    note = models.TextField(blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["game", "bet", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "bet", "number"], name="unique_paytable")]

    def __str__(self):
        return f"{self.game.name} {self.bet} paytable {self.number}"


class PaytableLine(models.Model):
    """One hand and what it pays: 'N to M' odds, a push, or a fixed amount."""

    paytable = models.ForeignKey(Paytable, on_delete=models.CASCADE, related_name="lines")
    order = models.PositiveSmallIntegerField()
    hand = models.CharField(max_length=200)
    odds_to = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True, help_text="N in 'N to M'.")
    odds_for = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True, help_text="M in 'N to M'.")
    is_push = models.BooleanField(default=False)
    fixed_amount = models.DecimalField(**MONEY, null=True, blank=True, help_text="A fixed prize, e.g. Envy $1,000.")
    printed = models.CharField(max_length=60, help_text="The payout exactly as printed.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["paytable", "order"]
        constraints = [models.UniqueConstraint(fields=["paytable", "order"], name="unique_paytable_line")]

    def __str__(self):
        return f"{self.hand}: {self.printed}"


class StatedHouseEdge(Cited):
    """A house edge as a document states it, for a bet, deck count and strategy."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="house_edges")
    bet = models.CharField(max_length=120, help_text="'Main game' or the side bet's name.")
    paytable = models.ForeignKey(Paytable, null=True, blank=True, on_delete=models.PROTECT, related_name="house_edges")
    approval = models.ForeignKey(
        "cardroom.Approval", null=True, blank=True, on_delete=models.PROTECT, related_name="house_edges"
    )
    decks = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Blank where not stated.")
    strategy = models.CharField(max_length=60, blank=True, help_text="e.g. perfect strategy, basic strategy.")
    edge_percent = models.DecimalField(max_digits=6, decimal_places=3)
    history = HistoricalRecords()

    class Meta:
        ordering = ["game", "bet", "decks"]

    def __str__(self):
        return f"{self.game.name} {self.bet}: {self.edge_percent}%"
