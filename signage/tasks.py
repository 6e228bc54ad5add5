"""Batch printing: one PDF with the sign of every (or every chosen) table of an establishment."""

import hashlib

from celery import shared_task
from django.core.files.base import ContentFile
from django.utils import timezone

from cardroom import jobs, permissions, values
from cardroom.exceptions import BadInput
from cardroom.models import Job, Table
from cardroom.ordering import natural
from cardroom.registry import JobKind
from compliance.judgement import judge_postings

from . import printing
from .models import SignPrint
from .postings import PrintBlocked, print_permission


def build_batch(job, on_progress=None):
    """The batch's work: returns (filename, content, result) for ``jobs.run``."""
    params = job.params
    layout = params.get("layout", "letter")
    tables = Table.objects.filter(establishment=job.establishment, active=True)
    if params.get("tables"):
        tables = tables.filter(pk__in=params["tables"])
    tables = sorted(tables, key=lambda t: natural(t.label))
    in_force = printing.postings_in_force(tables, timezone.now())
    postings, skipped = [], []
    judged = judge_postings(list(in_force.values()), timezone.now())  # every table judged now, at once
    for table in tables:
        posting = in_force.get(table.pk)
        if posting is None:
            skipped.append({"table": table.label, "reason": "No posting is in force at this table."})
            continue
        try:
            print_permission(posting, judged[posting.pk])
        except PrintBlocked as blocked:
            skipped.append({"table": table.label, "posting": posting.pk, "reason": str(blocked)})
            continue
        postings.append(posting)
    if not postings:
        raise ValueError("None of the chosen tables has a printable posting: "
                         + "; ".join(f"table {s['table']}: {s['reason']}" for s in skipped))
    job.plan(len(postings), f"Printing {len(postings)} sign(s)")

    def progress(done):
        job.advance(done, f"Printed table {postings[done - 1].table.label} ({done} of {len(postings)})")
        if on_progress is not None:
            on_progress(job)

    rendered, records = printing.print_signs(
        postings, layout, user=job.requested_by, label=job.requested_label, channel=SignPrint.Channel.BATCH,
        job=job, on_progress=progress, skipped=skipped,  # a sign that does not fit is named there; the rest print
    )
    result = {
        "pages": rendered.pages, "layout": layout, "sha256": hashlib.sha256(rendered.pdf).hexdigest(),
        "printed": [{"table": r.posting.table.label, "posting": r.posting_id, "print": r.number,
                     "reprint": r.is_reprint} for r in records],
        "reprints": sum(1 for r in records if r.is_reprint), "skipped": skipped,
        "filename": readable_name(job.establishment, [p.table for p in postings], layout),
    }
    name = printing.filename(job.establishment, [p.table for p in postings], layout)
    return name, ContentFile(rendered.pdf), result


def readable_name(establishment, tables, layout, now=None):
    """The name a person would give the batch's PDF: "Casino Marysville signs 2026-11-25 (tent).pdf" (the stored
    file keeps a name safe for any file system; this one is what the page shows and the download is called)."""
    day = timezone.localtime(now or timezone.now(), establishment.zone).date()
    what = f"table {tables[0].label} sign" if len(tables) == 1 else "signs"
    return f"{establishment.name} {what} {day:%Y-%m-%d} ({layout}).pdf"


@shared_task
def print_batch(job_id):
    return jobs.run(job_id, build_batch)


# Its kind of job (registered in SignageConfig.ready): seen by whoever asked, the establishment's staff and the
# jurisdiction's regulators.
BATCH_KIND = JobKind("signage_batch", "Batch of table signs", print_batch, asker=True,
                     places=lambda scope: permissions.regulated(scope, establishments=scope.staff_establishments),
                     download_type="application/pdf")


def chosen_tables(establishment, tables):
    """The ids a batch prints: ``tables`` None means the whole floor ([] in the job); otherwise every id must be
    one of ``establishment``'s tables. Never falls back to the whole floor: an empty or foreign choice is refused."""
    if tables is None:
        return []
    if not tables:
        raise BadInput("Choose at least one table, or print the whole floor.", field="tables")
    known = set(Table.objects.filter(establishment=establishment, pk__in=[t for t in tables if values.is_id(t)])
                .values_list("pk", flat=True))  # an id no bigint holds is no table's (SQLite would overflow)
    refused = sorted(set(tables) - known)
    if refused:
        raise BadInput(f"Not tables of {establishment.name}: {', '.join(map(str, refused))}. "
                       "Nothing was printed.", field="tables")
    return sorted(known)


def start_batch(user, *, establishment, layout, tables, label=None, follow=None):
    """Queue a batch of ``establishment``'s signs (all its tables if ``tables`` is None, or those chosen) as a Job,
    asked for by ``user``: the request's, or ``SYSTEM`` named by ``label`` (the ``print_signage`` command). Returns
    the job as it stands once queued; given a command's ``follow``, once it has ended (``cardroom.jobs.start``).

    Raises NotAllowed (``signage.print_sign`` at the establishment) or BadInput naming ``tables`` (and queues
    nothing) for an empty choice or ids that are not the establishment's tables.
    """
    permissions.require(user, "signage.print_sign", establishment)
    tables = chosen_tables(establishment, tables)
    job = Job.objects.create(kind=BATCH_KIND.value, establishment=establishment,
                             **jobs.requester(user, label), params={"layout": layout, "tables": tables})
    return jobs.start(job, print_batch, build_batch, follow)
