"""Bands: the rows of one fee kind read as bands of an amount (a wager, the action, players), in reading order,
and where two neighbours overlap or leave a gap. Pure Python; the lint and the tier grid share it."""

from decimal import Decimal

from cardroom.money import CENT

BANDED = frozenset({"base_wager", "player_wager", "total_table_action", "players"})
UNCLEAR = frozenset({"unstated", "wager_unspecified"})  # a measure the source does not state


def reading_order(tiers):
    """Tiers in ascending order of their bounds, or None when they are in neither order."""
    def key(t):
        return Decimal("Infinity") if t.upper is None else t.upper
    uppers = [key(t) for t in tiers]
    if all(a < b for a, b in zip(uppers, uppers[1:])):
        return list(tiers)
    if all(a > b for a, b in zip(uppers, uppers[1:])):
        return list(reversed(tiers))  # printed from the top band down (poker tables)
    return None


def is_banded(tiers):
    """Whether the rows of one fee kind are bands (bounds on a wager, the action or players) to check for order,
    overlaps and gaps."""
    measure = tiers[0].measure
    return (measure in BANDED or measure in UNCLEAR) and any(t.lower is not None or t.upper is not None
                                                               for t in tiers)


def band_edges(tiers):
    """The bands of one fee kind in reading order and where two neighbours overlap or leave a gap, as
    ``(ordered, [("overlap" | "gap", before, after, step), ...])``; ``(None, [])`` when they are in neither order.
    ``step`` is the smallest amount between bands (a dollar, or a cent when a bound has cents). The schedule lint
    (``compliance.rules.lint``) and the tier grid (``fees.forms``) both ask here, so a grid refuses what the lint calls wrong."""
    ordered = reading_order(tiers)
    if ordered is None:
        return None, []
    step = Decimal(1) if all(t.upper is None or t.upper == t.upper.to_integral_value() for t in ordered) else CENT
    edges = []
    for before, after in zip(ordered, ordered[1:]):
        if before.upper is None:
            continue  # an open top before another band: out of order
        if after.lower is None or after.lower <= before.upper:
            edges.append(("overlap", before, after, step))
        elif after.lower > before.upper + step:
            edges.append(("gap", before, after, step))
    return ordered, edges
