"""What the variance page reads (fees.variance): each table-day's latest reconciliation summed up once (its hands
short and its hands collected above the schedule), and its short hands counted by the local hour their rounds were played and by who recorded them.

Derived, never edited by hand: ``fees.variance.services.refresh`` writes them from the reconciliations (append-only) and
the rounds and entries of the short hands, replacing a table-day's rows when a later reconciliation of it
arrives. Which table-days to look at again it reads from ``VarianceChange``: a row written in the same transaction
as each reconciliation, so a run committed late (with an id lower than runs summed up already) is never missed.
"""

from django.conf import settings
from django.db import models

from .options import MONEY


class VarianceDay(models.Model):
    """One table-day as its latest reconciliation found it."""

    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.CASCADE, related_name="+",
                                      db_index=False)
    table = models.ForeignKey("cardroom.Table", on_delete=models.CASCADE, related_name="+", db_index=False)
    gaming_day = models.DateField()
    reconciliation = models.ForeignKey("fees.Reconciliation", on_delete=models.CASCADE, related_name="+",
                                       db_index=False)
    expected_total = models.DecimalField(**MONEY)
    collected_total = models.DecimalField(**MONEY)
    hands = models.PositiveIntegerField()
    hands_short = models.PositiveIntegerField(help_text="Hands under-collected or not collected.")
    amount_short = models.DecimalField(**MONEY, help_text="Expected minus collected, over the hands short.")
    hands_over = models.PositiveIntegerField(default=0, help_text="Hands collected above what the schedule set.")
    amount_over = models.DecimalField(**MONEY, default=0,
                                      help_text="Collected minus expected, over the hands collected above it.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "gaming_day"], name="variance_day_table_day")]
        # The page sums a period's rows from this index alone (PostgreSQL's index-only scan).
        indexes = [models.Index(fields=["establishment", "gaming_day"], name="variance_day_room_day",
                                include=["table", "expected_total", "collected_total", "hands", "hands_short",
                                         "amount_short", "hands_over", "amount_over"]),
                   models.Index(fields=["establishment", "reconciliation"], name="variance_day_room_run")]


class VarianceCell(models.Model):
    """A table-day's short hands played in one local hour and recorded by one person."""

    day = models.ForeignKey(VarianceDay, on_delete=models.CASCADE, related_name="cells")
    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.CASCADE, related_name="+",
                                      db_index=False)
    gaming_day = models.DateField()
    hour = models.SmallIntegerField(help_text="The local hour (0-23) the rounds were played.")
    recorder = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+", db_constraint=False)
    hands_short = models.PositiveIntegerField()
    amount_short = models.DecimalField(**MONEY)

    class Meta:
        indexes = [models.Index(fields=["establishment", "gaming_day"], name="variance_cell_room_day",
                                include=["hour", "recorder", "hands_short", "amount_short"])]


class VarianceChange(models.Model):
    """A table-day reconciled again since its summary was written: written with the reconciliation (in its
    transaction, ``fees.ledger.reconcile``), taken away by ``fees.variance.services.refresh`` once it has looked again."""

    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.CASCADE, related_name="+",
                                      db_index=False)
    table = models.ForeignKey("cardroom.Table", on_delete=models.CASCADE, related_name="+", db_index=False)
    gaming_day = models.DateField()

    class Meta:
        indexes = [models.Index(fields=["establishment"], name="variance_change_room")]
