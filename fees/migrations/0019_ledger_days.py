# The ledger's kept sums (fees.models.LedgerDay), filled from the rows already recorded.

import django.db.models.deletion
from django.db import migrations, models


def fill(apps, schema_editor):
    """Sum the rows already in the database into the kept sums, as ``check_ledger_sums`` rebuilds them
    (``fees.ledger.kept_sums.rebuilt_from``, given the historical models). A closed month's rows are archived, not
    here: its table-days get no kept sums (reopening the month and running ``check_ledger_sums --repair`` makes
    them)."""
    from fees.ledger.kept_sums import rebuilt_from
    from fees.ledger.tally import FIGURES

    RoundOfPlay = apps.get_model("fees", "RoundOfPlay")
    CollectionEntry = apps.get_model("fees", "CollectionEntry")
    LedgerDay = apps.get_model("fees", "LedgerDay")
    sums = rebuilt_from(RoundOfPlay.objects.all(), CollectionEntry.objects.filter(corrections__isnull=True))
    LedgerDay.objects.bulk_create([
        LedgerDay(establishment_id=establishment_id, table_id=table_id, gaming_day=day, currency=currency,
                  **{name: figures[name] for name in FIGURES})
        for (establishment_id, table_id, day, currency), figures in sums.items()
    ], batch_size=2000)


class Migration(migrations.Migration):

    dependencies = [
        ('cardroom', '0014_job_kind_reconciliation'),
        ('fees', '0018_variance_over_collected'),
    ]

    operations = [
        migrations.CreateModel(
            name='LedgerDay',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('gaming_day', models.DateField()),
                ('currency', models.CharField(max_length=3)),
                ('rounds', models.PositiveIntegerField(default=0, help_text='Rounds (hands) recorded.')),
                ('expected_total', models.DecimalField(decimal_places=2, default=0, help_text='What the rounds expect (their expected_total, summed).', max_digits=12)),
                ('entries', models.PositiveIntegerField(default=0, help_text='Entries that count: those no entry corrects.')),
                ('collected_total', models.DecimalField(decimal_places=2, default=0, help_text='What the entries that count collected.', max_digits=12)),
                ('paid_by_player', models.DecimalField(decimal_places=2, default=0, help_text='Collected from players.', max_digits=12)),
                ('paid_by_player_dealer', models.DecimalField(decimal_places=2, default=0, help_text='Collected from the player-dealer.', max_digits=12)),
                ('paid_by_pot', models.DecimalField(decimal_places=2, default=0, help_text='Collected from the pot.', max_digits=12)),
                ('kind_player', models.DecimalField(decimal_places=2, default=0, help_text='Collected as player fees.', max_digits=12)),
                ('kind_player_dealer', models.DecimalField(decimal_places=2, default=0, help_text='Collected as player-dealer fees.', max_digits=12)),
                ('kind_collection', models.DecimalField(decimal_places=2, default=0, help_text='Collected as collection fees.', max_digits=12)),
                ('kind_jackpot', models.DecimalField(decimal_places=2, default=0, help_text='Collected as jackpot fees.', max_digits=12)),
                ('kind_designated_table', models.DecimalField(decimal_places=2, default=0, help_text='Collected as designated table fees.', max_digits=12)),
                ('kind_time', models.DecimalField(decimal_places=2, default=0, help_text='Collected as time collection.', max_digits=12)),
                ('establishment', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cardroom.establishment')),
                ('table', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cardroom.table')),
            ],
            options={
                'verbose_name': 'ledger day',
                'indexes': [models.Index(fields=['establishment', 'gaming_day'], name='ledger_day_room_day')],
                'constraints': [models.UniqueConstraint(fields=('table', 'gaming_day', 'currency'), name='ledger_day_key')],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
