"""What a closing seals of a month beside its files (issue 41): the month's kept sums (``LedgerDay``) and variance
summaries (``VarianceDay``, ``VarianceCell``) per room and gaming day, as the database sums them (``totals``, kept
on the closing's record and covered by its seal: ``lines``, read by ``fees.months.selectors.seal_statement``), and
where the live rows no longer say the same (``compare``).

PostgreSQL refuses a closed month's rows to every role but the tables' owner (fees migration 0021); these find what
the owner changes behind the triggers' back. A room-day's line holds the totals the pages show and the SHA-256 of
its rows (every figure of every table-day; the variance days with their reconciliation's status, and the cells),
so a change that leaves the day's totals as they were is found too. Closing is PostgreSQL's, and so is this.

A closing seals the kept sums only when they are what the month's rows sum to (``unkept``, asked while the rows are
still there): whatever changed them before the month closed is found then, not sealed.
"""

import datetime
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, Sum

from cardroom.models import Establishment

from ..models import ClosedMonth, CollectionEntry, LedgerDay, Reconciliation, RoundOfPlay, VarianceCell, VarianceDay

# The figures of a room-day's line, in the statement's order (v2: never reordered; a new one is a new version).
LEDGER_FIGURES = ("tables", "rounds", "expected", "entries", "collected")
VARIANCE_FIGURES = ("tables", "variance", "hands", "short", "amount_short", "over", "amount_over", "expected",
                    "collected", "cells")
# The columns of a table-day's row that its room-day's digest covers (v2). Written out, not derived from the fee-kind
# table (fees.engine.kinds.LEDGER_COLUMNS): the v2 digest of a month already closed must not change when a kind is
# added; a new kind's column is covered from a new statement version on.
LEDGER_ROW = ("table_id", "rounds", "expected_total", "entries", "collected_total", "paid_by_player",
              "paid_by_player_dealer", "paid_by_pot", "kind_player", "kind_player_dealer", "kind_collection",
              "kind_jackpot", "kind_designated_table", "kind_time")
VARIANCE_ROW = ("d.table_id", "d.reconciliation_id", "r.status", "d.expected_total", "d.collected_total", "d.hands",
                "d.hands_short", "d.amount_short", "d.hands_over", "d.amount_over")
CELL_ROW = ("d.table_id", "c.hour", "coalesce(c.recorder_id::text, '-')", "c.hands_short", "c.amount_short")


def _digest(rows):
    return f"encode(sha256(convert_to({rows}, 'UTF8')), 'hex')"


def _where(alias, establishment_ids):
    return f"{alias}.gaming_day BETWEEN %s AND %s" + (f" AND {alias}.establishment_id = ANY(%s)"
                                                      if establishment_ids is not None else "")


def totals(first, last, establishment_ids=None):
    """``{"ledger": [...], "variance": [...]}``: per room (its slug) and gaming day from ``first`` to ``last`` (and
    per currency for the kept sums), the totals and the digest of the rows, every value a string as the database
    writes it ("12.50"), in room and day order. Of ``establishment_ids`` only, when given."""
    params = [first, last] + ([list(establishment_ids)] if establishment_ids is not None else [])
    newline = "E'\\n'"  # a row per line
    ledger_rows = (f"string_agg(concat_ws(' ', {', '.join('l.' + c for c in LEDGER_ROW)}), {newline} "
                   f"ORDER BY l.table_id)")
    both = "coalesce(days.rows, '') || E'\\n--\\n' || coalesce(cells.rows, '')"
    ledger = f"""
        SELECT e.slug, l.gaming_day, l.currency, count(*)::text, sum(l.rounds)::text, sum(l.expected_total)::text,
               sum(l.entries)::text, sum(l.collected_total)::text, {_digest(ledger_rows)}
          FROM {LedgerDay._meta.db_table} l JOIN {Establishment._meta.db_table} e ON e.id = l.establishment_id
         WHERE {_where("l", establishment_ids)}
         GROUP BY e.slug, l.gaming_day, l.currency ORDER BY 1, 2, 3"""
    variance = f"""
        WITH days AS (
            SELECT d.establishment_id, d.gaming_day, count(*) AS tables,
                   count(*) FILTER (WHERE r.status IS DISTINCT FROM 'balanced') AS variance, sum(d.hands) AS hands,
                   sum(d.hands_short) AS short, sum(d.amount_short) AS amount_short, sum(d.hands_over) AS over,
                   sum(d.amount_over) AS amount_over, sum(d.expected_total) AS expected,
                   sum(d.collected_total) AS collected,
                   string_agg(concat_ws(' ', {', '.join(VARIANCE_ROW)}), {newline} ORDER BY d.table_id) AS rows
              FROM {VarianceDay._meta.db_table} d LEFT JOIN {Reconciliation._meta.db_table} r
                   ON r.id = d.reconciliation_id
             WHERE {_where("d", establishment_ids)}
             GROUP BY 1, 2),
        cells AS (
            SELECT c.establishment_id, c.gaming_day, count(*) AS cells,
                   string_agg(concat_ws(' ', {', '.join(CELL_ROW)}), {newline}
                              ORDER BY d.table_id, c.hour, c.recorder_id NULLS FIRST, c.id) AS rows
              FROM {VarianceCell._meta.db_table} c LEFT JOIN {VarianceDay._meta.db_table} d ON d.id = c.day_id
             WHERE {_where("c", establishment_ids)}
             GROUP BY 1, 2)
        SELECT e.slug, coalesce(days.gaming_day, cells.gaming_day), coalesce(days.tables, 0)::text,
               coalesce(days.variance, 0)::text, coalesce(days.hands, 0)::text, coalesce(days.short, 0)::text,
               coalesce(days.amount_short, 0.00)::text, coalesce(days.over, 0)::text,
               coalesce(days.amount_over, 0.00)::text, coalesce(days.expected, 0.00)::text,
               coalesce(days.collected, 0.00)::text, coalesce(cells.cells, 0)::text,
               {_digest(both)}
          FROM days FULL JOIN cells USING (establishment_id, gaming_day)
          JOIN {Establishment._meta.db_table} e ON e.id = coalesce(days.establishment_id, cells.establishment_id)
         ORDER BY 1, 2"""
    found = {}
    with connection.cursor() as cursor:
        cursor.execute(ledger, params)
        found["ledger"] = [{"establishment": slug, "day": day.isoformat(), "currency": currency,
                            **dict(zip(LEDGER_FIGURES, figures)), "rows": rows}
                           for slug, day, currency, *figures, rows in cursor.fetchall()]
        cursor.execute(variance, params * 2)
        found["variance"] = [{"establishment": slug, "day": day.isoformat(), **dict(zip(VARIANCE_FIGURES, figures)),
                              "rows": rows}
                             for slug, day, *figures, rows in cursor.fetchall()]
    return found


def lines(sealed):
    """The seal statement's lines of a closing's ``totals`` (v2), in the order they were found."""
    out = [f"ledger {row['establishment']} {row['day']} {row['currency']} "
           + " ".join(f"{name} {row[name]}" for name in LEDGER_FIGURES) + f" rows {row['rows']}"
           for row in sealed.get("ledger", ())]
    out += [f"variance {row['establishment']} {row['day']} "
            + " ".join(f"{name} {row[name]}" for name in VARIANCE_FIGURES) + f" rows {row['rows']}"
            for row in sealed.get("variance", ())]
    return out


# -- the live rows against what was sealed ----------------------------------------------------------------------

@dataclass(frozen=True)
class Disagreement:
    """One way a closed month's live rows differ from its closing's record: a room-day's figure (``figure``; "rows"
    when only the rows behind equal totals differ), or the record itself (``kind`` "record", said in ``sealed``)."""

    month: datetime.date
    kind: str  # "ledger" (the kept sums), "variance" (the summaries) or "record"
    establishment: str = ""
    day: datetime.date | None = None
    currency: str = ""
    figure: str = ""
    sealed: str | None = None
    now: str | None = None

    def __str__(self):
        if self.kind == "record":
            return f"{self.month:%Y-%m}: {self.sealed}"
        where = " ".join(filter(None, [self.establishment, self.day.isoformat(), self.currency]))
        what = "kept sums" if self.kind == "ledger" else "variance summaries"
        if self.figure == "rows":
            return f"{where}: its tables' {what} differ from those sealed (the day's totals agree)"
        if self.now is None:
            return f"{where} {what}: sealed, none now"
        if self.sealed is None:
            return f"{where} {what}: none sealed, some now ({self.figure} {self.now})"
        if self.kind == "ledger":
            return f"{where} {self.figure}: kept {self.now}, sealed {self.sealed}"
        return f"{where} variance {self.figure}: now {self.now}, sealed {self.sealed}"


def _keyed(rows):
    return {(row["establishment"], row["day"], row.get("currency", "")): row for row in rows} if rows else {}


def compare(month, sealed, now):
    """The Disagreements of a month's ``sealed`` totals and its totals ``now`` (both as ``totals`` gives them)."""
    found = []
    for kind, figures in (("ledger", LEDGER_FIGURES), ("variance", VARIANCE_FIGURES)):
        was, is_ = _keyed(sealed.get(kind)), _keyed(now.get(kind))
        for key in sorted(set(was) | set(is_)):
            slug, day, currency = key
            where = {"month": month, "kind": kind, "establishment": slug, "day": datetime.date.fromisoformat(day),
                     "currency": currency}
            a, b = was.get(key), is_.get(key)
            if a is None or b is None:
                found.append(Disagreement(**where, figure=figures[0], sealed=a and a[figures[0]],
                                          now=b and b[figures[0]]))
                continue
            differing = [Disagreement(**where, figure=name, sealed=a[name], now=b[name])
                         for name in figures if a[name] != b[name]]
            if not differing and a["rows"] != b["rows"]:
                differing = [Disagreement(**where, figure="rows", sealed=a["rows"], now=b["rows"])]
            found += differing
    return found


def month_end(first):
    return (first.replace(day=28) + datetime.timedelta(days=4)).replace(day=1) - datetime.timedelta(days=1)


def closings(day_from=None, day_to=None):
    """The closed months (not reopened, their partitions archived) from ``day_from``'s month to ``day_to``'s, oldest
    first."""
    months = ClosedMonth.objects.filter(reopened_at__isnull=True, archived=True).order_by("month")
    if day_from is not None:
        months = months.filter(month__gte=day_from.replace(day=1))
    if day_to is not None:
        months = months.filter(month__lte=day_to)
    return list(months)


# -- what a closing seals: the kept sums as the rows give them --------------------------------------------------

KEPT = ("rounds", "expected_total", "entries", "collected_total")
_NOTHING = dict.fromkeys(KEPT, 0)


def unkept(first, last):
    """``[(table id, gaming day, currency, kept figures, the rows' figures)]`` where the kept sums of the days from
    ``first`` to ``last`` differ from their rounds and the entries that count (``CollectionEntry.objects
    .effective``), figure by figure of ``KEPT``: what a closing refuses to seal, while the rows are still there to
    say so. Grouped by the database, a row per table-day."""
    key = ("table_id", "gaming_day", "currency")
    rows = {}
    for *at, n, total in (RoundOfPlay.objects.filter(gaming_day__range=(first, last)).order_by().values_list(*key)
                          .annotate(n=Count("id"), total=Sum("expected_total")).values_list(*key, "n", "total")):
        rows.setdefault(tuple(at), dict(_NOTHING)).update(rounds=n, expected_total=total)
    for *at, n, total in (CollectionEntry.objects.effective().filter(gaming_day__range=(first, last)).order_by()
                          .values_list(*key).annotate(n=Count("id"), total=Sum("amount"))
                          .values_list(*key, "n", "total")):
        rows.setdefault(tuple(at), dict(_NOTHING)).update(entries=n, collected_total=total)
    kept = {tuple(row[:3]): dict(zip(KEPT, row[3:]))
            for row in LedgerDay.objects.filter(gaming_day__range=(first, last)).values_list(*key, *KEPT)}
    return [(*at, kept.get(at, _NOTHING), rows.get(at, _NOTHING)) for at in sorted(set(kept) | set(rows))
            if kept.get(at, _NOTHING) != rows.get(at, _NOTHING)]
