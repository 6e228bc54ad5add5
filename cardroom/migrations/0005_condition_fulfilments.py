"""Approval conditions met per establishment (issue 12): a condition says whether it is a prerequisite, and
``ConditionFulfilment`` records, per establishment, the day it was met, the evidence and who recorded it. The
records are never deleted: on PostgreSQL the trigger of migration 0004 refuses it for them too."""

import django.db.models.deletion
import django.utils.timezone
import simple_history.models
from django.conf import settings
from django.db import migrations, models

TABLE = "cardroom_conditionfulfilment"


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":  # cardroom_never_deleted() is made by migration 0004
        schema_editor.execute(f"CREATE TRIGGER {TABLE}_never_deleted BEFORE DELETE ON {TABLE} "
                              "FOR EACH ROW EXECUTE FUNCTION cardroom_never_deleted();")


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_never_deleted ON {TABLE};")


class Migration(migrations.Migration):

    dependencies = [
        ('cardroom', '0004_regulator_records_and_room_time'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='approvalcondition',
            name='kind',
            field=models.CharField(choices=[('prerequisite', 'To be met at each establishment before the game is offered'), ('operating', 'Applies while the game is offered'), ('other_party', 'A notice, or a duty of someone else (the manufacturer, the applicant)')], default='prerequisite', help_text='Only a prerequisite is recorded as met, per establishment; while it is outstanding at an establishment, a posting of the game there is an error.', max_length=16),
        ),
        migrations.AddField(
            model_name='historicalapprovalcondition',
            name='kind',
            field=models.CharField(choices=[('prerequisite', 'To be met at each establishment before the game is offered'), ('operating', 'Applies while the game is offered'), ('other_party', 'A notice, or a duty of someone else (the manufacturer, the applicant)')], default='prerequisite', help_text='Only a prerequisite is recorded as met, per establishment; while it is outstanding at an establishment, a posting of the game there is an error.', max_length=16),
        ),
        migrations.CreateModel(
            name='ConditionFulfilment',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('met_on', models.DateField(blank=True, help_text='The day the condition was met (blank on a withdrawal).', null=True)),
                ('evidence', models.CharField(blank=True, help_text="Reference of the evidence, e.g. the Commission's letter approving the internal controls.", max_length=500)),
                ('note', models.TextField(blank=True)),
                ('withdrawn', models.BooleanField(default=False, help_text='This record withdraws the one it corrects: the condition is not met (any more) at the establishment.')),
                ('reason', models.TextField(blank=True, help_text='Why this record corrects or withdraws the one before.')),
                ('recorded_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('condition', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='fulfilments', to='cardroom.approvalcondition')),
                ('corrects', models.ForeignKey(blank=True, help_text='The record this one corrects or withdraws.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='corrections', to='cardroom.conditionfulfilment')),
                ('establishment', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='condition_fulfilments', to='cardroom.establishment')),
                ('recorded_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['condition', 'establishment', 'recorded_at', 'id'],
            },
        ),
        migrations.CreateModel(
            name='HistoricalConditionFulfilment',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('met_on', models.DateField(blank=True, help_text='The day the condition was met (blank on a withdrawal).', null=True)),
                ('evidence', models.CharField(blank=True, help_text="Reference of the evidence, e.g. the Commission's letter approving the internal controls.", max_length=500)),
                ('note', models.TextField(blank=True)),
                ('withdrawn', models.BooleanField(default=False, help_text='This record withdraws the one it corrects: the condition is not met (any more) at the establishment.')),
                ('reason', models.TextField(blank=True, help_text='Why this record corrects or withdraws the one before.')),
                ('recorded_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.TextField(null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('condition', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='cardroom.approvalcondition')),
                ('corrects', models.ForeignKey(blank=True, db_constraint=False, help_text='The record this one corrects or withdraws.', null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='cardroom.conditionfulfilment')),
                ('establishment', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='cardroom.establishment')),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('recorded_by', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'historical condition fulfilment',
                'verbose_name_plural': 'historical condition fulfilments',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.AddIndex(
            model_name='conditionfulfilment',
            index=models.Index(fields=['establishment', 'condition'], name='condition_fulfilment_place'),
        ),
        migrations.AddConstraint(
            model_name='conditionfulfilment',
            constraint=models.UniqueConstraint(condition=models.Q(('corrects__isnull', False)), fields=('corrects',), name='condition_fulfilment_corrected_once'),
        ),
        migrations.AddConstraint(
            model_name='conditionfulfilment',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('corrects__isnull', False), ('met_on__isnull', True), ('withdrawn', True)), models.Q(('met_on__isnull', False), ('withdrawn', False), models.Q(('evidence', ''), _negated=True)), _connector='OR'), name='condition_fulfilment_met_with_evidence_or_withdrawn'),
        ),
        migrations.RunPython(create_trigger, drop_trigger),
    ]
