"""Collection-rate schedules as versioned data.

A schedule document (GEGA-002888, a card room's poker rates, ...) has versions. A published version is
immutable: a change is a new draft version, copied from the one in force, with an effective date and a
reason. "Which fee applied on 3 March" is answered by ``ScheduleDocument.version_as_of``; "who changed it
and why" by the history tables.

This module holds the document and its versions; their options and tiers are ``.options``, the review steps and
interpretations ``.reviews``, the errors and the row guard ``.immutability`` (all importable from here too).
"""

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Max
from django.dispatch import Signal
from django.utils import timezone
from simple_history.models import HistoricalRecords
from simple_history.utils import bulk_create_with_history

from cardroom import generation
from cardroom.models import Cited

from . import in_force, publication
from .immutability import ImmutableVersionError, VersionRowGuard, VersionStateError
from .options import MONEY, FeeOption, FeeTier, GuardedQuerySet, OptionQuerySet, TierQuerySet
from .reviews import Interpretation, VersionReview

# Sent once a publication is committed (``version``): a retroactive one reconciles again the open days it reaches
# (fees.apps connects fees.tasks.reconcile_after_publication).
version_published = Signal()

__all__ = [
    "ScheduleDocument", "ScheduleVersion", "VersionQuerySet",
    "FeeOption", "FeeTier", "MONEY", "OptionQuerySet", "TierQuerySet",
    "Interpretation", "VersionReview",
    "GuardedQuerySet", "ImmutableVersionError", "VersionRowGuard", "VersionStateError",
]


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
        """The published version in force on ``day`` (by the rule of ``fees.models.in_force``): the latest effective date
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
            _copy_rows(based_on, draft, why)
        return draft


def _copy_rows(based_on, draft, why):
    """Copy ``based_on``'s options, tiers and approved interpretations into the new draft, a few statements a table
    (a schedule such as GEGA-002888 has hundreds of tiers); each copy gets its history row as a save would."""
    options = list(based_on.options.prefetch_related("tiers").order_by("id"))
    tiers = []
    for option in options:
        copied = list(option.tiers.all())
        option.pk, option.version = None, draft
        tiers.append((option, copied))
    bulk_create_with_history(options, FeeOption, default_change_reason=why)
    for option, copied in tiers:
        for tier in copied:
            tier.pk, tier.option = None, option
    bulk_create_with_history([tier for _, copied in tiers for tier in copied], FeeTier,
                             default_change_reason=why)
    # How the room reads what the source leaves open carries over, approved as it was (fees.schedules.interpretations).
    for reading in based_on.interpretations.filter(status=Interpretation.Status.APPROVED).order_by("id"):
        reading.carried_from_id, reading.pk, reading.version = reading.pk, None, draft
        reading._change_reason = why
        reading.save()


class VersionQuerySet(models.QuerySet):
    def known_at(self, moment):
        """Versions already in the record at ``moment`` (all of them when it is None)."""
        return self if moment is None else self.filter(published_at__lte=moment)

    def in_force_for(self, documents, day, known_at=None):
        """``{document id: its published version in force on day}`` for many documents in one query, by the
        rule of ``fees.models.in_force``."""
        found = {}
        for version in (in_force.candidates(self.filter(document_id__in=documents), day, known_at)
                        .order_by("document_id", *in_force.LATEST_FIRST)):
            found.setdefault(version.document_id, version)
        return found


# What the two-person review steps write on a version and no edit does (fees.schedules.services, cardroom.review): the ask
# sets the publication's reason and retroactive confirmation, every step the status.
STEP_FIELDS = ("status", "publication_reason", "retroactive", "retroactive_reason", "review_requested_by",
               "review_requested_at", "published_by", "published_at")


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
        """The version's options and tiers as ``fees.engine.diff`` records (two queries), for comparing two versions;
        with ``labels``, each tier also carries the display names of its choices, as the pages show them."""
        from fees.engine import diff

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

    @property
    def is_locked(self):
        """Published, or awaiting a second officer: its content cannot change (withdraw the request to edit)."""
        return self.status != self.Status.DRAFT

    def sent_back(self):
        """The refusal or withdrawal that put this draft back, when it is the last thing that happened to it: what the
        author reads before asking again. Reads prefetched ``reviews`` when there are."""
        if self.status != self.Status.DRAFT:
            return None
        steps = list(self.reviews.all())  # ordered by when (VersionReview.Meta)
        back = (VersionReview.Step.REFUSED, VersionReview.Step.WITHDRAWN)
        return steps[-1] if steps and steps[-1].step in back else None

    def editors(self):
        """Ids of the users who started or changed this draft, its options or tiers (history, every door). A review
        step (asked for, refused, withdrawn: ``record_step``) changes only ``STEP_FIELDS`` and is no edit: the
        officer who refused a version may approve it once it is corrected and asked for again."""
        people = {self.created_by_id}
        content = [f.attname for f in ScheduleVersion._meta.concrete_fields if f.name not in (*STEP_FIELDS, "id")]
        before = None
        for row in (ScheduleVersion.history.filter(id=self.pk).order_by("history_date", "history_id")
                    .values_list("history_user_id", "history_type", *content)):
            now = row[2:]
            if row[1] != "~" or now != before:
                people.add(row[0])
            before = now
        options = FeeOption.history.filter(version_id=self.pk)
        people.update(options.values_list("history_user_id", flat=True))
        people.update(FeeTier.history.filter(option_id__in=options.values("id"))
                      .values_list("history_user_id", flat=True))
        return people - {None}

    def record_step(self, step, *, user, actor_label, reason, data=None):
        """Save the version as a review step left it and keep the step (who, when, why) and its audit entry: the
        storage of ``fees.schedules.services``' publication steps (``cardroom.review``), the only saves a locked version
        allows. ``data``: more for the audit entry (an administrator withdrawing for the asker)."""
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
                  "retroactive": self.retroactive, "retroactive_reason": self.retroactive_reason, **(data or {})},
        )

    def mark_published(self, *, user, reason, actor_label=""):
        """The version, checked as every door checks a draft (``publication.publication_problems``), enters the record
        as published. A problem now is the version's state (the day passed, another version published meanwhile): a
        conflict, said as the draft's problems are."""
        if problems := publication.publication_problems(self):
            raise VersionStateError(publication.said(problems))
        self.status = self.Status.PUBLISHED
        self.published_by = user if getattr(user, "is_authenticated", False) else None
        self.published_at = timezone.now()
        self.record_step(VersionReview.Step.APPROVED, user=user, actor_label=actor_label, reason=reason)
        generation.bump()  # every process's quotes read the new version from its commit on (cardroom.generation)
        transaction.on_commit(lambda: version_published.send(sender=ScheduleVersion, version=self))
        return self


# Its code, title, citation and place are in every quote of its versions (cardroom.generation).
generation.bump_on_change(ScheduleDocument)
