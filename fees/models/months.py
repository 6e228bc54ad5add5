"""Closed months (``fees.months``, ``manage.py close_month`` / ``reopen_month``): a month of the ledger exported
as signed bundles, its partitions detached and archived as files beside them, read-only until it is reopened.

A row is written when a month is closed and kept when it is reopened (``reopened_at``) or its archive folder
removed at the end of its retention (``archive_removed_at``): the record of what was archived where, and of each
file's SHA-256, which reopening checks before it reads a file back, and of the month's kept sums and variance
summaries per room and gaming day (``totals``), which the pages and ``check_ledger_sums`` hold the live rows to.
"""

from django.db import models
from django.db.models import Q


class ClosedMonth(models.Model):
    month = models.DateField(help_text="The month's first day.")
    establishments = models.ManyToManyField("cardroom.Establishment", related_name="+",
                                            help_text="Every establishment with rows in the month: all were named.")
    archive_dir = models.CharField(max_length=500, help_text="Where the bundles and partition files were written.")
    # [{"establishment": slug, "file": name, "sha256": hex, "bytes": n}], one signed export per establishment.
    bundles = models.JSONField(default=list)
    # [{"table": parent, "partition": name, "columns": [...], "rows": n, "file": name, "sha256": hex, "bytes": n}]:
    # the rows counted once frozen; the file and its digest once written out (until then the table is still there).
    partitions = models.JSONField(default=list)
    archived = models.BooleanField(default=False, help_text="Every partition written to its file and dropped.")
    # {"key": fingerprint, "signature": base64}: the installation's key over fees.months.selectors.seal_statement, made when
    # the partitions are archived; a reopening restores only files this seal vouches for.
    seal = models.JSONField(default=dict, blank=True)
    # {"ledger": [...], "variance": [...]}: the month's kept sums and variance summaries, per room and gaming day, as
    # the closing found them (fees.months.sealed.totals) and sealed with the rest (the statement's v2); {} on a month
    # closed before closings sealed them.
    totals = models.JSONField(default=dict, blank=True)
    closed_by = models.CharField(max_length=150)
    closed_at = models.DateTimeField()
    reopened_by = models.CharField(max_length=150, blank=True)
    reopened_at = models.DateTimeField(null=True, blank=True)
    # Set by manage.py remove_old_archives once the retention period (LEDGER_ARCHIVE_RETENTION_DAYS) has passed: the
    # folder's bundles and partition files are gone, so the month can no longer be reopened from them.
    archive_removed_at = models.DateTimeField(null=True, blank=True,
                                              help_text="When the archive folder was removed (retention ended).")
    archive_removed_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-month", "-closed_at"]
        constraints = [
            # Closed once at a time; a month reopened and closed again has a row per closing.
            models.UniqueConstraint(fields=["month"], condition=Q(reopened_at__isnull=True), name="closed_month_once"),
        ]

    def __str__(self):
        state = "reopened" if self.reopened_at else "closed" if self.archived else "closing"
        if self.archive_removed_at:
            state += f", archived files removed on {self.archive_removed_at:%Y-%m-%d}"
        return f"{self.month:%Y-%m} ({state})"
