"""Any role's jobs (sign batches, audit exports): progress, then the file. Scoped as the API's jobs."""

from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, render

from cardroom import permissions
from cardroom.api.jobs import visible_jobs
from cardroom.models import Job
from exports.tasks import AUDIT_EXPORT_KIND
from fees.ledger.services import RECONCILIATION_KIND
from signage.tasks import BATCH_KIND

from ..access import page, roles_of

# The part of the site a job belongs to, in order of preference: the first the user may open is marked.
SECTIONS = {BATCH_KIND.value: ("floor", "compliance"), AUDIT_EXPORT_KIND.value: ("regulator", "compliance"),
            RECONCILIATION_KIND.value: ("compliance",)}


@page("any")
def job(request, job, scope):
    """A job's progress; htmx asks again every second until it is done or failed."""
    job = get_object_or_404(visible_jobs(scope), uuid=job)
    template = "console/job_progress.html" if request.htmx else "console/job.html"
    section = next((s for s in SECTIONS.get(job.kind, ()) if s in roles_of(scope)), None)
    return render(request, template, {"job": job, "section": section})


@page("any")
def job_file(request, job, scope):
    job = get_object_or_404(visible_jobs(scope), uuid=job)
    permissions.require(request.user, "exports.download", job)
    if job.status != Job.Status.DONE or not job.file:
        raise Http404("This job has no file yet.")
    return FileResponse(job.file.open("rb"), as_attachment=True,
                        filename=job.result.get("filename") or job.file.name.rsplit("/", 1)[-1])
