"""A round's fee lines, explanation and fees by payer, kept compactly (``fees.engine.compact``): the part every
round priced under one schedule version and option shares is a ``RoundPricing`` row, stored once; the round
keeps its own fee lines and the day it was priced as of. What the ledger stored per round before is rebuilt from
the two, exactly (``rebuilt``), for the API, the demo and anything else that reads a round's account.

For the export: ``fee_line_rows`` (Python) and ``fee_lines_sql`` (PostgreSQL, for COPY) give the same rows,
one per fee line, ``(round_id, line_number, *LINE_FIELDS)``.
"""

import datetime

from django.db import IntegrityError, transaction
from django.db.models import F

from ..engine import compact
from ..engine.compact import LINE_FIELDS, NotCompactable  # noqa: F401 (what callers need, from here)
from ..models import RoundPricing

REMEMBERED = 512  # options and bodies: far more than an installation prices under at once

# Bodies by digest, read once per process: a digest names its content whatever row holds it, so a body remembered
# is never wrong, even when the row it was read from is rolled back or flushed and its id given to another (tests
# do both). An id is never remembered for itself: which row has a digest is asked of the database (its index).
_bodies: dict[str, dict] = {}


def _remember(digest, body):
    if len(_bodies) >= REMEMBERED:
        _bodies.clear()
    _bodies[digest] = body


# Per schedule version and option as read (the engine's snapshot objects, which fees.quotes.quoting keeps while they are
# current): their tiers as explained, and the digest of the body last seen for them, so that a round does not
# explain every tier of its option and hash its body again.
_tiers: dict[int, tuple] = {}
_digests: dict[tuple, tuple] = {}


def tiers_of(schedule, option):
    """``fees.engine.compact.option_tiers``, once per engine option."""
    known = _tiers.get(id(option))
    if known is None or known[0] is not option or known[1] is not schedule:
        if len(_tiers) >= REMEMBERED:
            _tiers.clear()
        known = _tiers[id(option)] = (option, schedule, compact.option_tiers(schedule, option))
    return known[2]


def _digest(body):
    head = body["explanation"]
    key = (head["document"], head["version"], head["option"])
    known = _digests.get(key)
    if known is None or known[0] != body:
        if len(_digests) >= REMEMBERED:
            _digests.clear()
        known = _digests[key] = (body, compact.digest(body))
    return known[1]


def pricing_for(body):
    """The ``RoundPricing`` id of ``body`` (a shared body from ``split``), stored if it is new."""
    digest = _digest(body)
    known = RoundPricing.objects.filter(digest=digest).values_list("id", flat=True).first()
    if known is not None:
        return known
    head = body["explanation"]
    fields = {"schedule_code": head["document"], "schedule_version": head["version"],
              "option_number": head["option"], "body": body}
    try:
        with transaction.atomic():  # a savepoint: a concurrent round may store the same body first
            pricing, _ = RoundPricing.objects.get_or_create(digest=digest, defaults=fields)
    except IntegrityError:
        pricing = RoundPricing.objects.get(digest=digest)
    _remember(digest, body)
    return pricing.pk


def compacted(explanation, expected_lines, expected_by_payer, *, tiers=None):
    """What a round stores of its account: ``{"pricing_id", "fee_lines", "priced_on"}`` for ``RoundOfPlay``.
    Raises ``NotCompactable`` for an account that would not be rebuilt exactly."""
    body, fee_lines, per_round = compact.split(explanation, expected_lines, expected_by_payer, tiers=tiers)
    as_of = per_round["as_of"]
    return {"pricing_id": None if body is None else pricing_for(body), "fee_lines": compact.encode(fee_lines),
            "priced_on": None if as_of is None else datetime.date.fromisoformat(as_of)}


def body_of(pricing_id, digest=None, memo=None):
    """The shared body of pricing ``pricing_id`` (None: none). With its ``digest`` (read with the round:
    ``with_pricing_digest``), a body already read in this process is not read again; ``memo``: a dict kept across
    calls over many rounds, by id."""
    if pricing_id is None:
        return None
    body = _bodies.get(digest) if digest else None
    if body is None and memo is not None:
        body = memo.get(pricing_id)
    if body is None:
        digest, body = RoundPricing.objects.values_list("digest", "body").get(pk=pricing_id)
        if memo is not None:
            memo[pricing_id] = body
        _remember(digest, body)
    return body


def with_pricing_digest(rounds):
    """``rounds`` (a queryset) with each round's ``pricing_digest``, so ``rebuilt`` finds the body remembered."""
    return rounds.annotate(pricing_digest=F("pricing__digest"))


def rebuild_stored(pricing_id, fee_lines, priced_on, memo=None, digest=None):
    """``(explanation, expected_lines, expected_by_payer)`` from a round's stored columns."""
    per_round = {"as_of": None if priced_on is None else priced_on.isoformat()}
    return compact.rebuild(body_of(pricing_id, digest, memo), compact.decode(fee_lines), per_round)


def rebuilt(round_, memo=None):
    """``(explanation, expected_lines, expected_by_payer)`` of a ``RoundOfPlay``, as the ledger stored them before
    they were split. ``memo``: a dict kept across calls over many rounds."""
    return rebuild_stored(round_.pricing_id, round_.fee_lines, round_.priced_on, memo,
                          getattr(round_, "pricing_digest", None))


def fee_line_rows(rounds, chunk_size=2000):
    """One row per fee line of ``rounds`` (a queryset), in its order: ``(round_id, line_number, payer, player,
    fee_kind, measure, tier, measured, fee, note)``. ``line_number`` counts from 1 within the round; ``tier`` is the
    tier's order in the option (or None); ``measured`` is text (None where nothing was measured), ``fee`` text with
    2 decimals, ``note`` text ("" for none): as ``fee_lines_sql`` gives them."""
    for round_id, stored in rounds.values_list("id", "fee_lines").iterator(chunk_size=chunk_size):
        for number, line in enumerate(compact.decode(stored), start=1):
            payer, player, fee_kind, measure, tier, measured, fee, note = compact.row(line)
            yield (round_id, number, payer, player, fee_kind, measure, tier,
                   None if measured is None else str(measured), fee, note)


def fee_lines_sql():
    """A PostgreSQL SELECT over ``fees_roundofplay r`` giving ``fee_line_rows``' columns, named ``round_id,
    line_number`` and ``LINE_FIELDS``. The caller adds its WHERE (on ``r``) and ORDER BY (``r.id, l.number``)."""
    return ("SELECT r.id AS round_id, l.number AS line_number, l.line->>0 AS payer, l.line->>1 AS player, "
            "l.line->>2 AS fee_kind, l.line->>3 AS measure, (l.line->>4)::integer AS tier, "
            "l.line->>5 AS measured, l.line->>6 AS fee, coalesce(l.line->>7, '') AS note "
            "FROM fees_roundofplay r "
            # jsonb: each line parsed once; json's ->> parses the line's text again for every field (2.7x slower)
            "CROSS JOIN LATERAL jsonb_array_elements(r.fee_lines::jsonb) WITH ORDINALITY AS l(line, number)")
