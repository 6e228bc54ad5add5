"""What this installation, as a witness, last cosigned of each log (cardroom.witness; docs/audit.md, "Witnesses").

On PostgreSQL a trigger keeps a witnessed log's size from going down and its origin from changing: the witness never
cosigns a smaller tree after a larger one (tlog-witness's race, "rolling back K leaves"), whatever code writes the
row. The owner and a superuser may switch it off (``session_replication_role = replica``) for their own maintenance.
"""

from django.db import migrations, models

TRIGGER = """
CREATE FUNCTION cardroom_witnessed_log_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.size < OLD.size OR NEW.origin_hash IS DISTINCT FROM OLD.origin_hash THEN
        RAISE EXCEPTION 'A witnessed log only grows: % from % to % entries refused', OLD.origin, OLD.size, NEW.size;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER cardroom_witnessed_log_forward_only BEFORE UPDATE ON {logs}
    FOR EACH ROW EXECUTE FUNCTION cardroom_witnessed_log_forward_only();
"""

DROP_TRIGGER = """
DROP TRIGGER IF EXISTS cardroom_witnessed_log_forward_only ON {logs};
DROP FUNCTION IF EXISTS cardroom_witnessed_log_forward_only();
"""


def _run(sql):
    # params=None: the % signs are RAISE's own placeholders, not the driver's.
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            table = schema_editor.quote_name(apps.get_model("cardroom", "WitnessedLog")._meta.db_table)
            schema_editor.execute(sql.format(logs=table), params=None)
    return run


class Migration(migrations.Migration):

    dependencies = [
        ("cardroom", "0014_job_kind_reconciliation"),
    ]

    operations = [
        migrations.CreateModel(
            name="WitnessedLog",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("origin", models.TextField(help_text="The log's origin line, as its checkpoints carry it.")),
                ("origin_hash", models.CharField(help_text="SHA-256 of the origin, lower-case hex: the monitoring "
                                                           "address's key.", max_length=64, unique=True)),
                ("size", models.PositiveBigIntegerField(default=0, help_text="The size of the tree last cosigned (0: "
                                                                             "none yet).")),
                ("root_hash", models.CharField(blank=True, help_text="Its root hash (hex); empty: none cosigned.",
                                               max_length=64)),
                ("checkpoint", models.TextField(blank=True, help_text="The checkpoint last cosigned, as a signed "
                                                                      "note: the log's verified signatures and this "
                                                                      "witness's cosignature.")),
                ("cosigned_at", models.DateTimeField(blank=True, help_text="When it was cosigned.", null=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "verbose_name": "witnessed log",
            },
        ),
        migrations.RunPython(_run(TRIGGER), _run(DROP_TRIGGER)),
    ]
