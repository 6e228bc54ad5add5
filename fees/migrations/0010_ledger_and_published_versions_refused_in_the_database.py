"""On PostgreSQL the database, not only the application, keeps the ledger append-only and published schedule
versions as published, against every role but the tables' owner (the service's rows-only role, above all).

- Collection entries, rounds of play and reconciliations: never updated nor deleted (a mistake is corrected by a new
  entry). The rounds' trigger is on the partitioned table, so PostgreSQL puts it on every month's partition, those
  made later too.
- A published schedule version is never updated nor deleted, and its options and tiers are never added, changed or
  removed: a change is a new version. Drafts and versions awaiting a second officer stay the application's to guard.

The owner (and a superuser) may still: migrations, the benchmarks' clean-up, maintenance; they can switch triggers off
anyway.
"""

from django.db import migrations

TRIGGERS = """
CREATE FUNCTION fees_is_table_owner(relation oid) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT pg_has_role(current_user, relowner, 'MEMBER') FROM pg_class WHERE oid = relation
$$;

CREATE FUNCTION fees_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF fees_is_table_owner(TG_RELID) THEN
        RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION 'The ledger is append-only: % of % row % refused', TG_OP, TG_TABLE_NAME, OLD.id
        USING HINT = 'Record a correction instead.';
END;
$$;
CREATE TRIGGER fees_ledger_append_only BEFORE UPDATE OR DELETE ON {entries}
    FOR EACH ROW EXECUTE FUNCTION fees_ledger_append_only();
CREATE TRIGGER fees_ledger_append_only BEFORE UPDATE OR DELETE ON {rounds}
    FOR EACH ROW EXECUTE FUNCTION fees_ledger_append_only();
CREATE TRIGGER fees_ledger_append_only BEFORE UPDATE OR DELETE ON {reconciliations}
    FOR EACH ROW EXECUTE FUNCTION fees_ledger_append_only();

CREATE FUNCTION fees_published_version_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status = 'published' AND NOT fees_is_table_owner(TG_RELID) THEN
        RAISE EXCEPTION 'A published schedule version is never changed: % of version % refused', TG_OP, OLD.id
            USING HINT = 'Publish a new version instead.';
    END IF;
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END;
$$;
CREATE TRIGGER fees_published_version_kept BEFORE UPDATE OR DELETE ON {versions}
    FOR EACH ROW EXECUTE FUNCTION fees_published_version_kept();

-- Options (TG_ARGV[0] = 'version_id') and tiers ('option_id'): the versions the row belongs to, before and after.
CREATE FUNCTION fees_published_content_kept() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ids bigint[] := '{{}}';
BEGIN
    IF fees_is_table_owner(TG_RELID) THEN
        RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        ids := ids || (to_jsonb(OLD) ->> TG_ARGV[0])::bigint;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        ids := ids || (to_jsonb(NEW) ->> TG_ARGV[0])::bigint;
    END IF;
    IF TG_ARGV[0] = 'option_id' THEN
        ids := ARRAY(SELECT version_id FROM {options} WHERE id = ANY(ids));
    END IF;
    IF EXISTS (SELECT 1 FROM {versions} WHERE id = ANY(ids) AND status = 'published') THEN
        RAISE EXCEPTION 'A published schedule version is never changed: % of % row % refused', TG_OP, TG_TABLE_NAME,
            COALESCE(to_jsonb(OLD) ->> 'id', to_jsonb(NEW) ->> 'id')
            USING HINT = 'Publish a new version instead.';
    END IF;
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END;
$$;
CREATE TRIGGER fees_published_version_kept BEFORE INSERT OR UPDATE OR DELETE ON {options}
    FOR EACH ROW EXECUTE FUNCTION fees_published_content_kept('version_id');
CREATE TRIGGER fees_published_version_kept BEFORE INSERT OR UPDATE OR DELETE ON {tiers}
    FOR EACH ROW EXECUTE FUNCTION fees_published_content_kept('option_id');
"""

DROP_TRIGGERS = """
DROP TRIGGER IF EXISTS fees_ledger_append_only ON {entries};
DROP TRIGGER IF EXISTS fees_ledger_append_only ON {rounds};
DROP TRIGGER IF EXISTS fees_ledger_append_only ON {reconciliations};
DROP FUNCTION IF EXISTS fees_ledger_append_only();
DROP TRIGGER IF EXISTS fees_published_version_kept ON {versions};
DROP TRIGGER IF EXISTS fees_published_version_kept ON {options};
DROP TRIGGER IF EXISTS fees_published_version_kept ON {tiers};
DROP FUNCTION IF EXISTS fees_published_version_kept();
DROP FUNCTION IF EXISTS fees_published_content_kept();
DROP FUNCTION IF EXISTS fees_is_table_owner(oid);
"""

MODELS = {"entries": "CollectionEntry", "rounds": "RoundOfPlay", "reconciliations": "Reconciliation",
          "versions": "ScheduleVersion", "options": "FeeOption", "tiers": "FeeTier"}


def _run(sql):
    # params=None: the % signs are RAISE's own placeholders, not the driver's.
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            tables = {key: schema_editor.quote_name(apps.get_model("fees", model)._meta.db_table)
                      for key, model in MODELS.items()}
            schema_editor.execute(sql.format(**tables), params=None)
    return run


class Migration(migrations.Migration):

    dependencies = [
        ("fees", "0009_rounds_partitioned_by_month"),
    ]

    operations = [
        migrations.RunPython(_run(TRIGGERS), _run(DROP_TRIGGERS), elidable=False),
    ]
