"""What goes into an audit export: one ``Kind`` per file pair (CSV and JSON), its documented columns, and its
rows for an ``ExportScope`` (establishments and a period).

Rows are plain tuples read straight from the database in the columns' order. The large kinds (ledger entries,
rounds) are read in chunks through a server-side cursor and, on PostgreSQL, their CSV comes from
``COPY ... TO STDOUT``, so an export of any size streams with flat memory. Every timestamp is UTC, written
``YYYY-MM-DDTHH:MM:SS.ffffffZ``; amounts are decimal strings beside their currency.
"""

import datetime
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import connection
from django.db.models import Exists, OuterRef, Q, Subquery, Sum
from django.utils import timezone

from cardroom.models import (
    Approval,
    ApprovalCondition,
    AuditLogEntry,
    Establishment,
    Table,
)
from cardroom.money import CENT
from cardroom.ordering import natural
from compliance.models import Finding
from fees import diff
from fees.models import (
    CollectionEntry,
    FeeOption,
    FeeTier,
    RoundOfPlay,
    ScheduleDocument,
    ScheduleVersion,
    TablePosting,
)
from signage.models import SignPrint

CHUNK = 5_000
# A text cell beginning with one of these is one a spreadsheet would run as a formula (OWASP, CSV injection): the
# CSV files write it with a ' before it (exports.build.csv_cell, csv_copy_sql); the JSON files keep the exact text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_ESCAPING = ("A text cell that begins with =, +, -, @, a tab or a carriage return is written in the CSV file with a "
                "single quote (') before it, so that a spreadsheet shows it as text instead of running it as a "
                "formula (OWASP, CSV injection); the JSON file holds the exact text. Numbers (a negative amount "
                "such as -5.00), dates and booleans are never changed.")


@dataclass
class ExportScope:
    establishments: list  # Establishment objects
    start: datetime.date | None  # None: from the beginning ("as of" the end)
    end: datetime.date
    jurisdiction: object = None  # set when the export covers a whole jurisdiction
    # Fixed when the export starts (``freeze``), so the CSV and JSON of a kind hold the same rows even while
    # the floor goes on recording: the last ledger entry and round, and each audit chain's head.
    last_entry: int = 0
    last_round: int = 0
    chain_heads: dict = field(default_factory=dict)  # chain name -> (sequence, entry_hash)
    small_rows: dict = field(default_factory=dict, repr=False)  # kind name -> its rows, read once (``rows``)

    def freeze(self):
        from cardroom.audit import chain_head, chain_name

        self.small_rows = {}
        self.freeze_ledger()
        self.chain_heads = {chain_name(e): chain_head(e) for e in self.establishments}
        return self

    def freeze_ledger(self):
        """Fix the last ledger entry and round read (all that the ledger's kinds need)."""
        from django.db.models import Max

        self.last_entry = CollectionEntry.objects.aggregate(m=Max("id"))["m"] or 0
        self.last_round = RoundOfPlay.objects.aggregate(m=Max("id"))["m"] or 0
        return self

    def rows(self, kind):
        """The rows of ``kind`` in the scope: a small kind's are read once and kept for its CSV, its JSON and the
        report (fees per table and day sums the whole ledger); a big kind's are streamed each time."""
        if kind.big:
            return kind.rows(self)
        if kind.name not in self.small_rows:
            self.small_rows[kind.name] = list(kind.rows(self))
        return self.small_rows[kind.name]

    @property
    def start_moment(self):
        if self.start is None:
            return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return timezone.make_aware(datetime.datetime.combine(self.start, datetime.time.min))

    @property
    def end_moment(self):
        """The first moment after the period (the period is whole local days)."""
        return timezone.make_aware(datetime.datetime.combine(self.end + datetime.timedelta(days=1),
                                                             datetime.time.min))

    @property
    def establishment_ids(self):
        return [e.pk for e in self.establishments]

    @property
    def jurisdiction_ids(self):
        return sorted({e.jurisdiction_id for e in self.establishments})

    def tables(self):
        return Table.objects.filter(establishment__in=self.establishment_ids)

    def documents(self):
        return ScheduleDocument.objects.filter(
            Q(establishment__in=self.establishment_ids)
            | Q(establishment__isnull=True, jurisdiction__in=self.jurisdiction_ids))

    def describe(self):
        what = (f"jurisdiction {self.jurisdiction.code}" if self.jurisdiction is not None
                else ", ".join(e.slug for e in self.establishments))
        period = f"{self.start} to {self.end}" if self.start else f"as of {self.end}"
        return f"{what}, {period}"


@dataclass
class Kind:
    name: str
    title: str
    columns: list  # (name, description)
    rows: object  # rows(scope) -> iterator of tuples
    copy_sql: object = None  # copy_sql(scope) -> SQL of a SELECT whose columns are ``columns`` (PostgreSQL)
    big: bool = False  # streamed in chunks; the report shows counts, not rows
    notes: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def column_names(self):
        return [c[0] for c in self.columns]


def utc(moment):
    if moment is None:
        return None
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _iterate(queryset, fields):
    return queryset.values_list(*fields).iterator(chunk_size=CHUNK)


# -- the kinds -----------------------------------------------------------------------------------------------------


def establishment_rows(scope):
    for e in Establishment.objects.filter(pk__in=scope.establishment_ids).select_related("jurisdiction"):
        yield (e.slug, e.name, e.jurisdiction.code, e.kind, e.licence_number, e.address, e.is_demo)


def version_rows(scope):
    versions = (ScheduleVersion.objects.filter(document__in=scope.documents(), status="published")
                .filter(Q(effective_from__isnull=True) | Q(effective_from__lte=scope.end))
                .select_related("document__jurisdiction", "document__establishment", "document__source",
                                "published_by", "review_requested_by")
                .order_by("document__code", "number"))
    # Both timelines: in force on the last day as the record stands now, and as it stood when the period ended
    # (they differ where a retroactive version was published after the period).
    in_force, known_then = {}, {}
    for v in versions:
        for found, counts in ((in_force, True), (known_then, v.published_at < scope.end_moment)):
            current = found.get(v.document_id)
            if counts and (current is None or (v.effective_from or datetime.date.min, v.number) >= (
                    current.effective_from or datetime.date.min, current.number)):
                found[v.document_id] = v
    for v in versions:
        d = v.document
        yield (d.code, d.title, d.jurisdiction.code, d.establishment.slug if d.establishment else None, v.number,
               v.effective_from, in_force[d.pk].pk == v.pk, v.reason,
               v.published_by.get_username() if v.published_by else None, utc(v.published_at),
               f"{d.source.title}, {d.citation}", getattr(known_then.get(d.pk), "pk", None) == v.pk,
               v.retroactive, v.retroactive_reason or None, v.publication_reason or None,
               v.review_requested_by.get_username() if v.review_requested_by else None)


def change_rows(scope):
    """Every version published in the period beside the one it replaced: each changed value, old and new, as the
    compare page and the diff API match them (``fees.diff``: tiers paired by what they are, not by row number)."""
    published = (ScheduleVersion.objects.filter(document__in=scope.documents(), status="published",
                                                published_at__gte=scope.start_moment,
                                                published_at__lt=scope.end_moment)
                 .select_related("document", "published_by", "based_on").order_by("published_at", "id"))
    for version in published:
        before = version.based_on or version.document.versions.filter(
            status="published", number__lt=version.number).order_by("-number").first()
        head = (version.document.code, version.number, before.number if before else None, version.effective_from,
                utc(version.published_at), version.published_by.get_username() if version.published_by else None,
                version.reason)
        changes = diff.diff_versions(before.diff_records() if before else [], version.diff_records())
        for option in changes.changed:
            if option.status == diff.CHANGED:
                fields = option.fields
            else:  # a whole option added or removed: each value it has
                record = option.new or option.old
                fields = [(name, None, record[name]) if option.new else (name, record[name], None)
                          for name in diff.OPTION_FIELDS if record.get(name) not in (None, "")]
            for name, old, new in fields:
                yield head + (option.number, None, f"option.{name}", old, new)
            for tier in option.tiers:
                if tier.status == diff.SAME:
                    continue
                order = (tier.new or tier.old)["order"]
                for name in tier.fields:
                    yield head + (option.number, order, f"tier.{name}", (tier.old or {}).get(name),
                                  (tier.new or {}).get(name))


def history_rows(scope):
    """Field-level edits recorded in the history in the period (drafts edited, versions published)."""
    versions = ScheduleVersion.objects.filter(document__in=scope.documents())
    options = FeeOption.objects.filter(version__in=versions)
    sources = (
        (ScheduleVersion.history.filter(document__in=scope.documents()), "version"),
        (FeeOption.history.filter(version__in=versions), "option"),
        (FeeTier.history.filter(option__in=options), "tier"),
    )
    for queryset, what in sources:
        records = (queryset.filter(history_date__gte=scope.start_moment, history_date__lt=scope.end_moment)
                   .select_related("history_user").order_by("history_date", "history_id"))
        for record in records:
            who = record.history_user.get_username() if record.history_user else None
            kind = {"+": "created", "~": "changed", "-": "deleted"}[record.history_type]
            previous = record.prev_record if record.history_type == "~" else None
            changes = previous and record.diff_against(previous).changes
            if changes:
                for change in changes:
                    yield (utc(record.history_date), who, record.history_change_reason, what, record.id, kind,
                           change.field, change.old, change.new)
            else:
                yield (utc(record.history_date), who, record.history_change_reason, what, record.id, kind,
                       None, None, None)


def approval_rows(scope):
    for a in _approvals(scope):
        yield (a.key, a.game.name, a.game.registration_number, a.jurisdiction.code,
               a.establishment.slug if a.establishment else None, a.scope, a.status, a.reference, a.decided_on,
               a.effective_from, a.expires_on, a.trial_ends_on, a.licensee, f"{a.source.title}, {a.citation}")


def _approvals(scope):
    return (Approval.objects.filter(Q(establishment__in=scope.establishment_ids)
                                    | Q(establishment__isnull=True, jurisdiction__in=scope.jurisdiction_ids))
            .select_related("game", "jurisdiction", "establishment", "source").order_by("key"))


def condition_rows(scope):
    conditions = ApprovalCondition.objects.filter(approval__in=_approvals(scope)).select_related("approval")
    for c in conditions.order_by("approval__key", "order"):
        yield (c.approval.key, c.order, c.text, c.applies_to, c.status, c.citation)


def posting_rows(scope):
    """Every posting shown during the period: those taking effect in it and the one in force at its start."""
    later = TablePosting.objects.filter(table=OuterRef("table"), effective_from__gt=OuterRef("effective_from"))
    postings = (TablePosting.objects.filter(table__in=scope.tables(), effective_from__lt=scope.end_moment)
                .annotate(superseded_at=Subquery(later.order_by("effective_from").values("effective_from")[:1]))
                .filter(Q(superseded_at__isnull=True) | Q(superseded_at__gt=scope.start_moment))
                .select_related("table__establishment__jurisdiction", "game", "schedule", "rules")
                .prefetch_related("bonus_limits__paytable", "validation_runs", "print_overrides__requested_by",
                                  "print_overrides__decided_by")
                .order_by("table__establishment__slug", "table__label", "effective_from"))
    for p in postings:
        runs = [r for r in p.validation_runs.all() if r.kind == "posting"]
        run = max(runs, key=lambda r: (r.created_at, r.pk)) if runs else None
        overrides = sorted((o for o in p.print_overrides.all() if o.is_approved), key=lambda o: o.decided_at)
        yield (p.pk, p.table.establishment.slug, p.table.label, p.game.name,
               p.schedule.code if p.schedule_id else None, p.option_number,
               p.min_wager, p.max_wager, p.currency, p.seats,
               "; ".join(f"{b.bet}: {b.minimum or ''}-{b.maximum}"
                         + (f" (paytable {b.paytable.number})" if b.paytable_id else "") for b in p.bonus_limits.all()),
               p.rules.version if p.rules_id else None, p.decks, p.aggregate_payout_limit,
               utc(p.effective_from), utc(p.superseded_at), run.errors if run else None,
               run.warnings if run else None,
               overrides[-1].reason if overrides else None,
               overrides[-1].requested_by.get_username() if overrides else None,
               overrides[-1].decided_by.get_username() if overrides else None, p.notes)


def finding_rows(scope):
    findings = (Finding.objects.filter(run__created_at__gte=scope.start_moment, run__created_at__lt=scope.end_moment)
                .filter(Q(establishment__in=scope.establishment_ids) | Q(schedule__in=scope.documents()))
                .select_related("run", "establishment", "table", "schedule", "schedule_version",
                                "acknowledged_by")
                .order_by("run__created_at", "id"))
    for f in findings:
        yield (f.pk, f.run_id, f.run.kind, f.run.as_of, utc(f.run.created_at), f.rule, f.severity,
               f.establishment.slug if f.establishment else None, f.table.label if f.table else None,
               f.posting_id, f.schedule.code if f.schedule else None,
               f.schedule_version.number if f.schedule_version else None, f.option_number, f.message, f.citation,
               utc(f.acknowledged_at), f.acknowledged_by.get_username() if f.acknowledged_by else None,
               f.acknowledgement_reason or None)


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


def _sql_scope(scope, alias, last_id, day_column="gaming_day"):
    from psycopg import sql

    # A jurisdiction with no establishments exports no rows (IN () is no SQL; IN (NULL) matches nothing).
    ids = sql.SQL(", ").join(sql.Literal(i) for i in scope.establishment_ids or [None])
    parts = [sql.SQL("t.establishment_id IN ({})").format(ids),
             sql.SQL("{}.id <= {}").format(sql.Identifier(alias), sql.Literal(last_id)),
             sql.SQL("{}.{} <= {}").format(sql.Identifier(alias), sql.Identifier(day_column), sql.Literal(scope.end))]
    if scope.start:
        parts.append(sql.SQL("{}.{} >= {}").format(sql.Identifier(alias), sql.Identifier(day_column),
                                                   sql.Literal(scope.start)))
    return sql.SQL(" AND ").join(parts)


UTC_TEXT = "to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"


def entry_copy_sql(scope):
    from psycopg import sql

    return sql.SQL(
        "SELECT c.id, e.slug, t.label, c.gaming_day, c.reference, " + UTC_TEXT.format("c.collected_at") + ", "
        "c.payer, c.seat, c.player, c.fee_kind, c.amount, c.currency, c.corrects_id, c.reason, "
        "c.idempotency_key, " + UTC_TEXT.format("c.recorded_at") + " "
        "FROM fees_collectionentry c JOIN cardroom_table t ON t.id = c.table_id "
        "JOIN cardroom_establishment e ON e.id = t.establishment_id WHERE {} ORDER BY c.id"
    ).format(_sql_scope(scope, "c", scope.last_entry))


def _rounds(scope):
    query = RoundOfPlay.objects.filter(table__establishment__in=scope.establishment_ids, gaming_day__lte=scope.end,
                                       id__lte=scope.last_round)
    return query.filter(gaming_day__gte=scope.start) if scope.start else query


ROUND_FIELDS = ["id", "table__establishment__slug", "table__label", "gaming_day", "reference", "played_at",
                "posting_id", "schedule_code", "schedule_version", "option_number", "expected_total", "currency"]


def round_rows(scope):
    for row in _iterate(_rounds(scope).order_by("id"), ROUND_FIELDS):
        yield row[:5] + (utc(row[5]),) + row[6:]


def round_copy_sql(scope):
    from psycopg import sql

    return sql.SQL(
        "SELECT r.id, e.slug, t.label, r.gaming_day, r.reference, " + UTC_TEXT.format("r.played_at") + ", "
        "r.posting_id, r.schedule_code, r.schedule_version, r.option_number, r.expected_total, r.currency "
        "FROM fees_roundofplay r JOIN cardroom_table t ON t.id = r.table_id "
        "JOIN cardroom_establishment e ON e.id = t.establishment_id WHERE {} ORDER BY r.id"
    ).format(_sql_scope(scope, "r", scope.last_round))


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


def print_rows(scope):
    prints = (SignPrint.objects.filter(posting__table__in=scope.tables(), printed_at__gte=scope.start_moment,
                                       printed_at__lt=scope.end_moment)
              .select_related("posting__table__establishment", "posting__schedule", "job", "override")
              .order_by("printed_at", "id"))
    for p in prints:
        yield (p.pk, utc(p.printed_at), p.posting.table.establishment.slug, p.posting.table.label, p.posting_id,
               p.posting.schedule.code if p.posting.schedule_id else None, p.posting.option_number, p.number,
               p.is_reprint, p.layout, p.channel,
               p.printed_label, str(p.job.uuid) if p.job else None, p.override.reason if p.override else None)


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


KINDS = [
    Kind("establishments", "Establishments covered", [
        ("slug", "The establishment's key"), ("name", "Name"), ("jurisdiction", "Jurisdiction code"),
        ("kind", "card_room, tribal_casino or casino"), ("licence_number", "Licence number"),
        ("address", "Address"), ("is_demo", "true for made-up demo data")], establishment_rows),
    Kind("schedule_versions", "Collection schedules: published versions in force during the period", [
        ("code", "Schedule document code"), ("title", "Document title"), ("jurisdiction", "Jurisdiction code"),
        ("establishment", "Establishment slug; empty for a jurisdiction-wide schedule"),
        ("version", "Version number"), ("effective_from", "Effective date; empty where the source states none"),
        ("in_force_at_end", "true for the version in force on the last day of the period"),
        ("reason", "Why the version exists (the draft's reason)"),
        ("published_by", "Who published it: the second officer, who approved it"),
        ("published_at", "When (UTC): it entered the record then"), ("source", "Source document and citation"),
        ("in_force_at_end_as_known_then",
         "true for the version the record showed in force on the last day, as the record stood at the end of the "
         "period (before any later retroactive change)"),
        ("retroactive", "true if it took effect before it was published"),
        ("retroactive_reason", "Why it reaches back before its publication"),
        ("publication_reason", "Why it was published, as said when publication was asked for"),
        ("requested_by", "Who asked for it to be published")], version_rows),
    Kind("schedule_changes", "Schedule changes published in the period, old and new values side by side", [
        ("code", "Schedule document code"), ("version", "The version published"),
        ("replaces_version", "The version it was based on; empty for a first version"),
        ("effective_from", "Its effective date"), ("published_at", "When it was published (UTC)"),
        ("published_by", "Who published it"), ("reason", "Why (the version's reason)"),
        ("option", "Option number"), ("tier", "Tier position within the option; empty for an option field"),
        ("field", "option.<field> or tier.<field>"), ("old", "Value in the replaced version; empty if new"),
        ("new", "Value in the published version; empty if removed")], change_rows),
    Kind("history", "Edits recorded in the change history during the period (who, when, why, old, new)", [
        ("at", "When (UTC)"), ("by", "Who"), ("reason", "The reason given"),
        ("object", "version, option or tier"), ("object_id", "Its id"), ("change", "created, changed or deleted"),
        ("field", "Field changed; empty for a creation or deletion"), ("old", "Old value"), ("new", "New value")],
         history_rows),
    Kind("approvals", "Game approvals that apply to the establishments", [
        ("key", "Approval key"), ("game", "Game name"), ("registration_number", "Game registration number"),
        ("jurisdiction", "Jurisdiction code"), ("establishment", "Establishment slug; empty if jurisdiction-wide"),
        ("scope", "Who it applies to"), ("status", "approved, trial, revoked, ..."),
        ("reference", "Letter, registration or trial reference"), ("decided_on", "Date of the decision"),
        ("effective_from", "Effective date"), ("expires_on", "Expiry date"), ("trial_ends_on", "End of a trial"),
        ("licensee", "Granted to"), ("source", "Source document and citation")], approval_rows),
    Kind("approval_conditions", "Conditions of those approvals", [
        ("approval", "Approval key"), ("order", "Position in the letter"), ("text", "The condition as written"),
        ("applies_to", "Who it applies to"), ("status", "outstanding, met, ..."),
        ("citation", "Where it is written")], condition_rows),
    Kind("postings", "Table postings shown during the period", [
        ("id", "Posting id"), ("establishment", "Establishment slug"), ("table", "Table label"), ("game", "Game"),
        ("schedule", "Schedule code"), ("option", "Option number"), ("min_wager", "Posted minimum"),
        ("max_wager", "Posted maximum"), ("currency", "Currency of the amounts"), ("seats", "Seats open"),
        ("bonus_limits", "Bonus bet limits as bet: minimum-maximum (paytable number, house-banked); ..."),
        ("rules", "House-banked posting without a schedule: the approved rules version"),
        ("decks", "House-banked posting: decks dealt"),
        ("aggregate_payout_limit", "House-banked posting: aggregate payout limit (WAC 230-15-490), if set"),
        ("effective_from", "In force from (UTC)"), ("superseded_at", "Superseded at (UTC); empty if still in force"),
        ("errors", "Error findings when saved"), ("warnings", "Warnings when saved"),
        ("override_reason", "A compliance officer's reason for printing despite errors"),
        ("override_by", "Who asked for the override"), ("override_approved_by", "The second officer who approved it"),
        ("notes", "Notes shown on the sign")], posting_rows),
    Kind("findings", "Validation findings of runs in the period, and how they were handled", [
        ("id", "Finding id"), ("run", "Validation run id"), ("run_kind", "posting, establishment, schedule, ..."),
        ("as_of", "Day the rules were applied for"), ("run_at", "When the run happened (UTC)"),
        ("rule", "Rule"), ("severity", "error, warning or info"), ("establishment", "Establishment slug"),
        ("table", "Table label"), ("posting", "Posting id"), ("schedule", "Schedule code"),
        ("schedule_version", "Version number"), ("option", "Option number"), ("message", "What was found"),
        ("citation", "The rule's source"), ("acknowledged_at", "When it was acknowledged (UTC)"),
        ("acknowledged_by", "By whom"), ("acknowledgement_reason", "Why")], finding_rows),
    Kind("ledger_entries", "Collection entries (what was collected), every row", [
        ("id", "Entry id"), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("gaming_day", "Gaming day"), ("reference", "Hand or round"), ("collected_at", "When (UTC)"),
        ("payer", "Who paid"), ("seat", "Betting position"), ("player", "Player"), ("fee_kind", "Fee kind"),
        ("amount", "Amount collected"), ("currency", "Currency"), ("corrects", "Entry id this one corrects"),
        ("reason", "Reason for a correction"), ("idempotency_key", "The recorder's key"),
        ("recorded_at", "When recorded (UTC)")], entry_rows, entry_copy_sql, big=True),
    Kind("rounds", "Rounds of play and the fee each was expected to pay, every row", [
        ("id", "Round id"), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("gaming_day", "Gaming day"), ("reference", "Hand or round"), ("played_at", "When (UTC)"),
        ("posting", "Posting in force"), ("schedule", "Schedule code"), ("schedule_version", "Version"),
        ("option", "Option"), ("expected_total", "Fees expected"), ("currency", "Currency")],
         round_rows, round_copy_sql, big=True),
    Kind("fees_by_table_day", "Fees expected vs collected per table and gaming day", [
        ("gaming_day", "Gaming day"), ("establishment", "Establishment slug"), ("table", "Table label"),
        ("expected", "Sum of the rounds' expected fees"),
        ("collected", "Sum of the entries collected (corrected entries replaced by their corrections)"),
        ("difference", "Collected minus expected"), ("currency", "Currency")], fee_day_rows),
    Kind("sign_prints", "Table signs printed and reprinted in the period", [
        ("id", "Print id"), ("printed_at", "When (UTC)"), ("establishment", "Establishment slug"),
        ("table", "Table label"), ("posting", "Posting id"), ("schedule", "Schedule code"), ("option", "Option"),
        ("number", "1 for the first print of the posting, then 2, 3, ..."), ("reprint", "true from the second"),
        ("layout", "letter or tent"), ("channel", "api, admin, command or batch"), ("printed_by", "Who"),
        ("job", "Batch job id"), ("override_reason", "The override printed under, if any")], print_rows),
    Kind("audit_log", "Audit-log entries of the establishments in the period, with their chain hashes", [
        ("chain", "Hash chain (one per establishment)"), ("sequence", "Position in the chain"),
        ("created_at", "When (UTC)"), ("establishment", "Establishment slug"), ("actor", "Who or which command"),
        ("action", "What was done"), ("object_type", "Model"), ("object_id", "Id"), ("object", "Description"),
        ("data", "Details (JSON)"), ("prev_hash", "Hash of the entry before in the chain"),
        ("entry_hash", "This entry's hash (covers its content and prev_hash)"),
        ("actor_id", "The user's id (hashed with the entry; empty for a command)"),
        ("establishment_id", "The establishment's id (hashed with the entry)"),
        ("jurisdiction_id", "The jurisdiction's id (hashed with the entry), if any")], audit_rows, big=True),
]


def use_copy():
    return connection.vendor == "postgresql"


TEXT_OIDS = {18, 19, 25, 1042, 1043}  # PostgreSQL's "char", name, text, char(n), varchar
ESCAPED = "CASE WHEN left({0}, 1) IN ({1}) THEN '''' || {0} ELSE nullif({0}, '') END"


def csv_copy_sql(kind, scope):
    """``kind.copy_sql`` for its CSV file, byte for byte what the Python path writes (``build.csv_cell``): a text
    column's formula-like cell with a ' before it, an empty text as nothing (COPY would write ""); numbers and dates
    as they are. The JSON file's COPY reads ``kind.copy_sql`` itself: the exact text."""
    from psycopg import sql

    select = kind.copy_sql(scope)
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("SELECT * FROM ({}) s LIMIT 0").format(select))
        types = [column.type_code for column in cursor.description]
    names = kind.column_names
    starts = sql.SQL(", ").join(sql.Literal(c) for c in FORMULA_STARTS)
    cells = [sql.SQL(ESCAPED).format(sql.Identifier("s", c), starts) if oid in TEXT_OIDS else sql.Identifier("s", c)
             for c, oid in zip(names, types)]
    return sql.SQL("SELECT {} FROM ({}) s ({}) ORDER BY s.{}").format(
        sql.SQL(", ").join(cells), select, sql.SQL(", ").join(sql.Identifier(c) for c in names),
        sql.Identifier(names[0]))
