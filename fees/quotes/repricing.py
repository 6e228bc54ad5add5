"""Recorded rounds priced again under another schedule version: the arithmetic of ``fees.quotes.impact``. Plain Python.

The input is the rounds already grouped (``Played``: rounds alike at one table and gaming day, priced under the
same version and option, with the same facts), the engine view of the version asked about (``draft``, usually a
draft) and the engine views of the versions the rounds were priced under. For each group:

- **expected** is what was stored when the rounds were recorded (``RoundOfPlay.expected_total``): what the version
  in force then expected;
- **repriced** is what ``draft`` expects for the same facts and option number; an option the draft lacks, or facts
  it cannot price (an amount its tiers no longer cover), is reported as a problem and left out of the difference;
- **difference** is repriced minus expected, over the rounds the draft can price.

Each distinct (option, facts) is priced once, however many rounds share it.

**Tier edges.** Every tier whose bounds, fee or what it measures differ between a version the rounds were priced
under and ``draft`` (``fees.engine.diff``: tiers are matched by what they are, not by position) is an edge. A fee line
of a round is *in* an edge when the tier that priced it, under either version, is one of the edge's two tiers; an
edge counts the rounds with a line in it. The line's difference (new fee minus old) is put down to one edge: the
draft tier's edge where that tier changed (a band that grew took the line in), else the old tier's. What no edge
accounts for (the option's basis changed, say) is ``unattributed``.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable, Hashable, Iterable

from ..engine import QuoteError, Schedule, diff

ZERO = Decimal("0.00")
# A tier change that moves money; one only to the text printed, or a note, does not.
MOVING_FIELDS = frozenset({"fee_kind", "payer", "measure", "lower", "upper", "fee", "taken"})


@dataclass(frozen=True)
class Played:
    """Rounds recorded alike: one table and gaming day, one version and option priced under, the same facts."""

    table: Hashable
    day: datetime.date
    version: int
    option: int
    facts: dict
    facts_key: str  # the facts as canonical text: equal facts, equal key
    rounds: int
    expected: Decimal  # what was stored for them, all together


@dataclass
class Figures:
    rounds: int = 0
    expected: Decimal = ZERO
    repriced: Decimal = ZERO  # over the rounds the version can price
    difference: Decimal = ZERO  # repriced minus expected, over those rounds
    unpriced: int = 0  # rounds it cannot price (see Impact.problems)

    def add(self, other: Figures) -> None:
        self.rounds += other.rounds
        self.expected += other.expected
        self.repriced += other.repriced
        self.difference += other.difference
        self.unpriced += other.unpriced


@dataclass
class Row:
    table: Hashable
    day: datetime.date
    figures: Figures = field(default_factory=Figures)
    versions: set = field(default_factory=set)  # the versions its rounds were priced under


@dataclass
class Problem:
    option: int
    message: str
    rounds: int = 0


@dataclass(eq=False)  # each edge is itself: counted by identity
class Edge:
    """One tier changed between the version ``priced_under`` and the draft, and the rounds that fell in it."""

    priced_under: int
    option: int
    status: str  # changed, added or removed (fees.engine.diff)
    before: dict | None  # the tier as priced under (fees.engine.diff.tier_record); None when added
    after: dict | None  # the draft's tier; None when removed
    fields: tuple[str, ...]  # what differs, as a person names it
    rounds: int = 0
    difference: Decimal = ZERO

    @property
    def fee_kind(self) -> str:
        return (self.after or self.before)["fee_kind"]


@dataclass
class Impact:
    currency: str
    rows: list[Row]
    totals: Figures
    problems: list[Problem]
    edges: list[Edge]  # those that move the most first
    unattributed: Decimal  # the part of the difference no tier edge accounts for
    distinct: int  # distinct (option, facts) priced


def _moving(change: diff.TierChange) -> bool:
    return change.status in (diff.ADDED, diff.REMOVED) or (
        change.status == diff.CHANGED and bool(MOVING_FIELDS & set(change.fields)))


def _edges(base: Schedule, draft: Schedule, number: int, base_version: int):
    """The moving tier changes of option ``number``, and where to find each by (side, tier order)."""
    try:
        old = base.option(number)
        new = draft.option(number)
    except QuoteError:
        return [], {}
    change = diff.diff_option(diff.option_record(old, old.tiers), diff.option_record(new, new.tiers))
    edges, index = [], {}
    for tier in change.tiers:
        if not _moving(tier):
            continue
        edge = Edge(priced_under=base_version, option=number, status=tier.status, before=tier.old, after=tier.new,
                    fields=tuple(diff.LABELS.get(name, name) for name in tier.fields if name in MOVING_FIELDS)
                    if tier.status == diff.CHANGED else ())
        edges.append(edge)
        if tier.old is not None:
            index[("old", tier.old["order"])] = edge
        if tier.new is not None:
            index[("new", tier.new["order"])] = edge
    return edges, index


def _paired(old_lines, new_lines):
    """The fee lines of one round under two versions, paired by who pays which fee (the n-th such line)."""
    def keyed(lines):
        seen, out = defaultdict(int), {}
        for line in lines:
            key = (line.payer, line.player, line.fee_kind)
            out[key + (seen[key],)] = line
            seen[key] += 1
        return out

    old, new = keyed(old_lines), keyed(new_lines)
    for key in list(old) + [k for k in new if k not in old]:
        yield old.get(key), new.get(key)


def _attribute(old_quote, new_quote, index):
    """Which edges a round's lines fall in, and the difference of its lines put down to each."""
    touched, amounts = set(), defaultdict(Decimal)
    for old, new in _paired(old_quote.lines, new_quote.lines):
        was = index.get(("old", old.tier.order)) if old is not None and old.tier is not None else None
        now = index.get(("new", new.tier.order)) if new is not None and new.tier is not None else None
        touched.update(edge for edge in (was, now) if edge is not None)
        moved = (new.fee if new is not None else ZERO) - (old.fee if old is not None else ZERO)
        if moved and (now or was):
            amounts[now or was] += moved
    return touched, dict(amounts)


def reprice(played: Iterable[Played], draft: Schedule, priced_under: dict[int, Schedule],
            price: Callable) -> Impact:
    """Price ``played`` again under ``draft``; ``priced_under`` maps version numbers to their engine views (every
    version a group names, and any other to list tier edges against); ``price(schedule, option, facts)`` quotes."""
    draft_quotes, base_quotes, attributed = {}, {}, {}
    edges_of, all_edges = {}, []
    for number, base in sorted(priced_under.items()):
        for option in base.options:
            edges, index = _edges(base, draft, option.number, number)
            edges_of[(number, option.number)] = index
            all_edges.extend(edges)

    def quoted(cache, schedule, group, key):
        if key not in cache:
            try:
                cache[key] = price(schedule, group.option, group.facts)
            except QuoteError as error:
                cache[key] = error
        return cache[key]

    rows, problems = {}, {}
    unattributed = ZERO
    for group in played:
        row = rows.get((group.table, group.day))
        if row is None:
            row = rows[(group.table, group.day)] = Row(group.table, group.day)
        row.versions.add(group.version)
        figures = Figures(rounds=group.rounds, expected=group.expected)
        new = quoted(draft_quotes, draft, group, (group.option, group.facts_key))
        if isinstance(new, QuoteError):
            figures.unpriced = group.rounds
            problem = problems.setdefault((group.option, str(new)), Problem(group.option, str(new)))
            problem.rounds += group.rounds
            row.figures.add(figures)
            continue
        figures.repriced = new.total * group.rounds
        figures.difference = figures.repriced - group.expected
        row.figures.add(figures)
        key = (group.version, group.option, group.facts_key)
        if key not in attributed:
            base = priced_under.get(group.version)
            old = quoted(base_quotes, base, group, key) if base is not None else None
            attributed[key] = (set(), {}) if old is None or isinstance(old, QuoteError) else _attribute(
                old, new, edges_of.get((group.version, group.option), {}))
        touched, amounts = attributed[key]
        for edge in touched:
            edge.rounds += group.rounds
        for edge, amount in amounts.items():
            edge.difference += amount * group.rounds
        # The rounds of a group are alike, so each was expected the same; what the edges leave is unattributed.
        unattributed += figures.difference - sum(amounts.values(), ZERO) * group.rounds
    totals = Figures()
    for row in rows.values():
        totals.add(row.figures)
    edges = sorted(all_edges, key=lambda e: (-abs(e.difference), -e.rounds, e.priced_under, e.option,
                                             (e.after or e.before)["order"]))
    return Impact(currency=draft.currency, rows=list(rows.values()), totals=totals,
                  problems=sorted(problems.values(), key=lambda p: (-p.rounds, p.option, p.message)),
                  edges=edges, unattributed=unattributed, distinct=len(draft_quotes))
