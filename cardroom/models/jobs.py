"""Long jobs run by Celery (batch signage, audit exports): who asked, how far along, and the file made."""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


def job_file_path(job, filename):
    # The job's own uuid keeps file names unguessable and unique; downloads still go through the API's checks.
    return f"jobs/{job.kind}/{job.uuid}/{filename}"


class Job(models.Model):
    class Kind(models.TextChoices):
        SIGNAGE_BATCH = "signage_batch", "Batch of table signs"
        AUDIT_EXPORT = "audit_export", "Audit export bundle"
        BUNDLE_VERIFICATION = "bundle_verify", "Check of an audit export bundle"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    establishment = models.ForeignKey(
        "cardroom.Establishment", null=True, blank=True, on_delete=models.PROTECT, related_name="jobs"
    )
    jurisdiction = models.ForeignKey(
        "cardroom.Jurisdiction", null=True, blank=True, on_delete=models.PROTECT, related_name="jobs"
    )
    params = models.JSONField(default=dict, blank=True, help_text="What was asked for (tables, layout, period).")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    requested_label = models.CharField(max_length=150, help_text="Username, or the command that asked.")
    total = models.PositiveIntegerField(default=0, help_text="Units of work (tables, files) in the job.")
    done = models.PositiveIntegerField(default=0, help_text="Units finished so far.")
    stage = models.CharField(max_length=200, blank=True, help_text="What the job is doing now.")
    error = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True, help_text="Facts about the file made (pages, sha256, ...).")
    # Room for jobs/<kind>/<uuid>/ and a file name that says what the file holds (Django cuts names to fit).
    file = models.FileField(upload_to=job_file_path, blank=True, max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life from the worker running the job."
    )
    attempts = models.PositiveSmallIntegerField(default=0, help_text="How many times a worker has started it.")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.get_kind_display()} {self.uuid} ({self.status})"

    @property
    def percent(self):
        if self.status == self.Status.DONE:
            return 100
        return int(self.done * 100 / self.total) if self.total else 0

    def start(self, total):
        self.status, self.total, self.done, self.started_at = self.Status.RUNNING, total, 0, timezone.now()
        self.save(update_fields=["status", "total", "done", "started_at"])

    def plan(self, total, stage=""):
        """Say how many units the job has, once it knows."""
        Job.objects.filter(pk=self.pk).update(total=total, stage=stage)
        self.total, self.stage = total, stage

    def advance(self, done, stage=""):
        # A plain UPDATE so API readers see progress while the task's own transaction is still open elsewhere.
        Job.objects.filter(pk=self.pk).update(done=done, stage=stage)
        self.done, self.stage = done, stage

    def finish(self, name, content, result=None):
        self.file.save(name, content, save=False)
        self.status, self.done, self.finished_at = self.Status.DONE, self.total, timezone.now()
        self.result = result or {}
        self.stage = ""
        self.save(update_fields=["file", "status", "done", "finished_at", "result", "stage"])

    def fail(self, message):
        self.status, self.error, self.finished_at = self.Status.FAILED, message, timezone.now()
        self.save(update_fields=["status", "error", "finished_at"])
