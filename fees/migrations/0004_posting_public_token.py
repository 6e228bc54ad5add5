import secrets

from django.db import migrations, models

import fees.models.postings


def give_tokens(apps, schema_editor):
    TablePosting = apps.get_model("fees", "TablePosting")
    for posting in TablePosting.objects.filter(public_token__isnull=True).only("pk"):
        TablePosting.objects.filter(pk=posting.pk).update(public_token=secrets.token_urlsafe(16))


class Migration(migrations.Migration):
    """Each posting gets its own random verification key (three steps, so existing rows get distinct keys)."""

    dependencies = [("fees", "0003_ledger")]

    operations = [
        migrations.AddField("tableposting", "public_token", models.CharField(max_length=32, null=True, editable=False)),
        migrations.AddField("historicaltableposting", "public_token",
                            models.CharField(max_length=32, null=True, editable=False, db_index=True)),
        migrations.RunPython(give_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            "tableposting", "public_token",
            models.CharField(max_length=32, unique=True, default=fees.models.postings.new_public_token, editable=False,
                             help_text="Random key of the public verification page the sign's QR code opens (not guessable)."),
        ),
        migrations.AlterField(
            "historicaltableposting", "public_token",
            models.CharField(max_length=32, db_index=True, default=fees.models.postings.new_public_token, editable=False,
                             help_text="Random key of the public verification page the sign's QR code opens (not guessable)."),
        ),
    ]
