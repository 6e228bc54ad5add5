"""The collection ledger: what was collected at a table, what should have been, and how the two compare.

- ``CollectionEntry``: one amount taken at a table (from a seat, the player-dealer, the pot or a timed
  player) for one hand or round. Append-only: a mistake is put right by a new entry that ``corrects`` it and
  states the amount really collected (replacement semantics). An entry counts in reconciliation only while
  no later entry corrects it; an entry is corrected at most once, so corrections form a chain.
- ``RoundOfPlay``: a hand or round with its facts (wagers, poker facts or a time-collection period) and the
  fee the engine expected for it against the posting in force at that table at that moment: its fee lines in a
  compact form, and what every round priced under one schedule version and option shares (``RoundPricing``) once.
- ``Reconciliation``: one run comparing the two for a table and gaming day, with the variances hand by hand.

None of these rows is ever updated or deleted by the application.
"""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Exists, OuterRef, Q

from cardroom.exceptions import StateConflict

from .options import MONEY, FeeTier


class LedgerImmutableError(StateConflict):
    """Ledger rows (entries, rounds, reconciliations) are never changed or removed."""


class LedgerConflict(StateConflict):
    """A request that contradicts what the ledger already holds (a reused key, a second correction)."""


class AppendOnlyQuerySet(models.QuerySet):
    what = "Ledger rows"

    def update(self, **kwargs):
        raise LedgerImmutableError(f"{self.what} are append-only: they are never updated; record a correction.")

    def delete(self):
        raise LedgerImmutableError(f"{self.what} are append-only: they are never deleted; record a correction.")


class EntryQuerySet(AppendOnlyQuerySet):
    what = "Collection entries"

    def effective(self, as_known_at=None):
        """Effective entries: those no entry corrects (a correction states the amount really collected, replacing
        what it corrects). Reconciliation counts them and exports sum them; this is the rule's one home, with
        ``effective_on_day_sql`` its SQL form. With ``as_known_at``: as the ledger stood at that moment (only the
        corrections recorded by then count)."""
        if as_known_at is None:
            return self.filter(corrections__isnull=True)
        return self.exclude(corrections__recorded_at__lte=as_known_at)


class RoundQuerySet(AppendOnlyQuerySet):
    what = "Recorded rounds"


class RoundPricingQuerySet(AppendOnlyQuerySet):
    what = "Round pricings"


class ReconciliationQuerySet(AppendOnlyQuerySet):
    what = "Reconciliations"

    def latest_of_each_table_day(self):
        """Each table-day's latest run: the one no later run (``run_at``, then ``id``, the model's order) follows."""
        later = self.model.objects.filter(table=OuterRef("table"), gaming_day=OuterRef("gaming_day")).filter(
            Q(run_at__gt=OuterRef("run_at")) | Q(run_at=OuterRef("run_at"), id__gt=OuterRef("id")))
        return self.filter(~Exists(later))


class AppendOnly(models.Model):
    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise LedgerImmutableError(f"{self._meta.verbose_name_plural.capitalize()} are append-only: "
                                       f"{self} cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LedgerImmutableError(f"{self._meta.verbose_name_plural.capitalize()} are append-only: "
                                   f"{self} cannot be deleted.")


class CollectionEntry(AppendOnly):
    """One amount collected at a table for one hand or round."""

    Payer = FeeTier.Payer
    FeeKind = FeeTier.FeeKind

    idempotency_key = models.CharField(
        max_length=100, help_text="Chosen by the recorder; a retried submission with the same key records nothing new. "
                                  "Unique within the establishment.",
    )
    # Every ledger row carries its establishment: keys are scoped to it, and the tables can be distributed by it.
    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.PROTECT, related_name="+",
                                      db_index=False)
    table = models.ForeignKey("cardroom.Table", on_delete=models.PROTECT, related_name="+", db_index=False)
    gaming_day = models.DateField()
    reference = models.CharField(max_length=64, help_text="The hand or round the amount was collected for.")
    collected_at = models.DateTimeField()
    payer = models.CharField(max_length=16, choices=Payer.choices)
    seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Betting position, where known.")
    player = models.CharField(max_length=64, blank=True, help_text="Player, e.g. for time collection.")
    fee_kind = models.CharField(max_length=20, choices=FeeKind.choices)
    amount = models.DecimalField(**MONEY)
    currency = models.CharField(max_length=3)
    # A correction keeps the gaming day of the entry it corrects (intake takes it from the original), so the two
    # sit in one partition. On PostgreSQL (the table partitioned by gaming day, fees migration 0014) each partition
    # holds its own key (corrects_id, gaming_day) -> its own (id, gaming_day), `<partition>_corrects`, made in SQL
    # (fees.months.partitions.OWN_KEYS): a month then detaches with nothing pointing at it. Django knows nothing of those
    # keys (db_constraint=False), so it never looks for a single-column one.
    corrects = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections", db_index=False,
        db_constraint=False, help_text="The entry this one corrects; this entry states the amount really collected.",
    )
    reason = models.CharField(max_length=500, blank=True, help_text="Why a correction was made.")
    # No database-level constraint here: checking it costs PostgreSQL about a third of the bulk insert, the
    # recorder is always the authenticated user of the request, and Django's PROTECT still guards deletion.
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False,
        db_constraint=False,
    )
    recorded_at = models.DateTimeField()

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "collection entries"
        constraints = [
            # Declared as constraints, not unique=True, so PostgreSQL keeps one index each (no LIKE index). Both
            # name the gaming day, as every unique key of a table partitioned by it must (PostgreSQL, migration
            # 0013). A key stays unique across days all the same: the ingest refuses a key recorded on another day
            # (fees.ledger.storage), and this index's leading (establishment, key) is what finds it.
            models.UniqueConstraint(fields=["establishment", "idempotency_key", "gaming_day"],
                                    name="ledger_entry_idempotency_key"),
            # A correction has the day of the entry it corrects, so "corrected once" is unchanged by the day.
            models.UniqueConstraint(
                fields=["corrects", "gaming_day"], condition=Q(corrects__isnull=False),
                name="ledger_entry_corrected_once",
            ),
            models.CheckConstraint(condition=Q(amount__gte=0), name="ledger_entry_amount_not_negative"),
        ]
        # Reconciliation reads a day's entries from this index alone (PostgreSQL's index-only scan): the included
        # columns are what it sums, and the day's corrections (a correction keeps the day of what it corrects).
        indexes = [models.Index(fields=["gaming_day", "table"], include=["reference", "amount", "id", "corrects"],
                                name="ledger_entry_day_fees")]

    def __str__(self):
        return f"entry {self.pk}: {self.reference} {self.fee_kind} {self.amount} {self.currency}"


def effective_on_day_sql(alias):
    """``EntryQuerySet.effective`` in SQL, for one gaming day's entries aliased ``alias``: ``(join, condition)`` to
    add to the query's FROM and WHERE; the join takes one parameter, the gaming day. A correction keeps the day of
    the entry it corrects, so the day's corrections (few, read from the same index) are all it is checked
    against."""
    entries = CollectionEntry._meta.db_table
    return (f"LEFT JOIN (SELECT corrects_id FROM {entries} WHERE gaming_day = %s AND corrects_id IS NOT NULL) c "
            f"ON c.corrects_id = {alias}.id", "c.corrects_id IS NULL")


class RoundPricing(AppendOnly):
    """What every round priced under one schedule version and option shares: the document, its title and
    citations, the tiers' bounds and printed text, the interpretations read (``fees.engine.compact``). Stored once
    per distinct content, known by its digest: normally once per version and option; an interpretation approved
    later gives the same version and option a second body."""

    schedule_code = models.CharField(max_length=40)
    schedule_version = models.PositiveIntegerField()
    option_number = models.PositiveIntegerField()
    digest = models.CharField(max_length=64, help_text="sha256 (hex) of the body's canonical JSON.")
    body = models.JSONField()

    objects = RoundPricingQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        verbose_name = "round pricing"
        verbose_name_plural = "round pricings"
        constraints = [models.UniqueConstraint(fields=["digest"], name="round_pricing_digest")]

    def __str__(self):
        return f"pricing {self.pk}: {self.schedule_code} v{self.schedule_version} option {self.option_number}"


class RoundOfPlay(AppendOnly):
    """A hand or round played at a table, priced by the engine against the posting in force."""

    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.PROTECT, related_name="+",
                                      db_index=False)
    table = models.ForeignKey("cardroom.Table", on_delete=models.PROTECT, related_name="+", db_index=False)
    gaming_day = models.DateField()
    reference = models.CharField(max_length=64, help_text="The hand or round reference, unique per table and day.")
    played_at = models.DateTimeField()
    facts = models.JSONField(help_text="What was played, in the quote API's shape (wagers, poker facts or time).")
    posting = models.ForeignKey("fees.TablePosting", on_delete=models.PROTECT, related_name="+")
    schedule_code = models.CharField(max_length=40)
    schedule_version = models.PositiveIntegerField()
    option_number = models.PositiveIntegerField()
    expected_total = models.DecimalField(**MONEY)
    currency = models.CharField(max_length=3)
    # The fee lines, explanation and fees by payer are rebuilt from these three (fees.ledger.compact). A round
    # written outside the engine (fixtures, generated rows) has no pricing: it has no lines and no account.
    pricing = models.ForeignKey(RoundPricing, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                db_index=False)  # never looked up from the pricing's side: no index on 20M rows
    fee_lines = models.TextField(
        default="[]", blank=True,
        help_text="JSON: one array per fee line, fields in fees.engine.compact.LINE_FIELDS' order (the tier by its "
                  "order in the option). Text, not jsonb: a third smaller for arrays this small.",
    )
    priced_on = models.DateField(null=True, blank=True,
                                 help_text="The day the round was priced as of (the day played, in the room's zone).")
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    objects = RoundQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        verbose_name = "round of play"
        verbose_name_plural = "rounds of play"
        constraints = [
            models.UniqueConstraint(fields=["gaming_day", "table", "reference"], name="ledger_round_reference")
        ]
        # What reconciliation reads of a day's rounds, without visiting the rows (~800 B each with their JSON).
        indexes = [models.Index(fields=["gaming_day", "table"], include=["reference", "expected_total"],
                                name="ledger_round_day_fees")]

    def __str__(self):
        return f"round {self.reference} on {self.gaming_day}: expected {self.expected_total} {self.currency}"


class Reconciliation(AppendOnly):
    """Expected against collected for one table and gaming day, as found by one run."""

    class Trigger(models.TextChoices):
        ON_DEMAND = "on_demand", "On demand"
        NIGHTLY = "nightly", "Nightly"
        PUBLICATION = "publication", "After a retroactive publication"

    class Status(models.TextChoices):
        BALANCED = "balanced", "Balanced"
        VARIANCE = "variance", "Variance"

    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.PROTECT, related_name="+",
                                      db_index=False)
    table = models.ForeignKey("cardroom.Table", on_delete=models.PROTECT, related_name="+")
    gaming_day = models.DateField()
    trigger = models.CharField(max_length=12, choices=Trigger.choices)
    status = models.CharField(max_length=12, choices=Status.choices)
    currency = models.CharField(max_length=3)
    expected_total = models.DecimalField(**MONEY)
    collected_total = models.DecimalField(**MONEY)
    difference = models.DecimalField(**MONEY, help_text="Collected minus expected.")
    rounds = models.PositiveIntegerField(help_text="Rounds recorded.")
    entries = models.PositiveIntegerField(help_text="Collection entries counted (those no later entry corrects).")
    hands = models.PositiveIntegerField(help_text="Distinct references seen in rounds or entries.")
    hands_balanced = models.PositiveIntegerField()
    hands_with_variance = models.PositiveIntegerField()
    variances = models.JSONField(default=list, encoder=DjangoJSONEncoder,
                                 help_text="Per reference: expected, collected, difference, status.")
    # Owed twice (docs/change-control.md, "Retroactive changes"): expected_total is what was owed when collected,
    # each round priced as its table's sign showed; where a version published later now covers the day, what is
    # owed as known now, with a restatement per schedule and versions. Null and empty when nothing was restated.
    owed_now_total = models.DecimalField(
        **MONEY, null=True, blank=True,
        help_text="Owed as known now, where a retroactive version applies to rounds priced under an earlier one.")
    restatements = models.JSONField(
        default=list, blank=True, encoder=DjangoJSONEncoder,
        help_text="Per retroactive version: schedule, version_then, version_now, published_at, rounds, owed_then, "
                  "owed_now, difference, currency.")
    run_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    run_at = models.DateTimeField(auto_now_add=True)

    objects = ReconciliationQuerySet.as_manager()

    @property
    def retroactive_difference(self):
        """Owed as known now minus owed when collected: the retroactive versions' own finding (None without one)."""
        return None if self.owed_now_total is None else self.owed_now_total - self.expected_total

    class Meta:
        ordering = ["-run_at", "-id"]
        indexes = [models.Index(fields=["gaming_day", "table"], name="ledger_recon_day_table")]

    def __str__(self):
        return f"reconciliation of table {self.table_id} on {self.gaming_day}: {self.status}"
