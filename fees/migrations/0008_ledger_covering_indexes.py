"""Covering indexes for reconciliation: a day's rounds and entries read from the index alone (index-only scans on
PostgreSQL), not from the rows; the entries' index replaces ledger_entry_day_table, whose key it extends.

On PostgreSQL the indexes are built CONCURRENTLY, so a ledger in service keeps taking entries while they build
(minutes for a year of a busy room)."""

from django.contrib.postgres import operations as postgres
from django.db import migrations, models


class ConcurrentlyOnPostgreSQL:
    """The concurrent operation on PostgreSQL, the plain one elsewhere (SQLite has nothing to hold)."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        method = super().database_forwards if schema_editor.connection.vendor == "postgresql" else (
            self.plain.database_forwards.__get__(self))
        method(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        method = super().database_backwards if schema_editor.connection.vendor == "postgresql" else (
            self.plain.database_backwards.__get__(self))
        method(app_label, schema_editor, from_state, to_state)


class AddIndex(ConcurrentlyOnPostgreSQL, postgres.AddIndexConcurrently):
    plain = migrations.AddIndex


class RemoveIndex(ConcurrentlyOnPostgreSQL, postgres.RemoveIndexConcurrently):
    plain = migrations.RemoveIndex


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ('fees', '0007_two_person_publication_and_interpretations'),
    ]

    operations = [
        AddIndex(
            model_name='collectionentry',
            index=models.Index(fields=['gaming_day', 'table'], include=('reference', 'amount', 'id', 'corrects'),
                               name='ledger_entry_day_fees'),
        ),
        RemoveIndex(
            model_name='collectionentry',
            name='ledger_entry_day_table',
        ),
        AddIndex(
            model_name='roundofplay',
            index=models.Index(fields=['gaming_day', 'table'], include=('reference', 'expected_total'),
                               name='ledger_round_day_fees'),
        ),
    ]
