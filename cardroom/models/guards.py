"""Records a regulator issued (sources, approvals, their conditions, rule parameters) are never deleted: they
are withdrawn or superseded, with a reason, so the record of what was approved when stays whole.

The application refuses deletes here; on PostgreSQL a trigger refuses them too (migration 0004).
"""

from django.db import models

from cardroom.exceptions import StateConflict


class NeverDeletedError(StateConflict):
    """Deleting a regulator-issued record (a 409 on the API)."""


class NeverDeletedQuerySet(models.QuerySet):
    def delete(self):
        raise NeverDeletedError(f"{self.model._meta.verbose_name_plural.capitalize()} are never deleted: withdraw or "
                                "supersede them with a reason.")


class NeverDeleted(models.Model):
    objects = NeverDeletedQuerySet.as_manager()

    class Meta:
        abstract = True

    def delete(self, *args, **kwargs):
        raise NeverDeletedError(f"{self._meta.verbose_name.capitalize()} {self} is never deleted: withdraw or "
                                "supersede it with a reason.")
