from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from simple_history.models import HistoricalRecords


class Role(models.TextChoices):
    COMPLIANCE_OFFICER = "compliance_officer", "Compliance officer"
    FLOOR_SUPERVISOR = "floor_supervisor", "Floor supervisor"
    REGULATOR = "regulator", "Regulator (read-only)"
    ADMIN = "admin", "Administrator"


# Which roles are held per establishment, which per jurisdiction.
ESTABLISHMENT_ROLES = {Role.COMPLIANCE_OFFICER, Role.FLOOR_SUPERVISOR}
JURISDICTION_ROLES = {Role.REGULATOR}


class Membership(models.Model):
    """A user's role: staff roles are held in one establishment, a regulator's in one jurisdiction."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=24, choices=Role.choices)
    establishment = models.ForeignKey(
        "cardroom.Establishment", null=True, blank=True, on_delete=models.CASCADE, related_name="memberships"
    )
    jurisdiction = models.ForeignKey(
        "cardroom.Jurisdiction", null=True, blank=True, on_delete=models.CASCADE, related_name="memberships"
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["user", "role"]
        # One row per user, role and place. Three constraints, not one on the four columns: NULLs are distinct in
        # a unique constraint, so the unset place of every role let the same membership be saved twice.
        constraints = [
            models.UniqueConstraint(
                fields=["user", "role", "establishment"], condition=models.Q(establishment__isnull=False),
                name="unique_membership_in_establishment",
                violation_error_message="This user already holds this role at this establishment."),
            models.UniqueConstraint(
                fields=["user", "role", "jurisdiction"], condition=models.Q(jurisdiction__isnull=False),
                name="unique_membership_in_jurisdiction",
                violation_error_message="This user already holds this role in this jurisdiction."),
            models.UniqueConstraint(
                fields=["user", "role"], condition=models.Q(establishment__isnull=True, jurisdiction__isnull=True),
                name="unique_membership_everywhere",
                violation_error_message="This user already holds this role."),
        ]

    def clean(self):
        if self.role in ESTABLISHMENT_ROLES and (not self.establishment_id or self.jurisdiction_id):
            raise ValidationError(f"A {self.get_role_display()} is appointed to one establishment.")
        if self.role in JURISDICTION_ROLES and (not self.jurisdiction_id or self.establishment_id):
            raise ValidationError("A regulator is appointed to one jurisdiction.")
        if self.role == Role.ADMIN and (self.establishment_id or self.jurisdiction_id):
            raise ValidationError("An administrator's role is not tied to a place.")

    def __str__(self):
        where = self.establishment or self.jurisdiction or "everywhere"
        return f"{self.user} - {self.get_role_display()} - {where}"
