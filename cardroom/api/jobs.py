"""Long jobs (sign batches, audit exports): progress while they run, the file when they are done."""

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.decorators import action

from cardroom import permissions, registry
from cardroom.models import Job
from cardroom.registry import JobKind

from .base import ScopedReadOnlyViewSet


class JobSerializer(serializers.ModelSerializer):
    establishment = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    jurisdiction = serializers.SlugRelatedField(slug_field="code", read_only=True)
    percent = serializers.IntegerField(read_only=True)
    download = serializers.SerializerMethodField()
    lost_worker = serializers.CharField(
        source="lost_worker_note", read_only=True,
        help_text="Said when a worker running the job was lost and the job was queued again; empty otherwise.")

    class Meta:
        model = Job
        fields = ["uuid", "kind", "status", "establishment", "jurisdiction", "params", "requested_label", "total",
                  "done", "percent", "stage", "error", "result", "created_at", "started_at", "finished_at",
                  "attempts", "heartbeat_at", "lost_worker", "download"]

    def get_download(self, job) -> str | None:
        if job.status != Job.Status.DONE or not job.file:
            return None
        request = self.context.get("request")
        path = f"/api/v1/jobs/{job.uuid}/download/"
        return request.build_absolute_uri(path) if request else path


def visible_jobs(scope):
    """The jobs the user may see (``cardroom.view_records``: who sees which kind of job is said there)."""
    return permissions.rows(scope, "cardroom.view_records", Job.objects.select_related("establishment", "jurisdiction"))


class JobViewSet(ScopedReadOnlyViewSet):
    """Jobs you asked for, or of the establishments (or, for regulators, jurisdictions) you may see."""

    queryset = Job.objects.all()
    serializer_class = JobSerializer
    lookup_field = "uuid"
    # A UUID as the API writes it: Python's UUID() would also take braces, "urn:uuid:" or no hyphens.
    lookup_value_regex = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    filterset_fields = {"kind": ["exact"], "status": ["exact"], "establishment__slug": ["exact"]}
    permission_names = {"*": "cardroom.view_records", "download": "exports.download"}

    def scope_queryset(self, queryset, scope):
        return visible_jobs(scope)

    @extend_schema(
        responses={(200, "application/pdf"): OpenApiTypes.BINARY, (200, "application/zip"): OpenApiTypes.BINARY},
        description="A sign batch is a PDF (application/pdf), an audit export bundle a zip (application/zip).",
    )
    @action(detail=True, methods=["get"])
    def download(self, request, uuid=None):
        """The job's file (a PDF of signs, a zip bundle), once the job is done."""
        job = self.get_object()
        permissions.require(request.user, "exports.download", job)
        if job.status != Job.Status.DONE or not job.file:
            raise exceptions.NotFound(f"Job {job.uuid} has no file yet: it is {job.status} ({job.percent}% done).")
        name = job.file.name.rsplit("/", 1)[-1]
        return FileResponse(job.file.open("rb"), as_attachment=True, filename=name,
                            content_type=registry.entry(JobKind, job.kind).download_type)


__all__ = ["JobSerializer", "JobViewSet", "visible_jobs"]
