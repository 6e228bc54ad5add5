"""Long jobs run by Celery (batch signage, audit exports): who asked, how far along, and the file made."""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from ..moments import format_moment
from ..registry import JobKind, entries


def job_file_path(job, filename):
    # The job's own uuid keeps file names unguessable and unique; downloads still go through the API's checks.
    return f"jobs/{job.kind}/{job.uuid}/{filename}"


def kinds():
    """The kinds of job, (value, label), as the apps that own them registered them (``cardroom.registry.JobKind``):
    read when asked, so a kind added is no migration."""
    return [(kind.value, kind.label) for kind in entries(JobKind)]


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=20, choices=kinds)
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

    @classmethod
    def claim(cls, pk):
        """Take a queued job for the delivery of its task that asks: the job, running (a new attempt), or None when
        it is not queued (another delivery of the same task has it, or it is over). One UPDATE decides, so two
        deliveries at once cannot both start it."""
        now = timezone.now()
        taken = cls.objects.filter(pk=pk, status=cls.Status.QUEUED).update(
            status=cls.Status.RUNNING, total=0, done=0, stage="", started_at=now, heartbeat_at=now,
            attempts=models.F("attempts") + 1)
        return cls.objects.get(pk=pk) if taken else None

    def beat(self):
        """The worker is alive: a plain UPDATE, from any thread (each has its own connection)."""
        Job.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(heartbeat_at=timezone.now())

    def plan(self, total, stage=""):
        """Say how many units the job has, once it knows."""
        Job.objects.filter(pk=self.pk).update(total=total, stage=stage, heartbeat_at=timezone.now())
        self.total, self.stage = total, stage

    def advance(self, done, stage=""):
        # A plain UPDATE so API readers see progress while the task's own transaction is still open elsewhere.
        Job.objects.filter(pk=self.pk).update(done=done, stage=stage, heartbeat_at=timezone.now())
        self.done, self.stage = done, stage

    @property
    def last_sign_of_life(self):
        return self.heartbeat_at or self.started_at or self.created_at

    def lost_worker_note(self):
        """What a person reads about a job whose worker was lost, or "" (the job pages and the API say it)."""
        if self.status == self.Status.QUEUED and self.attempts:
            return f"Queued again after the worker running it was lost; attempt {self.attempts + 1} waits for a worker."
        if self.status in (self.Status.RUNNING, self.Status.DONE) and self.attempts > 1:
            return f"Queued again after a lost worker; attempt {self.attempts}."
        return ""

    def requeue_after_lost_worker(self):
        """Queue again a running job whose heartbeat stopped; False when it beat (or ended) since it was read.
        ``heartbeat_at`` of a queued job is when it was last sent to the workers."""
        stopped = _moment(self, self.last_sign_of_life)
        now = timezone.now()
        requeued = Job.objects.filter(pk=self.pk, status=self.Status.RUNNING, heartbeat_at=self.heartbeat_at).update(
            status=self.Status.QUEUED, heartbeat_at=now,
            stage=f"The worker running attempt {self.attempts} stopped at {stopped}; queued again.")
        return bool(requeued)

    def fail_after_lost_worker(self):
        """Give up on a running job whose heartbeat stopped, saying why; False when it beat since it was read."""
        stopped = _moment(self, self.last_sign_of_life)
        tries = "once" if self.attempts == 1 else f"{self.attempts} times"
        return bool(Job.objects.filter(pk=self.pk, status=self.Status.RUNNING, heartbeat_at=self.heartbeat_at).update(
            status=self.Status.FAILED, finished_at=timezone.now(), stage="",
            error=f"The worker running this job stopped at {stopped}; tried {tries}."))

    def mark_sent(self):
        """A queued job sent to the workers again; False when a worker took it meanwhile."""
        return bool(Job.objects.filter(pk=self.pk, status=self.Status.QUEUED, heartbeat_at=self.heartbeat_at).update(
            heartbeat_at=timezone.now()))

    def finish(self, name, content, result=None):
        self.file.save(name, content, save=False)
        self.status, self.done, self.finished_at = self.Status.DONE, self.total, timezone.now()
        self.result = result or {}
        self.stage = ""
        self.save(update_fields=["file", "status", "done", "finished_at", "result", "stage"])

    def fail(self, message):
        self.status, self.error, self.finished_at = self.Status.FAILED, message, timezone.now()
        self.save(update_fields=["status", "error", "finished_at"])


def _moment(job, moment):
    """"2026-03-03 14:02 PST": in the job's room's zone (the installation's for a jurisdiction's job)."""
    zone = job.establishment.zone if job.establishment_id else timezone.get_current_timezone()
    return format_moment(moment, zone)
