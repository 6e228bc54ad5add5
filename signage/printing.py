"""Printing signs: the print gate, the print record (first print or reprint, logged) and the PDF.

One function, ``print_signs``, serves the API, the admin, the command and the batch task, so every printed
sign is recorded the same way. A preview is watermarked and records nothing.
"""

import dataclasses
import datetime

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, Max, OuterRef, Q, Subquery
from django.utils import timezone

from cardroom.audit import log_action
from cardroom.exceptions import StateConflict
from cardroom.ordering import natural
from compliance.judgement import judge_postings
from fees.models import Interpretation, ScheduleVersion, TablePosting

from . import content, render
from .fit import overflow, stamp
from .models import PrintOverride, SignPrint
from .postings import PrintBlocked, print_permission

PREVIEW_BANNER = "PREVIEW - NOT FOR POSTING"


class SignDoesNotFit(StateConflict):
    """A posting's sign does not fit a layout even at the smallest readable size (becomes a 409): it was saved
    before postings were checked for this, or the fees in force grew since."""


def postings_in_force(tables, at):
    """The posting in force at each of ``tables`` at ``at`` (one query), keyed by table id."""
    postings = (TablePosting.objects.in_force_at(at).filter(table__in=tables)
                .select_related("table__establishment__jurisdiction", "game", "schedule"))
    return {p.table_id: p for p in postings}


def sign_states(postings, at, zone=None):
    """For each posting (keyed by id): how many signs were printed, when last, under which version of its schedule,
    and whether a print is due, and why, in words: never printed; out of date, the last sign printed under another
    version than the one in force at ``at`` (a newer one came into force since, so it no longer shows the fees); or
    changed since, a reading of its option (``fees.schedules.interpretations``) approved or withdrawn after the last print,
    which puts a notice on the sign or takes one off. Moments are compared, nothing is rendered.

    ``postings`` are postings or rows with ``pk``, ``schedule_id`` and ``option_number``; at most three queries
    whatever their number. Dates in the reasons are those of ``zone`` (the room's; default: the current zone).
    """
    postings = list(postings)
    last_print = SignPrint.objects.filter(posting=OuterRef("posting")).order_by("-number")
    printed = {row["posting"]: row for row in SignPrint.objects.filter(posting__in=[p.pk for p in postings])
               .order_by().values("posting").annotate(prints=Count("id"), last=Max("printed_at"),
                                                      version=Subquery(last_print.values("schedule_version")[:1]))}
    in_force = ScheduleVersion.objects.in_force_for({p.schedule_id for p in postings} - {None},
                                                     timezone.localdate(at))
    changes = _readings_changed(postings, printed, in_force, at)
    states = {}
    for posting in postings:
        record = printed.get(posting.pk)
        version = in_force.get(posting.schedule_id)
        printed_under = record and record["version"]
        out_of_date = record is not None and version is not None and printed_under != version.number
        changed = [] if record is None or version is None else [
            (status, moment) for status, moment in changes.get((version.pk, posting.option_number), ())
            if moment > record["last"]]
        why = "never printed" if record is None else ""
        if out_of_date:
            since = f" since {version.effective_from}" if version.effective_from else ""
            why = (f"printed under version {printed_under}" if printed_under else "printed with no version in force"
                   ) + f"; version {version.number} in force{since}: reprint it"
        elif changed:
            why = _changed_words(changed, zone)
        states[posting.pk] = {"prints": record["prints"] if record else 0, "last_printed": record and record["last"],
                              "printed_version": printed_under, "version": version, "out_of_date": out_of_date,
                              "changed": bool(changed) and not out_of_date, "reprint": bool(why), "why": why}
    return states


def _readings_changed(postings, printed, in_force, at):
    """``{(version id, option number): [(status, when decided)]}``: the readings of the versions in force that were
    approved, or withdrawn after being approved, after the earliest of the last prints and by ``at`` (one query;
    none when nothing printed has a version in force). A reading proposed, refused, or withdrawn before approval
    never reached a sign."""
    lasts = [printed[p.pk]["last"] for p in postings if p.pk in printed and p.schedule_id in in_force]
    if not lasts:
        return {}
    was_approved = Exists(Interpretation.history.filter(id=OuterRef("pk"), status=Interpretation.Status.APPROVED))
    rows = (Interpretation.objects.filter(version__in=[v.pk for v in in_force.values()], reviewed_at__gt=min(lasts),
                                          reviewed_at__lte=at)
            .filter(Q(status=Interpretation.Status.APPROVED) | Q(was_approved, status=Interpretation.Status.WITHDRAWN))
            .order_by("reviewed_at").values_list("version_id", "option_number", "status", "reviewed_at"))
    found = {}
    for version_id, option_number, status, moment in rows:
        found.setdefault((version_id, option_number), []).append((status, moment))
    return found


def _changed_words(changed, zone):
    """Why a sign changed since its print, from the readings decided since (oldest first), e.g. "a reading approved
    on 2026-11-26 adds a notice: reprint it"."""
    def day(moment):
        return timezone.localtime(moment, zone).date() if zone else timezone.localdate(moment)

    if len(changed) == 1:
        status, moment = changed[0]
        done = ("approved", "adds a notice") if status == Interpretation.Status.APPROVED else (
            "withdrawn", "takes a notice off")
        return f"a reading {done[0]} on {day(moment)} {done[1]}: reprint it"
    return (f"{len(changed)} readings approved or withdrawn since the last print (the latest on "
            f"{day(changed[-1][1])}) change its notices: reprint it")


@dataclasses.dataclass(frozen=True, slots=True)
class OverrideInUse:
    """An approved override a sign prints under, as the pages show it: plain values, not model objects (a 200-table
    floor read 200 overrides, their overridden findings and 400 users on every look)."""

    pk: int
    posting_id: int
    reason: str
    requested_by_name: str
    decided_by_name: str
    decided_at: datetime.datetime
    decision_reason: str


def overrides_in_use(posting_ids):
    """``{posting id: the approved override its sign prints under}`` (``OverrideInUse``) for many postings (one
    query; the latest approved where, unusually, there are several), with who asked and who approved."""
    found = {}
    for row in (PrintOverride.objects.filter(posting__in=list(posting_ids), status=PrintOverride.Status.APPROVED)
                .order_by("posting", "-decided_at", "-id")
                .values_list("pk", "posting_id", "reason", "requested_by__username", "decided_by__username",
                             "decided_at", "decision_reason")):
        if row[1] not in found:
            found[row[1]] = OverrideInUse(*row)
    return found


def upcoming_versions(postings, at):
    """The published versions of the postings' schedules that come into force after ``at``'s day, soonest first,
    each with the labels of the tables whose signs it will put out of date (one query): ``[(version, [label])]``.
    ``postings`` are display rows (``TablePosting.objects.display_rows``)."""
    tables = {}
    for posting in postings:
        if posting.schedule_id is not None:
            tables.setdefault(posting.schedule_id, []).append(posting.table__label)
    versions = (ScheduleVersion.objects.filter(document__in=list(tables), status=ScheduleVersion.Status.PUBLISHED,
                                               effective_from__gt=timezone.localdate(at))
                .select_related("document").order_by("effective_from", "document__code", "number"))
    return [(version, sorted(tables[version.document_id], key=natural)) for version in versions]


def _record(posting, number, layout, *, user, label, channel, job, override, version, at):
    record = SignPrint.objects.create(
        posting=posting, layout=layout, number=number, channel=channel, printed_label=label, printed_at=at,
        printed_by=user if user is not None and user.is_authenticated else None, job=job, override=override,
        schedule_version=version,
    )
    log_action("signage.reprint" if record.is_reprint else "signage.print", actor=user, actor_label=label,
               obj=posting, establishment=posting.table.establishment,
               data={"print": record.pk, "number": number, "layout": layout, "channel": channel,
                     "table": posting.table.label, "job": str(job.uuid) if job else None,
                     "override": override.pk if override else None, "schedule_version": version})
    return record


def print_signs(postings, layout, *, user=None, label="", channel, job=None, preview=False, on_progress=None,
                skipped=None):
    """Render one sign per posting into one PDF and record each print; returns (render.Rendered, [SignPrint]).

    Raises PrintBlocked before anything is printed if a posting needs an override it lacks. Signs are built
    one at a time as their pages are drawn, so ``on_progress(signs_done)`` reports real progress; the print
    records are written together at the end, so a failed render records nothing. A preview records nothing.
    A sign that does not fit its layout raises SignDoesNotFit, naming it and why; given a ``skipped`` list (a
    batch), it is left out and listed there instead, and the others print.
    """
    if layout not in render.LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(render.LAYOUTS)}, not {layout!r}.")
    label = label or (user.get_username() if user is not None and user.is_authenticated else "system")
    now = timezone.now()
    postings = list(postings)
    judged = {} if preview else judge_postings(postings, now)  # the postings as they stand now, in one go
    permissions = {p.pk: print_permission(p, judged[p.pk]) for p in postings if not preview}  # raises PrintBlocked
    printed = dict(SignPrint.objects.filter(posting__in=postings).values("posting").annotate(n=Count("id"))
                   .values_list("posting", "n"))
    numbers = {p.pk: printed.get(p.pk, 0) + 1 for p in postings}
    versions, built = {}, []  # the schedule version each sign shows, and the signs, as they are built

    def signs():
        for posting in postings:
            if preview:
                sign = content.sign_for(posting, at=now, watermark=PREVIEW_BANNER,
                                        stamp=f"Preview made {content.local(now)}; not a printed sign.")
            else:
                number = numbers[posting.pk]
                sign = content.sign_for(posting, at=now, stamp=stamp(number, now, label),
                                        banner="REPRINT" if number > 1 else "")
                versions[posting.pk] = sign.schedule_version or None  # 0: a house-banked sign, or no version
            built.append(sign)
            yield sign

    rendered = render.render(signs(), layout, title="Table signs", on_page=on_progress, skip_overflow=True)
    left_out = [{"table": postings[i].table.label, "posting": postings[i].pk,
                 "reason": f"Its sign does not fit the {layout} layout. {overflow(built[i], [layout])}"}
                for i, _ in rendered.skipped]
    if left_out and (skipped is None or len(left_out) == len(postings)):
        raise SignDoesNotFit(" ".join(f"Table {s['table']}'s posting {s['posting']}: {s['reason']}" for s in left_out)
                             + " Post the table again with what is too long shortened.")
    if skipped is not None:
        skipped.extend(left_out)
    if preview:
        return rendered, []
    left_out = {s["posting"] for s in left_out}
    try:
        with transaction.atomic():
            records = [_record(p, numbers[p.pk], layout, user=user, label=label, channel=channel, job=job,
                               override=permissions[p.pk], version=versions[p.pk], at=now)
                       for p in postings if p.pk not in left_out]
    except IntegrityError:
        raise StateConflict("Another print of the same sign was recorded at the same moment; print again.") from None
    return rendered, records


def filename(establishment, tables, layout, now=None):
    now = timezone.localtime(now or timezone.now())
    what = f"table-{tables[0].label}" if len(tables) == 1 else "tables"
    return f"signs-{establishment.slug}-{what}-{layout}-{now:%Y%m%d-%H%M}.pdf"


__all__ = ["OverrideInUse", "PREVIEW_BANNER", "PrintBlocked", "SignDoesNotFit", "filename", "overrides_in_use", "postings_in_force",
           "print_signs", "sign_states", "upcoming_versions"]
