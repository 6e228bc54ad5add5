"""A room's game math for the pages: per game and paytable (once, whichever documents print it), per deck count,
the house edge computed exactly beside each figure a document states, and a disagreement in a sentence.

The figures come from ``cardroom.game_checks.figures`` (docs/game-math.md); the verdicts are those of the
compliance rule ``approval.house_edge``: a figure that no deck count reproduces is a warning, one that is the
exact edge cut rather than rounded is a note. A fixed few queries whatever the size of the floor.
"""

from django.db.models import Q
from django.utils import timezone

from cardroom import game_checks, gamemath
from cardroom.models import Approval, Game
from cardroom.ordering import natural
from fees.models import PostingBonusLimit, TablePosting

AGREES, WARNING, NOTE, OTHER_DECKS, NOTHING, NOT_COMPUTED = (
    "agrees", "warning", "note", "other-decks", "nothing-stated", "not-computed")


def games_of(establishment):
    """The games that concern a room: those its approvals (its own and its jurisdiction's) and its active tables
    are for."""
    approved = Approval.objects.filter(
        Q(establishment=establishment) | Q(establishment__isnull=True, jurisdiction=establishment.jurisdiction_id)
    ).values("game")
    tabled = establishment.tables.filter(active=True, game__isnull=False).values("game")
    return list(Game.objects.filter(Q(pk__in=approved) | Q(pk__in=tabled)).order_by("name"))


def _posted(establishment, now):
    """Paytable id -> the labels of the tables whose posting in force pays a bet by it."""
    in_force = TablePosting.objects.in_force_at(now).filter(table__establishment=establishment, table__active=True)
    out: dict[int, list[str]] = {}
    for paytable, label in (PostingBonusLimit.objects.filter(posting__in=in_force, paytable__isnull=False)
                            .values_list("paytable", "posting__table__label")):
        out.setdefault(paytable, []).append(label)
    return {k: sorted(set(v), key=natural) for k, v in out.items()}


def _decks(n):
    return f"{n} deck{'s' if n != 1 else ''}"


def _who(row):
    """Who states a figure: the document's issuer (its title, cited beside, is long), else its title."""
    return row.source_issuer or row.source_title or row.source


def verdict(row, rows) -> str:
    """How a stated figure stands at one deck count (``rows``: every row of its paytable)."""
    if row.stated_percent is None:
        return NOT_COMPUTED if row.computed_percent is None else NOTHING
    if row.agrees is None:
        return NOT_COMPUTED
    if row.agrees:
        return AGREES
    if row.truncated:
        return NOTE
    if row.stated_decks is None and any(r.stated_id == row.stated_id and r.agrees for r in rows):
        return OTHER_DECKS  # stated with no deck count: it holds for a deck count the game is dealt from
    return WARNING


def sentence(row, rows) -> str:
    """What a person reads about a stated figure beside the exact one: nothing when they agree."""
    kind = verdict(row, rows)
    if kind in (AGREES, NOTHING) or row.stated_percent is None:
        return ""
    main = row.bet.lower() == gamemath.MAIN_GAME
    if row.stated_for == game_checks.PAYTABLE:
        bet = f"the {row.bet}, paytable {row.paytable}"
    else:
        bet = "the main game" if main else f"the {row.bet} bet"
    strategy = f" ({row.strategy})" if row.strategy else ""
    dealt = f"with {_decks(row.stated_decks)}" if row.stated_decks else "with no deck count"
    said = f"{_who(row)} states {row.stated_percent}% for {bet}{strategy}, {dealt}"
    if kind == NOT_COMPUTED:
        return f"{said}; it is not computed here: {row.reason}."
    places = f"{row.places} decimal{'s' if row.places != 1 else ''}"
    exact = (f"{said}; the exact figure with {_decks(row.decks)} is {row.computed_percent}%, "
             f"{row.computed_at_stated_precision}% to {places}")
    if kind == NOTE:
        return (f"{exact}: the stated figure is the exact one cut to {places} rather than rounded, a note, not a "
                "misstatement.")
    if kind == OTHER_DECKS:
        held = sorted(r.decks for r in rows if r.stated_id == row.stated_id and r.agrees)
        return (f"{exact}: the figure is the one for {', '.join(_decks(d) for d in held)}, where it agrees, so it "
                f"holds only there.")
    if row.stated_percent > row.computed_at_stated_precision:
        return f"{exact}: the stated figure is higher than the game's."
    return (f"{exact}: the stated figure is lower than the game's, so it tells players the "
            f"{'game' if main else 'bet'} costs them less than it does.")


def _paytable(figures, posted):
    lines = []
    for decks, rows in figures.by_decks:
        for i, row in enumerate(rows):
            lines.append({"row": row, "first": i == 0, "span": len(rows), "verdict": verdict(row, figures.rows),
                          "sentence": sentence(row, figures.rows)})
    computed = next((r for r in figures.rows if r.computed_percent is not None), None)
    return {
        "figures": figures, "lines": lines, "computed": computed,
        "anchor": f"paytable-{figures.printings[0].paytable_id}" if figures.printings else f"main-{figures.game}",
        "posted_at": sorted({t for p in figures.printings for t in posted.get(p.paytable_id, ())}, key=natural),
        "warnings": sum(1 for line in lines if line["verdict"] == WARNING),
    }


def for_room(establishment, now=None):
    """Per game of the room: its paytables' figures (and its main game's), each paytable once."""
    games = games_of(establishment)
    posted = _posted(establishment, now or timezone.now())
    out = {g.slug: {"game": g, "paytables": []} for g in games}
    for figures in game_checks.figures(games):
        out[figures.game]["paytables"].append(_paytable(figures, posted))
    return [g for g in out.values() if g["paytables"]]
