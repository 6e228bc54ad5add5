"""What a posting's sign says: ``sign_for`` gathers it from the data into a ``render.Sign``.

Every value on a sign comes from the database: the posting (limits, seats, notes), the game (name,
registration, paytables, approved bet limits), the schedule version in force (the option's fee tiers, read with
the approved interpretations of what their source leaves open, each marked "Interpretation: ..." on the sign) and
the rule parameters (the notices' numbers). Nothing is typed by hand.

A house-banked posting without a collection schedule (``house_banked_sign``) shows instead the approval its
rules come from, the rules version and decks, the limits of the Ante and of each bonus bet with the paytable it
pays by, those paytables' payouts, the aggregate payout limit and the notices of WAC 230-15-060.
"""

from django.conf import settings
from django.db.models import Case, IntegerField, Q, Value, When
from django.urls import reverse
from django.utils import timezone

from cardroom.models import Approval
from cardroom.moments import format_moment
from compliance.models import RuleParameter
from fees import engine
from fees.engine import kinds
from fees.models import FeeTier, in_force
from fees.schedules import interpretations

from . import render

# (fee kind, measure) -> (title, who pays, what the bounds column measures). Measures not listed fall back on
# the fee kind's own wording (and the measure's, where it is stated: see fee_tables).
TITLES = {
    ("player", "base_wager"): ("Player fee per base wager", "Paid by each player on each base wager", "Base wager"),
    ("player", "player_wager"): ("Player fee by total base wager", "Paid by each player on the total of their base "
                                 "wagers", "Player's total base wager"),
    ("player", "total_table_action"): ("Player fee by total table action", "Paid by each player",
                                       "Total table action"),
    ("player", "flat"): ("Player fee", "Paid by each player each hand", "Any wager"),
    ("player_dealer", "total_table_action"): ("Player-dealer fee by total table action", "Paid by the player-dealer",
                                              "Total table action"),
    ("player_dealer", "flat"): ("Player-dealer fee", "Paid by the player-dealer each hand", "Any table action"),
    ("collection", "players"): ("Poker drop", "Taken from the pot", "Players in the hand"),
    ("jackpot", "players"): ("Jackpot fee", "Taken from the pot", "Players in the hand"),
    ("jackpot", "flat"): ("Jackpot fee", "Taken from the pot", "Any hand that reaches the flop"),
    ("designated_table", "flat"): ("Designated table fee", "Taken from the pot", "Any hand that reaches the river"),
    ("designated_table", "players"): ("Designated table fee", "Taken from the pot", "Players in the hand"),
}
PAYERS = {"player": "Paid by each player", "player_dealer": "Paid by the player-dealer", "pot": "Taken from the pot"}
TAKEN_NOTES = {
    "after_flop": "No flop, no drop: taken only when the hand reaches the flop.",
    "after_river": "Taken only when the hand reaches the river.",
}
# A column whose basis the source does not state, and that no approved interpretation reads, is shown as printed,
# with no claim about what it measures: a player-facing sign never says "basis not stated".
UNCLEAR = {"unstated", "wager_unspecified"}
UNSTATED_COLUMN = "Range"  # of what, the source does not say
NO_RANGE = "no range printed"
# A house-banked posting's minimum and maximum are those of the game's main wager, which the one house-banked game
# posted without a schedule calls the Ante: "To start the game, players must make the Ante against the dealer"
# (One for the Money rules, rule 3: WSGC letter of 2014-02-18, enclosure; ofm-rules; ofm-paytables).
MAIN_BET = "Ante"


def verify_url(posting):
    return settings.PUBLIC_BASE_URL.rstrip("/") + reverse("signage-verify", args=[posting.public_token])


def local(moment, zone=None):
    """A moment as the pages show it ("2026-11-21 13:52 PST"), in ``zone`` (the room's), else the current one."""
    return format_moment(moment, zone or timezone.get_current_timezone())


def _computed(group):
    """Whether a table's bounds are written from the amounts rather than as printed: where a row's bound is read
    by an interpretation or printed by no one, every row of the table is, so that they read one way."""
    return any(t.interpreted("lower") or t.interpreted("upper") or not t.printed_bounds for t in group)


def _bounds(tier, currency, computed=True, whole=False):
    """The row's bounds as printed, or (``computed``) written from its amounts: "$101 or more", "2 to 4"."""
    if not computed:
        return tier.printed_bounds
    def unit(value):
        if tier.measure == "players":
            return f"{value:.0f}"
        text = render.money(value, currency)
        return text[:-3] if whole and text.endswith(".00") else text  # "$101", where every bound is whole

    if tier.lower is None and tier.upper is None:
        return NO_RANGE if tier.measure in UNCLEAR else "Any"
    if tier.lower is None:
        return f"{unit(tier.upper)} or less"
    if tier.upper is None:
        return f"{unit(tier.lower)} or more"
    return f"{unit(tier.lower)} to {unit(tier.upper)}"


def _rows(tiers, currency):
    computed = _computed(tiers)
    whole = all(v == v.to_integral_value() for t in tiers for v in (t.lower, t.upper) if v is not None)
    return tuple(render.FeeRow(_bounds(t, currency, computed, whole), t.fee, t.printed_fee) for t in tiers)


def fee_tables(option, currency):
    """The option's tiers (a FeeOption) as sign tables, one per fee kind and payer, in printed order, read as the
    room reads them (``fees.schedules.interpretations``)."""
    return _tables(interpretations.read_option(option), currency)[0]


def _tables(option, currency):
    """Sign tables of an option as read (an engine Option), and the fees it sets at $0 in words ("No player fee
    is charged."): a table of "Any $0.00" tells a player nothing. Where an approved interpretation reads a value
    (what a fee is measured on, a bound), the table shows the reading and its note says so ("Interpretation:
    ..."); where the source states no basis and nothing reads one, the fees are shown as printed, with no claim
    about it."""
    groups = {}
    for tier in option.tiers:
        groups.setdefault((tier.fee_kind, tier.payer, tier.measure), []).append(tier)
    tables, none_charged = [], []
    for (kind, payer, measure), tiers in groups.items():
        if all(t.fee == 0 for t in tiers):
            none_charged.append(f"No {kinds.WORDS.get(kind, 'fee')} is charged.")
            continue
        if kind == "time":
            minutes = option.interval_minutes or 30
            title = f"Time collection every {minutes} minutes"
            who = "Paid by each seated player for each period played"
            column = f"Each {minutes}-minute period"
            note = (f"Collected at the end of every {minutes} minutes from each player seated during it; "
                    "the fee does not depend on the wagers.")
        else:
            title, who, column = TITLES.get((kind, measure)) or (
                kinds.TITLES.get(kind, kind), PAYERS.get(payer, payer),
                UNSTATED_COLUMN if measure in UNCLEAR else dict(FeeTier.Measure.choices).get(measure, measure))
            note = TAKEN_NOTES.get(tiers[0].taken, "")
        read = dict.fromkeys(engine.footnote(r) for t in tiers for r in t.interpretations)
        note = " ".join(filter(None, [note, *read]))
        tables.append(render.FeeTable(title=title, payer=who, measured_on=column, rows=_rows(tiers, currency),
                                      note=note))
    return tuple(tables), tuple(dict.fromkeys(none_charged))


def _parameter(jurisdiction, key, day):
    return (RuleParameter.objects.filter(jurisdiction=jurisdiction, key=key, effective_from__lte=day)
            .order_by("-effective_from").first())


def notices(posting, day):
    """The notices the rules require on the sign, each naming its source."""
    game = posting.game
    jurisdiction = posting.table.establishment.jurisdiction
    out = []
    if jurisdiction.code == "CA":
        out.append("Collection fees are fixed before each hand or round begins and are never a fraction or "
                   "percentage of the wagers made or the winnings (Penal Code 337j; GEGA-002888 provisions).")
        if game.category == "player_dealer":
            hands = _parameter(jurisdiction, "player_dealer_max_consecutive_hands", day)
            limit = f"more than {hands.value:.0f} consecutive hands" if hands else "for consecutive hands"
            out.append("The player-dealer position is offered to every seated player in turn and rotates around "
                       f"the table; no one may hold it {limit}. The house never plays the position "
                       "(Penal Code 330.11).")
    elif jurisdiction.code == "WA":
        out.append("Wagering limits, including all fees to play, prizes and payout odds are posted here; the rules "
                   "of play are available on request (WAC 230-15-060).")
    else:
        out.append("Fees, prizes and the rules of play are available for review on request.")
    return tuple(out)


def bonus_limits(posting):
    posted = [render.BonusLimit(b.bet, b.minimum, b.maximum) for b in posting.bonus_limits.all()]
    if posted:
        return tuple(posted)
    # No bonus limits posted: show the game's approved ones where the approval states an amount. A bet the source
    # gives differing limits for (Fortune Pai Gow's Envy eligibility: $5 in one place, $25 in another) is left
    # off: a player could rely on neither; the compliance pages show the conflict.
    stated = [b for b in posting.game.bet_limits.all() if b.minimum is not None or b.maximum is not None]
    amounts = {}
    for b in stated:
        amounts.setdefault(b.bet, set()).add((b.minimum, b.maximum))
    return tuple(render.BonusLimit(b.bet, b.minimum, b.maximum) for b in stated if len(amounts[b.bet]) == 1)


def _number(value):
    return f"{value:,.0f}" if value == value.to_integral_value() else f"{value.normalize():,}"


def _pays(line, currency):
    """(unit, payout) of a paytable line in the sign's words: odds "5,000 to 1", a fixed prize "$1,000.00", a
    push; a line whose payout could not be read is shown as printed."""
    if line.is_push:
        return "push", "Push"
    if line.odds_to is not None and line.odds_for:
        return "odds", f"{_number(line.odds_to)} to {_number(line.odds_for)}"
    if line.fixed_amount is not None:
        return "amount", render.money(line.fixed_amount, currency)
    return "printed", line.printed


UNITS = {frozenset({"odds"}): "Pays (odds)", frozenset({"amount"}): "Prize"}


def paytable_payouts(bet, paytable, currency):
    """A paytable as a sign prints it: every payout written one way ("200:1" and "200 to 1" alike as "200 to 1"),
    the column headed with the unit they share ("Pays (odds)"), or "Pays" where the table mixes them."""
    pays = [(line.hand, *_pays(line, currency)) for line in paytable.lines.all()]
    units = frozenset(unit for _, unit, _ in pays) - {"push"}
    return render.Payouts(bet, paytable.number, tuple((hand, paid) for hand, _, paid in pays),
                          unit=UNITS.get(units, "Pays"))


def payouts(game, currency):
    return tuple(paytable_payouts(p.bet, p, currency) for p in game.paytables.prefetch_related("lines"))


# Approved first, then trials, then the rest (pending, withdrawn, ...): the sign names the one that holds.
_APPROVED_FIRST = Case(When(status=Approval.Status.APPROVED, then=Value(0)),
                       When(status=Approval.Status.TRIAL, then=Value(1)), default=Value(2), output_field=IntegerField())


def approval_of(posting):
    """The approval a house-banked posting's rules come from: the game's approval in the establishment's
    jurisdiction (and the establishment, where per site) whose document the rules were transcribed from - a
    letter and its enclosure, e.g. the WSGC letter of 2014-02-18. None when no such approval is recorded."""
    establishment = posting.table.establishment
    return (Approval.objects.filter(game=posting.game_id, jurisdiction=establishment.jurisdiction_id,
                                    source=posting.rules.source_id)
            .filter(Q(establishment__isnull=True) | Q(establishment=establishment))
            .order_by(_APPROVED_FIRST, "-decided_on", "-id").first())


def approval_text(approval, jurisdiction):
    if approval is None:
        return ""  # the sign names no approval; the compliance pages say none is recorded
    text = approval.reference
    if approval.decided_on and approval.decided_on.isoformat() not in text:
        text += f", dated {approval.decided_on.isoformat()}"
    if approval.status != Approval.Status.APPROVED:
        text += f" ({approval.get_status_display().lower()})"
    return text


def house_banked_notices(posting, paytables):
    """The notices of WAC 230-15-060 (and -490) for a house-banked posting, from its own data."""
    rules = posting.rules
    out = []
    if posting.table.establishment.jurisdiction.code == "WA":
        out.append("These are the wagering limits for this game, including all fees to play; this posting names no "
                   "fee to play (WAC 230-15-060).")
    else:
        out.append("These are the wagering limits for this game; this posting names no fee to play.")
    example = next(((b, p, line) for b, p in paytables for line in p.lines.all()
                    if line.odds_to is not None and line.odds_for == 1),
                   None)
    if example is not None:
        bet, paytable, line = example
        stake = bet.minimum or 1
        out.append(f"Payouts are stated \"to 1\": at {_pays(line, posting.currency)[1]} a winning "
                   f"{render.money(stake, posting.currency)} "
                   f"{bet.bet} bet wins {render.money(stake * line.odds_to, posting.currency)} and the wager is "
                   "returned as well (WAC 230-15-060: payout odds posted).")
    if posting.aggregate_payout_limit is not None:  # shown in its own section; WAC 230-15-060 wants it at the table
        out.append("Odds-based prizes are paid up to the aggregate payout limit shown above (WAC 230-15-490).")
    out.append(f"The rules of play are available on request: version {rules.version} (WAC 230-15-060).")
    return tuple(out)


def house_banked_sign(posting, *, stamp="", banner="", watermark=""):
    """The sign of a house-banked posting without a collection schedule (rules, decks, paytables)."""
    establishment = posting.table.establishment
    limits = list(posting.bonus_limits.select_related("paytable").prefetch_related("paytable__lines"))
    paytables = [(b, b.paytable) for b in limits if b.paytable is not None]
    currency = posting.currency
    return render.Sign(
        establishment=establishment.name, table=posting.table.label, game=posting.game.name,
        registration=posting.game.registration_number, currency=currency,
        min_wager=posting.min_wager, max_wager=posting.max_wager, seats=posting.seats,
        schedule_code="", schedule_version=0, schedule_in_force="", option_number=0, option_label="",
        posted_from=local(posting.effective_from, establishment.zone), verify_url=verify_url(posting),
        bonus_limits=tuple(render.BonusLimit(b.bet, b.minimum, b.maximum, b.paytable.number if b.paytable else "")
                           for b in limits),
        payouts=tuple(paytable_payouts(b.bet, p, currency) for b, p in paytables),
        notices=house_banked_notices(posting, paytables), notes=posting.notes, stamp=stamp, banner=banner,
        watermark=watermark,
        house_banked=render.HouseBanked(
            main_bet=MAIN_BET, approval=approval_text(approval_of(posting), establishment.jurisdiction),
            rules=posting.rules.title, rules_version=posting.rules.version, decks=posting.decks,
            aggregate_payout_limit=posting.aggregate_payout_limit,
        ),
    )


def schedule_version(posting, at, known_at=None, shown=False):
    """The version of the posting's schedule in force at ``at``; with ``known_at``, as the record stood then (a
    version published later, a retroactive one among them, left out); ``shown``, the one its sign showed at ``at``
    when the record was entered later (``fees.models.in_force.shown``: a retroactive version counts from its
    publication), as the round played then was priced."""
    day = timezone.localdate(at)
    if shown:
        return in_force.shown(list(posting.schedule.published_versions()), day, at)
    return posting.schedule.version_as_of(day, known_at=known_at)


def sign_for(posting, *, at=None, known_at=None, shown=False, stamp="", banner="", watermark=""):
    """The sign for ``posting`` with the schedule version in force at ``at`` (default: now), as the record stands
    now or, with ``known_at``, as it stood at that moment (its versions and interpretations then), or ``shown``:
    the version its sign showed at ``at`` (``schedule_version``); ``banner`` a small header ("REPRINT"),
    ``watermark`` a preview's mark across the page."""
    if posting.schedule_id is None:
        return house_banked_sign(posting, stamp=stamp, banner=banner, watermark=watermark)
    at = at or timezone.now()
    day = timezone.localdate(at)
    version = schedule_version(posting, at, known_at, shown=shown)
    document = posting.schedule
    option = version.options.prefetch_related("tiers").filter(number=posting.option_number).first() if version else None
    currency = document.currency
    no_fees = ""
    if version is None:
        no_fees = f"{document.code} has no published version in force on {day}."
    elif option is None:
        no_fees = f"{document.code} version {version.number} has no option {posting.option_number}."
    elif not option.tiers.exists():
        no_fees = f"The schedule prints no fee for option {option.number}."
    establishment = posting.table.establishment
    read = interpretations.read_option(option, known_at=known_at) if option else None
    # How the option itself is read (its basis) shows on no fee table: it is said among the notices.
    said = tuple(engine.footnote(r) for r in read.interpretations) if read else ()
    tables, none_charged = _tables(read, currency) if read else ((), ())
    return render.Sign(
        establishment=establishment.name, table=posting.table.label, game=posting.game.name,
        registration=posting.game.registration_number, currency=currency,
        min_wager=posting.min_wager, max_wager=posting.max_wager, seats=posting.seats,
        schedule_code=document.code, schedule_version=version.number if version else 0,
        schedule_in_force=f"in force from {version.effective_from}" if version and version.effective_from else "",
        option_number=posting.option_number, option_label=option.label if option else "",
        posted_from=local(posting.effective_from, establishment.zone), verify_url=verify_url(posting),
        fee_tables=tables, none_charged=none_charged, bonus_limits=bonus_limits(posting),
        payouts=payouts(posting.game, currency), notices=notices(posting, day) + said, notes=posting.notes,
        no_fees_note=no_fees, stamp=stamp, banner=banner, watermark=watermark,
    )


__all__ = ["approval_of", "fee_tables", "house_banked_sign", "local", "notices", "sign_for", "verify_url"]
