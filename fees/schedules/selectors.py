"""Which drafts one may see, in one place: the API's schedules, versions, diffs and impact, and the pages.

Drafts are seen by whoever holds ``fees.view_drafts`` on the schedule (the compliance officers who maintain it,
administrators); everyone else sees its published versions only, and a draft's address answers 404 to them.
"""

from django.db.models import QuerySet

from cardroom import permissions

from ..models import ScheduleVersion


def sees_drafts(user, document=None):
    """Whether ``user`` sees ``document``'s drafts (None: the drafts of some schedule)."""
    return permissions.allowed(user, "fees.view_drafts", document)


def visible_versions(user, document, versions=None):
    """``versions`` of ``document`` (a queryset or a list; by default all of them) that ``user`` may see."""
    versions = document.versions.all() if versions is None else versions
    if sees_drafts(user, document):
        return versions
    if isinstance(versions, QuerySet):
        return versions.filter(status=ScheduleVersion.Status.PUBLISHED)
    return [version for version in versions if version.is_published]
