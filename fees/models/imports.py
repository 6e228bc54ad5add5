"""A room's own records coming in from a file (``fees.imports``): the column mapping the room keeps, and each
file uploaded with what became of its rows."""

import uuid

from django.conf import settings
from django.db import models


def import_file_path(record_import, filename):
    # The import's uuid keeps the stored name unguessable; the download goes through the page's checks.
    return f"imports/{record_import.establishment_id}/{record_import.uuid}/{filename}"


class ImportMapping(models.Model):
    """Which column of the room's files holds each ledger field: kept per room, changed on the mapping page."""

    establishment = models.OneToOneField("cardroom.Establishment", on_delete=models.CASCADE, related_name="+")
    columns = models.JSONField(default=dict, help_text="Ledger field -> the file's column header.")
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"import mapping of establishment {self.establishment_id}"


class RecordImport(models.Model):
    """One file of rounds and collection entries uploaded by a compliance officer, and its outcome."""

    class Format(models.TextChoices):
        CSV = "csv", "CSV"
        XLSX = "xlsx", "XLSX"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    establishment = models.ForeignKey("cardroom.Establishment", on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=255, help_text="The file's name as uploaded.")
    format = models.CharField(max_length=4, choices=Format.choices)
    file = models.FileField(upload_to=import_file_path, max_length=255)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    header = models.JSONField(default=list, help_text="The file's column headers, in order.")
    rows = models.PositiveIntegerField(help_text="Data rows in the file (the header not counted).")
    mapping = models.JSONField(default=dict, blank=True, help_text="The mapping the import ran with.")
    job = models.OneToOneField("cardroom.Job", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    rounds_recorded = models.PositiveIntegerField(default=0)
    entries_recorded = models.PositiveIntegerField(default=0)
    already_recorded = models.PositiveIntegerField(default=0)
    refused = models.PositiveIntegerField(default=0)
    refused_file = models.FileField(upload_to=import_file_path, max_length=255, blank=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-uploaded_at", "-id"]

    def __str__(self):
        return f"import {self.uuid} of {self.name}"

    @property
    def recorded(self):
        return self.rounds_recorded + self.entries_recorded
