"""A round stores what happened and what it cost (issue 26): its fee lines compactly, and what every round priced
under one schedule version and option shares (``RoundPricing``) once, instead of its explanation, fee lines and
fees by payer in full (~2 kB a round, two thirds of it the explanation repeating the schedule).

Every round already recorded is moved, in batches by id: split (``fees.engine.compact``), rebuilt, and the rebuilt
explanation, fee lines and fees by payer checked against the stored ones round by round (on SQLite byte for byte
as JSON; PostgreSQL's jsonb kept no key order, so there every key, value and list order). Any round that differs
stops the migration, naming it, before a column is dropped. Two passes over the rounds: the first gathers, per
schedule version and option as read, the tiers the rounds used, so that they all share one pricing.

Backwards, the three columns are rebuilt from the compact form. For a large ledger both ways take a while (every
round is read and updated): plan the window.
"""

import datetime
import json

from django.db import migrations, models

BATCH = 2000
ROUNDS = "fees_roundofplay"


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def _batches(cursor, columns):
    """The rounds' ``columns`` (after id and gaming day), BATCH rows at a time, by id (never the whole ledger)."""
    last = 0
    while True:
        cursor.execute(f"SELECT id, gaming_day, {', '.join(columns)} FROM {ROUNDS} WHERE id > %s ORDER BY id "
                       f"LIMIT {BATCH}", [last])
        rows = cursor.fetchall()
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def _day(value):
    return value if isinstance(value, datetime.date) or value is None else datetime.date.fromisoformat(value)


def _text(value):
    return value.isoformat() if isinstance(value, datetime.date) else value


def _update(cursor, postgresql, assignments, rows):
    """``rows``: (id, gaming day, *values of ``assignments``' columns): one statement a batch on PostgreSQL."""
    if not rows:
        return
    if postgresql:
        names = [column for column, _ in assignments]
        columns = list(zip(*rows))
        types = ["bigint", "date"] + [kind for _, kind in assignments]
        cursor.execute(
            f"UPDATE {ROUNDS} r SET {', '.join(f'{c} = v.{c}' for c in names)} "
            f"FROM unnest({', '.join(f'%s::{t}[]' for t in types)}) AS v(id, gaming_day, {', '.join(names)}) "
            f"WHERE r.id = v.id AND r.gaming_day = v.gaming_day",  # the gaming day: only its month's partition
            [list(c) for c in columns])
    else:
        cursor.executemany(f"UPDATE {ROUNDS} SET {', '.join(f'{c} = %s' for c, _ in assignments)} WHERE id = %s",
                           [(*(_text(v) for v in row[2:]), row[0]) for row in rows])


def compact_rounds(apps, schema_editor):
    from fees.engine import compact

    connection = schema_editor.connection
    postgresql = connection.vendor == "postgresql"
    RoundPricing = apps.get_model("fees", "RoundPricing")
    old = ("explanation", "expected_lines", "expected_by_payer")
    with connection.cursor() as cursor:
        # First pass: per shared head (document, version, option, interpretations as read), the tiers used.
        tiers, mixed = {}, set()
        for rows in _batches(cursor, ["explanation"]):
            for _, _, explanation in rows:
                explanation = _json(explanation)
                if not explanation or not isinstance(explanation, dict):
                    continue  # no account, or not one: the second pass names the round
                head = compact.digest({k: v for k, v in explanation.items() if k not in compact.PER_ROUND_KEYS})
                known = tiers.setdefault(head, {})
                for fee in explanation.get("fees") or ():
                    tier = fee.get("tier") if isinstance(fee, dict) else None
                    if isinstance(tier, dict) and known.setdefault(tier.get("order"), tier) != tier:
                        mixed.add(head)  # two readings of one tier under one head: each round keeps its own
        # Second pass: split, rebuild, check, write.
        pricings = {}
        for rows in _batches(cursor, old):
            moved = []
            for round_id, gaming_day, *stored in rows:
                stored = [_json(value) for value in stored]
                explanation = stored[0]
                head = (compact.digest({k: v for k, v in explanation.items() if k not in compact.PER_ROUND_KEYS})
                        if explanation and isinstance(explanation, dict) else None)
                shared = None if head is None or head in mixed else list(tiers[head].values())
                try:
                    body, fee_lines, per_round = compact.split(*stored, tiers=shared, key_order=not postgresql)
                except compact.NotCompactable as error:
                    raise RuntimeError(f"Round {round_id} ({gaming_day}) cannot be stored compactly: {error}. "
                                       f"Nothing was changed.") from None
                differs = compact.different(stored, compact.rebuild(body, fee_lines, per_round),
                                            key_order=not postgresql)
                if differs:
                    raise RuntimeError(f"Round {round_id} ({gaming_day}) would not be rebuilt exactly: {differs}. "
                                       f"Nothing was changed.")
                pricing = None
                if body is not None:
                    digest = compact.digest(body)
                    pricing = pricings.get(digest)
                    if pricing is None:
                        head_fields = body["explanation"]
                        pricing = pricings[digest] = RoundPricing.objects.get_or_create(digest=digest, defaults={
                            "schedule_code": head_fields["document"], "schedule_version": head_fields["version"],
                            "option_number": head_fields["option"], "body": body})[0].pk
                moved.append((round_id, gaming_day, pricing, compact.encode(fee_lines), _day(per_round["as_of"])))
            _update(cursor, postgresql, [("pricing_id", "bigint"), ("fee_lines", "text"), ("priced_on", "date")],
                    moved)
        if postgresql:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending checks left when the columns are dropped


def expand_rounds(apps, schema_editor):
    from fees.engine import compact

    connection = schema_editor.connection
    postgresql = connection.vendor == "postgresql"
    bodies = dict(apps.get_model("fees", "RoundPricing").objects.values_list("id", "body"))
    with connection.cursor() as cursor:
        for rows in _batches(cursor, ["pricing_id", "fee_lines", "priced_on"]):
            moved = []
            for round_id, gaming_day, pricing, fee_lines, priced_on in rows:
                priced_on = _day(priced_on)
                parts = compact.rebuild(bodies.get(pricing), compact.decode(fee_lines),
                                        {"as_of": None if priced_on is None else priced_on.isoformat()})
                moved.append((round_id, gaming_day, *(json.dumps(part) for part in parts)))
            _update(cursor, postgresql, [("explanation", "jsonb"), ("expected_lines", "jsonb"),
                                         ("expected_by_payer", "jsonb")], moved)
        if postgresql:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


# The pricings are as append-only as the rounds that share them (the function is fees migration 0010's).
TRIGGER = ("CREATE TRIGGER fees_ledger_append_only BEFORE UPDATE OR DELETE ON fees_roundpricing "
           "FOR EACH ROW EXECUTE FUNCTION fees_ledger_append_only()")
DROP_TRIGGER = "DROP TRIGGER IF EXISTS fees_ledger_append_only ON fees_roundpricing"


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)
    return run


class Migration(migrations.Migration):

    dependencies = [
        ("fees", "0012_variance_summaries"),
    ]

    operations = [
        migrations.CreateModel(
            name="RoundPricing",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("schedule_code", models.CharField(max_length=40)),
                ("schedule_version", models.PositiveIntegerField()),
                ("option_number", models.PositiveIntegerField()),
                ("digest", models.CharField(help_text="sha256 (hex) of the body's canonical JSON.", max_length=64)),
                ("body", models.JSONField()),
            ],
            options={
                "verbose_name": "round pricing",
                "verbose_name_plural": "round pricings",
                "ordering": ["id"],
                "constraints": [models.UniqueConstraint(fields=("digest",), name="round_pricing_digest")],
            },
        ),
        migrations.AddField(
            model_name="roundofplay",
            name="pricing",
            field=models.ForeignKey(blank=True, db_index=False, null=True,
                                    on_delete=models.deletion.PROTECT, related_name="+", to="fees.roundpricing"),
        ),
        migrations.AddField(
            model_name="roundofplay",
            name="fee_lines",
            field=models.TextField(
                blank=True, default="[]",
                help_text="JSON: one array per fee line, fields in fees.engine.compact.LINE_FIELDS' order (the tier "
                          "by its order in the option). Text, not jsonb: a third smaller for arrays this small."),
        ),
        migrations.AddField(
            model_name="roundofplay",
            name="priced_on",
            field=models.DateField(blank=True, null=True,
                                   help_text="The day the round was priced as of (the day played, in the room's "
                                             "zone)."),
        ),
        migrations.RunPython(compact_rounds, expand_rounds, elidable=False),
        migrations.RemoveField(model_name="roundofplay", name="expected_by_payer"),
        migrations.RemoveField(model_name="roundofplay", name="expected_lines"),
        migrations.RemoveField(model_name="roundofplay", name="explanation"),
        migrations.RunPython(_on_postgresql(TRIGGER), _on_postgresql(DROP_TRIGGER), elidable=False),
    ]
