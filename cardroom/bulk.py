"""Many new rows of one model at once, as ``bulk_create`` would write them, through COPY on PostgreSQL.

``bulk_create`` on PostgreSQL sends each batch as one INSERT of parameter arrays, which psycopg quotes value by
value (about 1 ms a reconciliation with its JSON). COPY takes the rows as a stream instead: the ids come from the
table's own sequence first, so the instances have their primary keys afterwards, as after ``bulk_create``.
"""

from django.db import connections, router


def insert(model, objs, *, batch_size=500):
    """Insert the unsaved instances ``objs`` of ``model``; returns them with their primary keys set.

    Bypasses the model's manager, as ``models.QuerySet(model).bulk_create`` does: callers that guard a table
    (the audit log's chain) call this from the one place allowed to write it."""
    if not objs:
        return objs
    alias = router.db_for_write(model)
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return model._base_manager.db_manager(alias).bulk_create(objs, batch_size=batch_size)
    for obj in objs:
        obj._prepare_related_fields_for_save(operation_name="bulk_create")
    meta = model._meta
    fields = list(meta.concrete_fields)
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                       [meta.db_table, meta.pk.column, len(objs)])
        for obj, (pk,) in zip(objs, cursor.fetchall(), strict=True):
            obj.pk = pk
        columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
        with cursor.cursor.copy(f"COPY {connection.ops.quote_name(meta.db_table)} ({columns}) FROM STDIN") as copy:
            for obj in objs:
                # pre_save as bulk_create calls it: auto_now_add fields get their moment.
                copy.write_row([field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields])
    for obj in objs:
        obj._state.adding, obj._state.db = False, alias
    return objs
