"""Hash-chain the audit log and make PostgreSQL refuse to change it.

1. Each entry gets its chain (``establishment:<id>`` or ``installation``), its position in it and two hashes;
   chain heads get a table of their own.
2. Existing entries are chained in (created_at, id) order and the heads recorded, so an existing database
   migrates to a log that verifies.
3. On PostgreSQL, triggers refuse UPDATE and DELETE of entries, and let a chain head only move forward.

Self-contained on purpose: it uses the historical models and the pure ``cardroom.chain`` (whose canonical
form never changes), not the application's audit service.
"""

from django.conf import settings
from django.db import migrations, models
from django.db.models import Q

from cardroom import chain

BATCH = 2000


def chain_existing_entries(apps, schema_editor):
    Entry = apps.get_model("cardroom", "AuditLogEntry")
    Head = apps.get_model("cardroom", "AuditChainHead")
    alias = schema_editor.connection.alias
    entries = Entry._base_manager.db_manager(alias)
    heads = {}  # chain -> (sequence, entry_hash) of its last entry so far
    last = None
    while True:
        page = entries.order_by("created_at", "id")
        if last is not None:
            page = page.filter(Q(created_at__gt=last[0]) | Q(created_at=last[0], id__gt=last[1]))
        page = list(page[:BATCH])
        if not page:
            break
        for entry in page:
            name = chain.chain_name(entry.establishment_id)
            sequence, previous = heads.get(name, (0, chain.GENESIS))
            entry.chain, entry.sequence, entry.prev_hash = name, sequence + 1, previous
            entry.entry_hash = chain.entry_hash({field: getattr(entry, field) for field in chain.FIELDS})
            heads[name] = (entry.sequence, entry.entry_hash)
        entries.bulk_update(page, ["chain", "sequence", "prev_hash", "entry_hash"])
        last = (page[-1].created_at, page[-1].id)
    Head._base_manager.db_manager(alias).bulk_create(
        [Head(chain=name, sequence=sequence, entry_hash=digest) for name, (sequence, digest) in heads.items()]
    )


# Row-level BEFORE triggers: UPDATE and DELETE of an entry raise, whoever issues them (short of a role that
# may disable triggers: the tables' owner or a superuser). TRUNCATE is deliberately left allowed: Django's
# test runner empties the database with TRUNCATE between transactional tests (``flush``). A truncated log
# is still noticed: the chain heads then record positions that no entry reaches.
APPEND_ONLY = """
CREATE FUNCTION cardroom_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'The audit log is append-only: % of audit log entry % refused', TG_OP, OLD.id
        USING HINT = 'Entries are never updated or deleted; python manage.py verify_audit_log checks them.';
END;
$$;
CREATE TRIGGER cardroom_audit_log_append_only BEFORE UPDATE OR DELETE ON {entries}
    FOR EACH ROW EXECUTE FUNCTION cardroom_audit_log_append_only();

CREATE FUNCTION cardroom_audit_chain_head_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'Audit chain heads are never deleted (chain %)', OLD.chain;
    END IF;
    IF NEW.chain <> OLD.chain OR NEW.sequence <= OLD.sequence THEN
        RAISE EXCEPTION 'An audit chain head only moves forward (chain %, position % to % refused)',
            OLD.chain, OLD.sequence, NEW.sequence;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER cardroom_audit_chain_head_forward_only BEFORE UPDATE OR DELETE ON {heads}
    FOR EACH ROW EXECUTE FUNCTION cardroom_audit_chain_head_forward_only();
"""

DROP_APPEND_ONLY = """
DROP TRIGGER IF EXISTS cardroom_audit_log_append_only ON {entries};
DROP FUNCTION IF EXISTS cardroom_audit_log_append_only();
DROP TRIGGER IF EXISTS cardroom_audit_chain_head_forward_only ON {heads};
DROP FUNCTION IF EXISTS cardroom_audit_chain_head_forward_only();
"""


def _tables(apps, schema_editor):
    quote = schema_editor.quote_name
    return {
        "entries": quote(apps.get_model("cardroom", "AuditLogEntry")._meta.db_table),
        "heads": quote(apps.get_model("cardroom", "AuditChainHead")._meta.db_table),
    }


# params=None: the % signs in the SQL are RAISE's own placeholders, not the driver's.
def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(APPEND_ONLY.format(**_tables(apps, schema_editor)), params=None)


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_APPEND_ONLY.format(**_tables(apps, schema_editor)), params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("cardroom", "0002_jobs"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AuditChainHead",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("chain", models.CharField(max_length=64, unique=True)),
                ("sequence", models.PositiveBigIntegerField(
                    default=0, help_text="Position of the chain's last entry (0: none yet).")),
                ("entry_hash", models.CharField(help_text="Hash of the chain's last entry.", max_length=64)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "verbose_name": "audit chain head",
            },
        ),
        migrations.AddField(
            model_name="auditlogentry",
            name="chain",
            field=models.CharField(
                default="", max_length=64,
                help_text="The hash chain the entry belongs to: 'establishment:<id>' or 'installation'."),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="auditlogentry",
            name="sequence",
            field=models.PositiveBigIntegerField(default=0, help_text="Position in its chain, from 1."),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="auditlogentry",
            name="prev_hash",
            field=models.CharField(
                default="", max_length=64,
                help_text="Hash of the previous entry in the chain (zeros for the first)."),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="auditlogentry",
            name="entry_hash",
            field=models.CharField(
                default="", max_length=64, help_text="SHA-256 of this entry's content and the previous hash."),
            preserve_default=False,
        ),
        # log_action now sets created_at itself, before hashing (no change in the database).
        migrations.AlterField(
            model_name="auditlogentry",
            name="created_at",
            field=models.DateTimeField(db_index=True),
        ),
        migrations.RunPython(chain_existing_entries, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="auditlogentry",
            constraint=models.UniqueConstraint(
                fields=("chain", "sequence"), name="cardroom_audit_chain_sequence_unique"),
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
