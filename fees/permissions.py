"""The fees app's named permissions (``cardroom.permissions``; registered in ``FeesConfig.ready``)."""

from cardroom.permissions import is_compliance_officer_of, is_compliance_officer_of_establishment, is_staff_of
from cardroom.registry import Permission

PERMISSIONS = (
    # Schedules.
    Permission("fees.edit_schedule", is_compliance_officer_of,
               "Only a compliance officer responsible for this schedule may change it."),
    Permission("fees.approve_schedule", is_compliance_officer_of_establishment,
               "Only a second compliance officer of the establishment (an administrator for a jurisdiction's shared "
               "schedule) may approve or refuse its publication."),
    Permission("fees.view_drafts", is_compliance_officer_of,
               "Drafts are seen by the compliance officers responsible for the schedule."),
    # The ledger and its imports.
    Permission("fees.record_ledger", is_staff_of,
               "Only floor supervisors and compliance officers of the table's establishment may record collections, "
               "rounds and reconciliations."),
    Permission("fees.import_records", is_compliance_officer_of_establishment,
               "Only compliance officers of the establishment import its records (files of rounds and collections) "
               "into the ledger."),
)
