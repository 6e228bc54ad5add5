"""Closed months (fees.months, manage.py close_month / reopen_month): what was archived where, and its digests."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cardroom', '0011_job_kind_ledger_import'),
        ('fees', '0014_entries_partitioned_by_month'),
    ]

    operations = [
        migrations.CreateModel(
            name='ClosedMonth',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('month', models.DateField(help_text="The month's first day.")),
                ('archive_dir', models.CharField(help_text='Where the bundles and partition files were written.', max_length=500)),
                ('bundles', models.JSONField(default=list)),
                ('partitions', models.JSONField(default=list)),
                ('archived', models.BooleanField(default=False, help_text='Every partition written to its file and dropped.')),
                ('closed_by', models.CharField(max_length=150)),
                ('closed_at', models.DateTimeField()),
                ('reopened_by', models.CharField(blank=True, max_length=150)),
                ('reopened_at', models.DateTimeField(blank=True, null=True)),
                ('establishments', models.ManyToManyField(help_text='Every establishment with rows in the month: all were named.', related_name='+', to='cardroom.establishment')),
            ],
            options={
                'ordering': ['-month', '-closed_at'],
                'constraints': [models.UniqueConstraint(condition=models.Q(('reopened_at__isnull', True)), fields=('month',), name='closed_month_once')],
            },
        ),
    ]
