"""Checking a proposed posting from the API's JSON body (docs/compliance.md), saving nothing.

``read_request`` turns the body into PostingFacts (or raises ``BadInput`` naming the field at fault);
``check_request`` checks them and returns the findings with their ``summary``.
"""

from cardroom import values
from cardroom.exceptions import BadInput
from cardroom.models import Establishment
from fees.postings import house_banked

from .facts import Catalog, documents_queryset
from .rules import ERROR, INFO, WARNING, check_posting, pack_for
from .rules.postings import HouseFee, PostingFacts


# A house-banked game without a collection schedule is checked with these instead of schedule and option.
HOUSE_BANKED_FIELDS = ("rules", "decks", "paytables", "aggregate_payout_limit")
FIELDS = {"jurisdiction", "establishment", "game", "schedule", "option", "min_wager", "max_wager", "seats",
          "bonus_limits", "as_of", "fees", "class_f", "wagers_per_hand", *HOUSE_BANKED_FIELDS}
FEE_KINDS = ("time", "per_hand", "rake")


def _bet(name):
    try:
        return values.text(name, max_length=120)
    except values.Invalid as error:
        raise BadInput(f"a bonus_limits bet {error}", field="bonus_limits") from None


def _money(value, what):
    return values.named(what, values.money, value)


def _whole(value, what, minimum=1):
    return values.named(what, values.whole, value, minimum=minimum, maximum=10_000)


def _day(value, today):
    return today if value in (None, "") else values.named("as_of", values.day, value)


def _establishment(value, scope):
    if type(value) not in (int, str) or value == "":
        raise BadInput(f"establishment must be an id or a slug, not {value!r}.", field="establishment")
    found = Establishment.objects.select_related("jurisdiction").filter(scope.establishments_q()).by_key(value)
    if found is None:
        raise BadInput(f"Unknown establishment {value!r}.", field="establishment")
    return found


def _house_banked(data, game, bonus_limits, catalog):
    """The HouseBankedFacts of a request naming ``rules`` (and ``decks``, ``paytables``: {bet: paytable number
    or id}, one for each bonus bet of ``bonus_limits``, and ``aggregate_payout_limit``)."""
    if game.category != game.Category.HOUSE_BANKED:
        raise BadInput(f"rules: {game.name} is not house-banked; it is posted with a collection schedule "
                       "(schedule and option).", field="rules")
    rules = house_banked.rules_of(game, data["rules"], "rules")
    decks = None if data.get("decks") is None else house_banked.decks_of(game, data["decks"], "decks")
    raw = data.get("paytables") or {}
    if not isinstance(raw, dict):
        raise BadInput('paytables must be an object of bonus bet to paytable, e.g. {"3 Card Bonus": "WSGC 1"}.',
                       field="paytables")
    bets = {name.lower(): name for name, _ in bonus_limits}
    paytables = []
    for bet, value in raw.items():
        if bet.lower() not in bets:
            raise BadInput(f"paytables.{bet}: no bonus_limits entry for this bet (give its maximum there).",
                           field=f"paytables.{bet}")
        paytables.append((bets[bet.lower()], house_banked.paytable_of(game, bet, value, f"paytables.{bet}").pk))
    missing = sorted(set(bets) - {bet.lower() for bet in raw})
    if missing:
        raise BadInput(f"paytables: name the paytable of each bonus bet of a house-banked posting; missing: "
                       f"{', '.join(bets[m] for m in missing)}.", field="paytables")
    limit = data.get("aggregate_payout_limit")
    limit = None if limit is None else _money(limit, "aggregate_payout_limit")
    return catalog.house_banked.facts(game.slug, rules.pk, decks, paytables, limit)


def read_request(data, *, scope, today, catalog):
    """The request body as PostingFacts, or a BadInput naming the field at fault."""
    if not isinstance(data, dict):
        raise BadInput("The request body must be a JSON object.")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise BadInput(f"Unknown field(s): {', '.join(unknown)}. Allowed: {', '.join(sorted(FIELDS))}.")
    establishment = None
    if data.get("establishment") not in (None, ""):
        establishment = _establishment(data["establishment"], scope)
    code = data.get("jurisdiction")
    if code in (None, ""):
        if establishment is None:
            raise BadInput("Say where: jurisdiction (CA, WA, GB) or establishment (id or slug) is required.",
                           field="jurisdiction")
        jurisdiction = establishment.jurisdiction
    else:
        if not isinstance(code, str):
            raise BadInput(f"jurisdiction must be a code such as CA, WA or GB, not {code!r}.", field="jurisdiction")
        jurisdiction = scope.jurisdictions_qs().filter(code=code.strip().upper()).first()
        if jurisdiction is None:
            raise BadInput(f"Unknown jurisdiction {code!r}.", field="jurisdiction")
        if establishment is not None and establishment.jurisdiction_id != jurisdiction.pk:
            raise BadInput(f"{establishment.name} is in {establishment.jurisdiction.code}, not {jurisdiction.code}.",
                           field="jurisdiction")
    if "game" not in data:
        raise BadInput("game is required (its registration number, e.g. GEGR-002247, or its slug).", field="game")
    game = catalog.game(data["game"])
    if game is None:
        raise BadInput(f"Unknown game {data['game']!r}.", field="game")
    as_of = _day(data.get("as_of"), today)
    schedule = option = None
    if data.get("schedule") not in (None, ""):
        if not isinstance(data["schedule"], str):
            raise BadInput(f"schedule must be a schedule code such as GEGA-002888, not {data['schedule']!r}.",
                           field="schedule")
        document = documents_queryset().filter(code=data["schedule"].strip()).first()
        if document is None or not scope.sees_placed(
            document.establishment_id, document.establishment.jurisdiction_id if document.establishment_id else None,
            document.jurisdiction_id,
        ):
            raise BadInput(f"Unknown schedule {data['schedule']!r}.", field="schedule")
        found = catalog.schedule_as_of(document, as_of)
        if found is None:
            raise BadInput(f"{document.code} has no published version in force on {as_of.isoformat()}.", field="as_of")
        schedule = found[1]
        if "option" not in data:
            raise BadInput(f"option is required with a schedule (the option number of {document.code}).",
                           field="option")
        option = _whole(data["option"], "option")
    elif data.get("option") is not None:
        raise BadInput("option was given without a schedule.", field="option")
    min_wager = _money(data["min_wager"], "min_wager") if data.get("min_wager") is not None else None
    max_wager = _money(data["max_wager"], "max_wager") if data.get("max_wager") is not None else None
    seats = _whole(data.get("seats", 1), "seats")
    bonus = data.get("bonus_limits") or {}
    if not isinstance(bonus, dict):
        raise BadInput('bonus_limits must be an object of bet name to maximum, e.g. {"pair_plus": "100"}.',
                       field="bonus_limits")
    bonus_limits = tuple((_bet(name), _money(value, f"bonus_limits.{name}")) for name, value in bonus.items())
    fees = []
    raw_fees = data.get("fees") or []
    if not isinstance(raw_fees, list):
        raise BadInput("fees must be a list of {kind, amount | percent, cap}.", field="fees")
    for i, fee in enumerate(raw_fees):
        if not isinstance(fee, dict) or fee.get("kind") not in FEE_KINDS:
            raise BadInput(f"fees[{i}] must be an object whose kind is one of {', '.join(FEE_KINDS)}.",
                           field=f"fees[{i}]")
        extra = set(fee) - {"kind", "amount", "percent", "cap"}
        if extra:
            raise BadInput(f"fees[{i}] has unknown field(s): {', '.join(sorted(extra))}.", field=f"fees[{i}]")
        fees.append(HouseFee(
            kind=fee["kind"],
            amount=_money(fee["amount"], f"fees[{i}].amount") if fee.get("amount") is not None else None,
            percent=_money(fee["percent"], f"fees[{i}].percent") if fee.get("percent") is not None else None,
            cap=_money(fee["cap"], f"fees[{i}].cap") if fee.get("cap") is not None else None,
        ))
    class_f = values.named("class_f", values.flag, data.get("class_f", False))
    wagers_per_hand = data.get("wagers_per_hand")
    if wagers_per_hand is not None:
        wagers_per_hand = _whole(wagers_per_hand, "wagers_per_hand")
    house = None
    given = [name for name in HOUSE_BANKED_FIELDS if data.get(name) not in (None, "", {})]
    if data.get("rules") not in (None, ""):
        if schedule is not None:
            raise BadInput(f"{', '.join(given)}: only a house-banked posting without a collection schedule names "
                           "these; give them or schedule and option, not both.", field=given[0])
        house = _house_banked(data, game, bonus_limits, catalog)
    elif given:
        raise BadInput(f"{', '.join(given)}: give rules too (the approved rules version of a house-banked game "
                       "posted without a collection schedule).", field="rules")
    subject = {"type": "posting", "game": game.slug, "jurisdiction": jurisdiction.code,
               **({"establishment": establishment.slug} if establishment else {}),
               **({"schedule": schedule.code, "option": option} if schedule else {}),
               **({"rules": house.rules.version, "decks": house.decks} if house else {})}
    return PostingFacts(
        subject=subject, jurisdiction=jurisdiction.code, as_of=as_of, game=catalog.games[game.pk],
        establishment=establishment.slug if establishment else None,
        establishment_kind=establishment.kind if establishment else None,
        schedule=schedule, option_number=option, min_wager=min_wager, max_wager=max_wager, seats=seats,
        bonus_limits=bonus_limits, approvals=catalog.approvals_for(game.slug),
        bet_limits=catalog.bet_limits_for(game.slug), fees=tuple(fees), class_f=class_f,
        wagers_per_hand=wagers_per_hand, house_banked=house,
    )


def summary(findings):
    return {
        "ok": not any(f.severity == ERROR for f in findings),
        "counts": {s: sum(1 for f in findings if f.severity == s) for s in (ERROR, WARNING, INFO)},
    }


def check_request(data, *, scope, today, catalog=None):
    """Check a proposed posting (the API's body). Saves nothing; raises BadInput on bad input."""
    catalog = catalog or Catalog()
    facts = read_request(data, scope=scope, today=today, catalog=catalog)
    findings = check_posting(facts, catalog.params)
    return {
        **summary(findings), "as_of": facts.as_of.isoformat(), "jurisdiction": facts.jurisdiction,
        "rule_pack": pack_for(facts.jurisdiction, facts.establishment_kind),
        "findings": [f.as_dict() for f in findings],
    }
