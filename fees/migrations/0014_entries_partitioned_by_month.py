"""Collection entries partitioned by month of gaming day on PostgreSQL (fees.months.partitions), as the rounds are (0009).

PostgreSQL requires the partition key in every unique key and every foreign key target of a partitioned table, so:

- the idempotency key's unique constraint becomes (establishment, idempotency key, gaming day): what the ingest's
  ``ON CONFLICT`` names. A key stays unique across days: the ingest refuses a key recorded on another day
  (fees.ledger.storage, under a lock per key bucket; docs/scaling.md);
- "corrected once" becomes unique on (corrects, gaming day) where corrects is set: a correction has the day of the
  entry it corrects, so the rule is the same;
- ``corrects`` points at (id, gaming day), a key made in SQL on PostgreSQL (Django's field keeps no constraint of
  its own: db_constraint=False), one per partition onto that partition itself, ``<partition>_corrects``
  (fees.months.partitions.OWN_KEYS): a correction has its original's day, so its partition. Each partition made later
  gets its own (the month function, reopen_month), and a month detaches and drops with no other month checked,
  which a key on the parent would not allow. It also has the database refuse a correction on another day than
  its original's.

SQLite keeps a plain table with the same constraints (model state and both databases agree), and no foreign key
on ``corrects`` (Django makes none with db_constraint=False; intake only ever names an entry it has read).
"""

import datetime

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Q

ENTRIES = "fees_collectionentry"


def partition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from fees.months.partitions import partition_table

    with schema_editor.connection.cursor() as cursor:
        # Each partition (DEFAULT and months) gets its corrections' key (fees.months.partitions.OWN_KEYS), deferred to
        # commit as Django's own foreign keys are.
        partition_table(cursor, datetime.date.today(), table=ENTRIES)


def unpartition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from fees.months.partitions import unpartition_table

    with schema_editor.connection.cursor() as cursor:
        # The partitions' corrections keys go with them; Django's single-column key comes back with the field's
        # db_constraint (the next operation backwards).
        unpartition_table(cursor, table=ENTRIES)


class Migration(migrations.Migration):

    dependencies = [
        ("fees", "0013_rounds_compact"),
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
