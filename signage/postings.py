"""Posting a table, and the rule that a posting with error findings prints only under a compliance override, which
takes two people: one compliance officer asks for it with a reason, a second one approves (or refuses) it (the steps
are ``signage.services``).

Everything that creates a posting comes through ``post_table`` (API, admin, demo loader), so every posting is
validated when saved (``compliance.checking.run_posting``) and that record stays with it, and one whose sign does
not fit a layout (notes too long, say) is refused, saying what is too long and by how much.

The print gate judges the posting as it stands at the print (``compliance.judgement``), not that record: what changed
since it was posted (a condition withdrawn, a version in force, a reading) blocks or frees its sign at once.
"""

import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from cardroom import values
from cardroom.audit import log_action
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import Game
from cardroom.moments import format_moment
from compliance.checking import run_posting
from compliance.judgement import judge_postings
from compliance.models import ValidationRun
from compliance.rules.words import rule_title
from fees.ledger import writable_tables
from fees.models import PostingBonusLimit, ScheduleDocument, TablePosting
from fees.postings import house_banked

from . import fit

# A house-banked game without a collection schedule posts these instead of schedule and option.
HOUSE_BANKED_FIELDS = ("rules", "decks", "aggregate_payout_limit")
FIELDS = {"table", "game", "schedule", "option", "min_wager", "max_wager", "seats", "notes", "effective_from",
          "bonus_limits", *HOUSE_BANKED_FIELDS}
BONUS_FIELDS = {"bet", "minimum", "maximum", "paytable"}
# A posting starts now or later, within a year. A few minutes back are allowed for a terminal's slow clock.
CLOCK_SKEW = datetime.timedelta(minutes=5)
HORIZON = datetime.timedelta(days=366)


class PrintBlocked(StateConflict):
    """The posting has error findings and no compliance override (becomes a 409)."""

    def __init__(self, posting, errors, pending=None):
        self.posting, self.errors = posting, errors
        super().__init__(f"Table {posting.table.label}'s sign may not be printed. {blocked_words(errors, pending)}")


def blocked_words(errors, pending=None):
    """Why a sign may not be printed and what to do, in words (the refusal, and the table page before it)."""
    listed = " ".join(f"{rule_title(e['rule'])}: {e['message'].rstrip('.')}." for e in errors)
    waiting = (f" An override asked for by {pending.requested_by.get_username()} awaits a second officer."
               if pending is not None else "")
    return (f"{listed} Until this is put right, a compliance officer may ask for an override with a reason, which a "
            f"second officer approves.{waiting}")


# -- who may do what ---------------------------------------------------------------------------------------------


def postable_tables(scope):
    """The tables one may post: the same as those one may record collections at."""
    return writable_tables(scope).select_related("game")


# -- posting -------------------------------------------------------------------------------------------------------


def _read(read, value, label, **options):
    return values.named(label, read, value, **options) if label else read(value, **options)


def _amount(value, what, required=False):
    if value in (None, ""):
        if required:
            raise BadInput(f"{what} is required.", field=what)
        return None
    return _read(values.money, value, what)


def _whole(value, what, low, high):
    return _read(values.whole, value, what, minimum=low, maximum=high)


def _bonus_limits(raw, game=None):
    """(bet, minimum, maximum, paytable) per bonus bet; ``game`` is given for a house-banked posting, where each
    bet names the paytable it pays by (one of the game's paytables for that bet)."""
    if raw in (None, ""):
        return []
    _read(values.items, raw, "", max_items=50, what="bonus_limits", required=False)
    limits, seen = [], set()
    for i, item in enumerate(raw):
        where = f"bonus_limits[{i}]"
        _read(values.obj, item, "", allowed=BONUS_FIELDS, required=("bet", "maximum"), what=where)
        bet = _read(values.text, item.get("bet"), f"{where}.bet", max_length=120)
        if bet.lower() in seen:
            raise BadInput(f"{where}.bet {bet!r} is listed twice.", field=f"{where}.bet")
        seen.add(bet.lower())
        minimum = _amount(item.get("minimum"), f"{where}.minimum")
        maximum = _amount(item.get("maximum"), f"{where}.maximum", required=True)
        if minimum is not None and minimum > maximum:
            raise BadInput(f"{where}: the minimum {minimum} is above the maximum {maximum}.", field=where)
        paytable = None
        if game is not None:
            if item.get("paytable") in (None, ""):
                raise BadInput(f"{where}.paytable is required: the {bet} paytable in use at the table "
                               "(its number as printed, e.g. 'WSGC 1', or its id).", field=f"{where}.paytable")
            paytable = house_banked.paytable_of(game, bet, item["paytable"], f"{where}.paytable")
        elif item.get("paytable") not in (None, ""):
            raise BadInput(f"{where}.paytable: only a house-banked posting without a collection schedule "
                           "names a paytable; this one posts a schedule option.", field=f"{where}.paytable")
        limits.append((bet, minimum, maximum, paytable))
    return limits


def _house_banked_fields(data, game):
    """The rules version, decks and aggregate payout limit of a house-banked posting without a schedule."""
    if data.get("option") not in (None, ""):
        raise BadInput("option was given without a schedule.", field="option")
    return {
        "rules": house_banked.rules_of(game, data["rules"], "rules"),
        "decks": house_banked.decks_of(game, data.get("decks"), "decks"),
        "aggregate_payout_limit": _amount(data.get("aggregate_payout_limit"), "aggregate_payout_limit"),
    }


def read_posting(data, *, scope, now):
    """Check a posting request (docs/signage.md) and return the values to save; raises BadInput naming the field."""
    _read(values.obj, data, "", allowed=FIELDS, required=("table",))
    table_id = _read(values.identifier, data.get("table"), "table")
    table = postable_tables(scope).filter(pk=table_id).first()
    if table is None:
        raise BadInput(f"No table {table_id} among the tables you may post.", field="table")
    game_slug = data.get("game")
    if game_slug in (None, ""):
        game = table.game
        if game is None:
            raise BadInput(f"Table {table.label} is set up for no game; say which game it posts.", field="game")
    else:
        game = Game.objects.filter(slug=_read(values.text, game_slug, "game", max_length=80)).first()
        if game is None:
            raise BadInput(f"Unknown game {game_slug!r}.", field="game")
    establishment = table.establishment
    document = None
    if data.get("schedule") in (None, ""):
        if game.category != Game.Category.HOUSE_BANKED:
            raise BadInput("schedule is required: the collection schedule's code, e.g. GEGA-002888.", field="schedule")
        if data.get("rules") in (None, ""):
            raise BadInput(
                f"{game.name} is house-banked: post its collection schedule (schedule and option) or, without one, "
                "its approved rules version (rules), the decks dealt (decks) and the paytable of each bonus bet "
                "(bonus_limits[].paytable).", field="schedule")
    else:
        given = [name for name in HOUSE_BANKED_FIELDS if data.get(name) not in (None, "")]
        if given:
            raise BadInput(f"{', '.join(given)}: only a house-banked posting without a collection schedule "
                           "names these; give them or schedule and option, not both.", field=given[0])
        code = _read(values.text, data["schedule"], "schedule", max_length=40)
        document = ScheduleDocument.objects.filter(code=code).filter(scope.placed_q()).first()
        if document is None:
            raise BadInput(f"Unknown schedule {code!r}.", field="schedule")
        if (document.establishment_id not in (None, establishment.pk)
                or document.jurisdiction_id != establishment.jurisdiction_id):
            raise BadInput(f"Schedule {code} is not one of {establishment}'s schedules.", field="schedule")
    raw_from = data.get("effective_from")
    effective_from = now if raw_from in (None, "") else _read(values.moment, raw_from, "effective_from")
    if effective_from < now - CLOCK_SKEW:
        raise BadInput(
            f"effective_from {effective_from.isoformat()} is in the past: a posting starts now or later and never "
            "rewrites what a table showed.", field="effective_from")
    if effective_from > now + HORIZON:
        raise BadInput(f"effective_from {effective_from.isoformat()} is more than a year ahead; post it "
                       "nearer the time.", field="effective_from")
    if document is None:
        option, house = None, _house_banked_fields(data, game)
    else:
        option, house = _schedule_option(document, data.get("option"), effective_from), {}
    latest = TablePosting.objects.filter(table=table).order_by("-effective_from").first()
    if latest is not None and effective_from <= latest.effective_from:
        raise BadInput(
            f"effective_from must be after table {table.label}'s latest posting "
            f"({format_moment(latest.effective_from, table.establishment.zone)}): a posting supersedes the one before "
            "it and never rewrites the past.", field="effective_from")
    min_wager = _amount(data.get("min_wager"), "min_wager", required=True)
    max_wager = _amount(data.get("max_wager"), "max_wager", required=True)
    if house and min_wager > max_wager:
        raise BadInput(f"min_wager {min_wager} is above max_wager {max_wager}.", field="min_wager")
    seats = data.get("seats")
    seats = table.seats if seats in (None, "") else _whole(seats, "seats", 1, table.seats)
    notes = _read(values.text, data.get("notes"), "notes", max_length=1000, required=False, single_line=False)
    return {
        "table": table, "game": game, "schedule": document, "option_number": option, "min_wager": min_wager,
        "max_wager": max_wager, "seats": seats, "notes": notes, "effective_from": effective_from, **house,
        "bonus_limits": _bonus_limits(data.get("bonus_limits"), game if house else None),
    }


def _schedule_option(document, raw, effective_from):
    """The option number, if the schedule's version in force on the posting's day has it."""
    code = document.code
    version = document.version_as_of(timezone.localdate(effective_from))
    if version is None:
        raise BadInput(f"{code} has no published version in force on {timezone.localdate(effective_from)}.",
                       field="schedule")
    option = _whole(raw, "option", 1, 10_000)
    if not version.options.filter(number=option).exists():
        numbers = list(version.options.values_list("number", flat=True))
        raise BadInput(
            f"{code} version {version.number} has no option {option} (it has options {min(numbers)}-{max(numbers)})."
            if numbers else f"{code} version {version.number} has no options.", field="option")
    return option


@transaction.atomic
def post_table(user, *, fields, actor_label=""):
    """Save a posting read by ``read_posting`` (or built by trusted code), validate it, and log it."""
    fields = dict(fields)
    limits = fields.pop("bonus_limits", [])
    try:
        with transaction.atomic():
            posting = TablePosting.objects.create(created_by=user if user and user.is_authenticated else None,
                                                  **fields)
    except IntegrityError:
        raise BadInput(f"Table {fields['table'].label} already has a posting from {fields['effective_from']}.",
                       field="effective_from") from None
    rows = []
    for bet, low, high, *paytable in limits:  # (bet, minimum, maximum[, paytable])
        rows.append(PostingBonusLimit(posting=posting, bet=bet, minimum=low, maximum=high,
                                      paytable=paytable[0] if paytable else None))
    PostingBonusLimit.objects.bulk_create(rows)
    too_long = fit.posting_overflow(posting)
    if too_long:  # refused now, naming what to shorten, rather than a posting whose sign cannot print
        raise BadInput(too_long)
    run = run_posting(posting, user=user if user and user.is_authenticated else None)
    if posting.schedule_id is not None:
        what = {"schedule": posting.schedule.code, "option": posting.option_number}
    else:
        what = {"rules": posting.rules.version, "decks": posting.decks,
                "paytables": {row.bet: row.paytable.number for row in rows if row.paytable is not None},
                "aggregate_payout_limit": None if posting.aggregate_payout_limit is None
                else str(posting.aggregate_payout_limit)}
    log_action("posting.create", actor=user, actor_label=actor_label, obj=posting,
               establishment=posting.table.establishment,
               data={**what, "min_wager": str(posting.min_wager), "max_wager": str(posting.max_wager),
                     "effective_from": posting.effective_from.isoformat(), "validation_run": run.pk,
                     "errors": run.errors, "warnings": run.warnings})
    return posting, run


# -- the print gate ---------------------------------------------------------------------------------------------------


def validation_run(posting):
    """The run that checked ``posting`` when it was saved (made now for postings saved before checks existed).

    Kept on the instance: the API's serializer, the admin's columns and the print gate all ask for it.
    """
    if getattr(posting, "_validation_run", None) is None:
        run = posting.validation_runs.filter(kind=ValidationRun.Kind.POSTING).order_by("-created_at", "-id").first()
        posting._validation_run = run or run_posting(posting)
    return posting._validation_run


def judgement(posting, at=None):
    """The posting judged now (``compliance.judgement``: the data as it stands, not a stored run); a posting still
    to come is judged as of its first moment."""
    return judge_postings([posting], at or timezone.now())[posting.pk]


def error_findings(posting, judged=None):
    """The errors that block the posting's sign now: ``[{rule, message, citation}]``."""
    return (judged or judgement(posting)).error_list()


def current_override(posting):
    """The approved override the posting's sign prints under, if any."""
    from .models import PrintOverride

    return (posting.print_overrides.filter(status=PrintOverride.Status.APPROVED).select_related("requested_by",
                                                                                               "decided_by")
            .order_by("-decided_at", "-id").first())


def pending_override(posting):
    """The override asked for and awaiting a second officer, if any (at most one: a database constraint)."""
    from .models import PrintOverride

    return posting.print_overrides.filter(status=PrintOverride.Status.REQUESTED).select_related("requested_by").first()


def print_permission(posting, judged=None):
    """The override a print stands on (None if none is needed); raises PrintBlocked if it needs one it lacks.
    ``judged``: the posting's judgement when the caller has it (a batch judges all its postings at once)."""
    errors = error_findings(posting, judged)
    if not errors:
        return None
    override = current_override(posting)
    if override is None:
        raise PrintBlocked(posting, errors, pending=pending_override(posting))
    return override


def at_moment(raw, default=None):
    """Read the ``at`` of a lookup: a date and time with its offset; now when absent."""
    if raw in (None, ""):
        return default or timezone.now()
    return _read(values.moment, raw, "at")


__all__ = ["PrintBlocked", "at_moment", "blocked_words", "current_override", "error_findings", "judgement", "pending_override",
           "post_table", "postable_tables", "print_permission", "read_posting", "validation_run"]
