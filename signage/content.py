"""What a posting's sign says: ``sign_for`` gathers it from the data into a ``render.Sign``.

Every value on a sign comes from the database: the posting (limits, seats, notes), the game (name,
registration, paytables, approved bet limits), the schedule version in force (the option's fee tiers) and the
rule parameters (the notices' numbers). Nothing is typed by hand.
"""

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from compliance.models import RuleParameter
from fees.models import FeeTier

from . import render

# (fee kind, measure) -> (title, who pays, what the bounds column measures). Measures not listed fall back on
# the fee kind's own wording with "basis not stated".
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
KIND_TITLES = {
    "player": "Player fee", "player_dealer": "Player-dealer fee", "collection": "Collection fee",
    "jackpot": "Jackpot fee", "designated_table": "Designated table fee", "time": "Time collection",
}
PAYERS = {"player": "Paid by each player", "player_dealer": "Paid by the player-dealer", "pot": "Taken from the pot"}
TAKEN_NOTES = {
    "after_flop": "No flop, no drop: taken only when the hand reaches the flop.",
    "after_river": "Taken only when the hand reaches the river.",
}
NOT_STATED = "not stated in the source"


def verify_url(posting):
    return settings.PUBLIC_BASE_URL.rstrip("/") + reverse("signage-verify", args=[posting.public_token])


def local(moment):
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M %Z}"


def _bounds(tier, currency):
    if tier.printed_bounds:
        return tier.printed_bounds
    if tier.measure in ("players",):
        unit = lambda v: f"{v:.0f}"  # noqa: E731
    else:
        unit = lambda v: render.money(v, currency)  # noqa: E731
    if tier.lower is None and tier.upper is None:
        return "Any"
    if tier.lower is None:
        return f"{unit(tier.upper)} or less"
    if tier.upper is None:
        return f"{unit(tier.lower)} or more"
    return f"{unit(tier.lower)} to {unit(tier.upper)}"


def fee_tables(option, currency):
    """The option's tiers as sign tables, one per fee kind and payer, in printed order."""
    groups = {}
    for tier in option.tiers.all():
        groups.setdefault((tier.fee_kind, tier.payer, tier.measure), []).append(tier)
    tables = []
    for (kind, payer, measure), tiers in groups.items():
        if kind == "time":
            minutes = option.interval_minutes or 30
            title = f"Time collection every {minutes} minutes"
            who = "Paid by each seated player for each period played"
            column = f"Each {minutes}-minute period"
            note = (f"Collected at the end of every {minutes} minutes from each player seated during it; "
                    "the fee does not depend on the wagers.")
        else:
            title, who, column = TITLES.get((kind, measure)) or (
                f"{KIND_TITLES.get(kind, kind)} (basis {NOT_STATED})", PAYERS.get(payer, payer),
                dict(FeeTier.Measure.choices).get(measure, measure))
            note = TAKEN_NOTES.get(tiers[0].taken, "")
        rows = tuple(render.FeeRow(_bounds(t, currency), t.fee, t.printed_fee) for t in tiers)
        tables.append(render.FeeTable(title=title, payer=who, measured_on=column, rows=rows, note=note))
    return tuple(tables)


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
    # No bonus limits posted: show the game's approved ones where the approval states an amount.
    return tuple(render.BonusLimit(b.bet, b.minimum, b.maximum) for b in posting.game.bet_limits.all()
                 if b.minimum is not None or b.maximum is not None)


def payouts(game):
    return tuple(
        render.Payouts(p.bet, p.number, tuple((line.hand, line.printed) for line in p.lines.all()))
        for p in game.paytables.prefetch_related("lines")
    )


def schedule_version(posting, at):
    return posting.schedule.version_as_of(timezone.localdate(at))


def sign_for(posting, *, at=None, stamp="", banner=""):
    """The sign for ``posting`` with the schedule version in force at ``at`` (default: now)."""
    at = at or timezone.now()
    day = timezone.localdate(at)
    version = schedule_version(posting, at)
    document = posting.schedule
    option = version.options.prefetch_related("tiers").filter(number=posting.option_number).first() if version else None
    currency = document.currency
    no_fees = ""
    if version is None:
        no_fees = f"{document.code} has no published version in force on {day}."
    elif option is None:
        no_fees = f"{document.code} version {version.number} has no option {posting.option_number}."
    elif not option.tiers.exists():
        no_fees = f"The schedule prints no fee for option {option.number} ({NOT_STATED})."
    establishment = posting.table.establishment
    return render.Sign(
        establishment=establishment.name, table=posting.table.label, game=posting.game.name,
        registration=posting.game.registration_number or NOT_STATED, currency=currency,
        min_wager=posting.min_wager, max_wager=posting.max_wager, seats=posting.seats,
        schedule_code=document.code, schedule_version=version.number if version else 0,
        schedule_in_force=(f"in force from {version.effective_from}" if version and version.effective_from
                           else "no effective date stated"),
        option_number=posting.option_number, option_label=option.label if option else "",
        posted_from=local(posting.effective_from), verify_url=verify_url(posting),
        fee_tables=fee_tables(option, currency) if option else (), bonus_limits=bonus_limits(posting),
        payouts=payouts(posting.game), notices=notices(posting, day), notes=posting.notes, no_fees_note=no_fees,
        stamp=stamp, banner=banner,
    )


__all__ = ["fee_tables", "local", "notices", "sign_for", "verify_url"]
