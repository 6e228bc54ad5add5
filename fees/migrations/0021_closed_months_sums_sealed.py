"""What is closed stays closed, the sums too (issue 41). On PostgreSQL the database refuses every role but the tables'
owner (the service's rows-only role, above all) any INSERT, UPDATE or DELETE of a closed month's kept sums
(``fees_ledgerday``) and variance summaries (``fees_varianceday``, ``fees_variancecell``), and any new
reconciliation of it (``fees_reconciliation``, whose rows were already never updated nor deleted: 0010), as its
rounds and entries are refused by the month's CHECKs. A month is closed from the moment its closing freezes it
(``fees_closedmonth``, ``reopened_at`` empty) until it is reopened; the owner (closing, reopening, migrations) is let
through, as by the ledger's own triggers (``fees_is_table_owner``, 0010).

And the closing's record gains ``totals``: the month's sums per room and gaming day, which its seal covers
(``fees.months.sealed``)."""

from django.db import migrations, models

TRIGGERS = """
CREATE FUNCTION fees_closed_month_kept() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    days date[];
    day date;
BEGIN
    IF TG_OP = 'INSERT' THEN
        days := ARRAY[NEW.gaming_day];
    ELSIF TG_OP = 'DELETE' THEN
        days := ARRAY[OLD.gaming_day];
    ELSE
        days := ARRAY[OLD.gaming_day, NEW.gaming_day];
    END IF;
    FOREACH day IN ARRAY days LOOP
        -- The closed months first: one probe of closed_month_once, and the owner is asked only when one is.
        IF EXISTS (SELECT 1 FROM {closed} WHERE month = date_trunc('month', day)::date AND reopened_at IS NULL)
                AND NOT fees_is_table_owner(TG_RELID) THEN
            RAISE EXCEPTION 'A closed month stays as it was closed: % of % row % refused (gaming day % is in %, a '
                'closed month)', TG_OP, TG_TABLE_NAME, COALESCE(to_jsonb(OLD) ->> 'id', to_jsonb(NEW) ->> 'id', '-'),
                day, to_char(day, 'FMMonth YYYY')
                USING HINT = 'The tables'' owner reopens it first (manage.py reopen_month).';
        END IF;
    END LOOP;
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END;
$$;
CREATE TRIGGER fees_closed_month_kept BEFORE INSERT OR UPDATE OR DELETE ON {ledger_days}
    FOR EACH ROW EXECUTE FUNCTION fees_closed_month_kept();
CREATE TRIGGER fees_closed_month_kept BEFORE INSERT OR UPDATE OR DELETE ON {variance_days}
    FOR EACH ROW EXECUTE FUNCTION fees_closed_month_kept();
CREATE TRIGGER fees_closed_month_kept BEFORE INSERT OR UPDATE OR DELETE ON {variance_cells}
    FOR EACH ROW EXECUTE FUNCTION fees_closed_month_kept();
CREATE TRIGGER fees_closed_month_kept BEFORE INSERT ON {reconciliations}
    FOR EACH ROW EXECUTE FUNCTION fees_closed_month_kept();
"""

DROP_TRIGGERS = """
DROP TRIGGER IF EXISTS fees_closed_month_kept ON {ledger_days};
DROP TRIGGER IF EXISTS fees_closed_month_kept ON {variance_days};
DROP TRIGGER IF EXISTS fees_closed_month_kept ON {variance_cells};
DROP TRIGGER IF EXISTS fees_closed_month_kept ON {reconciliations};
DROP FUNCTION IF EXISTS fees_closed_month_kept();
"""

MODELS = {"closed": "ClosedMonth", "ledger_days": "LedgerDay", "variance_days": "VarianceDay",
          "variance_cells": "VarianceCell", "reconciliations": "Reconciliation"}


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
        ('fees', '0020_closed_month_archive_removed'),
    ]

    operations = [
        migrations.AddField(
            model_name='closedmonth',
            name='totals',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(_run(TRIGGERS), _run(DROP_TRIGGERS), elidable=False),
    ]
