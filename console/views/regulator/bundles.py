"""Verifying a bundle: uploaded, checked in the background (exports.verification), its result shown file by
file."""

import uuid

from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from cardroom.api.jobs import visible_jobs
from cardroom.models import Job
from exports import tasks as export_tasks
from exports import verification

from ...access import requires, roles_of
from .forms import VerifyForm


FILE_STATES = ("altered", "missing", "added")


def _verify_job(request, scope, job_id):
    """The check asked for: its progress while it runs, then every problem and each file's state."""
    try:
        job_id = uuid.UUID(job_id)
    except ValueError:
        raise Http404("No such check.") from None
    job = get_object_or_404(visible_jobs(scope).filter(kind=Job.Kind.BUNDLE_VERIFICATION), uuid=job_id)
    context = {"job": job, "name": job.params.get("bundle") or "the bundle"}
    result = job.result if job.status == Job.Status.DONE else None
    if result:
        manifest = result.get("manifest") if isinstance(result.get("manifest"), dict) else None
        entries = manifest.get("files") if manifest else None
        listed = {f.get("name"): f for f in entries if isinstance(f, dict)} if isinstance(entries, list) else {}
        states = result.get("files") or {}
        context.update({
            "checked": result, "result": result, "manifest": manifest,
            "files": [{"name": n, "state": state, "bytes": listed.get(n, {}).get("bytes"),
                       "rows": listed.get(n, {}).get("rows")}
                      for n, state in sorted(states.items(), key=lambda item: (item[1] == "ok", item[0]))],
            "named": {state: sorted(n for n, seen in states.items() if seen == state) for state in FILE_STATES},
        })
    return context


@requires("exports.verify_bundle")
def verify(request, scope):
    """Upload a bundle: it is checked in the background (every file's hash and size against the signed manifest,
    and the manifest's signature), and the page follows the check to its result (``?job=``)."""
    context = {"section": "regulator" if "regulator" in roles_of(scope) else "compliance",
               "limit": settings.EXPORT_VERIFY_MAX_BYTES}
    if request.method != "POST":
        if request.GET.get("job"):
            context.update(_verify_job(request, scope, request.GET["job"]))
            if request.htmx:
                return render(request, "console/regulator/_verify_job.html", context)
        return render(request, "console/regulator/verify.html", {**context, "form": VerifyForm()})
    form = VerifyForm(request.POST, request.FILES)
    key = None
    if form.is_valid():
        try:
            key = verification.public_key_from(text=form.cleaned_data["public_key"])
        except verification.PublicKeyError as error:
            form.add_error("public_key", str(error))
    if not form.is_valid():
        for upload in request.FILES.values():
            upload.close()
        return render(request, "console/regulator/verify.html", {**context, "form": form}, status=400)
    job = export_tasks.start_check(form.cleaned_data["bundle"], key, user=request.user)
    return redirect(f"{reverse('console:regulator-verify')}?job={job.uuid}")


# The same upload limit as the API's (cardroom.middleware reads it before a byte of the body is).
verify.max_body_bytes = settings.EXPORT_VERIFY_MAX_BYTES
