"""Rounds of play partitioned by month of gaming day on PostgreSQL (fees.months.partitions); nothing changes elsewhere.

Django's model is the same: the columns, checks, indexes and foreign keys keep their names; only the primary key
becomes (id, gaming_day), as PostgreSQL requires the partition key in every unique key of a partitioned table.
Indexes added to this table later cannot be built CONCURRENTLY on the parent (PostgreSQL builds them partition by
partition instead)."""

import datetime

from django.db import migrations


def partition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from fees.months.partitions import partition_table

    with schema_editor.connection.cursor() as cursor:
        partition_table(cursor, datetime.date.today())


def unpartition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from fees.months.partitions import unpartition_table

    with schema_editor.connection.cursor() as cursor:
        unpartition_table(cursor)


class Migration(migrations.Migration):

    dependencies = [
        ('fees', '0008_ledger_covering_indexes'),
    ]

    operations = [
        migrations.RunPython(partition, unpartition, elidable=False),
    ]
