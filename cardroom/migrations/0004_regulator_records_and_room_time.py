"""Regulator-issued records are never deleted (PostgreSQL refuses it too); approvals and conditions say why their
status is what it is; establishments have a time zone and a gaming-day start."""

import cardroom.models.places
import datetime
import django.db.models.deletion
from django.db import migrations, models


NEVER_DELETED = ("cardroom_source", "cardroom_approval", "cardroom_approvalcondition")

# A row-level BEFORE DELETE trigger: regulator-issued records are withdrawn or superseded with a reason, never
# deleted, whoever asks (short of a role that may disable triggers: the owner or a superuser). TRUNCATE stays
# allowed for Django's test flush; the service's database role has no TRUNCATE privilege (README).
FUNCTION = """
CREATE OR REPLACE FUNCTION cardroom_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'Regulator-issued records are never deleted: DELETE of % % refused', TG_TABLE_NAME, OLD.id
        USING HINT = 'Withdraw or supersede it with a reason instead.';
END;
$$;
"""


def trigger_sql(table):
    return (f"CREATE TRIGGER {table}_never_deleted BEFORE DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION cardroom_never_deleted();")


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:  # no parameters: the %s of RAISE stay as they are
            cursor.execute(FUNCTION)
            for table in NEVER_DELETED:
                cursor.execute(trigger_sql(table))


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for table in NEVER_DELETED:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_never_deleted ON {table};")


class Migration(migrations.Migration):

    dependencies = [
        ('cardroom', '0003_audit_chain'),
    ]

    operations = [
        migrations.AddField(
            model_name='approval',
            name='status_reason',
            field=models.TextField(blank=True, help_text='Why the status is what it is (the letter that withdrew or superseded it).'),
        ),
        migrations.AddField(
            model_name='approvalcondition',
            name='status_reason',
            field=models.TextField(blank=True, help_text='Why the status is what it is.'),
        ),
        migrations.AddField(
            model_name='establishment',
            name='gaming_day_start',
            field=models.TimeField(default=datetime.time(0, 0), help_text="When the room's gaming day begins (local time); 00:00 for the calendar day."),
        ),
        migrations.AddField(
            model_name='establishment',
            name='time_zone',
            field=models.CharField(default=cardroom.models.places.default_time_zone, help_text="The room's IANA time zone: gaming days and every time shown for the room are in it.", max_length=64, validators=[cardroom.models.places.validate_time_zone]),
        ),
        migrations.AddField(
            model_name='historicalapproval',
            name='status_reason',
            field=models.TextField(blank=True, help_text='Why the status is what it is (the letter that withdrew or superseded it).'),
        ),
        migrations.AddField(
            model_name='historicalapprovalcondition',
            name='status_reason',
            field=models.TextField(blank=True, help_text='Why the status is what it is.'),
        ),
        migrations.AddField(
            model_name='historicalestablishment',
            name='gaming_day_start',
            field=models.TimeField(default=datetime.time(0, 0), help_text="When the room's gaming day begins (local time); 00:00 for the calendar day."),
        ),
        migrations.AddField(
            model_name='historicalestablishment',
            name='time_zone',
            field=models.CharField(default=cardroom.models.places.default_time_zone, help_text="The room's IANA time zone: gaming days and every time shown for the room are in it.", max_length=64, validators=[cardroom.models.places.validate_time_zone]),
        ),
        migrations.AlterField(
            model_name='approval',
            name='status',
            field=models.CharField(choices=[('pending', 'Pending'), ('trial', 'Trial'), ('approved', 'Approved'), ('withdrawn', 'Withdrawn'), ('revoked', 'Revoked'), ('superseded', 'Superseded by a later approval')], max_length=16),
        ),
        migrations.AlterField(
            model_name='approvalcondition',
            name='approval',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='conditions', to='cardroom.approval'),
        ),
        migrations.AlterField(
            model_name='approvalcondition',
            name='status',
            field=models.CharField(choices=[('outstanding', 'Outstanding'), ('met', 'Met'), ('not_applicable', 'Not applicable'), ('withdrawn', 'Withdrawn')], default='outstanding', max_length=16),
        ),
        migrations.AlterField(
            model_name='historicalapproval',
            name='status',
            field=models.CharField(choices=[('pending', 'Pending'), ('trial', 'Trial'), ('approved', 'Approved'), ('withdrawn', 'Withdrawn'), ('revoked', 'Revoked'), ('superseded', 'Superseded by a later approval')], max_length=16),
        ),
        migrations.AlterField(
            model_name='historicalapprovalcondition',
            name='status',
            field=models.CharField(choices=[('outstanding', 'Outstanding'), ('met', 'Met'), ('not_applicable', 'Not applicable'), ('withdrawn', 'Withdrawn')], default='outstanding', max_length=16),
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
