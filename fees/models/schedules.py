"""Collection-rate schedules as versioned data.

A schedule document (GEGA-002888, a card room's poker rates, ...) has versions. A published version is
immutable: a change is a new draft version, copied from the one in force, with an effective date and a
reason. "Which fee applied on 3 March" is answered by ``ScheduleDocument.version_as_of``; "who changed it
and why" by the history tables.
"""

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Max, Q
from django.utils import timezone
from simple_history.models import HistoricalRecords

from cardroom.exceptions import StateConflict
from cardroom.models import Cited

from .. import in_force

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

    def version_as_of(self, day, known_at=None):
        """The published version in force on ``day`` (by the rule of ``fees.in_force``): the latest effective date
        on or before it. With ``known_at`` (a moment), the answer the record gave at that moment: versions published
        later (a retroactive change among them) are left out."""
        return in_force.candidates(self.versions.all(), day, known_at).first()

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
            # How the room reads what the source leaves open carries over, approved as it was (fees.interpretations).
            for reading in based_on.interpretations.filter(status=Interpretation.Status.APPROVED).order_by("id"):
                reading.carried_from_id, reading.pk, reading.version = reading.pk, None, draft
                reading._change_reason = why
                reading.save()
        return draft


class VersionQuerySet(models.QuerySet):
    def known_at(self, moment):
        """Versions already in the record at ``moment`` (all of them when it is None)."""
        return self if moment is None else self.filter(published_at__lte=moment)

    def in_force_for(self, documents, day, known_at=None):
        """``{document id: its published version in force on day}`` for many documents in one query, by the
        rule of ``fees.in_force``."""
        found = {}
        for version in (in_force.candidates(self.filter(document_id__in=documents), day, known_at)
                        .order_by("document_id", *in_force.LATEST_FIRST)):
            found.setdefault(version.document_id, version)
        return found


class ScheduleVersion(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        IN_REVIEW = "in_review", "Awaiting a second officer"
        PUBLISHED = "published", "Published"

    document = models.ForeignKey(ScheduleDocument, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    effective_from = models.DateField(
        null=True, blank=True,
        help_text="First day this version applies. Only a first version whose source states no date may be blank.",
    )
    reason = models.TextField(blank=True, help_text="Why this version exists: what changed and on whose authority.")
    publication_reason = models.TextField(
        blank=True, help_text="Why it is published, as said when publication was asked for (the draft's reason stays).",
    )
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
    published_at = models.DateTimeField(
        null=True, blank=True,
        help_text="When it entered the record: what was known before this moment did not include it.",
    )
    review_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Who asked for it to be published; a second officer approves.",
    )
    review_requested_at = models.DateTimeField(null=True, blank=True)
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
            if stored == self.Status.IN_REVIEW:
                raise ImmutableVersionError(f"{self} is awaiting a second officer and cannot be changed; withdraw the "
                                            "request for publication to edit it again.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self.is_locked:
            raise ImmutableVersionError(f"{self} is {self.get_status_display().lower()} and cannot be deleted.")
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
        if self.status != self.Status.DRAFT:
            problems.append(f"{self} is already published." if self.is_published
                            else f"{self} is already awaiting a second officer.")
            return problems
        if not (self.reason.strip() or self.publication_reason.strip()):
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

    @property
    def is_locked(self):
        """Published, or awaiting a second officer: its content cannot change (withdraw the request to edit)."""
        return self.status != self.Status.DRAFT

    def editors(self):
        """Ids of the users who started or changed this draft, its options or tiers (history, every door)."""
        people = {self.created_by_id}
        people.update(ScheduleVersion.history.filter(id=self.pk).values_list("history_user_id", flat=True))
        options = FeeOption.history.filter(version_id=self.pk)
        people.update(options.values_list("history_user_id", flat=True))
        people.update(FeeTier.history.filter(option_id__in=options.values("id"))
                      .values_list("history_user_id", flat=True))
        return people - {None}

    def record_step(self, step, *, user, actor_label, reason):
        """Save the version as a review step left it and keep the step (who, when, why) and its audit entry: the
        storage of ``fees.services``' publication steps (``cardroom.review``), the only saves a locked version
        allows."""
        from cardroom.audit import log_action

        self._change_reason = f"{VersionReview.Step(step).label}: {reason}"
        self._publishing = True
        try:
            self.save()
        finally:
            self._publishing = False
        person = user if getattr(user, "is_authenticated", False) else None
        VersionReview.objects.create(version=self, step=step, by=person, reason=reason,
                                     by_label=person.get_username() if person else (actor_label or "system"))
        log_action(
            f"schedule.{step}" if step != VersionReview.Step.APPROVED else "schedule.publish", actor=user,
            actor_label=actor_label, obj=self, establishment=self.document.establishment,
            jurisdiction=self.document.jurisdiction,
            data={"code": self.document.code, "version": self.number, "reason": reason, "draft_reason": self.reason,
                  "publication_reason": self.publication_reason,
                  "effective_from": self.effective_from.isoformat() if self.effective_from else None,
                  "retroactive": self.retroactive, "retroactive_reason": self.retroactive_reason},
        )

    def mark_published(self, *, user, reason, actor_label=""):
        """The version, checked as the draft it was (``publish_problems``), enters the record as published."""
        status, self.status = self.status, self.Status.DRAFT
        problems = self.publish_problems()
        self.status = status
        if problems:
            raise VersionStateError(" ".join(problems))
        self.status = self.Status.PUBLISHED
        self.published_by = user if getattr(user, "is_authenticated", False) else None
        self.published_at = timezone.now()
        self.record_step(VersionReview.Step.APPROVED, user=user, actor_label=actor_label, reason=reason)
        return self


class GuardedQuerySet(models.QuerySet):
    """Refuses bulk updates and deletes that would touch a published version's rows."""

    version_path = None

    def _published(self):
        return self.exclude(**{f"{self.version_path}__status": ScheduleVersion.Status.DRAFT}).exists()

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


class VersionRowGuard:
    """Options and tiers of a published version are as immutable as the version itself."""

    def owning_version(self):
        raise NotImplementedError

    def _check_mutable(self):
        version = self.owning_version()
        if version is not None and version.is_locked:
            state = "is published" if version.is_published else "awaits a second officer (withdraw the request to edit)"
            raise ImmutableVersionError(f"{version} {state}; its options and tiers cannot be changed.")

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


class VersionReview(models.Model):
    """One step of the two-person publication of a version: asked for, approved, refused or withdrawn, with why."""

    class Step(models.TextChoices):
        REQUESTED = "requested", "Publication requested"
        APPROVED = "approved", "Approved and published"
        REFUSED = "refused", "Refused: back to draft"
        WITHDRAWN = "withdrawn", "Request withdrawn: back to draft"

    version = models.ForeignKey(ScheduleVersion, on_delete=models.PROTECT, related_name="reviews")
    step = models.CharField(max_length=12, choices=Step.choices)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    by_label = models.CharField(max_length=150, help_text="Username, or the command that took the step.")
    at = models.DateTimeField(default=timezone.now)
    reason = models.TextField()

    class Meta:
        ordering = ["at", "id"]

    def __str__(self):
        return f"{self.version}: {self.get_step_display()} by {self.by_label}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ImmutableVersionError("A review step is a record of what happened; it is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableVersionError("A review step is a record of what happened; it is never deleted.")


class Interpretation(models.Model):
    """How the room reads a value its source leaves open, kept beside the value as printed (never over it).

    One field of one option (its basis) or of one tier (measure, bounds, fee kind, payer, when taken) is read as
    ``value``, with the reading in words, its date and its citation (e.g. the Bureau's answer). It takes effect once
    a second compliance officer approves it; the engine, validation and signs then use it and say it is one.
    """

    class Status(models.TextChoices):
        PROPOSED = "proposed", "Proposed: awaiting a second officer"
        APPROVED = "approved", "Approved: in use"
        REFUSED = "refused", "Refused"
        WITHDRAWN = "withdrawn", "Withdrawn"

    OPTION_FIELDS = ("basis",)
    TIER_FIELDS = ("measure", "lower", "upper", "fee_kind", "payer", "taken")

    version = models.ForeignKey(ScheduleVersion, on_delete=models.PROTECT, related_name="interpretations")
    option_number = models.PositiveIntegerField()
    tier_order = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The tier read, by its position in the option; blank for the option itself.",
    )
    field = models.CharField(max_length=20, help_text="The field read: basis (an option) or measure, lower, upper, "
                                                      "fee_kind, payer, taken (a tier).")
    value = models.CharField(max_length=60, blank=True, help_text="The value it is read as; blank for an open bound.")
    statement = models.TextField(help_text="The reading in words, as a player or regulator would be told it.")
    decided_on = models.DateField(help_text="The date of the reading (e.g. of the Bureau's answer).")
    source = models.ForeignKey("cardroom.Source", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    citation = models.CharField(max_length=500, help_text="Where the reading comes from: the answer, letter or rule.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PROPOSED)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_reason = models.TextField(blank=True)
    carried_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                     help_text="The same reading of the version this one was drafted from.")
    history = HistoricalRecords()

    class Meta:
        ordering = ["version", "option_number", "tier_order", "field", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "option_number", "tier_order", "field"],
                condition=Q(status__in=["proposed", "approved"]), name="one_live_interpretation_per_field",
            ),
        ]

    def __str__(self):
        where = f"option {self.option_number}" + (f" tier {self.tier_order}" if self.tier_order is not None else "")
        return f"{self.version.document.code} v{self.version.number} {where}: {self.field} read as {self.value!r}"
