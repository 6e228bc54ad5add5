"""Rounds of play: a hand or round with its facts, priced by the engine against the posting in force at that
table at that moment; idempotent on (table, gaming day, reference)."""

import datetime
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from cardroom import values
from cardroom.exceptions import BadInput
from cardroom.money import CENT

from ..models import LedgerConflict, RoundOfPlay, TablePosting
from ..months.selectors import closed_for
from . import compact, kept_sums
from .tally import Tally
from .intake import checked_identifier, RowError, agreed_gaming_day

def _cents(amount):
    return f"{Decimal(amount).quantize(CENT)}"


def _plain(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    for attribute in ("printed_bounds", "order"):
        if hasattr(value, attribute):  # an engine tier: say which row of the schedule it is
            return {"order": getattr(value, "order", None), "printed_bounds": getattr(value, "printed_bounds", None),
                    "printed_fee": getattr(value, "printed_fee", None)}
    return str(value)


def lines_of(quote):
    """The round's fee lines and fees by payer as the ledger gives them (kept compactly: fees.ledger.compact).
    Public for what stores rounds as ``record_round`` does without calling it (benchmarks/ledger_year.py)."""
    lines, by_payer = [], {}
    for line in getattr(quote, "lines", ()):
        fee = Decimal(line.fee)
        payer, player = str(getattr(line, "payer", "")), getattr(line, "player", None) or ""
        lines.append({
            "payer": payer, "player": player, "fee_kind": str(getattr(line, "fee_kind", "")),
            "measure": _plain(getattr(line, "measure", None)), "measured": _plain(getattr(line, "measured", None)),
            "tier": _plain(getattr(line, "tier", None)), "fee": _cents(fee),
        })
        by_payer[(payer, player)] = by_payer.get((payer, player), Decimal("0")) + fee
    return lines, [{"payer": payer, "player": player, "fee": _cents(fee)} for (payer, player), fee in by_payer.items()]


def _same_round(existing, played_at, facts):
    return existing.played_at == played_at and existing.facts == facts


def record_round(*, table, reference, played_at, facts, gaming_day=None, user=None):
    """Record a round and the fee the engine expects for it. Returns (round, created).

    The same table, gaming day and reference with the same facts returns the round already recorded; with
    different facts it is a LedgerConflict. A table with no posting at ``played_at``, or facts the engine
    cannot price, is a BadInput.
    """
    from ..quotes import quoting  # the engine is imported only when a round is priced

    establishment = table.establishment
    if timezone.is_naive(played_at):
        played_at = timezone.make_aware(played_at, establishment.zone)
    values.named("played_at", values.in_range, played_at)
    try:
        values.document(facts)
    except values.Invalid as error:
        raise BadInput(str(error), field="facts") from None
    if type(facts) is not dict:
        raise BadInput("facts must be a JSON object: wagers, poker facts or a time-collection period.", field="facts")
    try:
        checked_identifier(reference, "reference")
        gaming_day = agreed_gaming_day(establishment, played_at, gaming_day)
    except RowError as error:
        raise BadInput(f"{error.field} {error.message}", field=error.field) from None
    if closed := closed_for({gaming_day}):
        raise BadInput(f"gaming_day {closed[gaming_day]}", field="gaming_day")
    played_at = played_at.astimezone(establishment.zone)  # so that "the day it was played" is the room's day
    existing = RoundOfPlay.objects.filter(table=table, gaming_day=gaming_day, reference=reference).first()
    if existing is not None:
        if _same_round(existing, played_at, facts):
            return existing, False
        raise LedgerConflict(
            f"Round {reference!r} of {gaming_day.isoformat()} at table {table.label} is already recorded "
            f"(id {existing.pk}) with different facts; rounds are not changed. Use another reference."
        )
    posting = TablePosting.objects.select_related("schedule").in_force(table, played_at)
    if posting is None:
        raise BadInput(
            f"Table {table.label} at {establishment} had no posting at "
            f"{played_at.isoformat()}: nothing says which schedule option applied, so the "
            f"expected fee cannot be computed."
        )
    if posting.schedule_id is None:
        raise BadInput(
            f"Table {table.label} at {establishment} posts a house-banked game without a collection schedule "
            f"({posting.game.name}, {posting.rules.version}): the ledger has no fee to expect for its rounds."
        )
    try:
        schedule, option, quote = quoting.quote_posting(posting, facts, played_at)
        explanation = quoting.explain(schedule, option, quote, as_of=played_at.date())
    except quoting.QuoteError as error:
        raise BadInput(f"facts: {error}", field="facts") from None
    lines, by_payer = lines_of(quote)
    try:
        with transaction.atomic():
            stored = compact.compacted(explanation, lines, by_payer, tiers=compact.tiers_of(schedule, option))
            round_ = RoundOfPlay.objects.create(
                establishment=establishment, table=table, gaming_day=gaming_day, reference=reference,
                played_at=played_at, facts=facts,
                posting=posting, schedule_code=schedule.code, schedule_version=schedule.version,
                option_number=option.number, expected_total=Decimal(quote.total).quantize(CENT),
                currency=schedule.currency, **stored,
                recorded_by=user if getattr(user, "is_authenticated", False) else None,
            )
            added = Tally()  # the table-day's kept sums, in the round's transaction
            added.round((establishment.pk, table.pk, gaming_day, round_.currency), round_.expected_total)
            kept_sums.add(added)
    except IntegrityError:
        existing = RoundOfPlay.objects.filter(table=table, gaming_day=gaming_day, reference=reference).first()
        if existing is not None and _same_round(existing, played_at, facts):
            return existing, False
        raise LedgerConflict(f"Round {reference!r} was recorded concurrently with different facts.") from None
    return round_, True
