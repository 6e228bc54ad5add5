"""Every ledger row carries its establishment (filled in from its table), and idempotency keys are unique
within an establishment rather than across the installation; schedule versions can be confirmed retroactive."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


LEDGER = ("collectionentry", "roundofplay", "reconciliation")


def fill_establishment(apps, schema_editor):
    Table = apps.get_model("cardroom", "Table")
    for name in LEDGER:
        model = apps.get_model("fees", name)
        for table_id, establishment_id in Table.objects.values_list("id", "establishment_id"):
            # The ledger's managers refuse updates; the base manager is the migration's own.
            model._base_manager.filter(table_id=table_id).update(establishment_id=establishment_id)


def required(name):
    return migrations.AlterField(
        model_name=name, name="establishment",
        field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                to="cardroom.establishment"),
    )


class Migration(migrations.Migration):

    dependencies = [
        ('cardroom', '0004_regulator_records_and_room_time'),
        ('fees', '0004_posting_public_token'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='collectionentry',
            name='ledger_entry_idempotency_key',
        ),
        migrations.AddField(
            model_name='collectionentry',
            name='establishment',
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cardroom.establishment'),
        ),
        migrations.AddField(
            model_name='historicalscheduleversion',
            name='retroactive',
            field=models.BooleanField(default=False, help_text='Confirmed as retroactive: it takes effect before the day it is published.'),
        ),
        migrations.AddField(
            model_name='historicalscheduleversion',
            name='retroactive_reason',
            field=models.TextField(blank=True, help_text='Why it must reach back before its publication.'),
        ),
        migrations.AddField(
            model_name='reconciliation',
            name='establishment',
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cardroom.establishment'),
        ),
        migrations.AddField(
            model_name='roundofplay',
            name='establishment',
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cardroom.establishment'),
        ),
        migrations.AddField(
            model_name='scheduleversion',
            name='retroactive',
            field=models.BooleanField(default=False, help_text='Confirmed as retroactive: it takes effect before the day it is published.'),
        ),
        migrations.AddField(
            model_name='scheduleversion',
            name='retroactive_reason',
            field=models.TextField(blank=True, help_text='Why it must reach back before its publication.'),
        ),
        migrations.RunPython(fill_establishment, migrations.RunPython.noop),
        *[required(name) for name in LEDGER],
        migrations.AlterField(
            model_name='collectionentry',
            name='idempotency_key',
            field=models.CharField(help_text='Chosen by the recorder; a retried submission with the same key records nothing new. Unique within the establishment.', max_length=100),
        ),
        migrations.AddConstraint(
            model_name='collectionentry',
            constraint=models.UniqueConstraint(fields=('establishment', 'idempotency_key'), name='ledger_entry_idempotency_key'),
        ),
    ]
