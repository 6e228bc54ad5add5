"""What the PostgreSQL benchmarks share: their own database, created when missing."""

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
