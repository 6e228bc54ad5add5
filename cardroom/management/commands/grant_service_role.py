from django.core.management.base import CommandError
from django.db import connection, transaction
from django.db.migrations.recorder import MigrationRecorder

from cardroom.exceptions import NotAllowed
from cardroom.management.base import BaseCommand
from cardroom.management.commands.create_database_roles import role_name
from cardroom.models import AuditChainHead, AuditCheckpoint, AuditLogEntry, SigningKey, WitnessedLog

ROWS = "SELECT, INSERT, UPDATE, DELETE"
# Tables whose rows the service role may not rewrite: the audit log is appended to (each entry hash-chained to
# the one before; its trigger refuses changes, and only the owner could switch the trigger off), chain heads
# only move forward, signed checkpoints are kept as signed, and signing keys and migrations are the owner's (a key
# the service could record would be one it then trusts: record_signing_key, run as the owner, records them).
LIMITED = {
    SigningKey._meta.db_table: "SELECT",
    AuditLogEntry._meta.db_table: "SELECT, INSERT",
    AuditCheckpoint._meta.db_table: "SELECT, INSERT",
    AuditChainHead._meta.db_table: "SELECT, INSERT, UPDATE",
    # A witness's record of the logs it cosigned: a deleted row would let a forked log start over (C2SP tlog-witness).
    WitnessedLog._meta.db_table: "SELECT, INSERT, UPDATE",
    MigrationRecorder.Migration._meta.db_table: "SELECT",
}


def limited_tables():
    """``LIMITED`` and what each app declares (``service_role_privileges`` on its AppConfig: "app.Model" or
    "app.Model.many_to_many_field" -> privileges), so the core names no feature app's tables."""
    from django.apps import apps

    tables = dict(LIMITED)
    for config in apps.get_app_configs():
        for label, privileges in getattr(config, "service_role_privileges", {}).items():
            app_label, model_name, *field = label.split(".")
            model = apps.get_model(app_label, model_name)
            table = model._meta.get_field(field[0]).remote_field.through._meta.db_table if field else \
                model._meta.db_table
            tables[table] = privileges
    return tables


class Command(BaseCommand):
    help = (
        "Grant the service role what it needs and nothing more: SELECT, INSERT, UPDATE and DELETE on every table "
        "(also on tables later migrations create), USAGE and SELECT on sequences, only SELECT and INSERT on the "
        "audit log, only SELECT on signing keys, TRUNCATE nowhere. Run as the tables' owner after migrating "
        "(bin/migrate does). Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("service", type=role_name, help="The role gunicorn and Celery connect as.")

    @transaction.atomic
    def handle(self, *args, service, **options):
        if connection.vendor != "postgresql":
            raise CommandError("Roles are PostgreSQL's: this needs DATABASE_URL=postgres://<owner>@.../<database>.")
        quote = connection.ops.quote_name
        role = quote(service)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_user, tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = %s",
                [MigrationRecorder.Migration._meta.db_table],
            )
            user, owner = cursor.fetchone() or (None, None)
            if user != owner:
                raise NotAllowed(f"The database role {user} does not own the tables ({owner} does), so it may not "
                                 f"grant them: run grant_service_role as the tables' owner "
                                 f"(DATABASE_URL=$MIGRATE_DATABASE_URL, as bin/migrate runs). Nothing was changed.")
            if service == owner:
                raise CommandError(f"{service} owns the tables: the service role must be another role.")
            statements = [
                f"GRANT USAGE ON SCHEMA public TO {role}",
                # From nothing, so that running this again converges on the same privileges.
                f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}",
                f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {role}",
                f"GRANT {ROWS} ON ALL TABLES IN SCHEMA public TO {role}",
                f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
                f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT {ROWS} ON TABLES TO {role}",
                f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {role}",
            ]
            limited = limited_tables()
            for table, privileges in limited.items():
                statements.append(f"REVOKE ALL ON {quote(table)} FROM {role}")
                statements.append(f"GRANT {privileges} ON {quote(table)} TO {role}")
            for statement in statements:
                cursor.execute(statement)
        if options["verbosity"]:
            self.stdout.write(f"Granted {service} rows on every table ({', '.join(sorted(limited))} limited).")
