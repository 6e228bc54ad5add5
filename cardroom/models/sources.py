from django.db import models
from simple_history.models import HistoricalRecords

from .guards import NeverDeleted


class Source(NeverDeleted):
    """A document the data was transcribed from: rules of play, a regulator's letter, a fee schedule."""

    key = models.SlugField(max_length=80, unique=True, help_text="Stable name used by the seed files.")
    title = models.CharField(max_length=300)
    issuer = models.CharField(max_length=200, blank=True, help_text="Who wrote or issued the document.")
    issued_on = models.DateField(null=True, blank=True, help_text="Blank where the document carries no date.")
    seed_file = models.CharField(max_length=200, blank=True, help_text="File name of the original in the seed set.")
    notes = models.TextField(blank=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["key"]

    def __str__(self):
        return self.title


class Cited(models.Model):
    """Every encoded value says where it came from: the document and the place in it."""

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="+")
    citation = models.CharField(
        max_length=500, help_text="Section, page or table in the source, or the WAC / Penal Code reference."
    )

    class Meta:
        abstract = True
