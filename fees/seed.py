"""Load collection-rate schedules from seed/schedules/*.yaml and publish them (format: docs/seed-format.md).

A version already published is never modified: if its file now says something else, the difference is
reported and nothing is applied, because published data changes only through a new version.
"""

from django.db import transaction
from simple_history.utils import bulk_create_with_history

from cardroom import seedfile as sf
from cardroom.models import Jurisdiction
from cardroom.seed import SEED_ACTOR
from cardroom.upsert import upsert

from .models import FeeOption, FeeTier, ScheduleDocument, ScheduleVersion
from .schedules import services

OPTION_MONEY = (
    "min_wager_from", "min_wager_to", "max_wager_from", "max_wager_to", "table_limit_low", "table_limit_high",
    "blind_small", "blind_big", "smallest_game_low", "smallest_game_high", "largest_game_low", "largest_game_high",
)
OPTION_TEXT = ("label", "betting_structure", "notes")
TIER_CHOICES = {
    "fee_kind": FeeTier.FeeKind.values, "payer": FeeTier.Payer.values,
    "measure": FeeTier.Measure.values, "taken": FeeTier.Taken.values,
}


def load(loader):
    for path in sf.files(loader.directory / "schedules"):
        load_schedule_file(loader, path)


def load_schedule_file(loader, path):
    data = sf.check_keys(sf.read(path), str(path), required=("schedule", "versions"))
    item = data["schedule"]
    where = f"{path} schedule"
    sf.check_keys(item, where, required=("code", "title", "jurisdiction", "currency", "source", "citation"),
                  optional=("establishment", "games", "refers_to", "notes"))
    document, created, _ = result = upsert(ScheduleDocument, {"code": item["code"]}, {
        "title": item["title"], "jurisdiction": loader.get(Jurisdiction, where, code=item["jurisdiction"]),
        "establishment": loader.establishment(item.get("establishment"), where),
        "refers_to": item.get("refers_to") or "", "currency": item["currency"], "notes": item.get("notes") or "",
        "source": loader.source(item, where), "citation": item["citation"],
    })
    loader.tally(result)
    games = {loader.game(slug, where) for slug in item.get("games", [])}
    if set(document.games.all()) != games:
        document.games.set(games)
        loader.changed += not created
    for i, version in enumerate(data["versions"]):
        load_version(loader, document, version, f"{path} versions[{i}]")


def parse_version(item, where):
    """The version as plain data, validated, in the same shape as ``stored_version`` returns."""
    sf.check_keys(item, where, required=("number", "reason", "options"), optional=("effective_from", "provisions"))
    options = []
    for i, option in enumerate(item["options"]):
        option_where = f"{where} options[{i}]"
        sf.check_keys(option, option_where, required=("number", "basis", "citation", "tiers"),
                      optional=(*OPTION_MONEY, *OPTION_TEXT, "interval_minutes"))
        sf.choice(option["basis"], FeeOption.Basis.values, option_where, "basis")
        sf.choice(option.get("betting_structure") or "", FeeOption.BettingStructure.values, option_where,
                  "betting_structure")
        tiers = []
        for order, tier in enumerate(option["tiers"], start=1):
            tier_where = f"{option_where} tiers[{order - 1}]"
            sf.check_keys(tier, tier_where, required=("fee_kind", "payer", "measure", "fee", "taken", "printed_fee"),
                          optional=("lower", "upper", "printed_bounds", "note"))
            for key, allowed in TIER_CHOICES.items():
                sf.choice(tier[key], allowed, tier_where, key)
            tiers.append({
                "order": order, **{key: tier[key] for key in TIER_CHOICES},
                **{key: sf.money(tier.get(key), tier_where, key) for key in ("lower", "upper", "fee")},
                "printed_bounds": str(tier.get("printed_bounds") or ""), "printed_fee": str(tier["printed_fee"]),
                "note": tier.get("note") or "",
            })
        options.append({
            "number": option["number"], "basis": option["basis"], "citation": option["citation"],
            **{key: sf.money(option.get(key), option_where, key) for key in OPTION_MONEY},
            **{key: option.get(key) or "" for key in OPTION_TEXT},
            "interval_minutes": option.get("interval_minutes"), "tiers": tiers,
        })
    return {
        "number": item["number"], "effective_from": sf.day(item.get("effective_from"), where, "effective_from"),
        "reason": item["reason"], "provisions": list(item.get("provisions", [])), "options": options,
    }


def stored_version(version):
    options = []
    for option in version.options.prefetch_related("tiers"):
        values = {key: getattr(option, key) for key in ("number", "basis", "citation", *OPTION_MONEY, *OPTION_TEXT,
                                                        "interval_minutes")}
        values["tiers"] = [
            {key: getattr(tier, key) for key in ("order", *TIER_CHOICES, "lower", "upper", "fee", "printed_bounds",
                                                 "printed_fee", "note")}
            for tier in option.tiers.all()
        ]
        options.append(values)
    return {
        "number": version.number, "effective_from": version.effective_from, "reason": version.reason,
        "provisions": list(version.provisions), "options": options,
    }


@transaction.atomic
def load_version(loader, document, item, where):
    wanted = parse_version(item, where)
    existing = document.versions.filter(number=wanted["number"]).first()
    if existing is not None and existing.is_published:
        if stored_version(existing) != wanted:
            loader.warnings.append(
                f"{where}: {existing} is published and differs from the file; not applied. "
                "Publish a new version instead."
            )
        return
    if existing is not None:
        loader.warnings.append(f"{where}: {existing} is an unpublished draft made by someone; left as it is.")
        return
    version = ScheduleVersion.objects.create(
        document=document, number=wanted["number"], effective_from=wanted["effective_from"],
        reason=wanted["reason"], provisions=wanted["provisions"],
    )
    for option_data in wanted["options"]:
        tiers = option_data.pop("tiers")
        option = FeeOption.objects.create(version=version, **option_data)
        bulk_create_with_history([FeeTier(option=option, **tier) for tier in tiers], FeeTier,
                                 default_change_reason="Seed data import")
    services.publish_without_review(version, reason=wanted["reason"], actor_label=SEED_ACTOR)
    loader.created += 1
