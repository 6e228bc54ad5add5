"""Print overrides take two people; every sign printed records the schedule version it shows.

Existing overrides were granted by one officer: they stay approved, by that officer, so nothing already printable
stops printing. Existing prints get the version of their posting's schedule in force on the day they were printed,
as the record stood then (a version published later, a retroactive one among them, was not on the sign).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import F, Q
from django.utils import timezone

LEGACY_APPROVAL = "Granted by one officer before overrides took two (signage migration 0002)."


def approve_legacy_overrides(apps, schema_editor):
    PrintOverride = apps.get_model("signage", "PrintOverride")
    PrintOverride.objects.update(status="approved", decided_by=F("requested_by"), decided_at=F("requested_at"),
                                 decision_reason=LEGACY_APPROVAL)


def record_printed_versions(apps, schema_editor):
    SignPrint = apps.get_model("signage", "SignPrint")
    ScheduleVersion = apps.get_model("fees", "ScheduleVersion")
    for record in SignPrint.objects.filter(posting__schedule__isnull=False).select_related("posting"):
        day = timezone.localdate(record.printed_at)
        # The rule of ScheduleDocument.version_as_of(day, known_at=printed_at).
        version = (ScheduleVersion.objects.filter(document_id=record.posting.schedule_id, status="published",
                                                  published_at__lte=record.printed_at)
                   .filter(Q(effective_from__lte=day) | Q(effective_from__isnull=True))
                   .order_by(F("effective_from").desc(nulls_last=True), "-number").first())
        if version is not None:
            SignPrint.objects.filter(pk=record.pk).update(schedule_version=version.number)


def forwards(apps, schema_editor):
    approve_legacy_overrides(apps, schema_editor)
    record_printed_versions(apps, schema_editor)
    if schema_editor.connection.vendor == "postgresql":
        # The updates leave deferred foreign-key checks pending; PostgreSQL alters no table that has them.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def backwards(apps, schema_editor):
    # Before this migration every override was granted: requests and refusals have no place there.
    apps.get_model("signage", "PrintOverride").objects.exclude(status="approved").delete()


class Migration(migrations.Migration):

    dependencies = [
        ("fees", "0006_house_banked_postings"),
        ("signage", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField("printoverride", "granted_by", "requested_by"),
        migrations.RenameField("printoverride", "granted_at", "requested_at"),
        migrations.AlterModelOptions(name="printoverride", options={"ordering": ["-requested_at", "-id"]}),
        migrations.AlterField(
            model_name="printoverride", name="reason",
            field=models.TextField(help_text="Why the sign may be printed despite the errors, as asked (kept in the "
                                             "audit log)."),
        ),
        migrations.AddField(
            model_name="printoverride", name="status",
            field=models.CharField(choices=[("requested", "Asked for: awaiting a second officer"),
                                            ("approved", "Approved"), ("refused", "Refused")],
                                   default="requested", max_length=10),
        ),
        migrations.AddField(
            model_name="printoverride", name="decided_by",
            field=models.ForeignKey(blank=True, help_text="The second officer, who approved or refused it.", null=True,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                    to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name="printoverride", name="decided_at", field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="printoverride", name="decision_reason",
            field=models.TextField(blank=True, help_text="Why it was approved or refused."),
        ),
        migrations.AddField(
            model_name="signprint", name="schedule_version",
            field=models.PositiveIntegerField(
                blank=True, null=True,
                help_text="The number of the posting's schedule version in force when it was printed, whose fees the "
                          "sign shows (blank for a posting without a schedule)."),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.AddConstraint(
            model_name="printoverride",
            constraint=models.UniqueConstraint(condition=models.Q(("status", "requested")), fields=("posting",),
                                               name="one_override_request_per_posting"),
        ),
        migrations.AddConstraint(
            model_name="printoverride",
            constraint=models.CheckConstraint(
                condition=models.Q(models.Q(("decided_at__isnull", True), ("decided_by__isnull", True),
                                            ("status", "requested")),
                                   models.Q(models.Q(("status", "requested"), _negated=True),
                                            ("decided_at__isnull", False), ("decided_by__isnull", False)),
                                   _connector="OR"),
                name="override_decided_once_answered"),
        ),
    ]
