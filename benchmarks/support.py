"""What the benchmarks share: their database (PostgreSQL, created when missing, or a throw-away SQLite) with the
seed loaded; gunicorn's environment."""

import os
import secrets
import tempfile
from urllib.parse import urlsplit


def ensure_postgres_database(database_url):
    import psycopg

    url = urlsplit(database_url)
    if not url.scheme.startswith("postgres"):
        raise SystemExit("This benchmark measures PostgreSQL: set DATABASE_URL=postgres://...")
    name = url.path.lstrip("/")
    admin_url = database_url.replace(url.path, "/postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def setup_django(demo=False):
    """Django on ``DATABASE_URL`` (a throw-away SQLite database when unset), migrated, with the seed data (and the
    demo month with ``demo``)."""
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        ensure_postgres_database(os.environ["DATABASE_URL"])
    if not os.environ.get("DATABASE_URL"):
        directory = tempfile.mkdtemp(prefix="cardroom-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{directory}/bench.sqlite3"
        os.environ.setdefault("MEDIA_ROOT", f"{directory}/media")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardroom.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_seed_data", verbosity=0)
    if demo:
        call_command("load_demo", verbosity=0)


def analyze():
    """Fresh statistics for PostgreSQL's planner, as a database in service has (autovacuum keeps them): right after
    bulk loading it has none, and plans chosen blind measure the load, not the query."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def production_environment():
    """This process's environment as production sets it (DEBUG off, a strong key), on plain HTTP to 127.0.0.1."""
    return {**os.environ, "DEBUG": "False", "SECRET_KEY": secrets.token_urlsafe(50), "SECURE_SSL_REDIRECT": "False",
            "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "ERROR"}


def log_in(client, user):
    """``client.force_login(user)`` with the second factor passed, as a real login would (cardroom.second_factor):
    the user's authenticator app, or one set up with the demo's secret (README) for a benchmark's own user."""
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from cardroom import second_factor

    client.force_login(user)
    if second_factor.required(user) or second_factor.has_device(user):
        device = TOTPDevice.objects.filter(user=user, confirmed=True).first() or second_factor.set_up_app(
            user, "CARDROOMDEMOONLYCARDROOMDEMOONLY")
        session = client.session
        session[DEVICE_ID_SESSION_KEY] = device.persistent_id
        session.save()
