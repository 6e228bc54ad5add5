from rest_framework import serializers

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


class PaytableSerializer(serializers.ModelSerializer):
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    lines = PaytableLineSerializer(many=True, read_only=True)
    house_edges = HouseEdgeSerializer(many=True, read_only=True)
    citation = CitationField()

    class Meta:
        model = Paytable
        fields = ["id", "game", "bet", "number", "currency", "note", "lines", "house_edges", "citation"]


class ApprovalConditionSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApprovalCondition
        fields = ["order", "text", "applies_to", "status", "citation"]


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
