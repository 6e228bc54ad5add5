from rest_framework import serializers

from cardroom.api.base import CitationField
from cardroom.api.fields import DayField, FlagField, TextField
from fees.models import FeeOption, FeeTier, ScheduleDocument, ScheduleVersion, VersionReview


class FeeTierSerializer(serializers.ModelSerializer):
    currency = serializers.SerializerMethodField()

    class Meta:
        model = FeeTier
        fields = ["order", "fee_kind", "payer", "measure", "lower", "upper", "fee", "currency", "taken",
                  "printed_bounds", "printed_fee", "note"]

    def get_currency(self, obj) -> str:
        return self.context["currency"]


class FeeOptionSerializer(serializers.ModelSerializer):
    tiers = FeeTierSerializer(many=True, read_only=True)
    currency = serializers.SerializerMethodField()

    class Meta:
        model = FeeOption
        fields = ["number", "label", "basis", "currency", "min_wager_from", "min_wager_to", "max_wager_from",
                  "max_wager_to", "table_limit_low", "table_limit_high", "betting_structure", "blind_small",
                  "blind_big", "smallest_game_low", "smallest_game_high", "largest_game_low", "largest_game_high",
                  "interval_minutes", "citation", "notes", "tiers"]

    def get_currency(self, obj) -> str:
        return self.context["currency"]


class VersionSummarySerializer(serializers.ModelSerializer):
    published_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, help_text="The second officer who approved the publication.")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    review_requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    based_on = serializers.SlugRelatedField(slug_field="number", read_only=True)

    class Meta:
        model = ScheduleVersion
        fields = ["number", "status", "effective_from", "reason", "publication_reason", "retroactive",
                  "retroactive_reason", "provisions", "based_on", "created_by", "created_at", "review_requested_by",
                  "review_requested_at", "published_by", "published_at"]


class VersionReviewSerializer(serializers.ModelSerializer):
    class Meta:
        model = VersionReview
        fields = ["step", "by_label", "at", "reason"]


class VersionDetailSerializer(VersionSummarySerializer):
    options = FeeOptionSerializer(many=True, read_only=True)
    reviews = VersionReviewSerializer(
        many=True, read_only=True, help_text="Publication asked for, approved, refused or withdrawn: who, when, why.")

    class Meta(VersionSummarySerializer.Meta):
        fields = VersionSummarySerializer.Meta.fields + ["reviews", "options"]


class VersionUpdateSerializer(serializers.ModelSerializer):
    """What may be changed on a draft through the API (options and tiers are edited in the admin)."""

    effective_from = DayField(required=False, allow_null=True)
    reason = TextField(max_length=4000, single_line=False, required=False)
    provisions = serializers.ListField(child=TextField(max_length=4000, single_line=False), max_length=200,
                                       required=False)

    class Meta:
        model = ScheduleVersion
        fields = ["effective_from", "reason", "provisions"]


class PublicationRequestSerializer(serializers.Serializer):
    reason = TextField(max_length=4000, single_line=False,
                       help_text="Why this version should be published (kept beside the draft's own reason).")
    retroactive = FlagField(required=False, help_text=(
        "Confirms that the version takes effect before the day it is published (a retroactive change); required "
        "then, with retroactive_reason."))
    retroactive_reason = TextField(max_length=4000, single_line=False, required=False,
                                   help_text="Why it must reach back before its publication.")


class ReviewSerializer(serializers.Serializer):
    reason = TextField(max_length=4000, single_line=False, help_text="Why: kept with the step and in the audit log.")


class NewDraftSerializer(serializers.Serializer):
    reason = TextField(max_length=4000, single_line=False, help_text="What will change and on whose authority.")
    effective_from = DayField(help_text="First day the new version is to apply.")


class ScheduleSummarySerializer(serializers.ModelSerializer):
    jurisdiction = serializers.SlugRelatedField(slug_field="code", read_only=True)
    establishment = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    games = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)
    citation = CitationField()

    class Meta:
        model = ScheduleDocument
        fields = ["code", "title", "jurisdiction", "establishment", "games", "refers_to", "currency", "notes",
                  "citation"]


class ScheduleDetailSerializer(ScheduleSummarySerializer):
    """A document resolved as of a date: the version in force and its options with tiers."""

    as_of = serializers.SerializerMethodField()
    known_at = serializers.SerializerMethodField(help_text="The moment of the record answered for; null: now.")
    version = serializers.SerializerMethodField()
    options = serializers.SerializerMethodField()
    versions = serializers.SerializerMethodField()

    class Meta(ScheduleSummarySerializer.Meta):
        fields = ScheduleSummarySerializer.Meta.fields + ["as_of", "known_at", "version", "options", "versions"]

    def get_as_of(self, obj) -> str:
        return self.context["as_of"].isoformat()

    def get_known_at(self, obj) -> str | None:
        known_at = self.context.get("known_at")
        return known_at.isoformat() if known_at else None

    def get_version(self, obj) -> dict:
        return VersionSummarySerializer(self.context["version"], context=self.context).data

    def get_options(self, obj) -> list:
        return FeeOptionSerializer(self.context["options"], many=True, context=self.context).data

    def get_versions(self, obj) -> list:
        return [
            {"number": v.number, "status": v.status, "effective_from": v.effective_from,
             "published_at": v.published_at, "retroactive": v.retroactive}
            for v in self.context["visible_versions"]
        ]


# -- the difference between two versions (fees.engine.diff) -----------------------------------------------------------

DIFF_STATUSES = ["same", "changed", "added", "removed"]


class VersionRefSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ScheduleVersion.Status.choices)
    effective_from = serializers.DateField(allow_null=True)


class DiffTierSerializer(serializers.Serializer):
    """One side of a tier's change: every field, money as decimal strings beside the currency."""

    order = serializers.IntegerField(help_text="Position within the option, as printed.")
    fee_kind = serializers.ChoiceField(choices=FeeTier.FeeKind.choices)
    payer = serializers.ChoiceField(choices=FeeTier.Payer.choices)
    measure = serializers.ChoiceField(choices=FeeTier.Measure.choices)
    lower = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    upper = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    fee = serializers.DecimalField(max_digits=12, decimal_places=2)
    currency = serializers.CharField()
    taken = serializers.ChoiceField(choices=FeeTier.Taken.choices)
    printed_bounds = serializers.CharField(allow_blank=True)
    printed_fee = serializers.CharField(allow_blank=True)
    note = serializers.CharField(allow_blank=True)


class TierChangeSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["changed", "added", "removed"])
    fields = serializers.ListField(child=serializers.CharField(), help_text=(
        "The tier's fields that differ (every field of an added or removed tier); its position (order) alone is "
        "never a change."))
    old = DiffTierSerializer(allow_null=True, help_text="The tier in the 'from' version; null when added.")
    new = DiffTierSerializer(allow_null=True, help_text="The tier in the 'to' version; null when removed.")


class OptionFieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="The option's field (label, basis, min_wager_from, ...).")
    label = serializers.CharField(help_text="The field as a person names it.")
    old = serializers.JSONField(allow_null=True, help_text=(
        "The value in the 'from' version: amounts as decimal strings (in the schedule's currency), "
        "interval_minutes a whole number, other fields text; null where absent."))
    new = serializers.JSONField(allow_null=True, help_text="The value in the 'to' version, as 'old'.")


class OptionChangeSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=DIFF_STATUSES)
    label = serializers.CharField(allow_blank=True)
    fields = OptionFieldChangeSerializer(many=True, help_text=(
        "Changes to the option's own fields (every stated field of an added or removed option)."))
    tiers = TierChangeSerializer(many=True, help_text="The tiers added, removed or changed, in the 'to' version's "
                                                      "order (removed tiers where they stood); none when same.")


class DiffSummarySerializer(serializers.Serializer):
    options_same = serializers.IntegerField()
    options_changed = serializers.IntegerField()
    options_added = serializers.IntegerField()
    options_removed = serializers.IntegerField()
    tiers_changed = serializers.IntegerField()
    tiers_added = serializers.IntegerField()
    tiers_removed = serializers.IntegerField()


# Declared with type(): two of its fields are named "from" and "to", like the query's parameters.
VersionDiffSerializer = type("VersionDiffSerializer", (serializers.Serializer,), {
    "__module__": __name__,
    "__doc__": "Two versions of a schedule option by option and tier by tier (``fees.engine.diff``, as the compare page).",
    "schedule": serializers.CharField(),
    "currency": serializers.CharField(help_text="Every amount in the answer is in this currency."),
    "from": VersionRefSerializer(help_text="The version compared from (?from=)."),
    "to": VersionRefSerializer(help_text="The version compared to (?to=)."),
    "summary": DiffSummarySerializer(),
    "options": OptionChangeSerializer(many=True, help_text="Every option of either version, by number."),
})
