"""``fees_ledger_analyze(partition)``: the service's database role, which owns no table, asks the tables' owner to
``ANALYZE`` one month partition of the ledger after a bulk load grew it (``fees.ledger.statistics``, issue 43). It
refuses any other relation: SECURITY DEFINER must not become a way to the owner's other powers. PostgreSQL only."""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION fees_ledger_analyze(partition text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                   WHERE c.relname = partition AND c.relnamespace = 'public'::regnamespace
                   AND i.inhparent IN ('public.fees_roundofplay'::regclass, 'public.fees_collectionentry'::regclass))
    THEN
        RAISE EXCEPTION '% is not a month partition of the ledger (rounds or entries): not analyzed', partition;
    END IF;
    EXECUTE format('ANALYZE %I', partition);
END $$;
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(FUNCTION)  # no parameters: its % are PL/pgSQL's


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS fees_ledger_analyze(text)")


class Migration(migrations.Migration):
    dependencies = [("fees", "0021_closed_months_sums_sealed")]
    operations = [migrations.RunPython(create, drop, elidable=False)]
