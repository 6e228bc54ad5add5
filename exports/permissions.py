"""The exports app's named permissions and their predicates (``cardroom.permissions``; registered in
``ExportsConfig.ready``)."""

from cardroom.models import Jurisdiction
from cardroom.permissions import on_places, on_scope, regulated
from cardroom.registry import Permission

AUDIT_EXPORT = "audit_export"  # the job kind of an audit export (exports.tasks.AUDIT_EXPORT_KIND)


@on_scope
def may_verify(scope, obj):
    """Whose job it is to check a bundle (each check unpacks up to a year's export): not floor supervisors."""
    return scope.is_admin or bool(scope.regulated_jurisdictions or scope.compliance_establishments)


@on_places
def may_export(scope):
    """An establishment: its compliance officers and its jurisdiction's regulators. A jurisdiction: its regulators."""
    return regulated(scope, establishments=scope.compliance_establishments)


@on_scope
def may_download(scope, job):
    """A job's file: an audit export's for those who may export its place; any other (a sign batch) for whoever
    sees the job (the job list is scoped already)."""
    return job is None or getattr(job, "kind", None) != AUDIT_EXPORT or may_export.places(scope).hold(job)


PERMISSIONS = (
    Permission("exports.request_export", may_export,
               lambda obj: "A whole jurisdiction is exported by its regulators." if isinstance(obj, Jurisdiction)
               else "Exports are made by compliance officers of the establishment and regulators of its "
                    "jurisdiction."),
    Permission("exports.download", may_download,
               "An audit export is downloaded by compliance officers of its establishment and regulators of its "
               "jurisdiction."),
    Permission("exports.verify_bundle", may_verify,
               "Bundles are verified by regulators, compliance officers and administrators."),
)
