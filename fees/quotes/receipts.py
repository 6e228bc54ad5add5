"""Receipts for quotes and reconciliations, and their replay (docs/receipts.md).

A receipt says what was computed, from what, by which engine, under which schedule version (with the hash of
that version's content). ``replay`` recomputes it all from the database with the current engine and says
whether it still holds. The canonical form and hashes are fees/quotes/receipt_format.py (no Django).
"""

import datetime
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils import timezone

from cardroom import values

from .. import engine
from ..models import CollectionEntry, RoundOfPlay, ScheduleVersion
from . import quoting
from . import receipt_format as fmt

# What a quote response repeats of its request or its schedule: the receipt keeps those under inputs and
# schedule, so its outputs are the amounts alone.
NOT_OUTPUTS = ("schedule", "version", "option", "as_of", "known_at", "explanation", "receipt")
REQUEST_KEYS = ("schedule", "option", "as_of", "known_at")


def _issued(user):
    return {"engine": engine.ENGINE_VERSION, "issued_at": timezone.now().astimezone(datetime.timezone.utc).isoformat(),
            "issued_by": getattr(user, "username", "") or "system"}


def published_version(code, number):
    return (ScheduleVersion.objects.select_related("document__source")
            .filter(document__code=code, number=number, status=ScheduleVersion.Status.PUBLISHED).first())


# -- quotes --------------------------------------------------------------------------------------------------

def quote_outputs(body):
    """The amounts of a quote response, and its fee lines without their prose notes (wording is not a result)."""
    outputs = {key: value for key, value in body.items() if key not in NOT_OUTPUTS}
    outputs["fees"] = [{key: value for key, value in line.items() if key != "note"}
                       for line in body["explanation"]["fees"]]
    return outputs


def quote_receipt(data, body, *, user):
    """The receipt of a quote: ``data`` the request body as sent, ``body`` the response quoting.quote_request gave."""
    version = published_version(body["schedule"], body["version"])
    inputs = {"schedule": body["schedule"], "option": body["option"], "as_of": body["as_of"],
              "known_at": body.get("known_at"),
              "facts": {key: value for key, value in data.items() if key not in REQUEST_KEYS}}
    try:
        values.document(inputs["facts"])
        return fmt.seal({"receipt": fmt.QUOTE, "schedule": fmt.schedule_stamp(quoting.snapshot(version)),
                         "inputs": inputs, "outputs": fmt.plain(quote_outputs(body)), **_issued(user)})
    except ValueError as error:  # a string no JSON file can hold, a number too big to write (1e999)
        raise engine.QuoteError(f"This request cannot be written in a receipt: {error}") from None


# -- reconciliations -----------------------------------------------------------------------------------------

def counted_hands(table_id, gaming_day, as_of):
    """The hands a reconciliation run at ``as_of`` counted: the rounds recorded by then, and the entries recorded
    by then that no entry recorded by then corrects; per reference, sorted by it."""
    hands = {}

    def hand(reference):
        return hands.setdefault(reference, {"reference": reference, "expected": Decimal("0.00"),
                                            "collected": Decimal("0.00"), "rounds": [], "entries": []})

    rounds = RoundOfPlay.objects.filter(table_id=table_id, gaming_day=gaming_day, recorded_at__lte=as_of)
    for pk, reference, expected in rounds.order_by("id").values_list("id", "reference", "expected_total"):
        hand(reference)["expected"] += expected
        hand(reference)["rounds"].append(pk)
    entries = (CollectionEntry.objects.filter(table_id=table_id, gaming_day=gaming_day, recorded_at__lte=as_of)
               .effective(as_known_at=as_of))
    for pk, reference, amount in entries.order_by("id").values_list("id", "reference", "amount"):
        hand(reference)["collected"] += amount
        hand(reference)["entries"].append(pk)
    return [{**h, "expected": fmt.cents(h["expected"]), "collected": fmt.cents(h["collected"])}
            for _, h in sorted(hands.items())]


def _stamps(round_versions):
    """The schedule stamps of the (code, version) pairs the rounds were priced with (published, so never gone)."""
    return [fmt.schedule_stamp(quoting.snapshot(published_version(code, number)))
            for code, number in sorted(set(round_versions))]


def reconciliation_receipt(reconciliation, *, user):
    """The receipt of a stored reconciliation: its result, and the ledger rows it counted (rebuilt as the ledger
    stood when it ran)."""
    table = reconciliation.table
    hands = counted_hands(table.pk, reconciliation.gaming_day, reconciliation.run_at)
    round_ids = [pk for hand in hands for pk in hand["rounds"]]
    versions = RoundOfPlay.objects.filter(pk__in=round_ids).values_list("schedule_code", "schedule_version")
    inputs = {
        "table": {"id": table.pk, "label": table.label, "establishment": table.establishment.slug},
        "gaming_day": reconciliation.gaming_day.isoformat(),
        "counted_as_of": reconciliation.run_at.astimezone(datetime.timezone.utc).isoformat(),
        "hands_count": len(hands), "hands_sha256": fmt.sha256(hands),
        "hands": hands if len(hands) <= fmt.HANDS_LISTED_AT_MOST else None,
    }
    outputs = {"currency": reconciliation.currency, "status": reconciliation.status,
               **{name: fmt.cents(getattr(reconciliation, name))
                  for name in ("expected_total", "collected_total", "difference")},
               **{name: getattr(reconciliation, name)
                  for name in ("rounds", "entries", "hands", "hands_balanced", "hands_with_variance")}}
    return fmt.seal({"receipt": fmt.RECONCILIATION, "schedule": _stamps(versions), "inputs": inputs,
                     "outputs": outputs, **_issued(user)})


# -- replay --------------------------------------------------------------------------------------------------

@dataclass
class Replay:
    receipt: dict
    checks: list = field(default_factory=list)  # (name, ok, detail)
    notes: list = field(default_factory=list)

    def check(self, name, ok, detail):
        self.checks.append((name, bool(ok), detail))
        return ok

    @property
    def holds(self):
        return all(ok for _, ok, _ in self.checks)

    def as_dict(self):
        return {"receipt": self.receipt["receipt"], "receipt_sha256": self.receipt[fmt.SEAL], "holds": self.holds,
                "issued_engine": self.receipt["engine"], "replay_engine": engine.ENGINE_VERSION,
                "checks": [{"check": name, "ok": ok, "detail": detail} for name, ok, detail in self.checks],
                "notes": self.notes}


def replay(receipt):
    """Recompute a receipt (already read by receipt_format.read) and say whether it holds."""
    result = Replay(receipt)
    result.check("receipt_sha256", fmt.seal_holds(receipt),
                 "the receipt is as issued" if fmt.seal_holds(receipt) else
                 "the receipt was altered after it was issued: its content does not match its receipt_sha256")
    if receipt["engine"] != engine.ENGINE_VERSION:
        result.notes.append(f"Issued by engine {receipt['engine']}, replayed with engine {engine.ENGINE_VERSION}.")
    if receipt["receipt"] == fmt.QUOTE:
        _replay_quote(receipt, result)
    else:
        _replay_reconciliation(receipt, result)
    return result


def _schedule(stamp, result, name="schedule"):
    """The engine view of the version ``stamp`` names, checked against it; None when it cannot be loaded."""
    label = f"{stamp['code']} v{stamp['version']}"
    version = published_version(stamp["code"], stamp["version"])
    if not result.check(name, version is not None,
                        f"{label} is published" if version else f"{label} is not a published version here"):
        return None
    schedule = quoting.snapshot(version)
    found = fmt.schedule_stamp(schedule)
    problems = fmt.differences(stamp, found, name)
    result.check(f"{name} content", not problems,
                 f"{label}'s content still hashes to {found['content_sha256'][:16]}..." if not problems else
                 f"{label} no longer matches the receipt: " + "; ".join(problems))
    return schedule


def _replay_quote(receipt, result):
    inputs, stamp = receipt["inputs"], receipt["schedule"]
    schedule = _schedule(stamp, result)
    if schedule is None:
        return
    as_of = datetime.date.fromisoformat(inputs["as_of"])
    known_at = datetime.datetime.fromisoformat(inputs["known_at"]) if inputs["known_at"] else None
    issued_at = datetime.datetime.fromisoformat(receipt["issued_at"])
    # The record as it stood when the quote was made: a version published since (retroactive) does not count.
    stood_at = min(known_at, issued_at) if known_at else issued_at
    stood = stood_at.isoformat()
    named = f"{stamp['code']} v{stamp['version']}"
    try:
        in_force = quoting.schedule_snapshot(inputs["schedule"], as_of, known_at=stood_at)
    except quoting.QuoteError as error:
        result.check("version in force", False, f"the receipt names {named}, but {error}")
    else:
        same = (in_force.code, in_force.version) == (stamp["code"], stamp["version"])
        result.check("version in force", same, f"{named} was in force on {as_of} as the record stood at {stood}"
                     if same else f"the receipt names {named}, but {in_force.code} v{in_force.version} was in force "
                     f"on {as_of} as the record stood at {stood}")
        now = quoting.schedule_snapshot(inputs["schedule"], as_of)  # the record now has at least what it had then
        if same and now.version != in_force.version:
            result.notes.append(f"As the record stands now, {now.code} v{now.version} is in force on {as_of} "
                                "(published since the receipt was issued).")
    try:
        option = schedule.option(inputs["option"])
        quote = quoting.quote_facts(schedule, option.number, inputs["facts"])
        outputs = fmt.plain(quote_outputs(quoting.response(schedule, option, quote, as_of, known_at)))
    except quoting.QuoteError as error:
        result.check("outputs", False, f"the engine now refuses these inputs: {error}")
        return
    problems = fmt.differences(receipt["outputs"], outputs, "outputs")
    result.check("outputs", not problems, f"recomputed: total {outputs.get('total')} {outputs.get('currency')}"
                 if not problems else "; ".join(problems))


def _replay_reconciliation(receipt, result):
    inputs = receipt["inputs"]
    day = datetime.date.fromisoformat(inputs["gaming_day"])
    as_of = datetime.datetime.fromisoformat(inputs["counted_as_of"])
    table_id = inputs["table"]["id"]
    hands = counted_hands(table_id, day, as_of)
    listed = inputs["hands"]
    if listed is not None and fmt.sha256(listed) != inputs["hands_sha256"]:
        result.check("inputs", False, "the hands listed do not hash to the receipt's hands_sha256")
    elif fmt.sha256(hands) == inputs["hands_sha256"] and len(hands) == inputs["hands_count"]:
        result.check("inputs", True, f"the ledger held the same {len(hands)} hands at {as_of.isoformat()}")
    else:
        where = "" if listed is None else ": " + (
            "; ".join(fmt.differences(listed, hands, "hands")) if len(listed) == len(hands)
            else _references(listed, hands))
        result.check("inputs", False, f"the ledger held {len(hands)} hands at {as_of.isoformat()}, not the "
                                      f"{inputs['hands_count']} of the receipt{where}")

    rounds = list(RoundOfPlay.objects.filter(pk__in=[pk for hand in hands for pk in hand["rounds"]])
                  .only("id", "reference", "facts", "schedule_code", "schedule_version", "option_number",
                        "expected_total"))
    found = {(r.schedule_code, r.schedule_version) for r in rounds}
    said = {(stamp["code"], stamp["version"]) for stamp in receipt["schedule"]}
    result.check("schedules", found == said, "the rounds were priced under " + (
        ", ".join(f"{code} v{number}" for code, number in sorted(found)) or "no schedule (no rounds)")
        if found == said else f"the receipt names {sorted(said)}, the rounds were priced under {sorted(found)}")
    schedules = {}
    for i, stamp in enumerate(receipt["schedule"]):
        schedules[(stamp["code"], stamp["version"])] = _schedule(stamp, result, f"schedule[{i}]")

    repriced = []
    for round_ in rounds:
        schedule = schedules.get((round_.schedule_code, round_.schedule_version)) or _loaded(round_)
        try:
            total = quoting.quote_facts(schedule, round_.option_number, round_.facts).total if schedule else None
        except quoting.QuoteError as error:
            repriced.append(f"round {round_.reference} (id {round_.pk}): the engine now refuses it: {error}")
            continue
        if total is None or fmt.cents(total) != fmt.cents(round_.expected_total):
            repriced.append(f"round {round_.reference} (id {round_.pk}): recorded {fmt.cents(round_.expected_total)}, "
                            f"the engine now gives {'nothing' if total is None else fmt.cents(total)}")
    result.check("rounds repriced", not repriced, f"the engine gives each of the {len(rounds)} rounds its recorded "
                 "expected fee" if not repriced else "; ".join(repriced[:10]))

    outputs = fmt.reconciliation_outputs(hands, receipt["outputs"].get("currency"))
    problems = fmt.differences(receipt["outputs"], outputs, "outputs")
    result.check("outputs", not problems, f"recomputed: expected {outputs['expected_total']}, collected "
                 f"{outputs['collected_total']} {outputs['currency']}, {outputs['status']}"
                 if not problems else "; ".join(problems))

    later = (RoundOfPlay.objects.filter(table_id=table_id, gaming_day=day, recorded_at__gt=as_of).count()
             + CollectionEntry.objects.filter(table_id=table_id, gaming_day=day, recorded_at__gt=as_of).count())
    if later:
        result.notes.append(f"{later} round(s) or entries were recorded for this table and day after the run: "
                            "a new reconciliation would count them.")


def _loaded(round_):
    version = published_version(round_.schedule_code, round_.schedule_version)
    return quoting.snapshot(version) if version else None


def _references(listed, hands):
    said = {str(hand.get("reference")) for hand in listed if isinstance(hand, dict)}
    found = {hand["reference"] for hand in hands}
    parts = []
    if found - said:
        parts.append("not in the receipt: " + ", ".join(sorted(found - said)[:10]))
    if said - found:
        parts.append("not in the ledger: " + ", ".join(sorted(said - found)[:10]))
    return "; ".join(parts) or "the same references"
