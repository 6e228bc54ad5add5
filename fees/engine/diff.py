"""What changed between two versions of a schedule, option by option and tier by tier. Plain Python.

Options are matched by number. Within an option, tiers are matched by what they are (fee kind, payer,
measure and bounds), in their printed order, with ``difflib``: a fee raised in one band is that tier changed;
a band added or taken away is a tier added or removed; a band whose bounds moved is paired with the band it
replaced and shown changed. A tier's position (``order``) alone is not a change: inserting a row renumbers the
rows after it.

The input is plain data (``option_record`` builds it from any objects with the schedule's attribute names:
model instances, the engine's options, test doubles), so the pages and the API can share one answer.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from decimal import Decimal

from . import kinds

OPTION_FIELDS = (
    "label", "basis", "min_wager_from", "min_wager_to", "max_wager_from", "max_wager_to", "table_limit_low",
    "table_limit_high", "betting_structure", "blind_small", "blind_big", "smallest_game_low", "smallest_game_high",
    "largest_game_low", "largest_game_high", "interval_minutes", "citation", "notes",
)
TIER_FIELDS = ("order", "fee_kind", "payer", "measure", "lower", "upper", "fee", "taken", "printed_bounds",
               "printed_fee", "note")
# What a tier is (for matching), and what is compared once two tiers are matched.
TIER_IDENTITY = ("fee_kind", "payer", "measure", "lower", "upper")
TIER_COMPARED = tuple(name for name in TIER_FIELDS if name != "order")

LABELS = {
    "label": "label", "basis": "basis", "min_wager_from": "lowest table minimum",
    "min_wager_to": "highest table minimum", "max_wager_from": "lowest table maximum",
    "max_wager_to": "highest table maximum", "table_limit_low": "table limit (low)",
    "table_limit_high": "table limit (high)", "betting_structure": "betting structure", "blind_small": "small blind",
    "blind_big": "big blind", "smallest_game_low": "smallest game (low)", "smallest_game_high": "smallest game (high)",
    "largest_game_low": "largest game (low)", "largest_game_high": "largest game (high)",
    "interval_minutes": "interval (minutes)", "citation": "citation", "notes": "notes", "order": "row",
    "fee_kind": "fee", "payer": "paid by", "measure": "measured on", "lower": "from", "upper": "to",
    "fee": "amount", "taken": "taken", "printed_bounds": "bounds as printed", "printed_fee": "fee as printed",
    "note": "note",
}

SAME = "same"
CHANGED = "changed"
ADDED = "added"
REMOVED = "removed"


def _value(obj, name):
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def tier_record(tier) -> dict:
    return {name: _value(tier, name) for name in TIER_FIELDS}


def option_record(option, tiers) -> dict:
    """One option as plain data: its fields, its number and its tiers (in printed order)."""
    record = {name: _value(option, name) for name in OPTION_FIELDS}
    record["number"] = _value(option, "number")
    record["tiers"] = sorted((tier_record(t) for t in tiers), key=lambda t: (t["order"] is None, t["order"] or 0))
    return record


def shown(value) -> str:
    """A value as a person reads it: amounts to the cent, blanks as a dash."""
    if value is None or value == "":
        return "—"
    if isinstance(value, Decimal):
        return f"{value:,.2f}"
    return str(value)


@dataclass(frozen=True)
class TierChange:
    status: str  # same, changed, added or removed
    old: dict | None
    new: dict | None
    fields: tuple[str, ...] = ()  # the compared fields that differ (every one for an added or removed tier)

    def differs(self, name) -> bool:
        return name in self.fields

    @property
    def labels(self) -> tuple[str, ...]:
        """The differing fields as a person names them ("amount", "to", ...)."""
        return tuple(LABELS.get(name, name) for name in self.fields) if self.status == CHANGED else ()


@dataclass(frozen=True)
class OptionChange:
    number: int
    status: str
    old: dict | None
    new: dict | None
    fields: tuple[tuple[str, object, object], ...] = ()  # (field, old value, new value) of the option itself
    tiers: tuple[TierChange, ...] = ()

    @property
    def label(self) -> str:
        return (self.new or self.old or {}).get("label") or ""

    @property
    def changed_fields(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in self.fields)

    @property
    def described_fields(self) -> tuple[tuple[str, str, str], ...]:
        """(what, before, after) of each change to the option itself, as a person reads them."""
        return tuple((LABELS.get(name, name), shown(old), shown(new)) for name, old, new in self.fields)

    def counts(self) -> dict:
        out = {CHANGED: 0, ADDED: 0, REMOVED: 0}
        for tier in self.tiers:
            if tier.status in out:
                out[tier.status] += 1
        return out

    def lines(self) -> list[str]:
        """Each change in one sentence, for a summary."""
        head = f"Option {self.number}"
        if self.status == ADDED:
            return [f"{head} added ({len(self.tiers)} tier{'s' if len(self.tiers) != 1 else ''})."]
        if self.status == REMOVED:
            return [f"{head} removed."]
        out = [f"{head}: {LABELS.get(name, name)} {shown(old)} → {shown(new)}." for name, old, new in self.fields]
        for tier in self.tiers:
            row = tier.new or tier.old
            where = f"{head}, {_kind(row)} {_bounds(row)}"
            if tier.status == ADDED:
                out.append(f"{where}: added, {shown(row['fee'])}.")
            elif tier.status == REMOVED:
                out.append(f"{where}: removed (was {shown(row['fee'])}).")
            elif tier.status == CHANGED:
                parts = [f"{LABELS.get(name, name)} {shown(tier.old[name])} → {shown(tier.new[name])}"
                         for name in tier.fields]
                where = f"{head}, {_kind(tier.old)} {_bounds(tier.old)}"
                out.append(f"{where}: {'; '.join(parts)}.")
        return out


@dataclass(frozen=True)
class VersionDiff:
    options: tuple[OptionChange, ...]
    unchanged: tuple[int, ...] = field(default=())

    @property
    def changed(self) -> tuple[OptionChange, ...]:
        return tuple(o for o in self.options if o.status != SAME)

    @property
    def is_empty(self) -> bool:
        return not self.changed

    def counts(self) -> dict:
        out = {"options_changed": 0, "options_added": 0, "options_removed": 0, "tiers_changed": 0,
               "tiers_added": 0, "tiers_removed": 0}
        for option in self.options:
            if option.status != SAME:
                out[f"options_{option.status}"] += 1
            if option.status == CHANGED:
                counts = option.counts()
                for status in (CHANGED, ADDED, REMOVED):
                    out[f"tiers_{status}"] += counts[status]
        return out

    def lines(self) -> list[str]:
        return [line for option in self.changed for line in option.lines()]




def _kind(row) -> str:
    return kinds.WORDS.get(row.get("fee_kind"), str(row.get("fee_kind") or "fee"))


def _bounds(row) -> str:
    if row.get("printed_bounds"):
        return row["printed_bounds"]
    lower, upper = row.get("lower"), row.get("upper")
    if lower is None and upper is None:
        return "(any)"
    if upper is None:
        return f"{shown(lower)}+"
    if lower is None:
        return f"up to {shown(upper)}"
    return f"{shown(lower)}–{shown(upper)}"


def _identity(row):
    return tuple(row.get(name) for name in TIER_IDENTITY)


def _compare(old, new) -> TierChange:
    differing = tuple(name for name in TIER_COMPARED if old.get(name) != new.get(name))
    return TierChange(CHANGED if differing else SAME, old, new, differing)


def diff_tiers(old_tiers, new_tiers) -> tuple[TierChange, ...]:
    """Tier by tier, in the new version's order (removed tiers where they stood)."""
    old_tiers, new_tiers = list(old_tiers), list(new_tiers)
    matcher = difflib.SequenceMatcher(a=[_identity(t) for t in old_tiers], b=[_identity(t) for t in new_tiers],
                                      autojunk=False)
    out = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            out.extend(_compare(o, n) for o, n in zip(old_tiers[a1:a2], new_tiers[b1:b2]))
            continue
        olds, news = old_tiers[a1:a2], new_tiers[b1:b2]
        paired = min(len(olds), len(news)) if op == "replace" else 0
        out.extend(_compare(o, n) for o, n in zip(olds[:paired], news[:paired]))
        out.extend(TierChange(REMOVED, o, None, TIER_COMPARED) for o in olds[paired:])
        out.extend(TierChange(ADDED, None, n, TIER_COMPARED) for n in news[paired:])
    return tuple(out)


def diff_option(old, new) -> OptionChange:
    if old is None:
        return OptionChange(new["number"], ADDED, None, new, (),
                            tuple(TierChange(ADDED, None, t, TIER_COMPARED) for t in new["tiers"]))
    if new is None:
        return OptionChange(old["number"], REMOVED, old, None, (),
                            tuple(TierChange(REMOVED, t, None, TIER_COMPARED) for t in old["tiers"]))
    fields = tuple((name, old.get(name), new.get(name)) for name in OPTION_FIELDS if old.get(name) != new.get(name))
    tiers = diff_tiers(old["tiers"], new["tiers"])
    changed = fields or any(t.status != SAME for t in tiers)
    return OptionChange(new["number"], CHANGED if changed else SAME, old, new, fields, tiers)


def diff_versions(old_options, new_options) -> VersionDiff:
    """Compare two versions given as ``option_record``s (either side may be empty: everything added/removed)."""
    old = {o["number"]: o for o in old_options}
    new = {o["number"]: o for o in new_options}
    options = tuple(diff_option(old.get(n), new.get(n)) for n in sorted(set(old) | set(new)))
    return VersionDiff(options, tuple(o.number for o in options if o.status == SAME))
