"""The big kinds, streamed in chunks: ledger entries, rounds and their fee lines, the audit log; the pricings the
rounds share (round_pricings.json); and the fees expected vs collected per table and gaming day that the ledger sums
to (``fee_day_rows``; ``fees_by_day``, for the pages, reads the same figures from the ledger's kept sums)."""

import datetime
from decimal import Decimal

from django.db import connection
from django.db.models import Exists, OuterRef, Q, Sum

from cardroom.models import AuditLogEntry, Table
from cardroom.money import CENT
from cardroom.ordering import natural
from fees.ledger.compact import fee_line_rows
from fees.models import CollectionEntry, LedgerDay, RoundOfPlay, RoundPricing
from fees.months.selectors import sealed_months

from .scope import CHUNK, utc


def _iterate(queryset, fields):
    return queryset.values_list(*fields).iterator(chunk_size=CHUNK)


def _entries(scope):
    query = CollectionEntry.objects.filter(table__establishment__in=scope.establishment_ids,
                                           gaming_day__lte=scope.end, id__lte=scope.last_entry)
    return query.filter(gaming_day__gte=scope.start) if scope.start else query


ENTRY_FIELDS = ["id", "table__establishment__slug", "table__label", "gaming_day", "reference", "collected_at",
                "payer", "seat", "player", "fee_kind", "amount", "currency", "corrects_id", "reason",
                "idempotency_key", "recorded_at"]


def entry_rows(scope):
    for row in _iterate(_entries(scope).order_by("id"), ENTRY_FIELDS):
        yield row[:5] + (utc(row[5]),) + row[6:15] + (utc(row[15]),)


def _rounds(scope):
    query = RoundOfPlay.objects.filter(table__establishment__in=scope.establishment_ids, gaming_day__lte=scope.end,
                                       id__lte=scope.last_round)
    return query.filter(gaming_day__gte=scope.start) if scope.start else query


ROUND_FIELDS = ["id", "table__establishment__slug", "table__label", "gaming_day", "reference", "played_at",
                "posting_id", "schedule_code", "schedule_version", "option_number", "pricing_id", "expected_total",
                "currency"]


def round_rows(scope):
    for row in _iterate(_rounds(scope).order_by("id"), ROUND_FIELDS):
        yield row[:5] + (utc(row[5]),) + row[6:]


def round_fee_line_rows(scope):
    """The fee lines of the rounds ``round_rows`` reads, one row a line (``fees.ledger.compact.fee_line_rows``), the
    amounts as Decimals (their text as stored)."""
    for row in fee_line_rows(_rounds(scope).order_by("id")):
        yield row[:7] + (None if row[7] is None else Decimal(row[7]), Decimal(row[8]), row[9])


PRICINGS_FILE = "round_pricings.json"
PRICINGS_TITLE = "What the rounds priced under one schedule version and option share, once (JSON: it nests)"


def pricing_records(scope):
    """The pricings the rounds of the scope were priced under, in id order, as round_pricings.json holds them:
    what the rounds priced under one schedule version and option share, stored once (``fees.models.RoundPricing``)."""
    used = _rounds(scope).exclude(pricing=None).order_by().values("pricing_id").distinct()
    for pricing in RoundPricing.objects.filter(pk__in=used).order_by("id").iterator(chunk_size=100):
        yield {"id": pricing.pk, "schedule": pricing.schedule_code, "version": pricing.schedule_version,
               "option": pricing.option_number, "digest": pricing.digest, "body": pricing.body}


def fee_day_rows(scope):
    """Fees expected (rounds priced against the posting in force) vs collected (entries no later entry
    corrects), per table and gaming day."""
    days = {}
    expected = (_rounds(scope).values("table__establishment__slug", "table__label", "gaming_day", "currency")
                .annotate(total=Sum("expected_total")))
    for row in expected:
        key = (row["table__establishment__slug"], row["table__label"], row["gaming_day"], row["currency"])
        days.setdefault(key, [Decimal("0.00"), Decimal("0.00")])[0] = row["total"]
    corrected = CollectionEntry.objects.filter(corrects=OuterRef("pk"))
    collected = (_entries(scope).filter(~Exists(corrected))
                 .values("table__establishment__slug", "table__label", "gaming_day", "currency")
                 .annotate(total=Sum("amount")))
    for row in collected:
        key = (row["table__establishment__slug"], row["table__label"], row["gaming_day"], row["currency"])
        days.setdefault(key, [Decimal("0.00"), Decimal("0.00")])[1] = row["total"]
    for (slug, label, day, currency), (want, got) in sorted(days.items(), key=lambda i: (i[0][2], i[0][0],
                                                                                           natural(i[0][1]))):
        want, got = want.quantize(CENT), got.quantize(CENT)  # SQLite sums decimals without their places
        yield (day, slug, label, want, got, got - want, currency)


def _days_and_differing(establishment_ids, start, end):
    """Per (gaming day, currency) the day's totals, and the table-days whose collections differ from what was
    expected, as the ledger's kept sums hold them (``fees.models.LedgerDay``: the rounds' expected totals and the
    entries no later entry corrects, summed as the ledger is written; the figures ``fee_day_rows`` sums from the
    rows). One statement down the room's index (``ledger_day_room_day``), a row per table-day read, not the month's
    rounds and entries: ``(day, currency, label, expected, collected)``, ``label`` None for a day's totals, sums not
    yet in cents. (A window over the table-days, as when the rows were summed, cost SQLite four times as much.)"""
    if not establishment_ids:
        return []
    room = f"IN ({', '.join(['%s'] * len(establishment_ids))})"
    bounds = [*establishment_ids, end] + ([start] if start is not None else [])

    def within(alias):
        return (f"{alias}establishment_id {room} AND {alias}gaming_day <= %s"
                + (f" AND {alias}gaming_day >= %s" if start is not None else ""))

    sql = f"""
        SELECT gaming_day, currency, NULL, SUM(expected_total), SUM(collected_total)
            FROM {LedgerDay._meta.db_table} WHERE {within("")} GROUP BY gaming_day, currency
        UNION ALL
        SELECT l.gaming_day, l.currency, t.label, l.expected_total, l.collected_total
            FROM {LedgerDay._meta.db_table} l JOIN {Table._meta.db_table} t ON t.id = l.table_id
            WHERE {within("l.")} AND ROUND(l.collected_total - l.expected_total, 2) <> 0"""
    with connection.cursor() as cursor:
        cursor.execute(sql, bounds + bounds)
        return cursor.fetchall()


def _cents(value):
    return Decimal(str(value)).quantize(CENT)  # SQLite sums decimals as floats (and PostgreSQL keeps their places)


def fees_by_day(establishments, start, end, sealed=None):
    """Expected vs collected per gaming day over ``establishments`` (what ``fee_day_rows`` sums to per day and
    currency), for the pages: ``[{"day", "currency", "expected", "collected", "difference", "tables": [(label,
    expected, collected, difference)]}]`` in day order; ``tables`` holds only the tables whose collections differ
    from what was expected that day, in floor order. Read from the ledger's kept sums (one query): the database
    sums the days and returns only the table-days that differ, so the work in Python does not grow with the tables.

    A closed month's rows are archived: its days are read from what its closing sealed (``sealed``, as
    ``fees.months.selectors.sealed_months`` gives it for these rooms and days; read here when not given). Such a
    day also has ``sealed`` (True), ``reconciled`` (its tables reconciled and with a variance, as sealed, or None)
    and ``problem``: None, or the sentence saying its kept sums no longer agree with the seal (changed behind the
    database's back), when its figures are the sealed ones and its tables that differ are not shown."""
    if sealed is None:
        sealed = sealed_months(establishments, start, end)
    days, differing = {}, []
    for day, currency, label, want, got in _days_and_differing([e.pk for e in establishments], start, end):
        day = day if isinstance(day, datetime.date) else datetime.date.fromisoformat(day)  # SQLite answers text
        if label is None:
            days[(day, currency)] = {"day": day, "currency": currency, "expected": _cents(want),
                                     "collected": _cents(got), "tables": []}
        else:
            differing.append((day, currency, label, _cents(want), _cents(got)))
    problems = _sealed_problems(sealed)
    for (day, currency), kept in list(days.items()):
        if sealed.covers(day) and (day, currency) not in sealed.ledger:
            days[(day, currency)] = {**kept, "expected": Decimal("0.00"), "collected": Decimal("0.00")}  # none sealed
    for (day, currency), figures in sealed.ledger.items():
        days[(day, currency)] = {"day": day, "currency": currency, "expected": _cents(figures["expected"]),
                                 "collected": _cents(figures["collected"]), "tables": []}
    for (day, currency), total in days.items():
        if sealed.covers(day):
            total.update(sealed=True, reconciled=sealed.reconciled.get(day), problem=problems.get(day))
    for day, currency, label, want, got in differing:
        if got != want and not days[(day, currency)].get("problem"):
            days[(day, currency)]["tables"].append((label, want, got, got - want))
    for total in days.values():
        total["difference"] = total["collected"] - total["expected"]
        total["tables"].sort(key=lambda t: natural(t[0]))
    return [days[key] for key in sorted(days)]


def _sealed_problems(sealed):
    """{gaming day: the sentence saying its kept sums differ from what its month's closing sealed}."""
    by_day = {}
    for problem in sealed.problems_of("ledger"):
        by_day.setdefault(problem.day, []).append(problem)
    return {day: (f"The kept sums of {day.isoformat()} differ from the totals sealed when {day:%B %Y} was closed "
                  f"({'; '.join(str(p) for p in found)}): the figures shown are the sealed ones, and the tables "
                  f"that differ are not shown.")
            for day, found in by_day.items()}


def audit_rows(scope):
    covered = Q(pk__in=[])
    for chain, (sequence, _) in scope.chain_heads.items():
        covered |= Q(chain=chain, sequence__lte=sequence)
    entries = (AuditLogEntry.objects.filter(covered, created_at__gte=scope.start_moment,
                                            created_at__lt=scope.end_moment)
               .select_related("establishment").order_by("chain", "sequence"))
    for e in entries.iterator(chunk_size=CHUNK):
        yield (e.chain, e.sequence, utc(e.created_at), e.establishment.slug if e.establishment else None,
               e.actor_label, e.action, e.object_type, e.object_id, e.object_repr, e.data, e.prev_hash,
               e.entry_hash, e.actor_id, e.establishment_id, e.jurisdiction_id)
