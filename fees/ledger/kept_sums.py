"""The ledger's kept sums (``fees.models.LedgerDay``): added to as rounds and entries are written, in their
transaction (``add``), rebuilt from the rows to check them (``rebuilt``, ``kept``, ``differences``) and rewritten
from the rows when they differ (``repair``, logged; ``rewrite``, not). The arithmetic is ``fees.ledger.tally``'s.

``add`` is one ``INSERT ... ON CONFLICT (table, gaming day, currency) DO UPDATE SET figure = figure + excluded
.figure`` for every table-day a write touched (PostgreSQL and SQLite both): a concurrent first writer of a table-day
makes the other's insert an update, never an error, and each row is locked until its transaction ends, so two
writers add one after the other (in table-day order: they never wait on each other both ways). A batch of entries on
PostgreSQL (``storage``) adds with ``add_collected``: the same upsert, its figures summed by the database from the
rows the batch inserted.
"""

import datetime

from django.db import connection, transaction
from django.db.models import Count, Sum

from cardroom.audit import log_action
from cardroom.models import Establishment

from ..models import ClosedMonth, CollectionEntry, LedgerDay, RoundOfPlay
from . import tally
from .tally import AMOUNTS, FIGURES, Tally

KEY = ("establishment_id", "table_id", "gaming_day", "currency")


ADD_CHUNK = 500  # table-days per statement: 8,000 parameters, well inside SQLite's and PostgreSQL's limits


def add(deltas):
    """Add a ``Tally``'s figures to the kept sums, in the caller's transaction (the rows' own)."""
    items = deltas.items()
    table = LedgerDay._meta.db_table
    columns = KEY + FIGURES
    row = f"({', '.join(['%s'] * len(columns))})"
    upsert = (f"ON CONFLICT (table_id, gaming_day, currency) DO UPDATE SET "
              + ", ".join(f"{name} = {table}.{name} + excluded.{name}" for name in FIGURES))
    with connection.cursor() as cursor:
        for start in range(0, len(items), ADD_CHUNK):
            part, params = items[start:start + ADD_CHUNK], []
            for (establishment_id, table_id, day, currency), figures in part:
                params += [establishment_id, table_id, day, currency, *(figures[name] for name in FIGURES)]
            cursor.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([row] * len(part))} "
                           + upsert, params)


def add_collected(relation):
    """Add to the kept sums what the rows of ``relation`` (a table of the caller's transaction, PostgreSQL) add:
    rows of (establishment_id, table_id, gaming_day, currency, payer, fee_kind, entries, amount), what
    ``Tally.collected`` takes, summed here per table-day and upserted in one statement (the batch's figures never
    pass through Python). In ``Tally.items``' order, so that writers lock their table-days in one order; a
    table-day whose figures add nothing is left out, as ``Tally.items`` leaves it."""
    table = LedgerDay._meta.db_table
    figures = {"rounds": "0", "expected_total": "0", "entries": "sum(entries)", "collected_total": "sum(amount)",
               **{f"paid_by_{payer}": f"coalesce(sum(amount) FILTER (WHERE payer = '{payer}'), 0)"
                  for payer in tally.PAYERS},
               **{f"kind_{kind}": f"coalesce(sum(amount) FILTER (WHERE fee_kind = '{kind}'), 0)"
                  for kind in tally.FEE_KINDS}}
    figures = {name: figures[name] for name in FIGURES}
    upsert = (f"ON CONFLICT (table_id, gaming_day, currency) DO UPDATE SET "
              + ", ".join(f"{name} = {table}.{name} + excluded.{name}" for name in FIGURES))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(KEY + FIGURES)}) SELECT * FROM ("
            f"SELECT {', '.join(KEY)}, {', '.join(f'{sql} AS {name}' for name, sql in figures.items())} "
            f"FROM {relation} GROUP BY {', '.join(KEY)}) sums "
            f"WHERE {' OR '.join(f'{name} <> 0' for name in FIGURES)} "
            f"ORDER BY table_id, gaming_day, currency, establishment_id " + upsert)


# -- what the rows sum to ---------------------------------------------------------------------------------------


def _period(queryset, establishment, day_from, day_to):
    if establishment is not None:
        queryset = queryset.filter(establishment=establishment)
    if day_from is not None:
        queryset = queryset.filter(gaming_day__gte=day_from)
    if day_to is not None:
        queryset = queryset.filter(gaming_day__lte=day_to)
    return queryset


def _day(value):
    return value if isinstance(value, datetime.date) else datetime.date.fromisoformat(value)


def rebuilt_from(rounds, effective_entries):
    """``{key: figures}`` summed from ``rounds`` (a RoundOfPlay queryset) and ``effective_entries`` (the entries that
    count: ``CollectionEntry.objects.effective()``, or its filter ``corrections__isnull=True`` on a migration's
    historical model). Grouped by the database, a row per table-day (and payer and fee kind)."""
    sums = Tally()
    for *key, n, expected in (rounds.order_by().values_list(*KEY).annotate(n=Count("id"), total=Sum("expected_total"))
                              .values_list(*KEY, "n", "total")):
        key[2] = _day(key[2])
        sums.round(tuple(key), tally.cents(expected), rounds=n)
    for *key, payer, fee_kind, n, collected in (
            effective_entries.order_by().values_list(*KEY, "payer", "fee_kind")
            .annotate(n=Count("id"), total=Sum("amount")).values_list(*KEY, "payer", "fee_kind", "n", "total")):
        key[2] = _day(key[2])
        sums.collected(tuple(key), payer, fee_kind, tally.cents(collected), entries=n)
    return dict(sums.deltas)


def _closed_months():
    return set(ClosedMonth.objects.filter(reopened_at__isnull=True).values_list("month", flat=True))


def _open(sums, closed):
    """Leave out the table-days of closed months: their rows are archived, their kept sums are all there is."""
    return {key: figures for key, figures in sums.items() if key[2].replace(day=1) not in closed}


def rebuilt(establishment=None, day_from=None, day_to=None):
    """The kept sums as the rows give them (open months only), ``{key: figures}``."""
    sums = rebuilt_from(_period(RoundOfPlay.objects.all(), establishment, day_from, day_to),
                        _period(CollectionEntry.objects.effective(), establishment, day_from, day_to))
    return _open(sums, _closed_months())


def kept(establishment=None, day_from=None, day_to=None):
    """The kept sums as stored (open months only), ``{key: figures}``."""
    sums = {}
    for row in _period(LedgerDay.objects.all(), establishment, day_from, day_to).values_list(*KEY, *FIGURES):
        figures = dict(zip(FIGURES, row[len(KEY):]))
        for name in AMOUNTS:
            figures[name] = tally.cents(figures[name])
        sums[row[:len(KEY)]] = figures
    return _open(sums, _closed_months())


def differences(establishment=None, day_from=None, day_to=None):
    """``[(key, figure, kept, rebuilt)]`` where the kept sums and the rows disagree (open months only)."""
    return tally.differences(kept(establishment, day_from, day_to), rebuilt(establishment, day_from, day_to))


def rewrite(establishment=None, day_from=None, day_to=None):
    """Rewrite the kept sums that differ from the rows (open months only), unlogged, and return the differences
    found: ``repair``'s work, and how rows written around the services (a test's or a benchmark's, straight into
    the tables) are summed. Run it while nothing writes to those days."""
    with transaction.atomic():
        rows = rebuilt(establishment, day_from, day_to)
        found = tally.differences(kept(establishment, day_from, day_to), rows)
        for key in sorted({key for key, *_ in found}, key=lambda k: (k[1], k[2], k[3])):
            establishment_id, table_id, day, currency = key
            figures = rows.get(key)
            where = {"table_id": table_id, "gaming_day": day, "currency": currency}
            if figures is None:
                LedgerDay.objects.filter(**where).delete()
            else:
                LedgerDay.objects.update_or_create(**where, defaults={"establishment_id": establishment_id,
                                                                      **figures})
    return found


LOGGED_DIFFERENCES = 200  # per establishment in the audit entry of a repair; the count says how many in all


def repair(establishment=None, day_from=None, day_to=None, *, actor=None, actor_label="check_ledger_sums"):
    """Rewrite the kept sums that differ from the rows (open months only), and log it: one audit entry
    (``ledger.sums_repaired``) per establishment repaired, with what differed. Returns the differences found (each
    table-day among them now holds what its rows sum to). Run it while nothing writes to those days: a round or
    entry recorded between the rows' sum and the rewrite would be left out until the next repair."""
    with transaction.atomic():
        found = rewrite(establishment, day_from, day_to)
        if not found:
            return found
        by_room = {}
        for difference in found:
            by_room.setdefault(difference[0][0], []).append(difference)
        rooms = Establishment.objects.select_related("jurisdiction").in_bulk(by_room)
        for establishment_id, differing in sorted(by_room.items()):
            room = rooms[establishment_id]
            log_action("ledger.sums_repaired", actor=actor, actor_label=actor_label, establishment=room,
                       jurisdiction=room.jurisdiction, data={
                           "table_days": len({key for key, *_ in differing}), "differences": len(differing),
                           "from": day_from, "to": day_to,
                           "differing": [{"table": key[1], "gaming_day": key[2], "currency": key[3], "figure": name,
                                          "kept": was, "rebuilt": now}
                                         for key, name, was, now in differing[:LOGGED_DIFFERENCES]]})
    return found
