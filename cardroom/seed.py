"""Load the shared domain from seed/sources.yaml and seed/games/*.yaml (format: docs/seed-format.md)."""

from django.conf import settings
from django.core.exceptions import ValidationError

from . import seedfile as sf
from .exceptions import BadInput
from .models import (
    Approval,
    ApprovalCondition,
    BetLimit,
    Establishment,
    Game,
    GameRules,
    Jurisdiction,
    Paytable,
    PaytableLine,
    Source,
    StatedHouseEdge,
)
from .models.places import validate_time_zone
from .upsert import upsert

CITED = ("source", "citation")
# Who the history names for what the seed loader wrote: the transcription of the source documents.
SEED_ACTOR = "the seed data (transcribed from the source documents)"


class Loader:
    """Keeps the lookups and the tally of what an import created or changed."""

    def __init__(self, directory):
        self.directory = directory
        self.created = 0
        self.changed = 0
        self.warnings = []

    def tally(self, result):
        instance, created, changed = result
        self.created += created
        self.changed += changed and not created
        return instance

    def get(self, model, where, **lookup):
        try:
            return model.objects.get(**lookup)
        except model.DoesNotExist:
            described = ", ".join(f"{k}={v!r}" for k, v in lookup.items())
            raise BadInput(f"{where}: no {model._meta.verbose_name} with {described}") from None

    def source(self, item, where):
        return self.get(Source, where, key=item["source"])

    def game(self, slug, where):
        return self.get(Game, where, slug=slug)

    def establishment(self, slug, where):
        return None if slug is None else self.get(Establishment, where, slug=slug)


def load(loader):
    sources_file = loader.directory / "sources.yaml"
    if sources_file.exists():
        load_sources(loader, sources_file)
    load_games_files(loader, sf.files(loader.directory / "games"))


def load_sources(loader, path):
    data = sf.check_keys(sf.read(path), str(path), optional=("jurisdictions", "sources", "establishments"))
    for i, item in enumerate(data.get("jurisdictions", [])):
        where = f"{path} jurisdictions[{i}]"
        sf.check_keys(item, where, required=("code", "name", "kind", "currency"), optional=("regulator",))
        sf.choice(item["kind"], Jurisdiction.Kind.values, where, "kind")
        loader.tally(upsert(Jurisdiction, {"code": item["code"]}, {
            "name": item["name"], "kind": item["kind"], "currency": item["currency"],
            "regulator": item.get("regulator", ""),
        }))
    for i, item in enumerate(data.get("sources", [])):
        where = f"{path} sources[{i}]"
        sf.check_keys(item, where, required=("key", "title"), optional=("issuer", "issued_on", "seed_file", "notes"))
        loader.tally(upsert(Source, {"key": item["key"]}, {
            "title": item["title"], "issuer": item.get("issuer") or "",
            "issued_on": sf.day(item.get("issued_on"), where, "issued_on"),
            "seed_file": item.get("seed_file") or "", "notes": item.get("notes") or "",
        }))
    for i, item in enumerate(data.get("establishments", [])):
        where = f"{path} establishments[{i}]"
        sf.check_keys(item, where, required=("slug", "name", "jurisdiction", "kind"),
                      optional=("licence_number", "address", "is_demo", "time_zone"))
        sf.choice(item["kind"], Establishment.Kind.values, where, "kind")
        zone = item.get("time_zone") or settings.TIME_ZONE
        try:
            validate_time_zone(zone)
        except ValidationError as error:
            raise BadInput(f"{where}: time_zone: {error.messages[0]}") from None
        loader.tally(upsert(Establishment, {"slug": item["slug"]}, {
            "name": item["name"], "kind": item["kind"],
            "jurisdiction": loader.get(Jurisdiction, where, code=item["jurisdiction"]),
            "licence_number": item.get("licence_number") or "", "address": item.get("address") or "",
            "is_demo": bool(item.get("is_demo", False)), "time_zone": zone,
        }))


def load_game(loader, item, where):
    sf.check_keys(item, where, required=("slug", "name", "category", *CITED), optional=(
        "registration_number", "owner", "decks_min", "decks_max", "equipment", "max_collection_rates",
        "max_collection_rates_citation", "description",
    ))
    sf.choice(item["category"], Game.Category.values, where, "category")
    loader.tally(upsert(Game, {"slug": item["slug"]}, {
        "name": item["name"], "registration_number": item.get("registration_number") or None,
        "owner": item.get("owner") or "", "category": item["category"],
        "decks_min": item.get("decks_min"), "decks_max": item.get("decks_max"),
        "equipment": item.get("equipment") or "", "max_collection_rates": item.get("max_collection_rates"),
        "max_collection_rates_citation": item.get("max_collection_rates_citation") or "",
        "description": item.get("description") or "",
        "source": loader.source(item, where), "citation": item["citation"],
    }))


def load_rules(loader, item, where):
    sf.check_keys(item, where, required=("game", "version", "title", *CITED), optional=("effective_from", "summary"))
    loader.tally(upsert(GameRules, {"game": loader.game(item["game"], where), "version": item["version"]}, {
        "title": item["title"], "effective_from": sf.day(item.get("effective_from"), where, "effective_from"),
        "summary": item.get("summary") or "", "source": loader.source(item, where), "citation": item["citation"],
    }))


def load_bet_limit(loader, item, where):
    sf.check_keys(item, where, required=("game", "bet", "currency", *CITED), optional=(
        "minimum", "maximum", "increment", "maximum_is_lesser_of_base_wager", "note",
    ))
    # A bet may carry several printed limits (sources disagree); each row is keyed by its citation too.
    lookup = {"game": loader.game(item["game"], where), "bet": item["bet"], "citation": item["citation"]}
    loader.tally(upsert(BetLimit, lookup, {
        "minimum": sf.money(item.get("minimum"), where, "minimum"),
        "maximum": sf.money(item.get("maximum"), where, "maximum"),
        "increment": sf.money(item.get("increment"), where, "increment"),
        "maximum_is_lesser_of_base_wager": bool(item.get("maximum_is_lesser_of_base_wager", False)),
        "currency": item["currency"], "note": item.get("note") or "", "source": loader.source(item, where),
    }))


def load_paytable(loader, item, where):
    sf.check_keys(item, where, required=("game", "bet", "number", "currency", "lines", *CITED),
                  optional=("note", "house_edges"))
    game = loader.game(item["game"], where)
    source = loader.source(item, where)
    paytable = loader.tally(upsert(Paytable, {"game": game, "bet": item["bet"], "number": str(item["number"])}, {
        "currency": item["currency"], "note": item.get("note") or "", "source": source, "citation": item["citation"],
    }))
    for order, line in enumerate(item["lines"], start=1):
        line_where = f"{where} lines[{order - 1}]"
        sf.check_keys(line, line_where, required=("hand", "printed"),
                      optional=("odds_to", "odds_for", "is_push", "fixed_amount"))
        loader.tally(upsert(PaytableLine, {"paytable": paytable, "order": order}, {
            "hand": line["hand"], "printed": str(line["printed"]),
            "odds_to": sf.money(line.get("odds_to"), line_where, "odds_to"),
            "odds_for": sf.money(line.get("odds_for"), line_where, "odds_for"),
            "is_push": bool(line.get("is_push", False)),
            "fixed_amount": sf.money(line.get("fixed_amount"), line_where, "fixed_amount"),
        }))
    for i, edge in enumerate(item.get("house_edges", [])):
        edge_where = f"{where} house_edges[{i}]"
        sf.check_keys(edge, edge_where, required=("edge_percent", "citation"), optional=("decks", "strategy", "source"))
        edge_source = loader.get(Source, edge_where, key=edge["source"]) if "source" in edge else source
        loader.tally(upsert(StatedHouseEdge, {
            "game": game, "paytable": paytable, "decks": edge.get("decks"), "strategy": edge.get("strategy") or "",
        }, {
            "bet": item["bet"], "approval": None, "source": edge_source, "citation": edge["citation"],
            "edge_percent": sf.money(edge["edge_percent"], edge_where, "edge_percent"),
        }))


def load_approval(loader, item, where):
    sf.check_keys(item, where, required=("key", "game", "jurisdiction", "status", "reference", *CITED), optional=(
        "establishment", "scope", "decided_on", "effective_from", "expires_on", "trial_ends_on", "licensee",
        "notes", "conditions",
    ))
    sf.choice(item["status"], Approval.Status.values, where, "status")
    scope = sf.choice(item.get("scope", "all"), Approval.Scope.values, where, "scope")
    approval = loader.tally(upsert(Approval, {"key": item["key"]}, {
        "game": loader.game(item["game"], where),
        "jurisdiction": loader.get(Jurisdiction, where, code=item["jurisdiction"]),
        "establishment": loader.establishment(item.get("establishment"), where),
        "scope": scope, "status": item["status"], "reference": item["reference"],
        **{key: sf.day(item.get(key), where, key) for key in ("decided_on", "effective_from", "expires_on", "trial_ends_on")},
        "licensee": item.get("licensee") or "", "notes": item.get("notes") or "",
        "source": loader.source(item, where), "citation": item["citation"],
    }))
    for order, condition in enumerate(item.get("conditions", []), start=1):
        cond_where = f"{where} conditions[{order - 1}]"
        sf.check_keys(condition, cond_where, required=("text", "citation"),
                      optional=("applies_to", "status", "kind"))
        loader.tally(upsert(ApprovalCondition, {"approval": approval, "order": order}, {
            "text": condition["text"], "citation": condition["citation"],
            "applies_to": sf.choice(condition.get("applies_to", "all"), Approval.Scope.values, cond_where, "applies_to"),
            "kind": sf.choice(condition.get("kind", "prerequisite"), ApprovalCondition.Kind.values, cond_where, "kind"),
            "status": sf.choice(condition.get("status", "outstanding"), ApprovalCondition.Status.values,
                                cond_where, "status"),
        }))


def load_house_edge(loader, item, where):
    sf.check_keys(item, where, required=("game", "bet", "edge_percent", *CITED),
                  optional=("approval", "decks", "strategy"))
    game = loader.game(item["game"], where)
    approval = loader.get(Approval, where, key=item["approval"]) if item.get("approval") else None
    loader.tally(upsert(StatedHouseEdge, {
        "game": game, "bet": item["bet"], "approval": approval, "decks": item.get("decks"),
        "strategy": item.get("strategy") or "",
    }, {
        "paytable": None, "edge_percent": sf.money(item["edge_percent"], where, "edge_percent"),
        "source": loader.source(item, where), "citation": item["citation"],
    }))


# Section order matters: games before what refers to them, approvals before free-standing house edges.
SECTIONS = {
    "games": load_game,
    "rules": load_rules,
    "bet_limits": load_bet_limit,
    "paytables": load_paytable,
    "approvals": load_approval,
    "house_edges": load_house_edge,
}


def load_games_files(loader, paths):
    """Files may refer to games and approvals defined in other files, so load section by section."""
    contents = [(path, sf.check_keys(sf.read(path), str(path), optional=tuple(SECTIONS))) for path in paths]
    for section, load_item in SECTIONS.items():
        for path, data in contents:
            for i, item in enumerate(data.get(section, [])):
                load_item(loader, item, f"{path} {section}[{i}]")
