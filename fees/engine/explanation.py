"""A quote explained: the document, version and option it came from and every fee line with the tier that
priced it, ready for JSON."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from cardroom.money import CENT

from .quotes import FeeLine
from .schedules import Interpretation, Option, Schedule

def _cents(value) -> str | None:
    return None if value is None else f"{Decimal(value).quantize(CENT):f}"


def _explain_interpretation(reading: Interpretation, **where) -> dict:
    return {**where, "field": reading.field, "printed": reading.printed, "read_as": reading.value,
            "statement": reading.statement, "citation": reading.citation, "decided_on": reading.decided_on.isoformat()}


def _explain_line(line: FeeLine) -> dict:
    measured = line.measured
    if isinstance(measured, Decimal):
        measured = _cents(measured)
    tier = line.tier
    shown = None
    if tier is not None:
        shown = {"order": tier.order, "lower": _cents(tier.lower), "upper": _cents(tier.upper),
                 "printed_bounds": tier.printed_bounds, "printed_fee": tier.printed_fee}
        if tier.interpretations:  # only then: a tier read as printed is explained as before
            shown["interpretations"] = [_explain_interpretation(i) for i in tier.interpretations]
    return {
        "payer": line.payer,
        "player": line.player,
        "fee_kind": line.fee_kind,
        "measure": line.measure,
        "measured": measured,
        "tier": shown,
        "fee": _cents(line.fee),
        "note": line.note,
    }


def explain(schedule: Schedule, option: Option, quote, *, as_of: date | None = None) -> dict:
    """A JSON-ready account of ``quote``: the document, version and option it came from and every fee line
    with the tier that priced it. Every amount is a string with 2 decimals.

    Where the option is read through approved interpretations (of its basis, or of any of its tiers), the account
    says so: ``interpretations`` lists each value read rather than printed, with what is printed, the reading, its
    statement, citation and date; and each fee line's tier lists its own."""
    body = {
        "document": schedule.code,
        "title": schedule.title,
        "version": schedule.version,
        "effective_from": schedule.effective_from.isoformat() if schedule.effective_from else None,
        "as_of": as_of.isoformat() if as_of else None,
        "option": option.number,
        "basis": option.basis,
        "citation": option.citation,
        "document_citation": schedule.citation,
        "currency": schedule.currency,
        "fees": [_explain_line(line) for line in quote.lines],
    }
    readings = [_explain_interpretation(i, tier=None) for i in option.interpretations]
    readings += [_explain_interpretation(i, tier=t.order) for t in option.tiers for i in t.interpretations]
    if readings:
        body["interpretations"] = readings
    return body
