"""Reading an export request (API and command alike); who may export what is `exports.request_export`."""

import datetime

from django.utils import timezone

from cardroom import jobs, permissions, values
from cardroom.exceptions import BadInput
from cardroom.models import Establishment, Job, Jurisdiction

from . import tasks
from .collect import ExportScope

FIELDS = {"establishment", "jurisdiction", "from", "to", "as_of"}
MAX_DAYS = 366 * 5


def _day(data, key):
    return values.named(key, values.day, data[key])


def read_request(data, *, scope, today=None):
    """The ExportScope a request asks for; raises BadInput (400) or NotAllowed (403: who may export is
    ``exports.request_export``: an establishment's compliance officers and its jurisdiction's regulators, a whole
    jurisdiction's regulators)."""
    if not isinstance(data, dict):
        raise BadInput("The body must be a JSON object.")
    unknown = set(data) - FIELDS
    if unknown:
        raise BadInput(f"Unknown field(s): {', '.join(sorted(unknown))}. Allowed: {', '.join(sorted(FIELDS))}.")
    empty = sorted(key for key, value in data.items() if value in (None, ""))
    if empty:  # given, but empty: a field is left out or has a value (the schema says what each one is)
        raise BadInput(f"Empty field(s): {', '.join(empty)}. Give each a value or leave it out.")
    today = today or timezone.localdate()
    has_establishment, has_jurisdiction = data.get("establishment"), data.get("jurisdiction")
    if bool(has_establishment) == bool(has_jurisdiction):
        raise BadInput("Give either establishment (a slug) or jurisdiction (a code), not both or neither.")
    if has_establishment:
        slug = data["establishment"]
        establishment = permissions.rows(scope, "cardroom.view_records", Establishment.objects.filter(
            slug=slug).select_related("jurisdiction")).first() if isinstance(slug, str) else None
        if establishment is None:
            raise BadInput(f"No establishment {slug!r} among those you may see.", field="establishment")
        permissions.require_of(scope, "exports.request_export", establishment)
        establishments, jurisdiction = [establishment], None
    else:
        code = data["jurisdiction"]
        jurisdiction = permissions.rows(scope, "cardroom.view_records", Jurisdiction.objects.filter(
            code=code)).first() if isinstance(code, str) else None
        if jurisdiction is None:
            raise BadInput(f"No jurisdiction {code!r} among those you may see.", field="jurisdiction")
        permissions.require_of(scope, "exports.request_export", jurisdiction)
        establishments = list(Establishment.objects.filter(jurisdiction=jurisdiction).select_related("jurisdiction")
                              .order_by("slug"))
    if data.get("as_of") not in (None, ""):
        if data.get("from") or data.get("to"):
            raise BadInput("Give either as_of, or from and to, not both.", field="as_of")
        start, end = None, _day(data, "as_of")
    else:
        if not data.get("from") or not data.get("to"):
            raise BadInput("Give the period: from and to (YYYY-MM-DD, inclusive), or as_of.")
        start, end = _day(data, "from"), _day(data, "to")
        if start > end:
            raise BadInput(f"from ({start}) is after to ({end}).", field="from")
        if (end - start).days > MAX_DAYS:
            raise BadInput(f"A period is at most {MAX_DAYS} days; split it.", field="from")
    if end > today + datetime.timedelta(days=1):
        raise BadInput(f"The period ends in the future ({end}).", field="as_of" if start is None else "to")
    return ExportScope(establishments=establishments, start=start, end=end, jurisdiction=jurisdiction)


def start_export(user, *, export_scope, label=None, follow=None):
    """Queue the export job of an ExportScope read by ``read_request``, asked for by ``user``: the request's (API
    and pages alike), or ``SYSTEM`` named by ``label`` (``exports.installation``: the ``export_audit`` command, a
    month closed). Returns the job as it stands once queued (already done when jobs run in-process); given a
    command's ``follow``, once it has ended (``cardroom.jobs.start``)."""
    establishment = export_scope.establishments[0] if export_scope.jurisdiction is None else None
    job = Job.objects.create(kind=tasks.AUDIT_EXPORT_KIND.value, establishment=establishment,
                             jurisdiction=export_scope.jurisdiction or establishment.jurisdiction,
                             **jobs.requester(user, label), params=params_of(export_scope))
    return jobs.start(job, tasks.export_audit, tasks.build_export, follow)


def params_of(export_scope):
    return {"establishments": [e.slug for e in export_scope.establishments],
            "jurisdiction": export_scope.jurisdiction.code if export_scope.jurisdiction is not None else None,
            "from": export_scope.start.isoformat() if export_scope.start else None,
            "to": export_scope.end.isoformat()}
