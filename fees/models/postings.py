"""What a table shows from a moment on: game, schedule option, limits, seats.

A posting is never edited: a change is a new posting with a later ``effective_from``, which supersedes the one
before it. "What was posted at table 7 at 02:30 on 3 March" is ``TablePosting.objects.in_force(table, at)``.
"""

import secrets

from django.conf import settings
from django.db import models
from simple_history.models import HistoricalRecords

from cardroom.exceptions import StateConflict

MONEY = {"max_digits": 12, "decimal_places": 2}


class PostingImmutableError(StateConflict):
    """A posting, once made, is not changed; post a new one."""


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
        return self.values_list("pk", "table_id", "table__label", "effective_from", "game__name", "schedule_id",
                                "schedule__code", "schedule__currency", "option_number", "min_wager", "max_wager",
                                "seats", named=True)

    def update(self, **kwargs):
        raise PostingImmutableError("Postings are not changed; post a new one.")


class TablePosting(models.Model):
    table = models.ForeignKey("cardroom.Table", on_delete=models.PROTECT, related_name="postings")
    game = models.ForeignKey("cardroom.Game", on_delete=models.PROTECT, related_name="postings")
    schedule = models.ForeignKey("fees.ScheduleDocument", on_delete=models.PROTECT, related_name="postings")
    option_number = models.PositiveIntegerField(help_text="The one schedule option in use at this table.")
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
            models.UniqueConstraint(fields=["table", "effective_from"], name="one_posting_per_table_moment")
        ]

    def __str__(self):
        return f"{self.table}: {self.schedule.code} option {self.option_number} from {self.effective_from:%Y-%m-%d %H:%M}"

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


class PostingBonusLimit(models.Model):
    """A bonus or side-bet limit shown on a posting, e.g. Pair Plus maximum $100."""

    posting = models.ForeignKey(TablePosting, on_delete=models.CASCADE, related_name="bonus_limits")
    bet = models.CharField(max_length=120)
    minimum = models.DecimalField(**MONEY, null=True, blank=True)
    maximum = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["posting", "bet"]
        constraints = [models.UniqueConstraint(fields=["posting", "bet"], name="unique_posting_bet")]

    def __str__(self):
        return f"{self.bet} up to {self.maximum}"
