"""Quotes from stored schedules: the bridge between the database and the pure fee engine.

The API, the ``quote_fee`` command and the ledger all come through here, so a request is read, checked and
priced the same way everywhere. Request and response shapes are documented in docs/fees.md.
"""

from typing import NamedTuple

from django.utils import timezone

from cardroom import generation, values

from .. import engine
from ..engine import QuoteError, kinds
from ..models import ScheduleDocument, ScheduleVersion, in_force
from ..schedules import interpretations


def _engine_view(version):
    """The immutable engine view of one version, read from the database (``snapshot``)."""
    document = version.document
    readings = interpretations.approved(version)
    options = tuple(
        interpretations.engine_option(
            option, [interpretations.engine_tier(t, readings.get((option.number, t.order)))
                     for t in option.tiers.all()],
            readings.get((option.number, None)),
        )
        for option in version.options.prefetch_related("tiers")
    )
    return engine.Schedule(
        code=document.code, title=document.title, version=version.number, effective_from=version.effective_from,
        currency=document.currency, citation=f"{document.source.title}, {document.citation}", options=options,
    )


def snapshot(version, memory=None):
    """The immutable engine view of one version, as read: the values approved interpretations read replace the
    printed ones, and the Option or Tier carries the interpretation (``fees.schedules.interpretations``).

    A published version's is remembered in the process for the current generation (``cardroom.generation``: an
    interpretation approved or withdrawn draws a new one); a draft's is read each time.
    """
    if not version.is_published:
        return _engine_view(version)
    memory = memory or generation.current()
    schedule = memory.get("snapshot", version.pk)
    if schedule is None:
        schedule = memory.keep("snapshot", version.pk, _engine_view(version))
    return schedule


class Published(NamedTuple):
    """A published version of a document, as ``fees.models.in_force.among`` reads it, and where its document belongs."""

    id: int
    number: int
    effective_from: object
    published_at: object
    retroactive: bool
    place: tuple  # establishment, its jurisdiction, the document's jurisdiction: what Scope.sees_placed reads

    is_published = True


def published_versions(code, memory):
    """Every published version of schedule ``code``, remembered for the generation (a publication draws a new one);
    an unknown code, or one with nothing published, is looked up each time and not remembered."""
    versions = memory.get("published", code)
    if versions is None:
        versions = tuple(Published(*row[:5], row[5:]) for row in ScheduleVersion.objects.filter(
            document__code=code, status=ScheduleVersion.Status.PUBLISHED,
        ).values_list("id", "number", "effective_from", "published_at", "retroactive", "document__establishment_id",
                      "document__establishment__jurisdiction_id", "document__jurisdiction_id"))
        if versions:
            memory.keep("published", code, versions)
    return versions


def published_snapshot(version_id, memory):
    """The engine view of the published version ``version_id``, remembered for the generation."""
    schedule = memory.get("snapshot", version_id)
    if schedule is None:
        schedule = snapshot(ScheduleVersion.objects.select_related("document__source").get(pk=version_id), memory)
    return schedule


def schedule_snapshot(code, as_of, scope=None, known_at=None, memory=None, shown_at=None):
    """The engine view of schedule ``code`` as of ``as_of`` (as the record stood at ``known_at``, if given); with a
    ``scope``, only if that user may see it.

    On every quote's hot path: which version is in force is decided in Python (``fees.models.in_force.among``) over the
    document's published versions, remembered with their snapshots for the current generation, so a quote of a
    schedule already read costs the one read of the generation number (``memory``, when the caller has read it).
    With ``shown_at`` (a moment on ``as_of``), the version a sign showed then (``fees.models.in_force.shown``).
    """
    memory = memory or generation.current()
    versions = published_versions(code, memory)
    if shown_at is not None:
        found = in_force.shown(versions, as_of, shown_at)
    else:
        if known_at is not None:  # a version with no moment of publication was never known at a moment (as in SQL)
            versions = [v for v in versions if v.published_at is not None]
        found = in_force.among(versions, as_of, known_at)
    if found is not None and (scope is None or scope.sees_placed(*found.place)):
        return published_snapshot(found.id, memory)
    # Say why, without telling a user about a schedule they may not see.
    document = ScheduleDocument.objects.filter(code=code).values_list(
        "establishment_id", "establishment__jurisdiction_id", "jurisdiction_id"
    ).first()
    if document is None or (scope is not None and not scope.sees_placed(*document)):
        raise QuoteError(f"Unknown schedule {code!r}.", field="schedule")
    known = f" as the record stood at {known_at.isoformat()}" if known_at is not None else ""
    raise QuoteError(f"{code} has no published version in force on {as_of.isoformat()}{known}.", field="schedule")


# -- reading a request -------------------------------------------------------------------------------------

def _field(data, key, what=None):
    """``data[key]``; ``what`` is the field's path where it is nested, perhaps with a gloss in brackets."""
    if key not in data:
        what = what or key
        raise QuoteError(f"{what} is required.", field=what.partition(" (")[0])
    return data[key]


def _read(read, value, what, **options):
    try:
        return read(value, **options)
    except values.Invalid as exc:
        raise QuoteError(f"{what} {exc}", field=what) from None


def _boolean(data, key):
    return _read(values.flag, data.get(key, False), key)


def _integer(value, what):
    return _read(values.whole, value, what)


def _text(value, what):
    return _read(values.text, value, what, max_length=64)


def _moment(value, what):
    return _read(values.moment, value, what)


def read_as_of(value, default):
    if value in (None, ""):
        return default
    return _read(values.day, value, "as_of")


def read_known_at(value):
    """None (the record as it stands now), or the moment the answer is wanted as the record stood then."""
    if value in (None, ""):
        return None
    return _read(values.known_at, value, "known_at", zone=timezone.get_current_timezone())


def asked_for(facts):
    """The fee family a request's facts are written for (``fees.engine.kinds.FAMILIES``: its marks)."""
    if not isinstance(facts, dict):
        raise QuoteError("The request body must be a JSON object.")
    family = kinds.asked_for(facts)
    if family is None:
        raise QuoteError(kinds.SAY_WHAT_WAS_PLAYED)
    return family


def quote_facts(schedule, option_number, facts):
    """Price one round (or time-collection period) of ``schedule``'s option from request facts, with the quote of
    the family its option's basis declares; facts written for another family are told how it is quoted."""
    asked = asked_for(facts)
    arguments = READ[asked.name](facts)
    option = schedule.option(option_number)
    family = kinds.family_of(option.basis)
    if family is not asked:
        raise engine.wrong_basis(schedule.code, option)
    return getattr(engine, family.quote)(schedule, option.number, **arguments)


def _wagers(facts):
    wagers = _field(facts, "wagers")
    if not isinstance(wagers, list) or not wagers:
        raise QuoteError("wagers must be a non-empty list of betting spots.", field="wagers")
    spots = []
    for i, spot in enumerate(wagers):
        where = f"wagers[{i}]"
        if not isinstance(spot, dict):
            raise QuoteError(f"{where} must be an object with player and base.", field=where)
        unknown = set(spot) - {"player", "base", "bonus", "backline"}
        if unknown:
            raise QuoteError(f"{where} has unknown field(s): {', '.join(sorted(unknown))}.", field=where)
        spots.append(engine.Wager(
            player=_text(_field(spot, "player", f"{where}.player"), f"{where}.player"),
            base=engine.money(_field(spot, "base", f"{where}.base"), f"{where}.base"),
            bonus=engine.money(spot.get("bonus", "0"), f"{where}.bonus"),
            backline=_boolean(spot, "backline"),
        ))
    return {"wagers": spots}


def _hand(facts):
    return {"players": _integer(facts["players"], "players"), "reached_flop": _boolean(facts, "reached_flop"),
            "reached_river": _boolean(facts, "reached_river")}


def _period(facts):
    seats = _field(facts, "players", "players (who was seated, and when)")
    if not isinstance(seats, list) or not seats:
        raise QuoteError("players must be a non-empty list of {player, seated_from, seated_to}.", field="players")
    return {"game_started_at": _moment(_field(facts, "game_started_at"), "game_started_at"),
            "game_ended_at": _moment(_field(facts, "game_ended_at"), "game_ended_at"),
            "seats": [_seat(seat, f"players[{i}]") for i, seat in enumerate(seats)]}


def _seat(seat, where):
    if not isinstance(seat, dict):
        raise QuoteError(f"{where} must be an object with player, seated_from and seated_to.", field=where)
    return engine.Seat(
        player=_text(_field(seat, "player", f"{where}.player"), f"{where}.player"),
        seated_from=_moment(_field(seat, "seated_from", f"{where}.seated_from"), f"{where}.seated_from"),
        seated_to=_moment(_field(seat, "seated_to", f"{where}.seated_to"), f"{where}.seated_to"),
    )


# How each family's facts are read: its quote function's arguments (a family of fees.engine.kinds.FAMILIES each).
READ = {kinds.CALIFORNIA.name: _wagers, kinds.POKER.name: _hand, kinds.TIME.name: _period}


def quote_posting(posting, facts, at):
    """Price a round played at ``posting``'s table at moment ``at`` (in the room's zone) as its sign showed then:
    under the version in force as the record stood at ``at`` (``fees.models.in_force.shown``), whenever the round is
    recorded. A version published later for that day does not change it (docs/change-control.md)."""
    if posting.schedule_id is None:
        raise QuoteError(f"{posting.game.name} is posted without a collection schedule (house-banked): no fee.")
    schedule = schedule_snapshot(posting.schedule.code, at.date(), shown_at=at)
    option = schedule.option(posting.option_number)
    return schedule, option, quote_facts(schedule, option.number, facts)


explain = engine.explain


# -- the response ------------------------------------------------------------------------------------------

def _cents(amount):
    return f"{amount:.2f}"


def response(schedule, option, quote, as_of, known_at=None):
    """The quote as JSON-ready data: amounts as decimal strings, the currency named, the work shown."""
    body = {"schedule": schedule.code, "version": schedule.version, "option": option.number,
            "as_of": as_of.isoformat(), "known_at": known_at.isoformat() if known_at else None,
            "currency": schedule.currency}
    body.update(ANSWER[kinds.family_of(option.basis).name](quote))
    body["total"] = _cents(quote.total)
    body["explanation"] = engine.explain(schedule, option, quote, as_of=as_of)
    return body


def _california_answer(quote):
    return {"player_fees": [{"player": player, "fee": _cents(fee)} for player, fee in quote.player_fees],
            "player_dealer_fee": _cents(quote.player_dealer_fee),
            "total_table_action": _cents(quote.total_table_action)}


def _poker_answer(quote):
    return {"collection_fee": _cents(quote.collection_fee), "designated_table_fee": _cents(quote.designated_table_fee),
            "jackpot_fee": _cents(quote.jackpot_fee)}


def _time_answer(quote):
    return {"player_fees": [{"player": player, "fee": _cents(fee), "collections": collections}
                            for player, fee, collections in quote.player_fees]}


# What each family's quote answers, besides its total and explanation.
ANSWER = {kinds.CALIFORNIA.name: _california_answer, kinds.POKER.name: _poker_answer,
          kinds.TIME.name: _time_answer}


def quote_request(data, *, today, scope=None, memory=None):
    """A whole quote request (the API's JSON body) to its JSON response. Raises QuoteError on bad input.
    ``memory``: the request's ``cardroom.generation`` memory, when its caller has read it already."""
    if not isinstance(data, dict):
        raise QuoteError("The request body must be a JSON object.")
    code = _text(_field(data, "schedule"), "schedule")
    option_number = _integer(_field(data, "option"), "option")
    as_of = read_as_of(data.get("as_of"), today)
    known_at = read_known_at(data.get("known_at"))
    facts = {key: value for key, value in data.items() if key not in ("schedule", "option", "as_of", "known_at")}
    asked_for(facts)  # say what is missing before looking anything up
    schedule = schedule_snapshot(code, as_of, scope, known_at=known_at, memory=memory)
    option = schedule.option(option_number)
    return response(schedule, option, quote_facts(schedule, option.number, facts), as_of, known_at)
