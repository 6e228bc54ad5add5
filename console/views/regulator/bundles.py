"""Verifying a bundle: uploaded, checked in the background (exports.verification), its result shown file by
file."""

import datetime
import uuid

from django import forms
from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone

from cardroom import checkpoint, transparency
from cardroom.api.jobs import visible_jobs
from cardroom.bundle.verification import shown
from cardroom.exceptions import BadInput
from cardroom.forms import show_error
from cardroom.models import Establishment, Job
from cardroom.moments import format_moment
from exports import tasks as export_tasks
from exports import verification

from ...access import requires, roles_of
from .forms import KeptCheckpointForm, VerifyForm


FILE_STATES = ("altered", "missing", "added")


class VerifyKeptForm(VerifyForm):
    """The bundle, and a checkpoint the regulator kept, before the export or after it, to check it against
    (read as the audit log page reads one: KeptCheckpointForm)."""

    kept = forms.CharField(
        label="A checkpoint you kept (optional)", required=False, strip=False,
        widget=forms.Textarea(attrs={"rows": 5, "cols": 64, "spellcheck": "false"}),
        help_text="Kept before the export or after it: the bundle's log must then hold it, or be held by it.")
    kept_file = forms.FileField(label="or upload the checkpoint (the .txt file)", required=False)

    def clean(self):
        cleaned = super().clean()
        note, upload = cleaned.get("kept") or "", cleaned.get("kept_file")
        cleaned["kept_text"] = None
        if note.strip() or upload is not None:
            read = KeptCheckpointForm({"note": note}, {"upload": upload} if upload is not None else {})
            if read.is_valid():
                cleaned["kept_text"] = read.cleaned_data["text"]
            else:
                for errors in read.errors.values():
                    for error in errors:
                        self.add_error("kept", error)
        return cleaned


def _manifest_words(manifest):
    """The manifest's rooms by name (it lists their slugs) and when it was made in their zone ("2026-11-06 14:32
    PST"; the installation's zone for several rooms or none): what the page shows a person."""
    slugs = (manifest or {}).get("scope", {}).get("establishments") if isinstance((manifest or {}).get("scope"),
                                                                                    dict) else None
    slugs = [s for s in slugs if isinstance(s, str)] if isinstance(slugs, list) else []
    rooms = {room.slug: room for room in Establishment.objects.filter(slug__in=slugs)}
    made = (manifest or {}).get("generated_at")
    try:
        made = datetime.datetime.fromisoformat(made) if isinstance(made, str) else None
    except ValueError:
        made = None
    room = rooms[slugs[0]] if len(slugs) == 1 and slugs[0] in rooms else None
    return {"scope_names": [rooms[s].name if s in rooms else s for s in slugs],
            "made_at": made and made.utcoffset() is not None and format_moment(
                made, room.zone if room else timezone.get_current_timezone())}


def _verify_job(request, scope, job_id):
    """The check asked for: its progress while it runs, then every problem and each file's state."""
    try:
        job_id = uuid.UUID(job_id)
    except ValueError:
        raise Http404("No such check.") from None
    job = get_object_or_404(visible_jobs(scope).filter(kind=export_tasks.CHECK_KIND.value), uuid=job_id)
    context = {"job": job, "name": job.params.get("bundle") or "the bundle"}
    result = job.result if job.status == Job.Status.DONE else None
    if result:
        manifest = result.get("manifest") if isinstance(result.get("manifest"), dict) else None
        entries = manifest.get("files") if manifest else None
        listed = ({shown(f["name"]): f for f in entries if isinstance(f, dict) and isinstance(f.get("name"), str)}
                  if isinstance(entries, list) else {})  # by name as the result shows it
        states = result.get("files") or {}
        context.update(_manifest_words(manifest))
        context.update({
            "checked": result, "result": result, "manifest": manifest,
            "problem_count": len(result.get("problems") or []) + (result.get("problems_left_out") or 0),
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
        return render(request, "console/regulator/verify.html", {**context, "form": VerifyKeptForm()})
    form = VerifyKeptForm(request.POST, request.FILES)
    key = None
    if form.is_valid():
        try:
            key = verification.public_key_from(text=form.cleaned_data["public_key"])
        except BadInput as error:
            show_error(form, error)
    if form.is_valid() and form.cleaned_data["kept_text"]:
        try:
            transparency.trusted_keys().checkpoint(form.cleaned_data["kept_text"])
        except checkpoint.CheckpointError as error:
            form.add_error("kept", f"This checkpoint cannot be used: {error}")
    if not form.is_valid():
        for upload in request.FILES.values():
            upload.close()
        return render(request, "console/regulator/verify.html", {**context, "form": form}, status=400)
    kept = form.cleaned_data["kept_text"]
    job = export_tasks.start_check(request.user, upload=form.cleaned_data["bundle"], public_key=key,
                                   kept=[kept] if kept else [])
    return redirect(f"{reverse('console:regulator-verify')}?job={job.uuid}")


# The same upload limit as the API's (cardroom.middleware reads it before a byte of the body is).
verify.max_body_bytes = settings.EXPORT_VERIFY_MAX_BYTES
