"""Checking a proposed posting from the API's JSON body (docs/compliance.md), saving nothing.

``read_request`` turns the body into PostingFacts (or raises ``CheckError`` saying what is wrong);
``check_request`` checks them and returns the findings with their ``summary``.
"""

from cardroom import values
from cardroom.models import Establishment
from fees import house_banked

from .facts import Catalog, documents_queryset
from .rules import ERROR, INFO, WARNING, check_posting, pack_for
from .rules.postings import HouseFee, PostingFacts


class CheckError(ValueError):
    """A request that cannot be checked; the message says what is wrong (becomes a 400)."""


# A house-banked game without a collection schedule is checked with these instead of schedule and option.
HOUSE_BANKED_FIELDS = ("rules", "decks", "paytables", "aggregate_payout_limit")
FIELDS = {"jurisdiction", "establishment", "game", "schedule", "option", "min_wager", "max_wager", "seats",
          "bonus_limits", "as_of", "fees", "class_f", "wagers_per_hand", *HOUSE_BANKED_FIELDS}
FEE_KINDS = ("time", "per_hand", "rake")


def _read(read, value, what, **options):
    try:
        return read(value, **options)
    except values.Invalid as exc:
        raise CheckError(f"{what} {exc}") from None


def _money(value, what):
    return _read(values.money, value, what)


def _whole(value, what, minimum=1):
    return _read(values.whole, value, what, minimum=minimum, maximum=10_000)


def _day(value, today):
    return today if value in (None, "") else _read(values.day, value, "as_of")


def _establishment(value, scope):
    if type(value) not in (int, str) or value == "":
        raise CheckError(f"establishment must be an id or a slug, not {value!r}.")
    found = Establishment.objects.select_related("jurisdiction").filter(scope.establishments_q()).by_key(value)
    if found is None:
        raise CheckError(f"Unknown establishment {value!r}.")
    return found


def _house(read, *args):
    try:
        return read(*args)
    except house_banked.Invalid as error:
        raise CheckError(str(error)) from None


def _house_banked(data, game, bonus_limits, catalog):
    """The HouseBankedFacts of a request naming ``rules`` (and ``decks``, ``paytables``: {bet: paytable number
    or id}, one for each bonus bet of ``bonus_limits``, and ``aggregate_payout_limit``)."""
    if game.category != game.Category.HOUSE_BANKED:
        raise CheckError(f"rules: {game.name} is not house-banked; it is posted with a collection schedule "
                         "(schedule and option).")
    rules = _house(house_banked.rules_of, game, data["rules"], "rules")
    decks = None if data.get("decks") is None else _house(house_banked.decks_of, game, data["decks"], "decks")
    raw = data.get("paytables") or {}
    if not isinstance(raw, dict):
        raise CheckError('paytables must be an object of bonus bet to paytable, e.g. {"3 Card Bonus": "WSGC 1"}.')
    bets = {name.lower(): name for name, _ in bonus_limits}
    paytables = []
    for bet, value in raw.items():
        if bet.lower() not in bets:
            raise CheckError(f"paytables.{bet}: no bonus_limits entry for this bet (give its maximum there).")
        paytables.append((bets[bet.lower()], _house(house_banked.paytable_of, game, bet, value, f"paytables.{bet}").pk))
    missing = sorted(set(bets) - {bet.lower() for bet in raw})
    if missing:
        raise CheckError(f"paytables: name the paytable of each bonus bet of a house-banked posting; missing: "
                         f"{', '.join(bets[m] for m in missing)}.")
    limit = data.get("aggregate_payout_limit")
    limit = None if limit is None else _money(limit, "aggregate_payout_limit")
    return catalog.house_banked.facts(game.slug, rules.pk, decks, paytables, limit)


def read_request(data, *, scope, today, catalog):
    """The request body as PostingFacts, or a CheckError saying what is wrong."""
    if not isinstance(data, dict):
        raise CheckError("The request body must be a JSON object.")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise CheckError(f"Unknown field(s): {', '.join(unknown)}. Allowed: {', '.join(sorted(FIELDS))}.")
    establishment = None
    if data.get("establishment") not in (None, ""):
        establishment = _establishment(data["establishment"], scope)
    code = data.get("jurisdiction")
    if code in (None, ""):
        if establishment is None:
            raise CheckError("Say where: jurisdiction (CA, WA, GB) or establishment (id or slug) is required.")
        jurisdiction = establishment.jurisdiction
    else:
        if not isinstance(code, str):
            raise CheckError(f"jurisdiction must be a code such as CA, WA or GB, not {code!r}.")
        jurisdiction = scope.jurisdictions_qs().filter(code=code.strip().upper()).first()
        if jurisdiction is None:
            raise CheckError(f"Unknown jurisdiction {code!r}.")
        if establishment is not None and establishment.jurisdiction_id != jurisdiction.pk:
            raise CheckError(f"{establishment.name} is in {establishment.jurisdiction.code}, not {jurisdiction.code}.")
    if "game" not in data:
        raise CheckError("game is required (its registration number, e.g. GEGR-002247, or its slug).")
    game = catalog.game(data["game"])
    if game is None:
        raise CheckError(f"Unknown game {data['game']!r}.")
    as_of = _day(data.get("as_of"), today)
    schedule = option = None
    if data.get("schedule") not in (None, ""):
        if not isinstance(data["schedule"], str):
            raise CheckError(f"schedule must be a schedule code such as GEGA-002888, not {data['schedule']!r}.")
        document = documents_queryset().filter(code=data["schedule"].strip()).first()
        if document is None or not scope.sees_placed(
            document.establishment_id, document.establishment.jurisdiction_id if document.establishment_id else None,
            document.jurisdiction_id,
        ):
            raise CheckError(f"Unknown schedule {data['schedule']!r}.")
        found = catalog.schedule_as_of(document, as_of)
        if found is None:
            raise CheckError(f"{document.code} has no published version in force on {as_of.isoformat()}.")
        schedule = found[1]
        if "option" not in data:
            raise CheckError(f"option is required with a schedule (the option number of {document.code}).")
        option = _whole(data["option"], "option")
    elif data.get("option") is not None:
        raise CheckError("option was given without a schedule.")
    min_wager = _money(data["min_wager"], "min_wager") if data.get("min_wager") is not None else None
    max_wager = _money(data["max_wager"], "max_wager") if data.get("max_wager") is not None else None
    seats = _whole(data.get("seats", 1), "seats")
    bonus = data.get("bonus_limits") or {}
    if not isinstance(bonus, dict):
        raise CheckError('bonus_limits must be an object of bet name to maximum, e.g. {"pair_plus": "100"}.')
    bonus_limits = tuple((_read(values.text, name, "a bonus_limits bet", max_length=120),
                          _money(value, f"bonus_limits.{name}")) for name, value in bonus.items())
    fees = []
    raw_fees = data.get("fees") or []
    if not isinstance(raw_fees, list):
        raise CheckError("fees must be a list of {kind, amount | percent, cap}.")
    for i, fee in enumerate(raw_fees):
        if not isinstance(fee, dict) or fee.get("kind") not in FEE_KINDS:
            raise CheckError(f"fees[{i}] must be an object whose kind is one of {', '.join(FEE_KINDS)}.")
        extra = set(fee) - {"kind", "amount", "percent", "cap"}
        if extra:
            raise CheckError(f"fees[{i}] has unknown field(s): {', '.join(sorted(extra))}.")
        fees.append(HouseFee(
            kind=fee["kind"],
            amount=_money(fee["amount"], f"fees[{i}].amount") if fee.get("amount") is not None else None,
            percent=_money(fee["percent"], f"fees[{i}].percent") if fee.get("percent") is not None else None,
            cap=_money(fee["cap"], f"fees[{i}].cap") if fee.get("cap") is not None else None,
        ))
    class_f = _read(values.flag, data.get("class_f", False), "class_f")
    wagers_per_hand = data.get("wagers_per_hand")
    if wagers_per_hand is not None:
        wagers_per_hand = _whole(wagers_per_hand, "wagers_per_hand")
    house = None
    given = [name for name in HOUSE_BANKED_FIELDS if data.get(name) not in (None, "", {})]
    if data.get("rules") not in (None, ""):
        if schedule is not None:
            raise CheckError(f"{', '.join(given)}: only a house-banked posting without a collection schedule names "
                             "these; give them or schedule and option, not both.")
        house = _house_banked(data, game, bonus_limits, catalog)
    elif given:
        raise CheckError(f"{', '.join(given)}: give rules too (the approved rules version of a house-banked game "
                         "posted without a collection schedule).")
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
    """Check a proposed posting (the API's body). Saves nothing; raises CheckError on bad input."""
    catalog = catalog or Catalog()
    facts = read_request(data, scope=scope, today=today, catalog=catalog)
    findings = check_posting(facts, catalog.params)
    return {
        **summary(findings), "as_of": facts.as_of.isoformat(), "jurisdiction": facts.jurisdiction,
        "rule_pack": pack_for(facts.jurisdiction, facts.establishment_kind),
        "findings": [f.as_dict() for f in findings],
    }
