"""The small kinds, read whole and kept for the CSV and the report: establishments, schedule versions and
their changes, the change history, approvals and their conditions, postings, validation findings, sign prints."""

import datetime

from django.db.models import OuterRef, Q, Subquery

from cardroom.models import Approval, ApprovalCondition, Establishment
from compliance.models import Finding
from fees.engine import diff
from fees.models import FeeOption, FeeTier, ScheduleVersion, TablePosting
from signage.models import SignPrint

from .scope import utc


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
    compare page and the diff API match them (``fees.engine.diff``: tiers paired by what they are, not by row number)."""
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
