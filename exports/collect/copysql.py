"""The PostgreSQL path of the big kinds: the SELECTs that ``COPY ... TO STDOUT`` streams for ledger entries,
rounds and their fee lines, and the CSV escaping (a formula-like text cell written with a ' before it) in Python's
terms and in SQL's."""

from django.db import connection

# The CSV escaping is the core's (cardroom.csv_escaping: the import's refused rows use it too), named here as the
# export has always named it; its SQL form is ESCAPED below.
from cardroom.csv_escaping import CSV_ESCAPING, ESCAPE_STARTS, FORMULA_STARTS  # noqa: F401


def _sql_scope(scope, alias, last_id, day_column="gaming_day"):
    from psycopg import sql

    # A jurisdiction with no establishments exports no rows (IN () is no SQL; IN (NULL) matches nothing).
    ids = sql.SQL(", ").join(sql.Literal(i) for i in scope.establishment_ids or [None])
    parts = [sql.SQL("t.establishment_id IN ({})").format(ids),
             sql.SQL("{}.id <= {}").format(sql.Identifier(alias), sql.Literal(last_id)),
             sql.SQL("{}.{} <= {}").format(sql.Identifier(alias), sql.Identifier(day_column), sql.Literal(scope.end))]
    if scope.start:
        parts.append(sql.SQL("{}.{} >= {}").format(sql.Identifier(alias), sql.Identifier(day_column),
                                                   sql.Literal(scope.start)))
    return sql.SQL(" AND ").join(parts)


UTC_TEXT = "to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"


def entry_copy_sql(scope):
    from psycopg import sql

    return sql.SQL(
        "SELECT c.id, e.slug, t.label, c.gaming_day, c.reference, " + UTC_TEXT.format("c.collected_at") + ", "
        "c.payer, c.seat, c.player, c.fee_kind, c.amount, c.currency, c.corrects_id, c.reason, "
        "c.idempotency_key, " + UTC_TEXT.format("c.recorded_at") + " "
        "FROM fees_collectionentry c JOIN cardroom_table t ON t.id = c.table_id "
        "JOIN cardroom_establishment e ON e.id = t.establishment_id WHERE {} ORDER BY c.id"
    ).format(_sql_scope(scope, "c", scope.last_entry))


def round_copy_sql(scope):
    from psycopg import sql

    return sql.SQL(
        "SELECT r.id, e.slug, t.label, r.gaming_day, r.reference, " + UTC_TEXT.format("r.played_at") + ", "
        "r.posting_id, r.schedule_code, r.schedule_version, r.option_number, r.pricing_id, r.expected_total, "
        "r.currency "
        "FROM fees_roundofplay r JOIN cardroom_table t ON t.id = r.table_id "
        "JOIN cardroom_establishment e ON e.id = t.establishment_id WHERE {} ORDER BY r.id"
    ).format(_sql_scope(scope, "r", scope.last_round))


def round_fee_line_copy_sql(scope):
    """The rounds' fee lines (``fees.ledger.compact.fee_lines_sql``) of the rounds ``round_copy_sql`` reads, their
    amounts as numbers (the Python path's Decimals)."""
    from psycopg import sql

    from fees.ledger.compact import fee_lines_sql

    return sql.SQL(
        "SELECT f.round_id, f.line_number, f.payer, f.player, f.fee_kind, f.measure, f.tier, f.measured::numeric, "
        "f.fee::numeric, f.note FROM ({} JOIN cardroom_table t ON t.id = r.table_id WHERE {}) f"
    ).format(sql.SQL(fee_lines_sql()), _sql_scope(scope, "r", scope.last_round))


def use_copy():
    return connection.vendor == "postgresql"


TEXT_OIDS = {18, 19, 25, 1042, 1043}  # PostgreSQL's "char", name, text, char(n), varchar
ESCAPED = "CASE WHEN left({0}, 1) IN ({1}) THEN '''' || {0} ELSE nullif({0}, '') END"


def csv_copy_sql(kind, scope):
    """``kind.copy_sql`` for its CSV file, byte for byte what the Python path writes (``build.csv_cell``): a text
    column's formula-like cell (or one beginning with ') with a ' before it, an empty text as nothing (COPY would
    write ""); numbers and dates as they are."""
    from psycopg import sql

    select = kind.copy_sql(scope)
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("SELECT * FROM ({}) s LIMIT 0").format(select))
        types = [column.type_code for column in cursor.description]
    names = kind.column_names
    starts = sql.SQL(", ").join(sql.Literal(c) for c in ESCAPE_STARTS)
    cells = [sql.SQL(ESCAPED).format(sql.Identifier("s", c), starts) if oid in TEXT_OIDS else sql.Identifier("s", c)
             for c, oid in zip(names, types)]
    return sql.SQL("SELECT {} FROM ({}) s ({}) ORDER BY {}").format(
        sql.SQL(", ").join(cells), select, sql.SQL(", ").join(sql.Identifier(c) for c in names),
        sql.SQL(", ").join(sql.Identifier("s", c) for c in kind.order or names[:1]))
