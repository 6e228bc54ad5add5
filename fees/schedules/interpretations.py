"""Interpretations: how the room reads a value its source leaves open, kept beside the value as printed.

The source stays exactly as printed (a published version never changes). Where it is ambiguous (a fee whose basis
is unstated, a closed top, a column with no heading) a compliance officer records how it is read: one field of one
option (its basis) or of one tier (measure, lower, upper, fee_kind, payer, taken), the value it is read as, the
reading in words, its date and its citation (the Bureau's answer, say). It takes effect once a second officer
approves it; the engine (``fees.quotes.quoting.snapshot``), validation and signs then use the reading and say it is one.

The steps are services (``fees.schedules.services``), on the one two-person mechanism (``cardroom.review``):

- ``propose_interpretation``: anyone who may edit the schedule (``fees.edit_schedule``), on any version, published
  ones included (the printed data does not change: that is the point); one live (proposed or approved) reading per
  field;
- ``approve_interpretation`` / ``refuse_interpretation``: a second officer, never the one who proposed it, with a
  reason. Who may be the second officer is who may approve the schedule's publication (``fees.approve_schedule``): a
  compliance officer of the establishment for its own schedules, an administrator for a jurisdiction's shared ones,
  whose readings change every room's quotes and signs;
- ``withdraw_interpretation``: anyone who may edit the schedule takes back a proposal, or retires an approved reading
  (the value is then read as printed again: the engine refuses rather than guesses), with a reason.

This module reads and checks what a step is given, and how readings are stored and read.

Each step is in the history (django-simple-history) and the hash-chained audit log. A new draft started from a
version carries its approved readings (``ScheduleDocument.new_draft``).
"""

from decimal import Decimal

from django.utils import timezone

from cardroom import review, values
from cardroom.audit import log_action
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import Source

from .. import engine
from ..models import FeeOption, FeeTier, Interpretation
from ..models import reviews

STATEMENT_MAX = 2000
REASON_MAX = 2000
CITATION_MAX = 500
# What each field is read as: one of its model's choices, or an amount ("" for an open bound); what each field is
# called (FIELD_LABELS) and how a value reads (``label``) are the model's, so a reading's own words say them too.
CHOICES, BOUNDS, FIELD_LABELS = reviews.CHOICES, reviews.BOUNDS, reviews.FIELD_LABELS
# A reading says what the value is; "not stated" is what the print already says.
NOT_A_READING = {"unstated", "wager_unspecified"}
LIVE = (Interpretation.Status.PROPOSED, Interpretation.Status.APPROVED)


class InterpretationConflict(StateConflict):
    """The step does not fit the reading's state, or the field already has a live reading (a 409)."""


# -- values as stored and as read ---------------------------------------------------------------------------------


def stored(field, value):
    """A field's value as an interpretation stores it: a choice's value, an amount "12.00", "" for an open bound."""
    if field in BOUNDS:
        return "" if value is None else f"{value:.2f}"
    return value


def typed(field, text):
    """The stored text of a reading as the field's own value (a Decimal or None for a bound)."""
    if field in BOUNDS:
        return None if text == "" else Decimal(text)
    return text


label = reviews.value_label  # a stored value as a person reads it: the choice's label, "$500.00", "open"


def where(option_number, tier_order):
    return f"option {option_number}" + (f" row {tier_order}" if tier_order is not None else "")


footnote = engine.footnote  # "Interpretation: <statement> (<citation>, <date>)."


# -- the engine's view -----------------------------------------------------------------------------------------------


def approved(version):
    """The version's approved readings, ``{(option number, tier order or None): {field: Interpretation}}`` (one
    query)."""
    found = {}
    for reading in Interpretation.objects.filter(version=version, status=Interpretation.Status.APPROVED).order_by("id"):
        found.setdefault((reading.option_number, reading.tier_order), {})[reading.field] = reading
    return found


def _engine_reading(reading, printed):
    return engine.Interpretation(field=reading.field, printed=stored(reading.field, printed), value=reading.value,
                                 statement=reading.statement, citation=reading.citation,
                                 decided_on=reading.decided_on)


def engine_tier(tier, readings=None):
    """A FeeTier as the engine reads it: each field an approved reading reads holds the reading, and the tier carries
    the reading (``readings``: ``{field: Interpretation}`` of this tier)."""
    fields = {name: getattr(tier, name) for name in Interpretation.TIER_FIELDS}
    used = []
    for name in Interpretation.TIER_FIELDS:
        reading = (readings or {}).get(name)
        if reading is not None:
            used.append(_engine_reading(reading, fields[name]))
            fields[name] = typed(name, reading.value)
    return engine.Tier(order=tier.order, fee=tier.fee, printed_bounds=tier.printed_bounds,
                       printed_fee=tier.printed_fee, interpretations=tuple(used), **fields)


def engine_option(option, tiers, readings=None):
    """A FeeOption as the engine reads it, with its ``tiers`` already read (``engine_tier``)."""
    reading = (readings or {}).get("basis")
    return engine.Option(
        number=option.number, basis=reading.value if reading else option.basis, label=option.label,
        citation=option.citation, interval_minutes=option.interval_minutes, tiers=tuple(tiers),
        interpretations=(_engine_reading(reading, option.basis),) if reading else (),
    )


def read_option(option, known_at=None):
    """One FeeOption (its tiers prefetched or not) as the engine reads it: for a sign, two queries. With
    ``known_at``, with the readings approved as the record stood at that moment (their history), not as now."""
    readings = {}
    stood = Interpretation.objects if known_at is None else Interpretation.history.as_of(known_at)
    for reading in stood.filter(version_id=option.version_id, option_number=option.number,
                                status=Interpretation.Status.APPROVED).order_by("id"):
        readings.setdefault(reading.tier_order, {})[reading.field] = reading
    tiers = [engine_tier(t, readings.get(t.order)) for t in option.tiers.all()]
    return engine_option(option, tiers, readings.get(None))


def printed_values(readings):
    """``{reading id: what its version prints for the field (as stored)}`` for many readings (two queries); a reading
    whose option or row its version no longer has (a draft edited since) is left out."""
    readings = list(readings)
    versions = {r.version_id for r in readings}
    options = {(o.version_id, o.number): o for o in FeeOption.objects.filter(version_id__in=versions)}
    tiers = {(t.option.version_id, t.option.number, t.order): t
             for t in FeeTier.objects.filter(option__version_id__in=versions).select_related("option")}
    found = {}
    for r in readings:
        row = (options.get((r.version_id, r.option_number)) if r.tier_order is None
               else tiers.get((r.version_id, r.option_number, r.tier_order)))
        if row is not None and hasattr(row, r.field):
            found[r.pk] = stored(r.field, getattr(row, r.field))
    return found


# -- recording --------------------------------------------------------------------------------------------------------


def _text(value, field, *, max_length, single_line=True, minimum=0):
    text = values.named(field, values.text, value, max_length=max_length, required=True, single_line=single_line)
    if len(text) < minimum:
        raise BadInput(f"{field} must say why ({minimum} characters or more).", field=field)
    return text


def _whole(value, field, minimum):
    return values.named(field, values.whole, value, minimum=minimum, maximum=32767 if field == "tier" else 2**31 - 1)


def printed_value(version, option_number, tier_order, field):
    """What the version prints for the field (as ``stored``); raises BadInput when the version has
    no such option or row, or the field is not one a reading can read there."""
    option = FeeOption.objects.filter(version=version, number=option_number).first()
    if option is None:
        raise BadInput(f"{version} has no option {option_number}.", field="option")
    if tier_order is None:
        if field not in Interpretation.OPTION_FIELDS:
            raise BadInput(
                f"field: an option's {', '.join(Interpretation.OPTION_FIELDS)} can be read, not {field!r} (name a "
                f"row for {', '.join(Interpretation.TIER_FIELDS)}).", field="field")
        return stored(field, getattr(option, field))
    tier = option.tiers.filter(order=tier_order).first()
    if tier is None:
        rows = ", ".join(str(n) for n in option.tiers.order_by("order").values_list("order", flat=True)) or "none"
        raise BadInput(f"{version} option {option_number} has no row {tier_order} (its rows: {rows}).", field="tier")
    if field not in Interpretation.TIER_FIELDS:
        raise BadInput(
            f"field: a row's {', '.join(Interpretation.TIER_FIELDS)} can be read, not {field!r}.", field="field")
    return stored(field, getattr(tier, field))


def _bounds_in_order(version, option_number, tier_order, field, value):
    """Refuse a bound read so that the row's lower bound is above its upper: the other bound as the row reads it
    (an approved or proposed reading of it, else as printed)."""
    other = "upper" if field == "lower" else "lower"
    reading = (Interpretation.objects.filter(version=version, option_number=option_number, tier_order=tier_order,
                                             field=other, status__in=[Interpretation.Status.PROPOSED,
                                                                      Interpretation.Status.APPROVED])
               .values_list("value", flat=True).first())
    against = reading if reading is not None else printed_value(version, option_number, tier_order, other)
    if against in (None, ""):
        return  # open on that side
    lower, upper = (value, against) if field == "lower" else (against, value)
    if Decimal(str(lower)) > Decimal(str(upper)):
        said = "as read" if reading is not None else "as printed"
        raise BadInput(
            f"value: a lower bound of {lower} would be above the row's upper bound of {upper} ({said}): the row would "
            f"take no amount. Read the bound the source means, or read the other bound first.", field="value")


def read_value(field, value):
    """The value a reading reads ``field`` as, checked and as stored."""
    if field in BOUNDS:
        if value is None or value == "":
            return ""
        try:
            return stored(field, values.money(value))
        except values.Invalid as error:
            raise BadInput(f"value {error} (or blank for an open bound)", field="value") from None
    allowed = set(CHOICES[field].values) - NOT_A_READING
    try:
        return values.choice(value, allowed)
    except values.Invalid as error:
        raise BadInput(f"value: {FIELD_LABELS[field]} {error}", field="value") from None


def _source(source):
    if source in (None, "") or isinstance(source, Source):
        return source or None
    if not isinstance(source, str):
        raise BadInput(f"source must be the key of a source document, not {source!r}.", field="source")
    found = Source.objects.filter(key=source).first()
    if found is None:
        raise BadInput(f"source: no source document has the key {source!r}.", field="source")
    return found


def read_proposal(version, option_number, tier_order, field, value, statement, decided_on, citation, source, *,
                  lock):
    """A proposed reading's fields, checked (a ``BadInput`` names the one at fault), with what the
    version prints there (``printed``); ``lock`` locks the version once the place is read, before it is looked at."""
    option_number = _whole(option_number, "option", 1)
    tier_order = None if tier_order in (None, "") else _whole(tier_order, "tier", 0)
    if not isinstance(field, str):
        raise BadInput(f"field must be one of {', '.join(CHOICES) + ', lower, upper'}, not {field!r}.", field="field")
    lock()  # one proposal at a time per version
    printed = printed_value(version, option_number, tier_order, field)
    value = read_value(field, value)
    statement = _text(statement, "statement", max_length=STATEMENT_MAX, single_line=False, minimum=10)
    citation = _text(citation, "citation", max_length=CITATION_MAX)
    decided_on = values.named("decided_on", values.day, decided_on)
    if decided_on > timezone.localdate():
        raise BadInput(f"The day it was decided, {decided_on.isoformat()}, is after today: record a "
                       "reading once it has been decided.", field="decided_on")
    if field in BOUNDS and value != "":
        _bounds_in_order(version, option_number, tier_order, field, value)
    return {"option_number": option_number, "tier_order": tier_order, "field": field, "value": value,
            "statement": statement, "decided_on": decided_on, "citation": citation, "source": _source(source),
            "printed": printed}


def read_reason(reason):
    return review.read_reason(reason, minimum=3)


def log(reading, verb, user, **data):
    document = reading.version.document
    log_action(f"schedule.interpretation_{verb}", actor=user, obj=reading, establishment=document.establishment,
               jurisdiction=document.jurisdiction, data={
                   "code": document.code, "version": reading.version.number, "option": reading.option_number,
                   "tier": reading.tier_order, "field": reading.field, "value": reading.value,
                   "statement": reading.statement, "citation": reading.citation,
                   "decided_on": reading.decided_on.isoformat(), **data})


def save(reading, user, why):
    reading._change_reason = why
    reading._history_user = review.person(user)
    reading.save()
