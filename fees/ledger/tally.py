"""The arithmetic of the ledger's kept sums (``fees.models.LedgerDay``, written by ``fees.ledger.kept_sums``). Plain
Python: no Django.

A table-day's figures (one row per establishment, table, gaming day and currency): the rounds recorded and the fee
they expect; the entries that count (those no entry corrects, as ``EntryQuerySet.effective`` has it) and what they
collected, in all, by payer and by fee kind. A ``Tally`` gathers what a write adds to them: a round adds itself; an
entry adds itself; a correction adds its amount and takes away the amount of the entry it corrects (which stops
counting), under the same payer and fee kind (a correction keeps them), the number of entries unchanged.
"""

from decimal import Decimal

from fees.engine import kinds

PAYERS = ("player", "player_dealer", "pot")  # fees.models.FeeTier.Payer's values
FEE_KINDS = kinds.NAMES
COUNTS = ("rounds", "entries")
BY_PAYER = tuple(f"paid_by_{payer}" for payer in PAYERS)
BY_KIND = kinds.LEDGER_COLUMNS
AMOUNTS = ("expected_total", "collected_total", *BY_PAYER, *BY_KIND)
FIGURES = COUNTS + AMOUNTS
ZERO = Decimal("0.00")
CENT = Decimal("0.01")


def zero():
    """A table-day's figures before anything is written."""
    return {**dict.fromkeys(COUNTS, 0), **dict.fromkeys(AMOUNTS, ZERO)}


def cents(value):
    """A sum read from the database as Decimal cents (SQLite may answer a float for a sum of decimals)."""
    if value is None:
        return ZERO
    if isinstance(value, float):
        return Decimal(repr(round(value, 2))).quantize(CENT)
    return Decimal(value).quantize(CENT)


class Tally:
    """What some writes add to the kept sums, per key ``(establishment id, table id, gaming day, currency)``."""

    def __init__(self):
        self.deltas = {}

    def _figures(self, key):
        figures = self.deltas.get(key)
        if figures is None:
            figures = self.deltas[key] = zero()
        return figures

    def round(self, key, expected, rounds=1):
        figures = self._figures(key)
        figures["rounds"] += rounds
        figures["expected_total"] += expected

    def collected(self, key, payer, fee_kind, amount, entries=1):
        """``amount`` collected under ``payer`` and ``fee_kind`` (less for a correction that lowers it) and
        ``entries`` more entries counting (0 for a correction: it replaces the entry it corrects)."""
        figures = self._figures(key)
        figures["entries"] += entries
        figures["collected_total"] += amount
        figures[f"paid_by_{payer}"] += amount
        figures[f"kind_{fee_kind}"] += amount  # the kind's column (kinds.Kind.column)

    def correction(self, key, payer, fee_kind, amount, corrected_amount):
        self.collected(key, payer, fee_kind, amount - corrected_amount, entries=0)

    def items(self):
        """``(key, figures)`` in key order (two writers touching the same table-days lock them in the same order),
        leaving out keys whose figures add nothing."""
        blank = zero()
        return [(key, figures) for key, figures in sorted(self.deltas.items(), key=lambda item: _order(item[0]))
                if figures != blank]

    def __bool__(self):
        return bool(self.items())


def _order(key):
    establishment_id, table_id, day, currency = key
    return (table_id, day, currency, establishment_id)


def differences(kept, rebuilt):
    """``[(key, figure, kept, rebuilt)]`` where two ``{key: figures}`` disagree, in key order; a key missing from one
    side counts as zero there."""
    found = []
    for key in sorted(set(kept) | set(rebuilt), key=_order):
        mine, theirs = kept.get(key) or zero(), rebuilt.get(key) or zero()
        found += [(key, name, mine[name], theirs[name]) for name in FIGURES if mine[name] != theirs[name]]
    return found
