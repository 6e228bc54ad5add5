"""The service connects as a PostgreSQL role that owns nothing: it reads and writes rows and appends to the audit
log, but cannot rewrite the log, switch its triggers off nor change the schema; migrations run as the owner.
Checked on the live database as the service role, with psycopg."""

import psycopg
import pytest
from psycopg import errors

AUDIT_LOG, CHAIN_HEADS, CHECKPOINTS = "cardroom_auditlogentry", "cardroom_auditchainhead", "cardroom_auditcheckpoint"
SIGNING_KEYS = "cardroom_signingkey"
FIRST_ENTRY = f"(SELECT min(id) FROM {AUDIT_LOG})"

REFUSED = {
    "truncate the audit log": f"TRUNCATE {AUDIT_LOG}",
    "truncate another table": "TRUNCATE django_session",
    "alter a table": f"ALTER TABLE {AUDIT_LOG} ADD COLUMN note text",
    "disable the audit log's trigger": f"ALTER TABLE {AUDIT_LOG} DISABLE TRIGGER cardroom_audit_log_append_only",
    "disable every trigger for the session": "SET session_replication_role = replica",
    "drop a table": f"DROP TABLE {AUDIT_LOG}",
    "create a table": "CREATE TABLE live_probe (id integer)",
    "update an audit entry": f"UPDATE {AUDIT_LOG} SET action = 'forged' WHERE id = {FIRST_ENTRY}",
    "delete an audit entry": f"DELETE FROM {AUDIT_LOG} WHERE id = {FIRST_ENTRY}",
    "delete a chain head": f"DELETE FROM {CHAIN_HEADS}",
    "delete a signed checkpoint": f"DELETE FROM {CHECKPOINTS}",
    "change a signed checkpoint": f"UPDATE {CHECKPOINTS} SET root_hash = repeat('0', 64)",
    # A witness's record of what it cosigned: deleted, a forked log could start over with it (issue 36).
    "forget a witnessed log": "DELETE FROM cardroom_witnessedlog",
    "record a migration": "INSERT INTO django_migrations (app, name, applied) VALUES ('cardroom', 'forged', now())",
    # A key the service could record would be one it then trusts (docs/audit.md, "Keys").
    "record a signing key": f"""
        INSERT INTO {SIGNING_KEYS} (name, key_id, public_key, fingerprint, valid_from, endorsed_by, endorsement)
        VALUES ('cardroom', 'abcdef01', repeat('A', 43) || '=', 'SHA256:' || repeat('0', 64), now(), '', '')""",
    "change a signing key": f"UPDATE {SIGNING_KEYS} SET public_key = repeat('A', 43) || '='",
    "end a signing key": f"UPDATE {SIGNING_KEYS} SET valid_until = now()",
    # What a reopening restores is the owner's record (and sealed): the service may only read it (issue 32).
    "rewrite a closed month's record": "UPDATE fees_closedmonth SET partitions = '[]'",
    "record a closed month": "INSERT INTO fees_closedmonth (month, archive_dir, bundles, partitions, archived, seal, "
                             "closed_by, closed_at, reopened_by) VALUES ('2019-03-01', '/tmp', '[]', '[]', true, "
                             "'{}', 'forged', now(), '')",
    "mark a closed month reopened": "DELETE FROM fees_closedmonth",
}

PUBLISHED = "(SELECT min(id) FROM fees_scheduleversion WHERE status = 'published')"
PUBLISHED_TIER = f"(SELECT min(t.id) FROM fees_feetier t JOIN fees_feeoption o ON o.id = t.option_id " \
                 f"WHERE o.version_id = {PUBLISHED})"
# Rows the service may write in general, but the database's triggers refuse these changes to.
REFUSED_BY_TRIGGERS = {
    "update a collection entry": "UPDATE fees_collectionentry SET amount = amount + 1 "
                                 "WHERE id = (SELECT min(id) FROM fees_collectionentry)",
    "delete a collection entry": "DELETE FROM fees_collectionentry WHERE id = (SELECT min(id) FROM fees_collectionentry)",
    "update a round of play": "UPDATE fees_roundofplay SET expected_total = 0 "
                              "WHERE id = (SELECT min(id) FROM fees_roundofplay)",
    "delete a round of play": "DELETE FROM fees_roundofplay WHERE id = (SELECT min(id) FROM fees_roundofplay)",
    "delete a reconciliation": "DELETE FROM fees_reconciliation WHERE id = (SELECT min(id) FROM fees_reconciliation)",
    "change a published schedule version": f"UPDATE fees_scheduleversion SET reason = 'forged' WHERE id = {PUBLISHED}",
    "delete a published schedule version": f"DELETE FROM fees_scheduleversion WHERE id = {PUBLISHED}",
    "change a published version's tier": f"UPDATE fees_feetier SET fee = fee + 1 WHERE id = {PUBLISHED_TIER}",
    "delete a published version's tier": f"DELETE FROM fees_feetier WHERE id = {PUBLISHED_TIER}",
    "move a chain head with no entry there": f"UPDATE {CHAIN_HEADS} SET sequence = sequence + 1 WHERE id = "
                                             f"(SELECT min(id) FROM {CHAIN_HEADS})",
}


@pytest.fixture
def service(service_database_url):
    with psycopg.connect(service_database_url, autocommit=True) as connection:
        yield connection


def rolled_back(connection, *statements):
    """Run statements in a transaction that is then rolled back; return the last one's rows, if any."""
    rows = None
    with connection.transaction(force_rollback=True):
        for statement in statements:
            cursor = connection.execute(statement)
            rows = cursor.fetchall() if cursor.description else None
    return rows


def test_the_service_role_reads_the_data(service):
    assert service.execute("SELECT count(*) FROM cardroom_establishment").fetchone()[0] > 0
    assert service.execute(f"SELECT count(*) FROM {AUDIT_LOG}").fetchone()[0] > 0


def test_the_service_role_writes_rows_and_appends_to_the_audit_log(service):
    assert rolled_back(service, "UPDATE auth_user SET first_name = 'Live' WHERE username = 'floor' RETURNING id")
    assert rolled_back(service, "DELETE FROM authtoken_token RETURNING key") == []
    assert rolled_back(service, f"""
        INSERT INTO {AUDIT_LOG} (created_at, actor_label, action, object_type, object_id, object_repr, data, chain,
                                 sequence, prev_hash, entry_hash)
        VALUES (now(), 'live test', 'probe', '', '', '', '{{}}', 'live-test', 1, repeat('0', 64), repeat('1', 64))
        RETURNING id""")
    # A chain head moves onto the entry appended at the next position, with its hash.
    assert rolled_back(service, f"""
        INSERT INTO {AUDIT_LOG} (created_at, actor_label, action, object_type, object_id, object_repr, data, chain,
                                 sequence, prev_hash, entry_hash)
        SELECT now(), 'live test', 'probe', '', '', '', '{{}}', chain, sequence + 1, entry_hash, repeat('2', 64)
        FROM {CHAIN_HEADS} WHERE id = (SELECT min(id) FROM {CHAIN_HEADS})""", f"""
        UPDATE {CHAIN_HEADS} SET sequence = sequence + 1, entry_hash = repeat('2', 64)
        WHERE id = (SELECT min(id) FROM {CHAIN_HEADS}) RETURNING id""")
    assert rolled_back(service, f"SELECT count(*) FROM {SIGNING_KEYS}") == [(1,)]  # reads the key bin/migrate recorded


@pytest.mark.parametrize("statement", REFUSED.values(), ids=REFUSED.keys())
def test_the_service_role_may_not(service, statement):
    with pytest.raises(errors.InsufficientPrivilege):
        rolled_back(service, statement)


@pytest.mark.parametrize("statement", REFUSED_BY_TRIGGERS.values(), ids=REFUSED_BY_TRIGGERS.keys())
def test_the_database_refuses_the_service_role(service, statement):
    with pytest.raises(errors.RaiseException):
        rolled_back(service, statement)


def test_the_service_role_owns_nothing_and_may_truncate_nothing(service):
    role = service.execute(
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = current_user"
    ).fetchone()
    assert role == (False, False, False, False)
    owned = service.execute(
        "SELECT count(*) FROM pg_shdepend WHERE deptype = 'o' AND refobjid = "
        "(SELECT oid FROM pg_roles WHERE rolname = current_user)"
    ).fetchone()[0]
    assert owned == 0
    too_much = service.execute("""
        SELECT relname FROM pg_class JOIN pg_namespace ON pg_namespace.oid = relnamespace
        WHERE nspname = 'public' AND relkind IN ('r', 'p')
          AND has_table_privilege(pg_class.oid, 'TRUNCATE, REFERENCES, TRIGGER')""").fetchall()
    assert too_much == []


def test_tables_created_by_later_migrations_are_granted_rows_but_not_truncate(service, owner_database_url):
    with psycopg.connect(owner_database_url, autocommit=True) as owner:
        owner.execute("CREATE TABLE live_later_migration (id integer)")
        try:
            granted = service.execute(
                "SELECT privilege, has_table_privilege('live_later_migration', privilege) "
                "FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS privilege"
            ).fetchall()
        finally:
            owner.execute("DROP TABLE live_later_migration")
    assert dict(granted) == {"SELECT": True, "INSERT": True, "UPDATE": True, "DELETE": True, "TRUNCATE": False}


def test_the_month_functions_make_no_partition_for_a_closed_month(service, owner_database_url):
    """SECURITY DEFINER is no way into a closed month: the function the service role asks for partitions makes none
    for it (issue 32), so nothing can be written there until reopen_month restores the archived partition."""
    with psycopg.connect(owner_database_url, autocommit=True) as owner:
        (closed,) = owner.execute(
            "INSERT INTO fees_closedmonth (month, archive_dir, bundles, partitions, archived, seal, totals, closed_by, "
            "closed_at, reopened_by, archive_removed_by) VALUES ('1999-03-01', '/nowhere', '[]', '[]', true, '{}', '{}', "
            "'live test', now(), '', '') RETURNING id").fetchone()
        try:
            for table in ("fees_collectionentry", "fees_roundofplay"):
                assert service.execute(f"SELECT {table}_month('1999-03-01')").fetchone() == (None,)
                assert service.execute(f"SELECT to_regclass('{table}_1999_03')").fetchone() == (None,)
                # A month that is not closed still gets its partition (rolled back: the service made it).
                assert rolled_back(service, f"SELECT {table}_month('1999-04-01')") == [(f"{table}_1999_04",)]
        finally:
            owner.execute("DELETE FROM fees_closedmonth WHERE id = %s", [closed])
