"""The signage app's named permissions (``cardroom.permissions``; registered in ``SignageConfig.ready``)."""

from cardroom.permissions import is_compliance_officer_of_establishment, is_staff_of
from cardroom.registry import Permission

PERMISSIONS = (
    Permission("signage.post_table", is_staff_of, "Only floor supervisors and compliance officers post tables."),
    Permission("signage.print_sign", is_staff_of,
               "Only floor supervisors and compliance officers of the table's establishment print signs; GET the same "
               "address for a watermarked preview."),
    Permission("signage.override_print", is_compliance_officer_of_establishment,
               "Only a compliance officer of the table's establishment may ask for, approve or refuse a print "
               "override."),
)
