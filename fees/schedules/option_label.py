"""What tells one schedule option from another, in a few words, for every option picker. Pure Python.

The 49 options of a schedule such as GEGA-002888 share their table limits; what differs is the fee basis and the
fees. A label gives, for each fee kind, what it is measured on and its first and last tier
("Option 1 · table action: $1-$10 $1.00 … $201+ $5.00"). A flat fee of nothing says nothing and is left out.
"""

from decimal import Decimal

from cardroom.money import format_money
from fees.engine import kinds

# Short names of what a fee is measured on (fees.models.FeeTier.Measure), for a one-line label.
MEASURES = {
    "player_wager": "player's wager", "base_wager": "each base wager", "total_table_action": "table action",
    "players": "players", "elapsed_time": "each interval", "flat": "flat", "wager_unspecified": "wager",
    "unstated": "unstated basis",
}


def money(amount: Decimal, currency: str = "USD") -> str:
    return format_money(amount, currency)


def bounds_text(lower, upper, measure: str, currency: str = "USD") -> str:
    """A tier's typed bounds in the schedule's own style: "$1-$10", "$201+", "up to $5", "2-5 players"."""
    if measure == "players":
        def show(v):
            return str(v.normalize())
        suffix = " players"
    else:
        def show(v):
            return format_money(v, currency, whole=True)  # as schedules print bounds: $10, $12.50
        suffix = ""
    if lower is None and upper is None:
        return "any"
    if upper is None:
        return f"{show(lower)}+{suffix}"
    if lower is None:
        return f"up to {show(upper)}{suffix}"
    return f"{show(lower)}-{show(upper)}{suffix}"


def option_label(number: int, tiers, currency: str = "USD") -> str:
    """One line for a picker. ``tiers``: objects with ``order``, ``fee_kind``, ``measure``, ``lower``, ``upper``
    and ``fee`` (FeeTier rows or ``fees.engine.Tier``), in any order."""
    groups: dict[str, list] = {}
    for tier in sorted(tiers, key=lambda t: t.order):
        groups.setdefault(tier.fee_kind, []).append(tier)
    parts = []
    for kind, rows in groups.items():
        measure = rows[0].measure
        banded = any(t.lower is not None or t.upper is not None for t in rows)
        if not banded:
            if all(t.fee == 0 for t in rows):
                continue  # "$0": no fee of this kind, nothing that tells options apart
            fees = " or ".join(money(t.fee, currency) for t in rows)
            parts.append(f"{kinds.WORDS.get(kind, kind)} {fees}")
            continue
        cells = [f"{bounds_text(t.lower, t.upper, t.measure, currency)} {money(t.fee, currency)}"
                 for t in (rows[0], rows[-1])] if len(rows) > 1 else [
            f"{bounds_text(rows[0].lower, rows[0].upper, measure, currency)} {money(rows[0].fee, currency)}"]
        joint = " … " if len(rows) > 2 else " "
        parts.append(f"{MEASURES.get(measure, measure)}: {joint.join(cells)}")
    return f"Option {number} · " + (" · ".join(parts) if parts else "no fees")
