"""What an audit-log entry says happened, in a whole sentence for a person (the audit log page): one place
for the words of every action ``cardroom.audit.log_action`` is called with.

Each action's words are a function of the entry's ``data`` (as stored: strings, numbers, lists); a key an older
entry lacks is left out of the sentence, never shown as a blank. An action with no words here (a new one, or a
test's) reads as "Recorded <action>." so nothing is hidden.
"""

import datetime
from decimal import Decimal, InvalidOperation

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist

from compliance.rules.words import rule_title
from fees.schedules import interpretations
from console.templatetags.console import money  # the pages' formatter


def _money(value, currency="USD"):
    """Money as the pages write it ($1,234.50); what is not an amount stays as recorded."""
    try:
        return money(Decimal(str(value)), currency)
    except (InvalidOperation, ValueError, TypeError):
        return str(value)


def _v(data, key, default=""):
    value = data.get(key)
    return default if value in (None, "") else value


def _reason(data, key="reason"):
    reason = str(_v(data, key)).strip()
    if not reason:
        return ""
    return f' Reason: "{reason.rstrip(".")}."'


def _for_asker(data):
    """A step an administrator took for whoever asked (cardroom.review: withdrawing someone else's request)."""
    asker = _v(data, "on_behalf_of")
    return f" As an administrator, for {asker}, who had asked for it." if asker else ""


def _schedule(data):
    code, version = _v(data, "code"), _v(data, "version")
    return f"{code} version {version}" if code and version else (code or "a schedule")


def _published(data):
    when = _v(data, "effective_from")
    return (f"Published {_schedule(data)}, in force from {when}" if when else
            f"Published {_schedule(data)}, with no effective date stated") + (
        " (retroactively)" if data.get("retroactive") else "") + "." + _reason(data)


def _reading(verb):
    def words(data):
        place = f"{_schedule(data)} option {_v(data, 'option', '?')} tier {_v(data, 'tier', '?')}"
        field = _v(data, "field")
        value = data.get("value")
        # The field's and the choice's words, as the interpretations page says them ("what it is measured on read
        # as “The player's total base wager”"); an open bound reads as such.
        what = interpretations.FIELD_LABELS.get(field, field) if field else "a value"
        if value in (None, "") and field not in interpretations.BOUNDS:
            read = "read as left empty"
        else:
            read = f"read as “{interpretations.label(field, str(value or ''))}”"
        return f"{verb} a reading of {place}: {what} {read}.{_reason(data)}{_for_asker(data)}"
    return words


def _override(verb):
    def words(data):
        count = len(data.get("findings") or [])
        findings = f" despite {count} error finding{'' if count == 1 else 's'}" if count else ""
        return f"{verb} printing this posting's sign{findings}.{_reason(data)}{_for_asker(data)}"
    return words


def _printed(first):
    def words(data):
        layout, table = _v(data, "layout", "a"), _v(data, "table")
        return (f"{'Printed' if first else 'Reprinted'} the {layout} sign"
                + (f" of table {table}" if table else "") + (" as part of a batch" if data.get("job") else "")
                + (" under a compliance override" if data.get("override") else "") + ".")
    return words


def _reconciled(data):
    status = "balanced" if data.get("status") == "balanced" else "with a variance"
    day = _v(data, "gaming_day")
    hands = data.get("hands_with_variance") or 0
    return (f"Reconciled the gaming day {day}: {status}, expected {_money(_v(data, 'expected_total', '0'))}, "
            f"collected {_money(_v(data, 'collected_total', '0'))}"
            + (f", {hands} hand{'' if hands == 1 else 's'} off" if hands else "")
            + (f"; owed as known now {_money(data['owed_now_total'])} (a retroactive version)"
               if data.get("owed_now_total") else "") + ".")


def _restated(data):
    reconciled, restated = data.get("reconciled") or 0, data.get("restated") or 0
    closed = data.get("closed_months_left_alone") or []
    return (f"After {_v(data, 'schedule', 'a schedule')} v{_v(data, 'version', '?')} was published retroactively, "
            f"reconciled again {reconciled} table-day{'' if reconciled == 1 else 's'} from {_v(data, 'first', '?')} "
            f"to {_v(data, 'last', '?')} ({restated} owed otherwise as known now, beside what was owed when "
            "collected)" + (f"; closed month{'' if len(closed) == 1 else 's'} {', '.join(closed)} left as "
                            f"{'it was' if len(closed) == 1 else 'they were'}" if closed else "") + ".")


def _posted(data):
    what = (f"{data['schedule']} option {_v(data, 'option', '?')}" if data.get("schedule") else
            f"the house rules {_v(data, 'rules', '?')}")
    errors, warnings = data.get("errors") or 0, data.get("warnings") or 0
    checked = (f"; the check found {errors} error{'' if errors == 1 else 's'} and "
               f"{warnings} warning{'' if warnings == 1 else 's'}") if (errors or warnings) else \
        "; the check found nothing wrong"
    low, high = data.get("min_wager"), data.get("max_wager")
    limits = (f", wagers {_money(low)} to {_money(high)}" if low not in (None, "", "None")
              and high not in (None, "", "None") else "")
    return f"Posted {what} at a table{limits}{checked}."


ROLES = {"admin": "administrator", "compliance": "compliance officer", "floor": "floor supervisor",
         "regulator": "regulator"}

def _month(data):
    """A month as people say it ("October 2026"); what is not a YYYY-MM month stays as recorded."""
    value = str(_v(data, "month", "a month"))
    try:
        return datetime.date.fromisoformat(f"{value}-01").strftime("%B %Y")
    except ValueError:
        return value


def _files(data, key):
    files = data.get(key)
    if isinstance(files, dict):
        return len(files)
    return len(files) if isinstance(files, list) else 0


WORDS = {
    "approval.condition_met": lambda d: (f"Recorded condition {_v(d, 'condition', '?')} of approval "
                                         f"{_v(d, 'approval', '?')} as met on {_v(d, 'met_on', 'a date not given')}"
                                         + (f" (evidence: {d['evidence']})" if d.get("evidence") else "") + "."
                                         + _reason(d)),
    "approval.condition_withdrawn": lambda d: "Withdrew a record that an approval's condition was met." + _reason(d),
    "audit.checkpoint_refused": lambda d: ("Refused to sign a checkpoint: the log no longer agrees with its signed "
                                           f"checkpoints ({str(_v(d, 'problem', 'no detail')).rstrip('.')})."),
    "audit.witness_back": lambda d: (f"The witness {_v(d, 'witness', '?')} cosigns again (it was "
                                     f"{_v(d, 'was', 'not cosigning')} since {_v(d, 'since', '?')})."),
    "audit.witness_down": lambda d: (f"The witness {_v(d, 'witness', '?')} has not answered since {_v(d, 'since', '?')}: "
                                     f"{str(_v(d, 'reason', 'no detail')).rstrip('.')}."),
    "audit.witness_refused": lambda d: (f"The witness {_v(d, 'witness', '?')} refused to cosign: "
                                        f"{str(_v(d, 'refusal', 'no detail')).rstrip('.')}."),
    "audit.export": lambda d: ("Made a signed audit export"
                               + (f" of {d['period']['from']} to {d['period']['to']}"
                                  if isinstance(d.get("period"), dict) and d["period"].get("from") else "") + "."),
    "auth.user.password_change": lambda d: "Set this user's password." + _reason(d),
    "auth.credentials_revoked": lambda d: (
        f"Revoked {_v(d, 'user', 'a user')}'s API tokens ({_v(d, 'tokens', 0)}) and ended their sessions "
        f"({_v(d, 'sessions', 0)}): made with a password alone." + _reason(d)),
    "compliance.acknowledge": lambda d: (f"Acknowledged a{'n' if str(_v(d, 'severity')).startswith(('e', 'i')) else ''}"
                                         f" {_v(d, 'severity', 'compliance')} finding"
                                         + (f" ({rule_title(d['rule'])})." if d.get("rule") else ".")
                                         + _reason(d)),
    "compliance.run": lambda d: (f"Ran validation ({_v(d, 'kind', 'a run')}, rules as of {_v(d, 'as_of', 'today')}): "
                                 f"{_v(d, 'errors', 0)} errors, {_v(d, 'warnings', 0)} warnings, "
                                 f"{_v(d, 'infos', 0)} notes."),
    "ledger.import_uploaded": lambda d: (f"Uploaded {_v(d, 'file', 'a file')} for import ({_v(d, 'rows', '?')} rows, "
                                         f"SHA-256 {str(_v(d, 'sha256', '?'))[:12]}…)."),
    "ledger.import_mapping": lambda d: "Set which of the room's file columns are which ledger fields.",
    "ledger.import": lambda d: (f"Started importing {_v(d, 'file', 'a file')} ({_v(d, 'rows', '?')} rows) into the "
                                "ledger."),
    "ledger.import_finished": lambda d: (f"Imported {_v(d, 'file', 'a file')}: {_v(d, 'rounds_recorded', 0)} rounds "
                                         f"and {_v(d, 'entries_recorded', 0)} collections recorded, "
                                         f"{_v(d, 'already_recorded', 0)} rows already recorded, "
                                         f"{_v(d, 'refused', 0)} refused."),
    "ledger.month_frozen": lambda d: (f"Began closing {_month(d)}: nothing more is written into it "
                                      f"({_files(d, 'partitions')} partitions held for its audit export)."),
    "ledger.month_unfrozen": lambda d: (f"Stopped closing {_month(d)}: it is open again as it was"
                                        + (f" ({d['reason']})." if d.get("reason") else ".")),
    "ledger.month_exported": lambda d: (f"Signed and verified the audit export of {_month(d)} "
                                        f"({_files(d, 'bundles')} bundles)."),
    "ledger.month_detached": lambda d: f"Detached {_month(d)}'s {_files(d, 'partitions')} partitions from the ledger.",
    "ledger.month_closed": lambda d: (f"Closed {_month(d)}: its {_files(d, 'partitions')} partitions archived beside "
                                      "its audit export; it can be read from the export and reopened."),
    "ledger.month_reopened": lambda d: (f"Reopened {_month(d)}: its {_files(d, 'partitions')} partitions attached "
                                        "again from their archived files."),
    "ledger.month_held": lambda d: (f"Left {_month(d)} open at its nightly close: "
                                    + ("; ".join(d.get("reasons") or []) or "no reason given") + "."),
    "ledger.month_archive_removed": lambda d: (
        f"Removed {_month(d)}'s archived files ({len(d.get('removed') or [])}) from {_v(d, 'directory', '?')}, "
        f"older than the retention of {_v(d, 'retention_days', '?')} days"
        + (f"; not removed: {'; '.join(d['problems'])}" if d.get("problems") else "") + "."),
    "ledger.reconcile": _reconciled,
    "ledger.restated": _restated,
    "witness.conflicting_checkpoint": lambda d: (
        f"As a witness, refused a checkpoint of {_v(d, 'origin', 'a log')} at {_v(d, 'size', '?')} entries with "
        "another root than the one cosigned: two views of one log, kept as evidence."),
    "ledger.sums_repaired": lambda d: (f"Rewrote the ledger's kept sums of {_v(d, 'table_days', '?')} table-days from "
                                       f"their rounds and entries ({_v(d, 'differences', '?')} figures differed)."),
    "ledger.reconcile_requested": lambda d: (f"Asked for every table with play from {_v(d, 'day_from', '?')} to "
                                             f"{_v(d, 'day_to', '?')} to be reconciled again."),
    "posting.create": _posted,
    "role.appoint": lambda d: f"Appointed {_v(d, 'user', 'a user')} as {ROLES.get(d.get('role'), d.get('role'))}.",
    "schedule.new_draft": lambda d: (f"Started the draft {_schedule(d)}"
                                     + (f", based on version {d['based_on']}" if d.get("based_on") else "") + "."),
    "schedule.discard_draft": lambda d: f"Discarded the draft {_schedule(d)}.",
    "schedule.requested": lambda d: f"Asked a second officer to publish {_schedule(d)}." + _reason(d),
    "schedule.publish": _published,
    "schedule.refused": lambda d: f"Refused to publish {_schedule(d)}; it is a draft again." + _reason(d),
    "schedule.withdrawn": lambda d: f"Withdrew the request to publish {_schedule(d)}." + _reason(d) + _for_asker(d),
    "schedule.interpretation_proposed": _reading("Proposed"),
    "schedule.interpretation_approved": _reading("Approved"),
    "schedule.interpretation_refused": _reading("Refused"),
    "schedule.interpretation_withdrawn": _reading("Withdrew"),
    "seed.import": lambda d: (f"Loaded the seed data: {_v(d, 'created', 0)} records created, "
                              f"{_v(d, 'changed', 0)} changed."),
    "signage.print": _printed(True),
    "signage.reprint": _printed(False),
    "signage.print_override_requested": _override("Asked a second officer to allow"),
    "signage.print_override": _override("Allowed"),
    "signage.print_override_refused": _override("Refused"),
    "signage.print_override_withdrawn": _override("Withdrew the request to allow"),
}

VERBS = {"create": "Created", "change": "Changed", "delete": "Deleted"}


def _record_change(action, data):
    """cardroom.changes' actions, ``<app>.<model>.<verb>``: "Changed the fee tier (tier, fee)."."""
    app, _, rest = action.partition(".")
    model, _, verb = rest.rpartition(".")
    if verb not in VERBS or not model:
        return None
    try:
        meta = apps.get_model(app, model)._meta
    except LookupError:
        meta = None
    thing = meta.verbose_name if meta else model.replace("_", " ")
    fields = sorted(_field_words(meta, name) for name in data["changes"]) if isinstance(data.get("changes"), dict) else []
    shown = f" ({', '.join(fields)})" if fields and verb == "change" else ""
    return f"{VERBS[verb]} the {thing}{shown}." + _reason(data)


# Fields whose model name is a bare code: a tier's bounds.
FIELD_WORDS = {"lower": "lower bound", "upper": "upper bound"}


def _field_words(meta, name):
    """A changed field in words ("upper bound", "fee kind"), not its code ("upper", "fee_kind")."""
    if name in FIELD_WORDS:
        return FIELD_WORDS[name]
    try:
        return str(meta.get_field(name).verbose_name) if meta else name.replace("_", " ")
    except FieldDoesNotExist:
        return name.replace("_", " ")


def describe(action, data=None):
    """The sentence for an entry's action and data."""
    data = data if isinstance(data, dict) else {}
    words = WORDS.get(action)
    if words is not None:
        try:
            return words(data)
        except (KeyError, TypeError, AttributeError):  # an entry older than its words: the action alone
            pass
    return _record_change(action, data) or f"Recorded {action}."
