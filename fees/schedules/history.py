"""Who changed a schedule version, what and why: every field, old and new, down to the tiers.

Read from the history tables (django-simple-history on ScheduleVersion, FeeOption, FeeTier and Interpretation)
and the review steps (VersionReview), in the same few queries however long the history is:

- every historical record is one entry, in time order: when, who, why (its change reason), created, changed or
  deleted, what (version v2, option 3, option 3 tier 2, a reading), and for a change every field whose value
  differs from the previous record of the same row, old and new. Amounts are decimal strings with the document's
  currency; a choice keeps its stored value and gains its label;
- the copy of every option and tier made when a draft is started (or a version loaded from the seed) is not
  hundreds of entries but the version's "created" entry, with the counts: "Draft v2 started from v1: 49 options
  and 312 tiers copied";
- a step of the two-person publication (asked for, approved, refused, withdrawn) is attached to the version record
  it wrote, with who took it and why. The draft's reason is in the version's "created" entry (and any change of
  it), the publication's reason in the "asked for" entry.
"""

import datetime
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import models

from cardroom.values import CENT

from ..engine import diff
from ..models import FeeOption, FeeTier, Interpretation, ScheduleVersion, VersionReview
from .editing import RENUMBER_FROM

VERSION_FIELDS = ("status", "effective_from", "reason", "publication_reason", "retroactive", "retroactive_reason",
                  "provisions", "based_on", "created_by", "published_by", "published_at", "review_requested_by",
                  "review_requested_at")
OPTION_FIELDS = ("number", *diff.OPTION_FIELDS)
TIER_FIELDS = diff.TIER_FIELDS
READING_FIELDS = ("option_number", "tier_order", "field", "value", "statement", "decided_on", "source", "citation",
                  "status", "recorded_by", "reviewed_by", "reviewed_at", "review_reason", "carried_from")
MODELS = {"version": ScheduleVersion, "option": FeeOption, "tier": FeeTier, "reading": Interpretation}
FIELDS = {"version": VERSION_FIELDS, "option": OPTION_FIELDS, "tier": TIER_FIELDS, "reading": READING_FIELDS}
# Within one moment (a frozen clock), the version before its options, options before their tiers.
RANK = {"version": 0, "option": 1, "tier": 2, "reading": 3}
LABELS = {**diff.LABELS, "number": "option number", "reason": "the draft's reason",
          "publication_reason": "reason for publication", "retroactive_reason": "why retroactive",
          "based_on": "started from", "created_by": "started by", "published_by": "approved by",
          "review_requested_by": "publication asked for by", "review_requested_at": "publication asked for at",
          "field": "field read", "value": "read as", "statement": "the reading", "tier_order": "tier"}
CHANGES = {"+": "created", "~": "changed", "-": "deleted"}
BLANK = (None, "", [])
COPIED = ("options", "tiers", "readings")


def version_history(version):
    """Every change of ``version``, its options, tiers and readings, oldest first (see the module's docstring)."""
    return _history(version.document, [version])


def document_history(document, versions):
    """The same for several versions of ``document`` (those the reader may see), merged in time order."""
    return _history(document, list(versions))


def grouped(entries, within=datetime.timedelta(seconds=5)):
    """Entries made together (one save of a tier grid: same version, person and reason, moments apart, each row
    once) as one change: ``[{"when", "who", "why", "version", "entries"}]``, in the entries' order."""
    groups = []
    for entry in entries:
        last = groups[-1] if groups else None
        if (last is not None and entry["review"] is None and last["entries"][-1]["review"] is None
                and (entry["version"], entry["who"], entry["why"]) == (last["version"], last["who"], last["why"])
                and abs(entry["when"] - last["entries"][-1]["when"]) <= within
                and all(e["what"] != entry["what"] for e in last["entries"])):
            last["entries"].append(entry)
            continue
        groups.append({"when": entry["when"], "who": entry["who"], "why": entry["why"], "version": entry["version"],
                       "entries": [entry]})
    return groups


# -- reading the tables ----------------------------------------------------------------------------------------


def _history(document, versions):
    if not versions:
        return []
    ids = [v.pk for v in versions]
    options = FeeOption.history.filter(version_id__in=ids)
    records = {
        "version": list(ScheduleVersion.history.filter(id__in=ids)),
        "option": list(options),
        "tier": list(FeeTier.history.filter(option_id__in=options.values("id"))),
        "reading": list(Interpretation.history.filter(version_id__in=ids)),
    }
    reviews = list(VersionReview.objects.filter(version_id__in=ids).order_by("at", "id"))
    people = {r.history_user_id for rows in records.values() for r in rows}
    people |= {getattr(r, f"{name}_id") for r in records["version"]
               for name in ("created_by", "published_by", "review_requested_by")}
    people |= {getattr(r, f"{name}_id") for r in records["reading"] for name in ("recorded_by", "reviewed_by")}
    people |= {r.by_id for r in reviews}
    names = dict(get_user_model().objects.filter(pk__in=people - {None}).values_list("pk", "username"))
    numbers = dict(document.versions.values_list("pk", "number"))
    context = {"currency": document.currency, "names": names, "numbers": numbers}

    version_of_option = {r.id: r.version_id for r in records["option"]}
    by_version = {pk: [] for pk in ids}
    for kind, rows in records.items():
        for record in rows:
            owner = version_of_option.get(record.option_id) if kind == "tier" else (
                record.id if kind == "version" else record.version_id)
            by_version.setdefault(owner, []).append((kind, record))
    entries = []
    for version in versions:
        rows = sorted(by_version[version.pk], key=lambda r: (r[1].history_date, RANK[r[0]], r[1].history_id))
        entries += _walk(version, rows, [r for r in reviews if r.version_id == version.pk], context)
    entries.sort(key=lambda e: (e["when"], e["version"]))
    return entries


def _walk(version, rows, reviews, context):
    """One version's records in time order as entries (copies folded, review steps attached)."""
    entries, last, option_numbers = [], {}, {}
    state = None  # the version as its latest record left it
    folding = None  # (the version's "created" entry, its record) while the copies made with it follow
    for kind, record in rows:
        previous = last.get((kind, record.id))
        last[(kind, record.id)] = record
        if kind == "option":
            option_numbers[record.id] = record.number
        if kind == "version":
            state = record
        if folding and kind != "version" and record.history_type == "+" and _copied_with(folding[1], record):
            folding[0]["copied"][COPIED[RANK[kind] - 1]] += 1
            continue
        folding = None
        entry = _entry(version, kind, record, previous, state, option_numbers, context)
        if entry["change"] == "changed" and not entry["fields"] and kind != "version":
            continue  # saved with nothing changed
        if kind == "version" and record.history_type == "+":
            entry["copied"] = dict.fromkeys(COPIED, 0)
            folding = (entry, record)
        entries.append(entry)
    for entry in entries:
        if entry["copied"] is not None:
            entry["summary"] = _created_summary(version, entry)
    _attach_reviews(version, entries, reviews, state, context)
    return [e for e in entries if e["fields"] or e["review"] or e["change"] != "changed"]


def _copied_with(version, record):
    """Made in the same stroke as the version: by the same person, with the same reason (or, for a version
    created without one, as a command or import makes it, whatever reason its rows carry)."""
    if record.history_user_id != version.history_user_id:
        return False
    return not version.history_change_reason or record.history_change_reason == version.history_change_reason


def _created_summary(version, entry):
    counts = [f"{n} {name if n != 1 else name[:-1]}" for name, n in entry["copied"].items() if n]
    what = " and ".join(filter(None, [", ".join(counts[:-1]), counts[-1] if counts else ""]))
    based_on = next((f["new"] for f in entry["fields"] if f["field"] == "based_on"), None)
    if based_on:
        return f"Draft v{version.number} started from {based_on}" + (f": {what} copied" if what else "")
    return f"Version v{version.number} created" + (f" with {what}" if what else "")


def _entry(version, kind, record, previous, state, option_numbers, context):
    change = CHANGES[record.history_type]
    values = {name: getattr(record, _attname(kind, name)) for name in FIELDS[kind]}
    if change == "changed" and previous is not None:
        pairs = [(name, getattr(previous, _attname(kind, name)), value) for name, value in values.items()
                 if getattr(previous, _attname(kind, name)) != value]
    elif change == "deleted":  # what was taken away
        pairs = [(name, value, None) for name, value in values.items() if value not in BLANK]
    else:  # what it was made with (or holds, when no earlier record of it is kept)
        pairs = [(name, None, value) for name, value in values.items() if value not in BLANK]
    option, tier = _where(kind, record, previous, option_numbers)
    return {
        "version": version.number, "status": state.status if state else version.status,
        "effective_from": state.effective_from if state else version.effective_from,
        "when": record.history_date, "who": _who(kind, record, context), "why": record.history_change_reason,
        "type": record.get_history_type_display(), "change": change, "kind": kind,
        "what": _what(version, kind, record, option, tier), "detail": _detail(kind, record),
        "option": option, "tier": tier, "summary": "",
        "fields": [_field(kind, name, old, new, context) for name, old, new in pairs],
        "copied": None, "review": None,
    }


def _who(kind, record, context):
    names = context["names"]
    if record.history_user_id:
        return names.get(record.history_user_id)
    if kind == "version" and record.history_type == "+" and record.created_by_id:
        return names.get(record.created_by_id)  # started outside a request (a command, a test)
    return None


def _where(kind, record, previous, option_numbers):
    if kind == "version":
        return None, None
    if kind == "option":
        return record.number, None
    if kind == "reading":
        return record.option_number, record.tier_order
    order = record.order
    if order >= RENUMBER_FROM and previous is not None:  # moved aside for a moment while rows trade places
        order = previous.order
    return option_numbers.get(record.option_id), order


def _what(version, kind, record, option, tier):
    if kind == "version":
        return f"version v{version.number}"
    if kind == "option":
        return f"option {option}"
    if kind == "tier":
        return f"option {option} tier {tier}"
    where = f"option {option}" + (f" tier {tier}" if tier is not None else "")
    return f"reading of {where}: {record.field}"


def _detail(kind, record):
    """The row as a person recognises it: the option's label, the tier's fee and bounds as printed."""
    if kind == "option":
        return record.label
    if kind == "tier":
        return f"{record.get_fee_kind_display()}, {record.printed_bounds or _bounds(record)}: {record.printed_fee}"
    return ""


def _bounds(tier):
    low, high = (None if v is None else diff.shown(v) for v in (tier.lower, tier.upper))
    if low is None and high is None:
        return "any"
    return f"{low}+" if high is None else (f"up to {high}" if low is None else f"{low}–{high}")


def _attname(kind, name):
    return MODELS[kind]._meta.get_field(name).attname


def _field(kind, name, old, new, context):
    field = MODELS[kind]._meta.get_field(name)
    out = {"field": name, "label": LABELS.get(name) or str(field.verbose_name), "kind": _kind_of(field),
           "old": _value(field, old, context), "new": _value(field, new, context)}
    if field.choices:
        choices = dict(field.flatchoices)
        out["old_label"] = str(choices.get(old, old)) if old not in (None, "") else None
        out["new_label"] = str(choices.get(new, new)) if new not in (None, "") else None
    if out["kind"] == "money":
        out["currency"] = context["currency"]
    return out


def _kind_of(field):
    if isinstance(field, models.DecimalField):
        return "money"  # every decimal of a schedule is an amount in the document's currency
    if field.choices:
        return "choice"
    if isinstance(field, models.ForeignKey):
        return "person" if field.related_model is get_user_model() else "reference"
    if isinstance(field, models.DateTimeField):
        return "moment"
    if isinstance(field, models.DateField):
        return "day"
    if isinstance(field, models.BooleanField):
        return "flag"
    if isinstance(field, models.JSONField):
        return "list"
    return "number" if isinstance(field, (models.IntegerField,)) else "text"


def _value(field, value, context):
    if value is None:
        return None
    if isinstance(value, Decimal):
        return str(value.quantize(CENT))
    if isinstance(field, models.ForeignKey):
        if field.related_model is get_user_model():
            return context["names"].get(value, f"user {value}")
        if field.related_model is ScheduleVersion:
            return f"v{context['numbers'][value]}" if value in context["numbers"] else f"version {value}"
        return str(value)
    return value


def _attach_reviews(version, entries, reviews, state, context):
    """Each review step to the version record it wrote (the latest one at or before it); a step with no such
    record (none should be) becomes an entry of its own."""
    records = [e for e in entries if e["kind"] == "version" and e["change"] == "changed"]
    for review in reviews:
        step = {"step": review.step, "label": review.get_step_display(),
                "by": context["names"].get(review.by_id) or review.by_label, "at": review.at, "reason": review.reason}
        target = next((e for e in reversed(records) if e["when"] <= review.at), None)
        if target is not None and target["review"] is None:
            target["review"] = step
            target["who"] = target["who"] or step["by"]
            continue
        entries.append({
            "version": version.number, "status": state.status if state else version.status,
            "effective_from": state.effective_from if state else version.effective_from, "when": review.at,
            "who": step["by"], "why": review.reason, "type": "Review", "change": "reviewed", "kind": "review",
            "what": f"version v{version.number}", "detail": "", "option": None, "tier": None,
            "summary": step["label"], "fields": [], "copied": None, "review": step,
        })
    entries.sort(key=lambda e: e["when"])
