from rest_framework import serializers

from cardroom.api.base import CitationField
from cardroom.api.fields import DayField, FlagField, TextField
from fees.models import FeeOption, FeeTier, ScheduleDocument, ScheduleVersion


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
    published_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    based_on = serializers.SlugRelatedField(slug_field="number", read_only=True)

    class Meta:
        model = ScheduleVersion
        fields = ["number", "status", "effective_from", "reason", "retroactive", "retroactive_reason", "provisions",
                  "based_on", "created_by", "created_at", "published_by", "published_at"]


class VersionDetailSerializer(VersionSummarySerializer):
    options = FeeOptionSerializer(many=True, read_only=True)

    class Meta(VersionSummarySerializer.Meta):
        fields = VersionSummarySerializer.Meta.fields + ["options"]


class VersionUpdateSerializer(serializers.ModelSerializer):
    """What may be changed on a draft through the API (options and tiers are edited in the admin)."""

    effective_from = DayField(required=False, allow_null=True)
    reason = TextField(max_length=4000, single_line=False, required=False)
    provisions = serializers.ListField(child=TextField(max_length=4000, single_line=False), max_length=200,
                                       required=False)

    class Meta:
        model = ScheduleVersion
        fields = ["effective_from", "reason", "provisions"]


class PublishSerializer(serializers.Serializer):
    reason = TextField(max_length=4000, single_line=False, required=False,
                       help_text="Why this version is published; defaults to the draft's reason.")
    retroactive = FlagField(required=False, help_text=(
        "Confirms that the version takes effect before the day it is published (a retroactive change); required "
        "then, with retroactive_reason."))
    retroactive_reason = TextField(max_length=4000, single_line=False, required=False,
                                   help_text="Why it must reach back before its publication.")


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
    version = serializers.SerializerMethodField()
    options = serializers.SerializerMethodField()
    versions = serializers.SerializerMethodField()

    class Meta(ScheduleSummarySerializer.Meta):
        fields = ScheduleSummarySerializer.Meta.fields + ["as_of", "version", "options", "versions"]

    def get_as_of(self, obj) -> str:
        return self.context["as_of"].isoformat()

    def get_version(self, obj) -> dict:
        return VersionSummarySerializer(self.context["version"], context=self.context).data

    def get_options(self, obj) -> list:
        return FeeOptionSerializer(self.context["options"], many=True, context=self.context).data

    def get_versions(self, obj) -> list:
        return [
            {"number": v.number, "status": v.status, "effective_from": v.effective_from}
            for v in self.context["visible_versions"]
        ]
