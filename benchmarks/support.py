"""What the benchmarks share: the smoke size and the one way a figure is printed beside its target; their database
(PostgreSQL, created when missing, or a throw-away SQLite) with the seed loaded; gunicorn's environment.

**The smoke size** (``BENCH_SMOKE=1``, what ``bin/bench --smoke`` sets): every benchmark runs its own code paths on a
few rows, tables and days, once, in seconds, so that a renamed service fails a run instead of a benchmark rotting
unseen (issue 43). Its figures say nothing of the targets, and are printed saying so. At the smoke size a script
never falls back on its own default PostgreSQL database or on files under var/ (a full-size run may be using them):
``bin/bench --smoke`` gives each PostgreSQL script a database of its own.

**Figures**: ``figure()`` prints each one as ``figure: <name> = <value> <unit> (target <op> <bound> <unit>: met)``
(or ``NOT met``, or ``smoke size, not judged``, or ``no target``); ``not_measured()`` says what was not measured and
why. A benchmark exits non-zero only on an error, never because a target is not met: the figures say that.
"""

import operator
import os
import secrets
import shutil
import socket
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
SMOKE = os.environ.get("BENCH_SMOKE", "") not in ("", "0")
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def sized(full, smoke, env=None):
    """The smoke size under ``BENCH_SMOKE``; else ``env``'s value when that variable is set, else ``full``."""
    if SMOKE:
        return smoke
    if env and os.environ.get(env):
        return type(full)(os.environ[env])
    return full


def _number(value, digits):
    if isinstance(value, int):
        return f"{value:,}"
    if digits is None:
        digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:,.{digits}f}"


def figure(name, value, unit="", target=None, digits=None):
    """Print one figure beside its target, ``target`` being (operator, bound) in the figure's unit, e.g.
    ``figure("import through the page's service", 51.8, "s", ("<", 60))``; returns whether the target is met (None
    at the smoke size or without a target)."""
    unit = f" {unit}" if unit and unit != "x" else unit
    shown = f"figure: {name} = {_number(value, digits)}{unit}"
    if target is None:
        print(f"{shown} (no target)", flush=True)
        return None
    op, bound = target
    met = _COMPARE[op](value, bound)
    verdict = "smoke size, not judged" if SMOKE else "met" if met else "NOT met"
    print(f"{shown} (target {op} {_number(bound, None if isinstance(bound, float) else 0)}{unit}: {verdict})",
          flush=True)
    return None if SMOKE else met


def not_measured(name, why):
    """Say that a figure was not measured, and why (a tool missing, the smoke size), rather than leave it out."""
    print(f"figure: {name} = not measured ({why})", flush=True)


def database_url(default):
    """``DATABASE_URL``, or a PostgreSQL benchmark's own database. At the smoke size there is no default: a full-size
    run may be using it (bin/bench --smoke gives each script a database of its own)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    if SMOKE:
        raise SystemExit("At the smoke size (BENCH_SMOKE) a PostgreSQL benchmark needs DATABASE_URL: bin/bench --smoke "
                         "names a database of its own for each script.")
    return default


def kept_file(name):
    """A file or directory a full-size run keeps under var/ between runs (a key, a SQLite database, archives); at
    the smoke size a throw-away one, so that a smoke run never touches a full-size run's."""
    if SMOKE:
        return Path(tempfile.mkdtemp(prefix="cardroom-bench-smoke-")) / name
    return ROOT / "var" / name


def port(default):
    """The port a benchmark's gunicorn listens on: ``BENCH_PORT``, else a free one at the smoke size (beside other
    runs), else ``default``."""
    if os.environ.get("BENCH_PORT"):
        return int(os.environ["BENCH_PORT"])
    if not SMOKE:
        return default
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
        os.environ["DATABASE_URL"] = f"sqlite:///{sqlite_database(Path(directory) / 'bench.sqlite3')}"
        os.environ.setdefault("MEDIA_ROOT", f"{directory}/media")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    import django

    django.setup()
    from django.core.management import call_command

    migrate_and_seed()
    if demo:
        call_command("load_demo", verbosity=0)


def migrate_and_seed():
    """Migrate the database and load the seed data (each does nothing when done already). At the smoke size a
    database that holds the seed already (a copy of bin/bench's template, made from today's seed for the run) is not
    checked against it again: that costs each script ~0.7 s of processor time."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from cardroom.models import Jurisdiction

    if not (SMOKE and Jurisdiction.objects.exists()):
        call_command("load_seed_data", verbosity=0)


def sqlite_database(path):
    """``path``, a copy of ``BENCH_SQLITE_TEMPLATE`` (a SQLite database migrated and seeded, which bin/bench --smoke
    names) when that is set and ``path`` does not exist yet: migrating anew costs every script ~15 s of CPU."""
    template = os.environ.get("BENCH_SQLITE_TEMPLATE")
    if template and not Path(path).exists():
        shutil.copyfile(template, path)
    return path


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
