"""A regulator's pages: the establishments of their jurisdiction(s), each one's postings, findings, approvals,
fees expected vs collected and audit log; audit exports requested and bundles verified.

Read-only: nothing here changes regulatory data (an export request makes a job, which the audit log records).
Scoped as the API: a regulator sees every establishment of the jurisdictions they regulate and nothing of any
other, not even as an option of a form (console.access). The figures come from the services the API and the
audit export use: fees' postings in force, compliance.inbox (findings that stand),
exports.collect (expected vs collected), exports.requests (export requests), exports.verification (bundles),
cardroom.audit (the log and its chain).

The pages, by job: ``rooms`` (the establishments, one establishment), ``ledger`` (its fees expected vs
collected), ``audit`` (its audit log and kept checkpoints), ``exporting`` (audit exports), ``bundles`` (verifying
a bundle); ``forms`` their forms. The views are re-exported here for console.urls.
"""

from .audit import AUDIT_PAGE_SIZE, CHECKPOINTS_DUE, audit_log
from .bundles import FILE_STATES, verify
from .exporting import export, export_choices
from .forms import KEPT_CHECKPOINT_MAX_CHARS, ExportForm, KeptCheckpointForm, MonthForm, VerifyForm
from .ledger import CHART, signed
from .rooms import FINDINGS_PAGE_SIZE, HANDLED_SHOWN, establishment, home

# The other names imported above stay importable from the old path; star imports take the views, as before.
__all__ = ["audit_log", "establishment", "export", "home", "verify"]
