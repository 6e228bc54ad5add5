"""The stated house edges beside the exact ones: per game, bet, paytable and deck count.

Reads the seeded ``Paytable`` / ``PaytableLine`` / ``StatedHouseEdge`` rows, asks the pure ``cardroom.gamemath``
for the house edge of each bet (docs/game-math.md: method, assumptions, results) and compares. Used by
``python manage.py check_game_math``, by ``GET /api/v1/paytables/{id}/`` (``house_edges_checked``) and by the
compliance rule ``approval.house_edge`` (``compliance.rules.game_math``), which gets ``stated_edges``.

Rows (``EdgeRow``): one per deck count the bet is dealt from (One for the Money: 6 and 8; Three Card Poker: 1,
one deck per round) and per stated edge that applies to it: a figure stated for a paytable and a deck count is
compared with that deck count; a figure stated with no deck count, with each; a figure stated for a bet without
naming a paytable (the GB trial's "Perfect Match side bet: 6.4%"), with each of the game's paytables for that
bet. A deck count with no stated figure still has a row (``stated_percent`` None). A bet that is not computed
has a row saying why (``reason``).

``figures`` groups the rows by paytable for the report and the pages (``PaytableFigures``): the paytables of a
game's bet that pay exactly alike (the SHFL sheet's '1' and the WSGC letter's 'WSGC 1') are one paytable printed
by several documents, shown once with every figure any document states for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from cardroom import gamemath
from cardroom.gamemath.compare import ApprovalRef, ComputedEdge, StatedEdge, stated_places
from cardroom.gamemath.paytables import normal
from cardroom.models import Approval, Game, Paytable, StatedHouseEdge

PAYTABLE, BET = "paytable", "bet"


@dataclass(frozen=True)
class EdgeRow:
    game: str
    game_name: str
    bet: str
    paytable_id: int | None
    paytable: str | None  # number as printed; None for a bet without a paytable (a main game)
    decks: int | None  # the deck count computed for; None when not computed and not known
    computed_percent: Decimal | None  # 4 decimals, half up
    stated_percent: Decimal | None = None
    stated_decks: int | None = None  # as stated; None: no deck count stated
    stated_for: str = ""  # "paytable", or "bet" when the document names no paytable
    strategy: str = ""
    places: int | None = None  # decimals the stated figure is printed with
    computed_at_stated_precision: Decimal | None = None
    agrees: bool | None = None  # None: nothing stated, or not computed
    citation: str = ""
    source: str = ""
    source_title: str = ""  # the document's title and issuer, for the pages
    source_issuer: str = ""
    truncated: bool = False  # disagrees, but is the exact edge cut (not rounded) to its decimals
    approval: str | None = None  # the approval the statement names, if any
    stated_id: int | None = None
    reason: str = ""  # why the bet is not computed
    method: str = ""
    rules: str = ""  # the rules the computation follows
    assumptions: tuple[str, ...] = ()
    strategy_table: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """JSON-ready: Decimals as strings."""
        def text(value):
            return None if value is None else str(value)
        return {
            "game": self.game, "game_name": self.game_name, "bet": self.bet, "paytable_id": self.paytable_id,
            "paytable": self.paytable, "decks": self.decks, "stated_percent": text(self.stated_percent),
            "stated_decks": self.stated_decks, "stated_for": self.stated_for, "strategy": self.strategy,
            "computed_percent": text(self.computed_percent),
            "computed_at_stated_precision": text(self.computed_at_stated_precision), "agrees": self.agrees,
            "citation": self.citation, "source": self.source, "approval": self.approval,
            "stated_id": self.stated_id, "reason": self.reason, "method": self.method, "rules": self.rules,
            "assumptions": list(self.assumptions), "strategy_table": self.strategy_table,
        }


def lines_of(paytable: Paytable) -> tuple[gamemath.Line, ...]:
    return tuple(
        gamemath.Line(hand=line.hand, printed=line.printed, odds_to=line.odds_to, odds_for=line.odds_for,
                      is_push=line.is_push, fixed_amount=line.fixed_amount)
        for line in paytable.lines.all()
    )


def _payouts(paytable: Paytable) -> tuple:
    return tuple((line.odds_to, line.odds_for, line.is_push, line.fixed_amount) for line in paytable.lines.all())


def _computations(game: Game, bet: str, paytable: Paytable | None):
    lines = lines_of(paytable) if paytable is not None else ()
    return gamemath.compute(game.slug, bet, lines, game.decks_min, game.decks_max)


def stated_rows():
    """Every StatedHouseEdge, with what the rows need (pass to ``paytable_rows`` when checking many)."""
    return list(StatedHouseEdge.objects.select_related("game", "paytable", "approval", "source")
                .order_by("game__name", "bet", "decks", "strategy", "id"))


def _paytables(**filters):
    return list(Paytable.objects.filter(**filters).select_related("game", "source").prefetch_related("lines")
                .order_by("game__name", "bet", "number"))


def _places(edge: StatedHouseEdge) -> int:
    return stated_places(edge.edge_percent, edge.citation)


def _rows(game, bet, paytable, computations, edges) -> list[EdgeRow]:
    """Rows of one bet (and paytable) from its computations and the stated edges that apply to it."""
    out = []
    for c in computations:
        base = dict(game=game.slug, game_name=game.name, bet=bet, paytable_id=paytable.pk if paytable else None,
                    paytable=paytable.number if paytable else None, decks=c.decks, computed_percent=c.percent,
                    reason=c.reason, method=c.method, rules=c.citation, assumptions=c.assumptions,
                    strategy_table=c.strategy)
        applying = [e for e in edges if c.decks is None or e.decks in (None, c.decks)]
        if not applying:
            out.append(EdgeRow(**base))
        for e in applying:
            places = _places(e)
            exact = None if c.edge is None else gamemath.rounded(c.edge * 100, places)
            agrees = None if c.edge is None else gamemath.agrees(e.edge_percent, c.edge, places)
            out.append(EdgeRow(
                **base, stated_percent=e.edge_percent.quantize(Decimal(1).scaleb(-places)), stated_decks=e.decks,
                stated_for=PAYTABLE if e.paytable_id else BET, strategy=e.strategy, places=places,
                computed_at_stated_precision=exact, agrees=agrees,
                citation=e.citation, source=e.source.key, source_title=e.source.title,
                source_issuer=e.source.issuer,
                truncated=agrees is False and _cut(c.edge * 100, places) == e.edge_percent,
                approval=e.approval.key if e.approval_id else None, stated_id=e.pk,
            ))
    return out


def _cut(value, places) -> Decimal:
    """``value`` (a Fraction) cut towards zero to ``places`` decimals, exactly."""
    scaled = abs(value) * 10**places
    return Decimal((1 if value >= 0 else -1) * (scaled.numerator // scaled.denominator)).scaleb(-places)


def _bet_level(edges, game, bet):
    return [e for e in edges if e.paytable_id is None and e.game_id == game.pk and normal(e.bet) == normal(bet)]


def paytable_rows(paytable: Paytable, edges=None) -> list[EdgeRow]:
    """The rows of one paytable: its own stated edges, and those stated for its bet without naming a paytable."""
    edges = stated_rows() if edges is None else edges
    applying = [e for e in edges if e.paytable_id == paytable.pk] + _bet_level(edges, paytable.game, paytable.bet)
    return _rows(paytable.game, paytable.bet, paytable, _computations(paytable.game, paytable.bet, paytable),
                 applying)


def _bets_without_paytable(edges, paytables, games=None):
    """(game, bet) of the main games (a computation exists) and of stated edges whose bet has no paytable."""
    with_paytable = {(p.game_id, normal(p.bet)) for p in paytables}
    found = {}
    for game in (Game.objects.order_by("name") if games is None else games):
        if gamemath.has_main_game(game.slug):
            found[(game.pk, normal(gamemath.MAIN_GAME))] = (game, "Main game")
    for e in edges:
        if e.paytable_id is None and (e.game_id, normal(e.bet)) not in with_paytable:
            found.setdefault((e.game_id, normal(e.bet)), (e.game, e.bet))
    return sorted(found.values(), key=lambda item: (item[0].name, item[1]))


def rows() -> list[EdgeRow]:
    """Every row: every seeded paytable, and every main game, in order of game, bet, paytable and deck count."""
    edges = stated_rows()
    paytables = _paytables()
    out = []
    for game, bet in _bets_without_paytable(edges, paytables):
        out.extend(_rows(game, bet, None, _computations(game, bet, None), _bet_level(edges, game, bet)))
    for paytable in paytables:
        out.extend(paytable_rows(paytable, edges))
    return sorted(out, key=lambda r: (r.game_name, r.bet != "Main game", r.bet, r.paytable or "", r.decks or 0))


@dataclass(frozen=True)
class Printing:
    """One paytable as one document prints it."""

    paytable_id: int
    number: str
    source: str
    source_title: str


@dataclass(frozen=True)
class PaytableFigures:
    """One paytable's figures once: the paytables of one game's bet that pay exactly alike (``printings``, one per
    document; none for a main game), and per deck count the computed edge beside every figure any document
    states for one of them or for the bet (``rows``: by deck count, a paytable's own figures first)."""

    game: str
    game_name: str
    bet: str
    printings: tuple[Printing, ...]
    rows: tuple[EdgeRow, ...]

    @property
    def by_decks(self) -> list[tuple[int | None, list[EdgeRow]]]:
        """The rows per deck count, in order."""
        out: dict = {}
        for row in self.rows:
            out.setdefault(row.decks, []).append(row)
        return list(out.items())


def _merged(members) -> tuple[EdgeRow, ...]:
    """The rows of paytables that pay alike as one paytable's: a figure once (stated for the bet, it applies to
    each of them), a deck count without a figure only when no document states one for it."""
    merged = {}
    for rows in members:
        for row in rows:
            merged.setdefault((row.decks, row.stated_id), row)
    stated = {decks for decks, stated_id in merged if stated_id is not None}
    kept = [r for (decks, stated_id), r in merged.items() if stated_id is not None or decks not in stated]
    return tuple(sorted(kept, key=lambda r: (r.decks or 0, r.stated_for != PAYTABLE, r.source, r.strategy,
                                             r.stated_id or 0)))


def figures(games=None) -> list[PaytableFigures]:
    """Every paytable's figures once (and every main game's), for ``games`` (Game rows) or every game: in order
    of game, bet and paytable. A fixed few queries whatever the number of games."""
    game_ids = None if games is None else [g.pk for g in games]
    edges = [e for e in stated_rows() if game_ids is None or e.game_id in game_ids]
    paytables = _paytables() if game_ids is None else _paytables(game__in=game_ids)
    out = []
    for game, bet in _bets_without_paytable(edges, paytables, games):
        rows = _rows(game, bet, None, _computations(game, bet, None), _bet_level(edges, game, bet))
        out.append(PaytableFigures(game.slug, game.name, bet, (), tuple(rows)))
    groups: dict = {}
    for paytable in paytables:
        rows = paytable_rows(paytable, edges)
        # Paytables pay alike only when both are computed: an unreadable line is not compared with anything.
        alike = all(r.computed_percent is not None for r in rows)
        key = (paytable.game_id, normal(paytable.bet), _payouts(paytable)) if alike else paytable.pk
        groups.setdefault(key, []).append((paytable, rows))
    for members in groups.values():
        first = members[0][0]
        printings = tuple(Printing(p.pk, p.number, p.source.key, p.source.title) for p, _ in members)
        out.append(PaytableFigures(first.game.slug, first.game.name, first.bet, printings,
                                   _merged(rows for _, rows in members)))
    return sorted(out, key=lambda f: (f.game_name, f.bet != "Main game", f.bet,
                                      f.printings[0].number if f.printings else ""))


def _concerned(edge, approvals, paytables) -> tuple[Approval, ...]:
    """The approvals a stated edge concerns: the one it names; else those of its game that approve (print in
    their own document, as ``approval.rules_and_paytables`` reads it) a paytable for its bet paying exactly as
    its paytable; else, or when it names no paytable, every approval of its game."""
    if edge.approval_id:
        return tuple(a for a in approvals if a.pk == edge.approval_id)
    mine = [a for a in approvals if a.game_id == edge.game_id]
    if edge.paytable_id is None:
        return tuple(mine)
    payouts = _payouts(edge.paytable)
    approving = [a for a in mine if any(
        p.source_id == a.source_id and p.game_id == a.game_id and normal(p.bet) == normal(edge.paytable.bet)
        and _payouts(p) == payouts for p in paytables)]
    return tuple(approving or mine)


def stated_edges(approval_keys=None) -> list[StatedEdge]:
    """Every stated house edge with what it is compared with and the approvals it concerns (for the compliance
    rule). ``approval_keys``: only the edges concerning these approvals, and only these approvals named."""
    edges = stated_rows()
    paytables = _paytables()
    approvals = list(Approval.objects.select_related("jurisdiction", "establishment"))
    computed = {}
    for paytable in paytables:
        computed[paytable.pk] = (paytable, _computations(paytable.game, paytable.bet, paytable))
    out = []
    for e in edges:
        if e.paytable_id is not None:
            sources = [computed[e.paytable_id]]
        else:
            sources = [computed[p.pk] for p in paytables if p.game_id == e.game_id and normal(p.bet) == normal(e.bet)]
            if not sources:
                sources = [(None, _computations(e.game, e.bet, None))]
        compared = tuple(
            ComputedEdge(c.decks, paytable.number if paytable is not None and e.paytable_id is None else None,
                         c.edge)
            for paytable, computations in sources for c in computations
            if c.edge is not None and e.decks in (None, c.decks))
        first = next((c for _, cs in sources for c in cs if c.edge is not None), None)
        concerned = [ApprovalRef(a.key, a.reference, a.jurisdiction.code,
                                 a.establishment.slug if a.establishment_id else None)
                     for a in _concerned(e, approvals, paytables)]
        if approval_keys is not None:
            concerned = [a for a in concerned if a.key in set(approval_keys)]
            if not concerned:
                continue
        out.append(StatedEdge(
            game=e.game.slug, game_name=e.game.name, bet=e.bet, paytable=e.paytable.number if e.paytable_id else None,
            strategy=e.strategy, stated=e.edge_percent, places=_places(e), decks=e.decks,
            citation=e.citation, source=e.source.key, approvals=tuple(concerned), computed=compared,
            rules=first.citation if first else "", assumptions=first.assumptions if first else (), id=e.pk,
        ))
    return out


__all__ = ["EdgeRow", "PaytableFigures", "Printing", "figures", "lines_of", "paytable_rows", "rows", "stated_edges",
           "stated_rows"]
