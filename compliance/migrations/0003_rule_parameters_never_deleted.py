"""Rule parameters are never deleted: a new value supersedes the old from its own date (PostgreSQL refuses
DELETE too, with cardroom's trigger function)."""

from django.db import migrations

TABLE = "compliance_ruleparameter"


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"CREATE TRIGGER {TABLE}_never_deleted BEFORE DELETE ON {TABLE} "
                              "FOR EACH ROW EXECUTE FUNCTION cardroom_never_deleted();")


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_never_deleted ON {TABLE};")


class Migration(migrations.Migration):
    dependencies = [
        ("compliance", "0002_posting_runs"),
        ("cardroom", "0004_regulator_records_and_room_time"),
    ]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]
