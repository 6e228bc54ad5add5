"""Collection entries partitioned by month of gaming day on PostgreSQL (fees.partitions), as the rounds are (0009).

PostgreSQL requires the partition key in every unique key and every foreign key target of a partitioned table, so:

- the idempotency key's unique constraint becomes (establishment, idempotency key, gaming day): what the ingest's
  ``ON CONFLICT`` names. A key stays unique across days: the ingest refuses a key recorded on another day
  (fees.ledger.storage, under a lock per key bucket; docs/scaling.md);
- "corrected once" becomes unique on (corrects, gaming day) where corrects is set: a correction has the day of the
  entry it corrects, so the rule is the same;
- ``corrects`` points at (id, gaming day): the composite foreign key ``ledger_entry_corrects`` made here in SQL on
  PostgreSQL (Django's field keeps no constraint of its own: db_constraint=False). It also has the database
  refuse a correction on another day than its original's.

SQLite keeps a plain table with the same constraints (model state and both databases agree), and no foreign key
on ``corrects`` (Django makes none with db_constraint=False; intake only ever names an entry it has read).
"""

import datetime

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Q

ENTRIES = "fees_collectionentry"
# On the partitioned table: the composite key, checked at commit as Django's own foreign keys are.
CORRECTS_FK = (f"ALTER TABLE {ENTRIES} ADD CONSTRAINT ledger_entry_corrects FOREIGN KEY (corrects_id, gaming_day) "
               f"REFERENCES {ENTRIES} (id, gaming_day) DEFERRABLE INITIALLY DEFERRED")


def partition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from fees.partitions import partition_table

    with schema_editor.connection.cursor() as cursor:
        partition_table(cursor, datetime.date.today(), table=ENTRIES)
        cursor.execute(CORRECTS_FK)


def unpartition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from fees.partitions import unpartition_table

    with schema_editor.connection.cursor() as cursor:
        # Names (id, gaming_day), which the plain table's primary key (id) is not: Django's single-column key comes
        # back with the field's db_constraint (the next operation backwards).
        cursor.execute(f"ALTER TABLE {ENTRIES} DROP CONSTRAINT ledger_entry_corrects")
        unpartition_table(cursor, table=ENTRIES)


class Migration(migrations.Migration):

    dependencies = [
        ("fees", "0012_variance_summaries"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="collectionentry", name="ledger_entry_idempotency_key"),
        migrations.AddConstraint(
            model_name="collectionentry",
            constraint=models.UniqueConstraint(fields=["establishment", "idempotency_key", "gaming_day"],
                                               name="ledger_entry_idempotency_key"),
        ),
        migrations.RemoveConstraint(model_name="collectionentry", name="ledger_entry_corrected_once"),
        migrations.AddConstraint(
            model_name="collectionentry",
            constraint=models.UniqueConstraint(condition=Q(corrects__isnull=False), fields=["corrects", "gaming_day"],
                                               name="ledger_entry_corrected_once"),
        ),
        migrations.AlterField(
            model_name="collectionentry",
            name="corrects",
            field=models.ForeignKey(
                blank=True, db_constraint=False, db_index=False,
                help_text="The entry this one corrects; this entry states the amount really collected.", null=True,
                on_delete=django.db.models.deletion.PROTECT, related_name="corrections", to="fees.collectionentry"),
        ),
        migrations.RunPython(partition, unpartition, elidable=False),
    ]
