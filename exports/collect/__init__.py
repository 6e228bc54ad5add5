"""What goes into an audit export: one ``Kind`` per CSV file, its documented and typed columns, and its rows for an
``ExportScope`` (establishments and a period).

Rows are plain tuples read straight from the database in the columns' order. The large kinds (ledger entries,
rounds) are read in chunks through a server-side cursor and, on PostgreSQL, their CSV comes from
``COPY ... TO STDOUT``, so an export of any size streams with flat memory. Every timestamp is UTC, written
``YYYY-MM-DDTHH:MM:SS.ffffffZ``; amounts are decimal strings beside their currency.

The parts: ``scope`` (``ExportScope``, ``Kind``, the columns' ``Type``, ``utc``), ``records`` (the small kinds'
rows), ``ledger`` (the big kinds' rows, the rounds' pricings, fees per table and day), ``copysql`` (the COPY SQL and
CSV escaping); here, ``KINDS``: every kind in the order the bundle holds them, with its columns.
"""

from .copysql import (
    CSV_ESCAPING,
    ESCAPE_STARTS,
    ESCAPED,
    FORMULA_STARTS,
    TEXT_OIDS,
    UTC_TEXT,
    csv_copy_sql,
    entry_copy_sql,
    round_copy_sql,
    round_fee_line_copy_sql,
    use_copy,
)
from .ledger import (
    ENTRY_FIELDS,
    PRICINGS_FILE,
    PRICINGS_TITLE,
    ROUND_FIELDS,
    audit_rows,
    entry_rows,
    fee_day_rows,
    fees_by_day,
    pricing_records,
    round_fee_line_rows,
    round_rows,
)
from .records import (
    approval_rows,
    change_rows,
    condition_rows,
    establishment_rows,
    finding_rows,
    history_rows,
    posting_rows,
    print_rows,
    version_rows,
)
from .scope import (
    BOOLEAN,
    CHUNK,
    COUNT,
    DECIMAL,
    GAMING_DAY,
    INTEGER,
    JSON,
    LOCAL_DAY,
    MONEY,
    ROUND_MONEY,
    TEXT,
    TIMESTAMP,
    ExportScope,
    Kind,
    Type,
    utc,
)

KINDS = [
    Kind("establishments", "Establishments covered", [
        ("slug", "The establishment's key"), ("name", "Name"), ("jurisdiction", "Jurisdiction code"),
        ("kind", "card_room, tribal_casino or casino"), ("licence_number", "Licence number"),
        ("address", "Address"), ("is_demo", "true for made-up demo data", BOOLEAN)], establishment_rows),
    Kind("schedule_versions", "Collection schedules: published versions in force during the period", [
        ("code", "Schedule document code"), ("title", "Document title"), ("jurisdiction", "Jurisdiction code"),
        ("establishment", "Establishment slug; empty for a jurisdiction-wide schedule"),
        ("version", "Version number", INTEGER),
        ("effective_from", "Effective date; empty where the source states none", LOCAL_DAY),
        ("in_force_at_end", "true for the version in force on the last day of the period", BOOLEAN),
        ("reason", "Why the version exists (the draft's reason)"),
        ("published_by", "Who published it: the second officer, who approved it"),
        ("published_at", "When (UTC): it entered the record then", TIMESTAMP),
        ("source", "Source document and citation"),
        ("in_force_at_end_as_known_then",
         "true for the version the record showed in force on the last day, as the record stood at the end of the "
         "period (before any later retroactive change)", BOOLEAN),
        ("retroactive", "true if it took effect before it was published", BOOLEAN),
        ("retroactive_reason", "Why it reaches back before its publication"),
        ("publication_reason", "Why it was published, as said when publication was asked for"),
        ("requested_by", "Who asked for it to be published")], version_rows),
    Kind("schedule_changes", "Schedule changes published in the period, old and new values side by side", [
        ("code", "Schedule document code"), ("version", "The version published", INTEGER),
        ("replaces_version", "The version it was based on; empty for a first version", INTEGER),
        ("effective_from", "Its effective date", LOCAL_DAY),
        ("published_at", "When it was published (UTC)", TIMESTAMP),
        ("published_by", "Who published it"), ("reason", "Why (the version's reason)"),
        ("option", "Option number", INTEGER),
        ("tier", "Tier position within the option; empty for an option field", INTEGER),
        ("field", "option.<field> or tier.<field>"), ("old", "Value in the replaced version; empty if new"),
        ("new", "Value in the published version; empty if removed")], change_rows),
    Kind("history", "Edits recorded in the change history during the period (who, when, why, old, new)", [
        ("at", "When (UTC)", TIMESTAMP), ("by", "Who"), ("reason", "The reason given"),
        ("object", "version, option or tier"), ("object_id", "Its id", INTEGER),
        ("change", "created, changed or deleted"), ("field", "Field changed; empty for a creation or deletion"),
        ("old", "Old value"), ("new", "New value")], history_rows),
    Kind("approvals", "Game approvals that apply to the establishments", [
        ("key", "Approval key"), ("game", "Game name"), ("registration_number", "Game registration number"),
        ("jurisdiction", "Jurisdiction code"), ("establishment", "Establishment slug; empty if jurisdiction-wide"),
        ("scope", "Who it applies to"), ("status", "approved, trial, revoked, ..."),
        ("reference", "Letter, registration or trial reference"),
        ("decided_on", "Date of the decision", LOCAL_DAY), ("effective_from", "Effective date", LOCAL_DAY),
        ("expires_on", "Expiry date", LOCAL_DAY), ("trial_ends_on", "End of a trial", LOCAL_DAY),
        ("licensee", "Granted to"), ("source", "Source document and citation")], approval_rows),
    Kind("approval_conditions", "Conditions of those approvals", [
        ("approval", "Approval key"), ("order", "Position in the letter", INTEGER),
        ("text", "The condition as written"), ("applies_to", "Who it applies to"),
        ("status", "outstanding, met, ..."), ("citation", "Where it is written")], condition_rows),
    Kind("postings", "Table postings shown during the period", [
        ("id", "Posting id", INTEGER), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("game", "Game"), ("schedule", "Schedule code"), ("option", "Option number", INTEGER),
        ("min_wager", "Posted minimum", MONEY), ("max_wager", "Posted maximum", MONEY),
        ("currency", "Currency of the amounts"), ("seats", "Seats open", COUNT),
        ("bonus_limits", "Bonus bet limits as bet: minimum-maximum (paytable number, house-banked); ..."),
        ("rules", "House-banked posting without a schedule: the approved rules version"),
        ("decks", "House-banked posting: decks dealt", COUNT),
        ("aggregate_payout_limit", "House-banked posting: aggregate payout limit (WAC 230-15-490), if set", MONEY),
        ("effective_from", "In force from (UTC)", TIMESTAMP),
        ("superseded_at", "Superseded at (UTC); empty if still in force", TIMESTAMP),
        ("errors", "Error findings when saved", COUNT), ("warnings", "Warnings when saved", COUNT),
        ("override_reason", "A compliance officer's reason for printing despite errors"),
        ("override_by", "Who asked for the override"), ("override_approved_by", "The second officer who approved it"),
        ("notes", "Notes shown on the sign")], posting_rows),
    Kind("findings", "Validation findings of runs in the period, and how they were handled", [
        ("id", "Finding id", INTEGER), ("run", "Validation run id", INTEGER),
        ("run_kind", "posting, establishment, schedule, ..."), ("as_of", "Day the rules were applied for", LOCAL_DAY),
        ("run_at", "When the run happened (UTC)", TIMESTAMP), ("rule", "Rule"),
        ("severity", "error, warning or info"), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("posting", "Posting id", INTEGER), ("schedule", "Schedule code"),
        ("schedule_version", "Version number", INTEGER), ("option", "Option number", INTEGER),
        ("message", "What was found"), ("citation", "The rule's source"),
        ("acknowledged_at", "When it was acknowledged (UTC)", TIMESTAMP), ("acknowledged_by", "By whom"),
        ("acknowledgement_reason", "Why")], finding_rows),
    Kind("ledger_entries", "Collection entries (what was collected), every row", [
        ("id", "Entry id", INTEGER), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("gaming_day", "Gaming day", GAMING_DAY), ("reference", "Hand or round"),
        ("collected_at", "When (UTC)", TIMESTAMP), ("payer", "Who paid"), ("seat", "Betting position", INTEGER),
        ("player", "Player"), ("fee_kind", "Fee kind"), ("amount", "Amount collected", MONEY),
        ("currency", "Currency"), ("corrects", "Entry id this one corrects", INTEGER),
        ("reason", "Reason for a correction"), ("idempotency_key", "The recorder's key"),
        ("recorded_at", "When recorded (UTC)", TIMESTAMP)], entry_rows, entry_copy_sql, big=True),
    Kind("rounds", "Rounds of play and the fee each was expected to pay, every row", [
        ("id", "Round id", INTEGER), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("gaming_day", "Gaming day", GAMING_DAY), ("reference", "Hand or round"),
        ("played_at", "When (UTC)", TIMESTAMP), ("posting", "Posting in force", INTEGER),
        ("schedule", "Schedule code"), ("schedule_version", "Version", INTEGER), ("option", "Option", INTEGER),
        ("pricing", "What it was priced under, shared with the other rounds of its version and option: the id of a "
                    "record of round_pricings.json; empty for a round not priced by the fee engine", INTEGER),
        ("expected_total", "Fees expected", MONEY), ("currency", "Currency")],
         round_rows, round_copy_sql, big=True),
    Kind("round_fee_lines", "The rounds' fee lines: what each round was expected to pay, line by line", [
        ("round", "Round id (rounds.csv)", INTEGER), ("line", "Line number within the round, from 1", INTEGER),
        ("payer", "Who pays it (player, banker, ...)"), ("player", "The player it is for; empty for none"),
        ("fee_kind", "Fee kind"), ("measure", "What the fee is measured on (base_wager, player_wager, ...)"),
        ("tier", "The tier that applied: its position in the option, among the tiers of the round's pricing "
                 "(round_pricings.json); empty for none", INTEGER),
        ("measured", "The amount measured, as measure says; empty where nothing was measured", DECIMAL),
        ("fee", "The fee, in the round's currency (rounds.csv)", ROUND_MONEY),
        ("note", "The fee engine's note on the line; empty for none")],
         round_fee_line_rows, round_fee_line_copy_sql, big=True, order=("round", "line")),
    Kind("fees_by_table_day", "Fees expected vs collected per table and gaming day", [
        ("gaming_day", "Gaming day", GAMING_DAY), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("expected", "Sum of the rounds' expected fees", MONEY),
        ("collected", "Sum of the entries collected (corrected entries replaced by their corrections)", MONEY),
        ("difference", "Collected minus expected", MONEY), ("currency", "Currency")], fee_day_rows),
    Kind("sign_prints", "Table signs printed and reprinted in the period", [
        ("id", "Print id", INTEGER), ("printed_at", "When (UTC)", TIMESTAMP),
        ("establishment", "Establishment slug"), ("table", "Table label"), ("posting", "Posting id", INTEGER),
        ("schedule", "Schedule code"), ("option", "Option", INTEGER),
        ("number", "1 for the first print of the posting, then 2, 3, ...", INTEGER),
        ("reprint", "true from the second", BOOLEAN), ("layout", "letter or tent"),
        ("channel", "api, admin, command or batch"), ("printed_by", "Who"), ("job", "Batch job id"),
        ("override_reason", "The override printed under, if any")], print_rows),
    Kind("audit_log", "Audit-log entries of the establishments in the period, with their chain hashes", [
        ("chain", "Hash chain (one per establishment)"), ("sequence", "Position in the chain", INTEGER),
        ("created_at", "When (UTC)", TIMESTAMP), ("establishment", "Establishment slug"),
        ("actor", "Who or which command"), ("action", "What was done"), ("object_type", "Model"),
        ("object_id", "Id"), ("object", "Description"), ("data", "Details (JSON)", JSON),
        ("prev_hash", "Hash of the entry before in the chain"),
        ("entry_hash", "This entry's hash (covers its content and prev_hash)"),
        ("actor_id", "The user's id (hashed with the entry; empty for a command)", INTEGER),
        ("establishment_id", "The establishment's id (hashed with the entry)", INTEGER),
        ("jurisdiction_id", "The jurisdiction's id (hashed with the entry), if any", INTEGER)], audit_rows, big=True),
]


__all__ = [
    "BOOLEAN", "CHUNK", "COUNT", "CSV_ESCAPING", "DECIMAL", "ENTRY_FIELDS", "ESCAPED", "ESCAPE_STARTS", "ExportScope",
    "FORMULA_STARTS", "GAMING_DAY", "INTEGER", "JSON", "KINDS", "Kind", "LOCAL_DAY", "MONEY", "PRICINGS_FILE",
    "PRICINGS_TITLE", "ROUND_FIELDS", "ROUND_MONEY", "TEXT", "TEXT_OIDS", "TIMESTAMP", "Type", "UTC_TEXT",
    "approval_rows", "audit_rows", "change_rows", "condition_rows", "csv_copy_sql", "entry_copy_sql", "entry_rows",
    "establishment_rows", "fee_day_rows", "fees_by_day", "finding_rows", "history_rows", "posting_rows",
    "pricing_records", "print_rows", "round_copy_sql", "round_fee_line_copy_sql", "round_fee_line_rows", "round_rows",
    "use_copy", "utc", "version_rows",
]
