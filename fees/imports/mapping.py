"""Which column of a room's file holds each ledger field: the fields, the guess from a header the first time, the
room's kept mapping (``ImportMapping``) after that, and what keeps a mapping from being used."""

import re
from dataclasses import dataclass

from ..models import CollectionEntry, ImportMapping


def _named(choices):
    """"Player, Player-dealer or Pot": what a file may write (a choice's label, or its code: ``rows.PAYERS``)."""
    labels = [label for _, label in choices]
    return f"{', '.join(labels[:-1])} or {labels[-1]}"


PAYER_WORDS = _named(CollectionEntry.Payer.choices)
FEE_KIND_WORDS = _named(CollectionEntry.FeeKind.choices)


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    help: str
    guesses: tuple = ()


FIELDS = (
    Field("record", "Round or entry", "“round” or “entry”; without it a row with facts is a round, any other an "
          "entry.", ("record", "type", "kind", "row type", "record type")),
    Field("table", "Table", "The table's label at this room.", ("table", "table label", "table no", "tbl")),
    Field("time", "Time", "When the round was played or the amount collected: with its offset, or in the room's "
          "zone.", ("time", "played at", "collected at", "timestamp", "date time", "when")),
    Field("gaming_day", "Gaming day", "Optional: checked against the time.",
          ("gaming day", "gaming date", "business day", "day")),
    Field("reference", "Hand or round", "The hand or round reference.",
          ("reference", "hand", "hand no", "round", "round id", "hand id")),
    Field("facts", "Facts (rounds)", "What was played, as the quote API's JSON.", ("facts", "play", "round facts")),
    Field("payer", "Payer (entries)", f"Who paid: {PAYER_WORDS}.",
          ("payer", "paid by")),
    Field("seat", "Seat (entries)", "Betting position, where known.", ("seat", "position")),
    Field("player", "Player (entries)", "Player, where known.", ("player", "player id")),
    Field("fee_kind", "Fee kind (entries)", f"{FEE_KIND_WORDS}.",
          ("fee kind", "fee type", "fee", "collection type")),
    Field("amount", "Amount (entries)", "The amount collected, e.g. 12.50.", ("amount", "collected", "fee amount")),
    Field("currency", "Currency (entries)", "Optional: must be the room's.", ("currency",)),
    Field("idempotency_key", "Row key (entries)", "Optional: the room system's own id of the row; without it a key "
          "is derived from the row's content.", ("key", "idempotency key", "row key", "entry id", "transaction id")),
    Field("corrects_key", "Corrects (entries)", "The key of the entry a correction corrects.",
          ("corrects", "corrects key")),
    Field("reason", "Reason (entries)", "Why a correction was made.", ("reason", "note", "comment")),
)
FIELD_NAMES = tuple(field.name for field in FIELDS)
REQUIRED = ("table", "time", "reference")


def _normal(header):
    """A column's name as the guess compares it: lower case, words only."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", str(header).lower()).split())


def saved_mapping(establishment):
    found = ImportMapping.objects.filter(establishment=establishment).first()
    return dict(found.columns) if found else {}


def guess_mapping(header, saved=None):
    """Field -> column: the room's saved mapping where its column is in this header, else a guess from the names."""
    saved, columns = saved or {}, set(header)
    mapping = {field: column for field, column in saved.items() if column in columns and field in FIELD_NAMES}
    by_name = {_normal(column): column for column in header}
    taken = set(mapping.values())
    for field in FIELDS:
        if field.name in mapping:
            continue
        for guess in (field.name.replace("_", " "), *field.guesses):
            column = by_name.get(guess)
            if column is not None and column not in taken:
                mapping[field.name] = column
                taken.add(column)
                break
    return mapping


def mapping_problems(mapping, header):
    """What keeps ``mapping`` from being used with a file of ``header`` (empty when it can be)."""
    problems = [f"{next(f.label for f in FIELDS if f.name == name)}: choose its column."
                for name in REQUIRED if not mapping.get(name)]
    if not mapping.get("amount") and not mapping.get("facts"):
        problems.append("Choose the column of the amounts (collection entries) or of the facts (rounds), or both.")
    unknown = sorted(column for column in mapping.values() if column and column not in header)
    if unknown:
        problems.append(f"Not columns of this file: {', '.join(unknown)}.")
    return problems
