"""The options of a schedule version (a table limit and its fees) and their tiers (the cells of the schedule)."""

from django.db import models
from simple_history.models import HistoricalRecords

from ..engine import kinds

from .immutability import ImmutableVersionError, VersionRowGuard

MONEY = {"max_digits": 12, "decimal_places": 2}


def _version_model():
    """ScheduleVersion: it is defined in ``.schedules``, which builds on this module."""
    return FeeOption._meta.get_field("version").related_model


class GuardedQuerySet(models.QuerySet):
    """Refuses bulk updates and deletes that would touch a published version's rows."""

    version_path = None

    def _published(self):
        return self.exclude(**{f"{self.version_path}__status": _version_model().Status.DRAFT}).exists()

    def update(self, **kwargs):
        if self._published():
            raise ImmutableVersionError("Rows of a published schedule version, or one awaiting a second officer, "
                                        "cannot be changed.")
        return super().update(**kwargs)

    def delete(self):
        if self._published():
            raise ImmutableVersionError("Rows of a published schedule version, or one awaiting a second officer, "
                                        "cannot be deleted.")
        return super().delete()


class OptionQuerySet(GuardedQuerySet):
    version_path = "version"


class TierQuerySet(GuardedQuerySet):
    version_path = "option__version"


class FeeOption(VersionRowGuard, models.Model):
    """One numbered schedule option: a table limit and the fees that go with it."""

    class Basis(models.TextChoices):
        TOTAL_TABLE_ACTION = "total_table_action", "Player-dealer fee by total table action"
        BASE_WAGER_FLAT_PLAYER_DEALER = (
            "base_wager_flat_player_dealer", "Player fee per base wager, flat player-dealer fee",
        )
        BASE_WAGER_AND_TABLE_ACTION = (
            "base_wager_and_table_action", "Player fee per base wager, player-dealer fee by total table action",
        )
        PLAYER_TOTAL_WAGER_FLAT_PLAYER_DEALER = (
            "player_total_wager_flat_player_dealer", "Player fee by the player's total base wager, flat player-dealer fee",
        )
        PLAYER_TOTAL_WAGER_AND_TABLE_ACTION = (
            "player_total_wager_and_table_action",
            "Player fee by the player's total base wager, player-dealer fee by total table action",
        )
        POKER_DROP = "poker_drop", "Poker drop by players in the hand"
        TIME_COLLECTION = "time_collection", "Time collection per player per interval"
        UNSTATED = "unstated", "Basis not stated in the source"

    class BettingStructure(models.TextChoices):
        NONE = "", "Not stated"
        LIMIT = "limit", "Limit"
        NO_LIMIT = "no_limit", "No limit"

    version = models.ForeignKey("ScheduleVersion", on_delete=models.CASCADE, related_name="options")
    number = models.PositiveIntegerField()
    label = models.CharField(max_length=200, blank=True, help_text="Games or blinds the option is printed under.")
    basis = models.CharField(max_length=48, choices=Basis.choices)
    min_wager_from = models.DecimalField(**MONEY, null=True, blank=True, help_text="Lowest allowed table minimum.")
    min_wager_to = models.DecimalField(**MONEY, null=True, blank=True, help_text="Highest allowed table minimum.")
    max_wager_from = models.DecimalField(**MONEY, null=True, blank=True, help_text="Lowest allowed table maximum.")
    max_wager_to = models.DecimalField(**MONEY, null=True, blank=True, help_text="Highest allowed table maximum.")
    table_limit_low = models.DecimalField(**MONEY, null=True, blank=True, help_text="Table limit, where stated.")
    table_limit_high = models.DecimalField(**MONEY, null=True, blank=True)
    betting_structure = models.CharField(max_length=12, choices=BettingStructure.choices, blank=True)
    blind_small = models.DecimalField(**MONEY, null=True, blank=True)
    blind_big = models.DecimalField(**MONEY, null=True, blank=True)
    smallest_game_low = models.DecimalField(**MONEY, null=True, blank=True, help_text="'Minimum of a $2-$4 game': 2")
    smallest_game_high = models.DecimalField(**MONEY, null=True, blank=True, help_text="... : 4")
    largest_game_low = models.DecimalField(**MONEY, null=True, blank=True, help_text="'Maximum of a $10-$20 game': 10")
    largest_game_high = models.DecimalField(**MONEY, null=True, blank=True, help_text="... : 20")
    interval_minutes = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Time collection interval.")
    citation = models.CharField(max_length=500)
    notes = models.TextField(blank=True)
    history = HistoricalRecords()

    objects = OptionQuerySet.as_manager()

    class Meta:
        ordering = ["version", "number"]
        constraints = [models.UniqueConstraint(fields=["version", "number"], name="unique_option_number")]

    def __str__(self):
        return f"{self.version.document.code} option {self.number}"

    def owning_version(self):
        return _version_model().objects.filter(pk=self.version_id).first() if self.version_id else None


class FeeTier(VersionRowGuard, models.Model):
    """One cell of a schedule: what is measured, the bounds, the fee and who pays it."""

    # The fee-kind table's (fees.engine.kinds): its names and labels.
    FeeKind = models.TextChoices("FeeKind", {name.upper(): choice for name, choice in zip(kinds.NAMES, kinds.CHOICES)})

    class Measure(models.TextChoices):
        PLAYER_WAGER = "player_wager", "The player's total base wager"
        BASE_WAGER = "base_wager", "Each base wager"
        TOTAL_TABLE_ACTION = "total_table_action", "Total table action"
        PLAYERS = "players", "Players in the hand"
        ELAPSED_TIME = "elapsed_time", "Each interval of play"
        FLAT = "flat", "Flat (one fee whatever the action)"
        WAGER_UNSPECIFIED = "wager_unspecified", "A wager column whose basis the source does not state"
        UNSTATED = "unstated", "No basis stated"

    class Payer(models.TextChoices):
        PLAYER = "player", "Player"
        PLAYER_DEALER = "player_dealer", "Player-dealer"
        POT = "pot", "The pot"

    class Taken(models.TextChoices):
        BEFORE_DEAL = "before_deal", "Before the cards are dealt"
        AFTER_FLOP = "after_flop", "After the flop"
        AFTER_RIVER = "after_river", "After the river"
        EACH_INTERVAL = "each_interval", "At each interval mark"

    option = models.ForeignKey(FeeOption, on_delete=models.CASCADE, related_name="tiers")
    order = models.PositiveSmallIntegerField(help_text="Position within the option, as printed.")
    fee_kind = models.CharField(max_length=20, choices=FeeKind.choices)
    payer = models.CharField(max_length=16, choices=Payer.choices)
    measure = models.CharField(max_length=20, choices=Measure.choices)
    lower = models.DecimalField(**MONEY, null=True, blank=True, help_text="Blank: open below ('5 or less').")
    upper = models.DecimalField(**MONEY, null=True, blank=True, help_text="Blank: open-ended ('$201+').")
    fee = models.DecimalField(**MONEY)
    taken = models.CharField(max_length=16, choices=Taken.choices)
    printed_bounds = models.CharField(max_length=60, blank=True, help_text="The bounds cell exactly as printed.")
    printed_fee = models.CharField(max_length=60, help_text="The fee cell exactly as printed.")
    note = models.CharField(max_length=500, blank=True)
    history = HistoricalRecords()

    objects = TierQuerySet.as_manager()

    class Meta:
        ordering = ["option", "order"]
        constraints = [models.UniqueConstraint(fields=["option", "order"], name="unique_tier_order")]

    def __str__(self):
        bounds = self.printed_bounds or "any"
        return f"{self.get_fee_kind_display()} {bounds}: {self.printed_fee}"

    def owning_version(self):
        if not self.option_id:
            return None
        return _version_model().objects.filter(options=self.option_id).first()
