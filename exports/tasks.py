"""The export job: build the bundle into a temporary file (a bundle of bundles when months of the period are closed:
``exports.closed``), keep it as the job's file, log the export.

Queued by ``exports.requests.start_export``; this module reads the job's params back and imports nothing that
queues it (so requests -> tasks, never the reverse)."""

import datetime
import hashlib
import os
import tempfile

from celery import shared_task
from django.core.files import File

from cardroom import jobs
from cardroom.audit import log_action
from cardroom.models import Establishment, Jurisdiction
from cardroom.registry import JobKind

from . import closed
from .collect import ExportScope
from .permissions import AUDIT_EXPORT, may_export


def scope_from_params(params):
    """The ExportScope a job's params (``exports.requests.params_of``) describe."""
    establishments = list(Establishment.objects.filter(slug__in=params["establishments"])
                          .select_related("jurisdiction").order_by("slug"))
    jurisdiction = Jurisdiction.objects.get(code=params["jurisdiction"]) if params.get("jurisdiction") else None
    start = datetime.date.fromisoformat(params["from"]) if params.get("from") else None
    return ExportScope(establishments=establishments, start=start, end=datetime.date.fromisoformat(params["to"]),
                       jurisdiction=jurisdiction)


def build_export(job, on_progress=None):
    export_scope = scope_from_params(job.params)

    def progress(done, total, stage):
        if job.total != total:
            job.plan(total, stage)
        job.advance(done, stage)
        if on_progress is not None:
            on_progress(job)

    handle, path = tempfile.mkstemp(suffix=".zip", prefix="cardroom-export-")
    os.close(handle)
    try:
        manifest = closed.write(export_scope, path, requested_by=job.requested_label, on_progress=progress)
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        period = (f"{export_scope.start}-to-{export_scope.end}" if export_scope.start
                  else f"as-of-{export_scope.end}")
        who = export_scope.jurisdiction.code if export_scope.jurisdiction is not None else \
            export_scope.establishments[0].slug
        result = {"sha256": digest.hexdigest(), "bytes": os.path.getsize(path), "rows": manifest["rows"],
                  "audit_chains": manifest["audit_chains"], "signing_key": manifest["signing_key"]}
        # Each export is itself logged, in the chain of what it covers (the installation's for a jurisdiction).
        establishment = export_scope.establishments[0] if export_scope.jurisdiction is None else None
        log_action("audit.export", actor=job.requested_by, actor_label=job.requested_label, obj=job,
                   establishment=establishment, jurisdiction=export_scope.jurisdiction,
                   data={"job": str(job.uuid), "scope": manifest["scope"], "period": manifest["period"],
                         "sha256": result["sha256"], "audit_chains": manifest["audit_chains"]})
        with open(path, "rb") as f:  # finished here, so the temporary copy can go once it is saved
            job.finish(f"audit-{who}-{period}.zip", File(f), result)
        return None
    finally:
        os.unlink(path)


@shared_task
def export_audit(job_id):
    return jobs.run(job_id, build_export)


# Its kind of job (registered in ExportsConfig.ready): seen as exports.request_export says (never a floor
# supervisor), not by whoever asked as such.
AUDIT_EXPORT_KIND = JobKind(AUDIT_EXPORT, "Audit export bundle", export_audit, places=may_export.places,
                            download_type="application/zip")


# --- checking an uploaded bundle (exports.verification) ----------------------------------------------------------

def start_check(user, *, upload, public_key=None, kept=()):
    """Keep the upload as the file of a bundle_verify job, queue its check (``verify_bundle``, which removes the
    file) and return the job as it stands (already done when jobs run in-process)."""
    from cardroom import bundle, permissions

    permissions.require(user, "exports.verify_bundle")
    from cardroom.models import Job

    job = Job(kind=CHECK_KIND.value, requested_by=user, requested_label=user.get_username(),
              params={"bundle": upload.name,
                      "public_key": bundle.public_key_pem(public_key) if public_key is not None else None,
                      "kept": list(kept)})  # checkpoints the regulator kept, checked against the bundle
    try:
        upload.seek(0)
        job.file.save("bundle.zip", upload, save=False)
    finally:
        upload.close()
    job.save()
    jobs.submit(job, verify_bundle)
    job.refresh_from_db()
    return job


VERIFY_TIME_LIMIT = 30 * 60  # seconds; within the limits a 1 GiB upload unpacks in a few minutes


def check_bundle(job, on_progress=None):
    """Check the bundle the job keeps, then remove it however the check ended; the result is the job's."""
    import contextlib

    from celery.exceptions import SoftTimeLimitExceeded
    from django.utils import timezone

    from cardroom.models import Job

    from . import verification

    def progress(done, total):
        if job.total != total:
            job.plan(total, "checking files")
        job.advance(done, f"checking files ({done} of {total})")
        if on_progress is not None:
            on_progress(job)

    try:
        checked = verification.check_job(job, progress)
    except SoftTimeLimitExceeded:
        raise ValueError(f"The check took longer than {VERIFY_TIME_LIMIT // 60} minutes and was stopped.") from None
    finally:
        name, storage = job.file.name, job.file.storage
        job.file.delete(save=False)  # the upload is never kept, nor its job's folder
        Job.objects.filter(pk=job.pk).update(file="")
        if name:
            with contextlib.suppress(NotImplementedError, OSError):
                os.rmdir(os.path.dirname(storage.path(name)))
    job.status, job.done, job.finished_at, job.stage = Job.Status.DONE, job.total, timezone.now(), ""
    job.result = checked.as_dict()
    job.save(update_fields=["status", "done", "finished_at", "stage", "result"])
    return None


@shared_task(soft_time_limit=VERIFY_TIME_LIMIT)
def verify_bundle(job_id):
    return jobs.run(job_id, check_bundle)


# Its kind of job (registered in ExportsConfig.ready): seen by whoever asked, alone.
CHECK_KIND = JobKind("bundle_verify", "Check of an audit export bundle", verify_bundle, asker=True)
