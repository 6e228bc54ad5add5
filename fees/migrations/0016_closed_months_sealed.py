"""A closing's seal (fees.months.selectors.seal_statement), and the month functions that make no partition for a closed
month (issue 32: SECURITY DEFINER was a way to write into one)."""

from django.db import migrations, models


def replace_month_functions(apps, schema_editor):
    from fees.months import partitions

    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for table in partitions.TABLES:
            if partitions.is_partitioned(cursor, table):
                cursor.execute(partitions.month_function_sql(table))


class Migration(migrations.Migration):

    dependencies = [
        ('fees', '0015_closed_months'),
    ]

    operations = [
        migrations.AddField(
            model_name='closedmonth',
            name='seal',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(replace_month_functions, migrations.RunPython.noop),
    ]
