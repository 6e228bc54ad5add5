"""The big kinds, streamed in chunks: ledger entries, rounds and the audit log; and the fees expected vs
collected per table and gaming day that the ledger sums to (``fee_day_rows``, ``fees_by_day`` for the pages)."""

from decimal import Decimal

from django.db.models import Exists, OuterRef, Q, Sum

from cardroom.models import AuditLogEntry
from cardroom.money import CENT
from cardroom.ordering import natural
from fees.models import CollectionEntry, RoundOfPlay

from .scope import CHUNK, ExportScope, _iterate, utc


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
                "posting_id", "schedule_code", "schedule_version", "option_number", "expected_total", "currency"]


def round_rows(scope):
    for row in _iterate(_rounds(scope).order_by("id"), ROUND_FIELDS):
        yield row[:5] + (utc(row[5]),) + row[6:]


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


def fees_by_day(establishments, start, end):
    """Expected vs collected per gaming day over ``establishments`` (``fee_day_rows`` summed per day and
    currency), for the pages: ``[{"day", "currency", "expected", "collected", "difference", "tables": [(label,
    expected, collected, difference)]}]`` in day order, each day's tables in floor order. Three queries."""
    scope = ExportScope(establishments=list(establishments), start=start, end=end).freeze_ledger()
    days = {}
    for day, _, label, want, got, difference, currency in fee_day_rows(scope):
        total = days.setdefault((day, currency), {"day": day, "currency": currency, "expected": Decimal("0.00"),
                                                  "collected": Decimal("0.00"), "tables": []})
        total["expected"] += want
        total["collected"] += got
        total["tables"].append((label, want, got, difference))
    for total in days.values():
        total["difference"] = total["collected"] - total["expected"]
    return [days[key] for key in sorted(days)]


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
