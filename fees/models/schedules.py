"""Collection-rate schedules as versioned data.

A schedule document (GEGA-002888, a card room's poker rates, ...) has versions. A published version is
immutable: a change is a new draft version, copied from the one in force, with an effective date and a
reason. "Which fee applied on 3 March" is answered by ``ScheduleDocument.version_as_of``; "who changed it
and why" by the history tables.
"""

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from simple_history.models import HistoricalRecords

from cardroom.exceptions import StateConflict
from cardroom.models import Cited

MONEY = {"max_digits": 12, "decimal_places": 2}


class ImmutableVersionError(StateConflict):
    """A published schedule version, or an option or tier in one, cannot be changed."""


class VersionStateError(StateConflict):
    """The requested step does not fit the version's state (e.g. publishing a published version)."""


class ScheduleDocument(Cited):
    code = models.CharField(max_length=40, unique=True, help_text="e.g. GEGA-002888, or a card-room code.")
    title = models.CharField(max_length=300)
    jurisdiction = models.ForeignKey("cardroom.Jurisdiction", on_delete=models.PROTECT, related_name="schedules")
    establishment = models.ForeignKey(
        "cardroom.Establishment", null=True, blank=True, on_delete=models.PROTECT, related_name="schedules",
        help_text="Blank for a schedule approved for the whole jurisdiction.",
    )
    games = models.ManyToManyField("cardroom.Game", related_name="schedules", blank=True)
    refers_to = models.CharField(
        max_length=40, blank=True, help_text="The approved schedule this document says it implements, if any."
    )
    currency = models.CharField(max_length=3, help_text="Every amount in this document is in this currency.")
    notes = models.TextField(blank=True)
    history = HistoricalRecords(m2m_fields=[games])

    class Meta:
        ordering = ["code"]

    def __str__(self):
        return f"{self.code} {self.title}"

    def published_versions(self):
        return self.versions.filter(status=ScheduleVersion.Status.PUBLISHED)

    def version_as_of(self, day):
        """The published version in force on ``day``: the latest effective date on or before it.

        The first version may carry no effective date when its source states none; it is then taken as in
        force from the beginning until a later version takes over.
        """
        return (
            self.published_versions()
            .filter(Q(effective_from__lte=day) | Q(effective_from__isnull=True))
            .order_by(F("effective_from").desc(nulls_last=True), "-number")
            .first()
        )

    @transaction.atomic
    def new_draft(self, *, based_on, user=None, reason="", effective_from=None):
        """A new draft version holding a copy of ``based_on``'s options and tiers, ready to edit."""
        # The document's row is locked so that drafts started at the same moment get consecutive numbers.
        ScheduleDocument.objects.select_for_update().filter(pk=self.pk).first()
        number = (self.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        why = f"New draft v{number}" + (f" from v{based_on.number}" if based_on else "") + f": {reason}"
        draft = ScheduleVersion(
            document=self, number=number, based_on=based_on, reason=reason, effective_from=effective_from,
            provisions=list(based_on.provisions) if based_on else [], created_by=user,
        )
        draft._change_reason = why
        try:
            with transaction.atomic():
                draft.save()
        except IntegrityError:  # where the lock above is no lock (SQLite): another draft took the number
            raise VersionStateError(
                f"Another draft of {self.code} was started at the same moment; try again.") from None
        if based_on is not None:
            for option in based_on.options.prefetch_related("tiers"):
                tiers = list(option.tiers.all())
                option.pk = None
                option.version = draft
                option._change_reason = why
                option.save()
                for tier in tiers:
                    tier.pk = None
                    tier.option = option
                    tier._change_reason = why
                    tier.save()
        return draft


class VersionQuerySet(models.QuerySet):
    def in_force_for(self, documents, day):
        """``{document id: its published version in force on day}`` for many documents in one query, by the
        rule of ``ScheduleDocument.version_as_of``."""
        found = {}
        for version in (self.filter(document_id__in=documents, status=self.model.Status.PUBLISHED)
                        .filter(Q(effective_from__lte=day) | Q(effective_from__isnull=True))
                        .order_by("document_id", F("effective_from").desc(nulls_last=True), "-number")):
            found.setdefault(version.document_id, version)
        return found


class ScheduleVersion(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"

    document = models.ForeignKey(ScheduleDocument, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    effective_from = models.DateField(
        null=True, blank=True,
        help_text="First day this version applies. Only a first version whose source states no date may be blank.",
    )
    reason = models.TextField(blank=True, help_text="Why this version exists: what changed and on whose authority.")
    retroactive = models.BooleanField(
        default=False, help_text="Confirmed as retroactive: it takes effect before the day it is published.",
    )
    retroactive_reason = models.TextField(blank=True, help_text="Why it must reach back before its publication.")
    provisions = models.JSONField(
        default=list, blank=True, help_text="Provisions printed with the schedule, one string each, as written."
    )
    based_on = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    published_at = models.DateTimeField(null=True, blank=True)
    history = HistoricalRecords()

    objects = VersionQuerySet.as_manager()

    class Meta:
        ordering = ["document", "number"]
        constraints = [models.UniqueConstraint(fields=["document", "number"], name="unique_version_number")]

    def __str__(self):
        return f"{self.document.code} v{self.number} ({self.get_status_display()})"

    @property
    def is_published(self):
        return self.status == self.Status.PUBLISHED

    def save(self, *args, **kwargs):
        if self.pk is not None and not getattr(self, "_publishing", False):
            stored = ScheduleVersion.objects.filter(pk=self.pk).values_list("status", flat=True).first()
            if stored == self.Status.PUBLISHED:
                raise ImmutableVersionError(f"{self} is published and cannot be changed; create a new version.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self.is_published:
            raise ImmutableVersionError(f"{self} is published and cannot be deleted.")
        dependents = [f"v{n}" for n in ScheduleVersion.objects.filter(based_on=self).values_list("number", flat=True)]
        if dependents:
            raise VersionStateError(f"{self} cannot be discarded: {', '.join(dependents)} of {self.document.code} "
                                    "was started from it. Discard that draft first.")
        return super().delete(*args, **kwargs)

    def diff_records(self, labels=False):
        """The version's options and tiers as ``fees.diff`` records (two queries), for comparing two versions;
        with ``labels``, each tier also carries the display names of its choices, as the pages show them."""
        from fees import diff

        records = []
        for option in self.options.prefetch_related(models.Prefetch("tiers", queryset=FeeTier.objects.order_by("order"))
                                                    ).order_by("number"):
            tiers = list(option.tiers.all())
            record = diff.option_record(option, tiers)
            if labels:
                for tier, row in zip(tiers, record["tiers"]):
                    row["labels"] = {"fee_kind": tier.get_fee_kind_display(), "measure": tier.get_measure_display(),
                                     "payer": tier.get_payer_display(), "taken": tier.get_taken_display()}
            records.append(record)
        return records

    def publish_problems(self):
        """Why this version cannot be published yet (empty when it can)."""
        problems = []
        if self.is_published:
            problems.append(f"{self} is already published.")
            return problems
        if not self.reason.strip():
            problems.append("A reason is required to publish a version.")
        has_earlier = self.document.versions.filter(number__lt=self.number).exists()
        if has_earlier and self.effective_from is None:
            problems.append("An effective-from date is required for every version after the first.")
        today = timezone.localdate()
        if self.effective_from is not None and self.effective_from < today:
            if not self.retroactive:
                problems.append(
                    f"It takes effect on {self.effective_from}, before today ({today}): a retroactive change. "
                    "Publish it only as one: confirm it is retroactive and say why.")
            elif not self.retroactive_reason.strip():
                problems.append("A retroactive version needs the reason it must reach back before its publication.")
        if not self.options.exists():
            problems.append("A version with no options cannot be published.")
        return problems

    @transaction.atomic
    def publish(self, *, user=None, reason=None, actor_label="", retroactive=None, retroactive_reason=None):
        """Publish the draft. One whose effective date is before today is published only when confirmed as
        retroactive with its reason (given here or set on the draft)."""
        from cardroom.audit import log_action

        # Lock the row so two publishers cannot both see it as a draft.
        locked = ScheduleVersion.objects.select_for_update().get(pk=self.pk)
        self.status = locked.status
        if reason is not None:
            self.reason = reason
        if retroactive is not None:
            self.retroactive = retroactive
        if retroactive_reason is not None:
            self.retroactive_reason = retroactive_reason
        problems = self.publish_problems()
        if problems:
            raise VersionStateError(" ".join(problems))
        self.status = self.Status.PUBLISHED
        self.published_by = user if getattr(user, "is_authenticated", False) else None
        self.published_at = timezone.now()
        self._change_reason = f"Published: {self.reason}"
        self._publishing = True
        try:
            self.save()
        finally:
            self._publishing = False
        log_action(
            "schedule.publish", actor=user, actor_label=actor_label, obj=self,
            establishment=self.document.establishment, jurisdiction=self.document.jurisdiction,
            data={"code": self.document.code, "version": self.number, "reason": self.reason,
                  "effective_from": self.effective_from.isoformat() if self.effective_from else None,
                  "retroactive": self.retroactive, "retroactive_reason": self.retroactive_reason},
        )
        return self


class GuardedQuerySet(models.QuerySet):
    """Refuses bulk updates and deletes that would touch a published version's rows."""

    version_path = None

    def _published(self):
        return self.filter(**{f"{self.version_path}__status": ScheduleVersion.Status.PUBLISHED}).exists()

    def update(self, **kwargs):
        if self._published():
            raise ImmutableVersionError("Rows of a published schedule version cannot be changed.")
        return super().update(**kwargs)

    def delete(self):
        if self._published():
            raise ImmutableVersionError("Rows of a published schedule version cannot be deleted.")
        return super().delete()


class OptionQuerySet(GuardedQuerySet):
    version_path = "version"


class TierQuerySet(GuardedQuerySet):
    version_path = "option__version"


class VersionRowGuard:
    """Options and tiers of a published version are as immutable as the version itself."""

    def owning_version(self):
        raise NotImplementedError

    def _check_mutable(self):
        version = self.owning_version()
        if version is not None and version.is_published:
            raise ImmutableVersionError(f"{version} is published; its options and tiers cannot be changed.")

    def save(self, *args, **kwargs):
        self._check_mutable()
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        self._check_mutable()
        return super().delete(*args, **kwargs)


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

    version = models.ForeignKey(ScheduleVersion, on_delete=models.CASCADE, related_name="options")
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
        return ScheduleVersion.objects.filter(pk=self.version_id).first() if self.version_id else None


class FeeTier(VersionRowGuard, models.Model):
    """One cell of a schedule: what is measured, the bounds, the fee and who pays it."""

    class FeeKind(models.TextChoices):
        PLAYER = "player", "Player fee"
        PLAYER_DEALER = "player_dealer", "Player-dealer fee"
        COLLECTION = "collection", "Collection fee (after the flop)"
        JACKPOT = "jackpot", "Jackpot fee (after the flop)"
        DESIGNATED_TABLE = "designated_table", "Designated table fee (after the river)"
        TIME = "time", "Time collection"

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
        return ScheduleVersion.objects.filter(options=self.option_id).first()
