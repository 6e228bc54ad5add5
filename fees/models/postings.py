"""What a table shows from a moment on: game, schedule option, limits, seats.

A posting is never edited: a change is a new posting with a later ``effective_from``, which supersedes the one
before it. "What was posted at table 7 at 02:30 on 3 March" is ``TablePosting.objects.in_force(table, at)``.

A posting names what the table's fees and payouts come from in one of two ways:

- a **collection schedule** option (``schedule`` + ``option_number``): California player-dealer, poker and
  time-collection games, and any game whose fees are set by a schedule;
- for a **house-banked game without a collection schedule** (One for the Money in Washington): the approved
  ``rules`` version, the ``decks`` it is dealt from, the paytable in use for each bonus bet
  (``PostingBonusLimit.paytable``) and the ``aggregate_payout_limit`` where one is set (WAC 230-15-490).

The Ante (the main wager) is ``min_wager`` / ``max_wager`` in both. A database check says a posting is one or the
other, never both or neither.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models.functions import Coalesce
from simple_history.models import HistoricalRecords

from cardroom.exceptions import StateConflict

MONEY = {"max_digits": 12, "decimal_places": 2}


class PostingImmutableError(StateConflict):
    """A posting, once made, is not changed; post a new one."""


def posted_as(schedule_code, option_number, rules_version, decks):
    """What a posting's fees and payouts come from, in a few words: "GEGA-002888 option 43", or for a house-banked
    posting "Rules 3 Card Bonus (WSGC enclosure 2014), 6 decks"."""
    if schedule_code:
        return f"{schedule_code} option {option_number}"
    return f"Rules {rules_version}, {decks} decks"


def new_public_token():
    return secrets.token_urlsafe(16)  # 128 random bits


class PostingQuerySet(models.QuerySet):
    def in_force(self, table, at):
        """The posting shown at ``table`` at the moment ``at`` (None before the first posting)."""
        return self.filter(table=table, effective_from__lte=at).order_by("-effective_from", "-id").first()

    def in_force_at(self, at):
        """Every table's posting in force at moment ``at``, in one query."""
        later = TablePosting.objects.filter(
            table=models.OuterRef("table"), effective_from__gt=models.OuterRef("effective_from"), effective_from__lte=at
        )
        return self.filter(effective_from__lte=at).exclude(models.Exists(later))

    def display_rows(self):
        """What the role pages show of each posting, as plain named rows: a 200-table floor is read on every
        look, and building a posting and its table, game and schedule objects for each cost most of the time."""
        # currency: the schedule's, or for a house-banked posting the jurisdiction's (as ``TablePosting.currency``)
        return self.annotate(
            currency=Coalesce("schedule__currency", "table__establishment__jurisdiction__currency")
        ).values_list("pk", "table_id", "table__label", "effective_from", "game__name", "schedule_id", "schedule__code",
                      "currency", "option_number", "rules__version", "decks", "min_wager", "max_wager", "seats",
                      named=True)

    def update(self, **kwargs):
        raise PostingImmutableError("Postings are not changed; post a new one.")


class TablePosting(models.Model):
    table = models.ForeignKey("cardroom.Table", on_delete=models.PROTECT, related_name="postings")
    game = models.ForeignKey("cardroom.Game", on_delete=models.PROTECT, related_name="postings")
    schedule = models.ForeignKey("fees.ScheduleDocument", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="postings",
                                 help_text="The collection schedule; blank for a house-banked posting (rules instead).")
    option_number = models.PositiveIntegerField(null=True, blank=True,
                                                help_text="The one schedule option in use at this table.")
    # A house-banked game without a collection schedule names these instead (docs/signage.md).
    rules = models.ForeignKey(
        "cardroom.GameRules", null=True, blank=True, on_delete=models.PROTECT, related_name="postings",
        help_text="House-banked posting: the approved rules version the game is played under.",
    )
    decks = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="House-banked posting: the number of decks dealt, as the rules allow.",
    )
    aggregate_payout_limit = models.DecimalField(
        **MONEY, null=True, blank=True,
        help_text="House-banked posting: the most paid on odds-based prizes in one round, where set "
                  "(WAC 230-15-490).",
    )
    min_wager = models.DecimalField(**MONEY, null=True, blank=True, help_text="Posted table minimum.")
    max_wager = models.DecimalField(**MONEY, null=True, blank=True, help_text="Posted table maximum.")
    seats = models.PositiveSmallIntegerField(help_text="Betting positions open at the table.")
    notes = models.TextField(blank=True)
    effective_from = models.DateTimeField(db_index=True, help_text="From this moment the table shows this posting.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    public_token = models.CharField(
        max_length=32, unique=True, default=new_public_token, editable=False,
        help_text="Random key of the public verification page the sign's QR code opens (not guessable).",
    )
    history = HistoricalRecords()

    objects = PostingQuerySet.as_manager()

    class Meta:
        ordering = ["table", "-effective_from"]
        constraints = [
            models.UniqueConstraint(fields=["table", "effective_from"], name="one_posting_per_table_moment"),
            # Either a schedule option, or (house-banked, no schedule) the approved rules and the decks.
            models.CheckConstraint(
                name="posting_schedule_or_house_banked",
                condition=(
                    models.Q(schedule__isnull=False, option_number__isnull=False, rules__isnull=True,
                             decks__isnull=True, aggregate_payout_limit__isnull=True)
                    | models.Q(schedule__isnull=True, option_number__isnull=True, rules__isnull=False,
                               decks__isnull=False)
                ),
            ),
        ]

    def __str__(self):
        return f"{self.table}: {self.posted_as} from {self.effective_from:%Y-%m-%d %H:%M}"

    @property
    def house_banked(self):
        """True for a posting of a house-banked game without a collection schedule (rules, decks, paytables)."""
        return self.schedule_id is None

    @property
    def posted_as(self):
        return posted_as(self.schedule and self.schedule.code, self.option_number, self.rules and self.rules.version,
                         self.decks)

    @property
    def currency(self):
        """The schedule's currency, or for a house-banked posting the jurisdiction's."""
        if self.schedule_id is not None:
            return self.schedule.currency
        return self.table.establishment.jurisdiction.currency

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PostingImmutableError(f"{self} is posted; post a new one to change it.")
        super().save(*args, **kwargs)

    def superseded_by(self):
        return (
            TablePosting.objects.filter(table=self.table_id, effective_from__gt=self.effective_from)
            .order_by("effective_from", "id")
            .first()
        )


class BonusLimitQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PostingImmutableError("A posting's bonus limits are not changed; post a new one.")


class PostingBonusLimit(models.Model):
    """A bonus or side-bet limit shown on a posting, e.g. Pair Plus maximum $100; on a house-banked posting also
    the paytable in use for the bet (e.g. One for the Money's 3 Card Bonus paytable 1). Made with its posting
    and, like it, never changed."""

    posting = models.ForeignKey(TablePosting, on_delete=models.CASCADE, related_name="bonus_limits")
    bet = models.CharField(max_length=120)
    minimum = models.DecimalField(**MONEY, null=True, blank=True)
    maximum = models.DecimalField(**MONEY)
    paytable = models.ForeignKey(
        "cardroom.Paytable", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="House-banked posting: the paytable this bet pays by (a paytable of the game for this bet).",
    )

    objects = BonusLimitQuerySet.as_manager()

    class Meta:
        ordering = ["posting", "bet"]
        constraints = [models.UniqueConstraint(fields=["posting", "bet"], name="unique_posting_bet")]

    def __str__(self):
        return f"{self.bet} up to {self.maximum}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PostingImmutableError(f"{self} is part of a posting; post a new one to change it.")
        super().save(*args, **kwargs)
