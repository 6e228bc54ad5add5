from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from cardroom import game_checks
from cardroom.models import (
    Approval,
    ApprovalCondition,
    BetLimit,
    Establishment,
    Game,
    GameRules,
    Jurisdiction,
    Paytable,
    PaytableLine,
    StatedHouseEdge,
    Table,
)

from .base import CitationField


class JurisdictionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Jurisdiction
        fields = ["code", "name", "kind", "regulator", "currency"]


class EstablishmentSerializer(serializers.ModelSerializer):
    jurisdiction = serializers.SlugRelatedField(slug_field="code", read_only=True)

    class Meta:
        model = Establishment
        fields = ["id", "slug", "name", "jurisdiction", "kind", "licence_number", "address", "is_demo"]


class TableSerializer(serializers.ModelSerializer):
    establishment = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Table
        fields = ["id", "establishment", "label", "seats", "game", "active"]


class GameRulesSerializer(serializers.ModelSerializer):
    citation = CitationField()

    class Meta:
        model = GameRules
        fields = ["version", "title", "effective_from", "summary", "citation"]


class BetLimitSerializer(serializers.ModelSerializer):
    citation = CitationField()

    class Meta:
        model = BetLimit
        fields = ["bet", "minimum", "maximum", "increment", "maximum_is_lesser_of_base_wager", "currency", "note",
                  "citation"]


class GameSerializer(serializers.ModelSerializer):
    citation = CitationField()
    rules = GameRulesSerializer(many=True, read_only=True)
    bet_limits = BetLimitSerializer(many=True, read_only=True)

    class Meta:
        model = Game
        fields = ["slug", "name", "registration_number", "owner", "category", "decks_min", "decks_max", "equipment",
                  "max_collection_rates", "max_collection_rates_citation", "description", "citation", "rules",
                  "bet_limits"]


class PaytableLineSerializer(serializers.ModelSerializer):
    class Meta:
        model = PaytableLine
        fields = ["order", "hand", "printed", "odds_to", "odds_for", "is_push", "fixed_amount"]


class HouseEdgeSerializer(serializers.ModelSerializer):
    citation = CitationField()
    approval = serializers.SlugRelatedField(slug_field="key", read_only=True)

    class Meta:
        model = StatedHouseEdge
        fields = ["bet", "decks", "strategy", "edge_percent", "approval", "citation"]


def _percent(help_text):
    return serializers.CharField(allow_null=True, help_text=f"{help_text} Percent as a decimal string, or null.")


class HouseEdgeCheckSerializer(serializers.Serializer):
    """One row of ``cardroom.game_checks``: the house edge computed exactly for one deck count beside a stated one
    (docs/game-math.md)."""

    decks = serializers.IntegerField(allow_null=True, help_text="Deck count computed for (null: not computed).")
    stated_percent = _percent("The house edge as stated, with its printed decimals.")
    stated_decks = serializers.IntegerField(allow_null=True, help_text="Deck count as stated (null: none stated).")
    stated_for = serializers.CharField(help_text="'paytable', 'bet' (stated for the bet, no paytable named) or ''.")
    strategy = serializers.CharField(allow_blank=True)
    computed_percent = _percent("The exact house edge, rounded half up to 4 decimals.")
    computed_at_stated_precision = _percent("The exact house edge rounded to the stated figure's decimals.")
    agrees = serializers.BooleanField(allow_null=True, help_text="null when nothing is stated or not computed.")
    citation = serializers.CharField(allow_blank=True, help_text="Where the stated figure is printed.")
    source = serializers.CharField(allow_blank=True)
    approval = serializers.CharField(allow_null=True)
    reason = serializers.CharField(allow_blank=True, help_text="Why the house edge is not computed.")
    method = serializers.CharField(allow_blank=True)
    rules = serializers.CharField(allow_blank=True, help_text="The rules the computation follows.")
    assumptions = serializers.ListField(child=serializers.CharField())
    strategy_table = serializers.DictField(help_text="A main game's best strategy; empty for a side bet.")


class PaytableSerializer(serializers.ModelSerializer):
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    lines = PaytableLineSerializer(many=True, read_only=True)
    house_edges = HouseEdgeSerializer(many=True, read_only=True)
    house_edges_checked = serializers.SerializerMethodField()
    citation = CitationField()

    class Meta:
        model = Paytable
        fields = ["id", "game", "bet", "number", "currency", "note", "lines", "house_edges", "house_edges_checked",
                  "citation"]

    @extend_schema_field(HouseEdgeCheckSerializer(many=True))
    def get_house_edges_checked(self, paytable):
        """Per deck count, the exact house edge beside each stated edge (``cardroom.game_checks``)."""
        if "stated_house_edges" not in self.context:
            self.context["stated_house_edges"] = game_checks.stated_rows()
        rows = game_checks.paytable_rows(paytable, self.context["stated_house_edges"])
        return HouseEdgeCheckSerializer([row.as_dict() for row in rows], many=True).data


class ApprovalConditionSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApprovalCondition
        fields = ["order", "text", "applies_to", "kind", "status", "citation"]


class ApprovalSerializer(serializers.ModelSerializer):
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    jurisdiction = serializers.SlugRelatedField(slug_field="code", read_only=True)
    establishment = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    conditions = ApprovalConditionSerializer(many=True, read_only=True)
    house_edges = HouseEdgeSerializer(many=True, read_only=True)
    citation = CitationField()

    class Meta:
        model = Approval
        fields = ["key", "game", "jurisdiction", "establishment", "scope", "status", "reference", "decided_on",
                  "effective_from", "expires_on", "trial_ends_on", "licensee", "notes", "conditions", "house_edges",
                  "citation"]
