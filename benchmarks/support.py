"""What the benchmarks share: their own PostgreSQL database, created when missing; gunicorn's environment."""

import os
import secrets
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


def production_environment():
    """This process's environment as production sets it (DEBUG off, a strong key), on plain HTTP to 127.0.0.1."""
    return {**os.environ, "DEBUG": "False", "SECRET_KEY": secrets.token_urlsafe(50), "SECURE_SSL_REDIRECT": "False",
            "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "ERROR"}
