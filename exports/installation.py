"""The installation's own exports (``cardroom.permissions.SYSTEM``: no person asks): the ``export_audit`` command's,
and a closing month's bundles (``fees.months.services.close``, which stands below exports: ``ExportsConfig.ready`` registers
``export_month`` with it). Each is the export job the API and the pages start (``start_export``), run here or
followed on a worker, its bundle then copied to a file."""

from cardroom.access import Scope
from cardroom.exceptions import StateConflict
from cardroom.models import Job
from cardroom.permissions import SYSTEM

from .requests import read_request, start_export

# Who asked, as the job and its audit entry say: a month's bundles are exported as the command exports them.
LABEL = "export_audit (command line)"


class _Everything(Scope):
    """What the installation may export: everything (the scope ``read_request`` reads its request with)."""

    def __init__(self):
        super().__init__(None)
        self.is_admin = True


def export_to_file(data, output, *, say):
    """Export what ``data`` asks for (``read_request``'s fields) into the file ``output``, ``say`` told a line at
    a time as the job goes. Returns the sentence saying what was written; raises BadInput for a request refused
    and StateConflict when the job failed."""
    export_scope = read_request(data, scope=_Everything())

    def follow(job):
        if job.status == Job.Status.QUEUED:
            say(f"Job {job.uuid}: exporting {export_scope.describe()}.")
        else:
            say(f"  {job.percent:3d}%  {job.done}/{job.total} files  {job.stage}")

    job = start_export(SYSTEM, export_scope=export_scope, label=LABEL, follow=follow)
    if job.status != Job.Status.DONE:
        raise StateConflict(f"The export failed: {job.error}")
    with job.file.open("rb") as source, open(output, "wb") as target:
        for chunk in iter(lambda: source.read(1 << 20), b""):
            target.write(chunk)
    result = job.result
    rows = ", ".join(f"{name} {count:,}" for name, count in result["rows"].items() if count)
    return (f"Wrote {output}: {result['bytes']:,} bytes, SHA-256 {result['sha256']}; rows: {rows}. "
            f"Signed with {result['signing_key']}.")


def export_month(establishment, first, last, path, say):
    """``establishment``'s bundle of the days ``first`` to ``last`` of a month being closed, written to ``path``
    (the ``cardroom.registry.Exporter`` of ``fees.months.services.MONTH_BUNDLE``)."""
    data = {"establishment": establishment.slug, "from": first.isoformat(), "to": last.isoformat()}
    say(export_to_file(data, path, say=say))
