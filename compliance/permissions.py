"""The compliance app's named permissions (``cardroom.permissions``; registered in ``ComplianceConfig.ready``)."""

from cardroom.models import Establishment
from cardroom.permissions import is_administrator, is_compliance_officer_of
from cardroom.registry import Permission

PERMISSIONS = (
    Permission("compliance.acknowledge_finding", is_compliance_officer_of,
               "Only a compliance officer of the finding's establishment may acknowledge it."),
    Permission("compliance.run_validation", is_compliance_officer_of,
               lambda obj: "Only a compliance officer of this establishment may start a run."
               if isinstance(obj, Establishment) else "Only compliance officers may start a run."),
    Permission("compliance.validate_everything", is_administrator, "Only an administrator may validate everything."),
)
