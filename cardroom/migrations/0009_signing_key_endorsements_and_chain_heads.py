"""Signing keys carry the endorsement of the key before them; on PostgreSQL the database keeps a key as recorded,
and a chain head moves only onto an entry that is there.

- ``SigningKey.endorsed_by`` and ``endorsement`` (``cardroom.tlog.endorsement_statement``; docs/audit.md, "Keys").
- A recorded key is never deleted and its identity, validity start and endorsement never change; its
  ``valid_until`` is set once, when a newer key replaces it.
- A chain head is written only at position 0 (a new chain) or onto the entry at its position with its hash: it
  moves together with an appended entry (``cardroom.audit.log_action`` inserts the entry first), never ahead of it.

The service's database role may only read signing keys (``grant_service_role``); the owner and a superuser may switch
the triggers off (``session_replication_role = replica``) for their own maintenance.
"""

from django.db import migrations, models

TRIGGERS = """
CREATE FUNCTION cardroom_signing_key_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'Signing keys are kept: DELETE of key % refused', OLD.fingerprint;
    END IF;
    IF (NEW.name, NEW.key_id, NEW.public_key, NEW.fingerprint, NEW.valid_from, NEW.endorsed_by, NEW.endorsement)
            IS DISTINCT FROM
       (OLD.name, OLD.key_id, OLD.public_key, OLD.fingerprint, OLD.valid_from, OLD.endorsed_by, OLD.endorsement)
       OR (OLD.valid_until IS NOT NULL AND NEW.valid_until IS DISTINCT FROM OLD.valid_until) THEN
        RAISE EXCEPTION 'Signing keys are kept as recorded: only the end of the key in use is set, once (key %)',
            OLD.fingerprint;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER cardroom_signing_key_kept BEFORE UPDATE OR DELETE ON {keys}
    FOR EACH ROW EXECUTE FUNCTION cardroom_signing_key_kept();

CREATE FUNCTION cardroom_audit_chain_head_onto_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.sequence = 0 OR EXISTS (
        SELECT 1 FROM {entries} WHERE chain = NEW.chain AND sequence = NEW.sequence AND entry_hash = NEW.entry_hash
    ) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'An audit chain head moves only onto an appended entry (chain %, no entry % with that hash)',
        NEW.chain, NEW.sequence;
END;
$$;
-- Named to fire after cardroom_audit_chain_head_forward_only (0003): triggers fire in name order.
CREATE TRIGGER cardroom_audit_chain_head_onto_entry BEFORE INSERT OR UPDATE ON {heads}
    FOR EACH ROW EXECUTE FUNCTION cardroom_audit_chain_head_onto_entry();
"""

DROP_TRIGGERS = """
DROP TRIGGER IF EXISTS cardroom_signing_key_kept ON {keys};
DROP FUNCTION IF EXISTS cardroom_signing_key_kept();
DROP TRIGGER IF EXISTS cardroom_audit_chain_head_onto_entry ON {heads};
DROP FUNCTION IF EXISTS cardroom_audit_chain_head_onto_entry();
"""


def _run(sql):
    # params=None: the % signs are RAISE's own placeholders, not the driver's.
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            quote = schema_editor.quote_name
            tables = {name: quote(apps.get_model("cardroom", model)._meta.db_table) for name, model in (
                ("keys", "SigningKey"), ("entries", "AuditLogEntry"), ("heads", "AuditChainHead"))}
            schema_editor.execute(sql.format(**tables), params=None)
    return run


class Migration(migrations.Migration):

    dependencies = [
        ("cardroom", "0008_job_heartbeat_and_bundle_check"),
    ]

    operations = [
        migrations.AddField(
            model_name="signingkey",
            name="endorsed_by",
            field=models.CharField(blank=True, help_text="The fingerprint of the key it replaced, which endorsed it; "
                                                         "empty for the first key.", max_length=71),
        ),
        migrations.AddField(
            model_name="signingkey",
            name="endorsement",
            field=models.CharField(blank=True, help_text="Base64 of that key's Ed25519 signature over the endorsement "
                                                         "statement.", max_length=88),
        ),
        migrations.AlterField(
            model_name="signingkey",
            name="valid_from",
            field=models.DateTimeField(help_text="When it started signing."),
        ),
        migrations.RunPython(_run(TRIGGERS), _run(DROP_TRIGGERS)),
    ]
