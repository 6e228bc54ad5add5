"""The ledger's kept sums: per table and gaming day (and currency), what its rounds expect and its entries
collect, kept as the ledger is written (``fees.ledger.kept_sums``), so that a page or a reconciliation need not sum
the raw rows again.

Derived, never edited by hand: updated in the same transaction as the rows it sums (``record_round``, both insert
paths of ``fees.ledger.storage``) by adding what they change; ``manage.py check_ledger_sums`` rebuilds them from the
rows and compares (``--repair`` rewrites them). A closed month's rows leave the live database; its kept sums stay.
"""

from django.db import models

from ..engine import kinds
from .options import MONEY


def _money(help_text):
    return models.DecimalField(**MONEY, default=0, help_text=help_text)


class LedgerDay(models.Model):
    """One table-day (in one currency) of the ledger, summed."""

    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.PROTECT, related_name="+",
                                      db_index=False)
    table = models.ForeignKey("cardroom.Table", on_delete=models.PROTECT, related_name="+", db_index=False)
    gaming_day = models.DateField()
    currency = models.CharField(max_length=3)
    rounds = models.PositiveIntegerField(default=0, help_text="Rounds (hands) recorded.")
    expected_total = _money("What the rounds expect (their expected_total, summed).")
    entries = models.PositiveIntegerField(default=0, help_text="Entries that count: those no entry corrects.")
    collected_total = _money("What the entries that count collected.")
    # Collected, by payer (fees.ledger.tally.PAYERS: FeeTier's choices) and by fee kind: a column of each kind
    # of the fee-kind table, added below (``kind_player``, ...: fees.engine.kinds.LEDGER_COLUMNS).
    paid_by_player = _money("Collected from players.")
    paid_by_player_dealer = _money("Collected from the player-dealer.")
    paid_by_pot = _money("Collected from the pot.")

    class Meta:
        verbose_name = "ledger day"
        constraints = [models.UniqueConstraint(fields=["table", "gaming_day", "currency"], name="ledger_day_key")]
        # A room's period read from this index (its month on the regulator's page).
        indexes = [models.Index(fields=["establishment", "gaming_day"], name="ledger_day_room_day")]

    def __str__(self):
        return f"table {self.table_id} on {self.gaming_day}: {self.rounds} rounds, {self.collected_total}"


for _kind in kinds.KINDS:
    LedgerDay.add_to_class(_kind.column, _money(f"Collected as {_kind.collected_as}."))
