"""Schema fuzzing at length: schemathesis against the whole API as a floor supervisor, a compliance officer and an
administrator (token auth), on PostgreSQL, with the service run as production runs it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_fuzz .venv/bin/python benchmarks/api_fuzz.py

Drops and re-creates the benchmark's own database (a fuzzer writes whatever the API lets it), migrates it, loads
the seed and demo data and makes a token for the demo users admin, compliance and floor. Starts gunicorn
(DEBUG=False, 2 workers, its access log kept) and a Celery worker on Redis (BENCH_BROKER_URL, default
redis://127.0.0.1:6379/4), then runs ``st run`` (the pinned schemathesis) once per role with every phase:
the schema's examples, coverage (boundaries, missing and wrong-typed values), BENCH_EXAMPLES generated cases
per operation (default 220) and the stateful pass, with the checks of bin/test's live stage
(tests/live/schemathesis.toml).

Prints the calls the service answered (counted from gunicorn's access log, the fuzzer's own probes included),
by status class, the 5xx among them, and the conformance failures schemathesis found (targets: at least
40,000 calls, 0 and 0). Load goes only to 127.0.0.1 and stops by itself; reports stay in a temporary directory.

At the smoke size (BENCH_SMOKE=1, bin/bench --smoke: DATABASE_URL must name the database, which is used as it is,
not dropped) one worker, the floor supervisor only (the benchmark's own, ``bench-fuzz-floor``: the demo is not
loaded), the examples and fuzzing phases with one generated case per operation.
"""

import collections
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree

# benchmarks/ is on sys.path as a script
from support import (SMOKE, database_url, ensure_postgres_database, figure, migrate_and_seed, port,
                     production_environment, sized)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATABASE_URL = database_url("postgres://postgres@127.0.0.1:5432/cardroom_bench_fuzz")
os.environ["DATABASE_URL"] = DATABASE_URL
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
BROKER_URL = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/4")
PORT = port(8023)
WORKERS = sized(2, 1, "BENCH_WORKERS")
EXAMPLES = sized(220, 1, "BENCH_EXAMPLES")
PHASES = sized("examples,coverage,fuzzing,stateful", "fuzzing")
ROLES = sized(("floor", "compliance", "admin"), ("floor",))
CALLS_TARGET = 40_000
CONFIG = ROOT / "tests" / "live" / "schemathesis.toml"  # the checks, as in bin/test's live stage
# gunicorn's access log line: ... "GET /path HTTP/1.1" 200 ...
ACCESS = re.compile(r'"[A-Z]+ [^"]*" (\d{3}) ')


def fresh_database():
    """The benchmark's own database, dropped and made again: every run starts from the seed and demo data (at the
    smoke size the database given is new already)."""
    import psycopg

    url = urlsplit(DATABASE_URL)
    if not url.scheme.startswith("postgres"):
        raise SystemExit("This benchmark runs on PostgreSQL: set DATABASE_URL=postgres://...")
    if SMOKE:
        ensure_postgres_database(DATABASE_URL)
        return
    with psycopg.connect(DATABASE_URL.replace(url.path, "/postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{url.path.lstrip("/")}" WITH (FORCE)')
    ensure_postgres_database(DATABASE_URL)


def prepare():
    """Migrate, load the seed and demo data; a token for each role's demo user."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    migrate_and_seed()
    if SMOKE:  # the demo takes ~10 s of CPU to load: the floor supervisor is the benchmark's own
        from cardroom.models import Establishment, Role
        from cardroom.roles import appoint

        floor, _ = get_user_model().objects.get_or_create(username="bench-fuzz-floor")
        appoint(floor, Role.FLOOR_SUPERVISOR, establishment=Establishment.objects.get(slug="casino-marysville"))
        return {"floor": Token.objects.get_or_create(user=floor)[0].key}
    call_command("load_demo", force=True, verbosity=0)
    users = get_user_model().objects.filter(username__in=ROLES)
    return {user.username: Token.objects.get_or_create(user=user)[0].key for user in users}


def wait_for_server(timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/api/v1/schema/", timeout=5).read()
            return
        except (OSError, urllib.error.HTTPError):
            time.sleep(0.5)
    raise SystemExit(f"gunicorn did not answer on 127.0.0.1:{PORT}")


def fuzz(role, token, directory):
    """One ``st run`` as ``role``; returns (seconds, operations tested, conformance failures, output)."""
    junit = directory / f"junit-{role}.xml"
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run",
        f"http://127.0.0.1:{PORT}/api/v1/schema/", "--header", f"Authorization: Token {token}",
        "--phases", PHASES, "--max-examples", str(EXAMPLES), *(["--include-method", "GET"] if SMOKE else []),
        "--generation-with-security-parameters", "false", "--generation-database", "none",
        "--request-timeout", "60", "--no-color", "--report", "junit", "--report-junit-path", str(junit),
    ]
    started = time.monotonic()
    done = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    (directory / f"st-{role}.txt").write_text(done.stdout + done.stderr)
    cases = ElementTree.parse(junit).getroot().findall(".//testcase")
    failures = sum(len(case.findall("failure")) + len(case.findall("error")) for case in cases)
    if done.returncode != 0 and not failures:
        failures = 1  # schemathesis failed without a per-operation failure (an error of the run itself)
    generated = re.search(r"(\d+) generated", done.stdout)
    return seconds, len(cases), int(generated.group(1)) if generated else 0, failures, done.stdout + done.stderr


def answered(access_log):
    """Status -> count of the calls in gunicorn's access log."""
    counts = collections.Counter()
    for line in access_log.read_text(errors="replace").splitlines():
        match = ACCESS.search(line)
        if match:
            counts[int(match.group(1))] += 1
    return counts


def main():
    fresh_database()
    tokens = prepare()
    directory = Path(tempfile.mkdtemp(prefix="cardroom-bench-fuzz-"))
    env = {**production_environment(), "CELERY_BROKER_URL": BROKER_URL, "MEDIA_ROOT": str(directory / "media"),
           "SIGNING_KEY_FILE": str(directory / "signing-key.pem")}
    env.pop("CELERY_RESULT_BACKEND", None)
    access_log = directory / "access.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "project.wsgi", "--workers", str(WORKERS), "--bind", f"127.0.0.1:{PORT}",
         "--log-level", "warning", "--access-logfile", str(access_log), "--no-control-socket"], cwd=ROOT, env=env,
        stdout=(directory / "gunicorn.log").open("w"), stderr=subprocess.STDOUT,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "project", "worker", "--concurrency", "1", "-n",
         f"bench-fuzz-{os.getpid()}@%h", "-l", "warning"], cwd=ROOT, env=env,
        stdout=(directory / "worker.log").open("w"), stderr=subprocess.STDOUT,
    )
    runs = {}
    try:
        wait_for_server()
        for role in ROLES:  # the administrator, who may change most, last
            runs[role] = fuzz(role, tokens[role], directory)
            seconds, operations, generated, failures, _ = runs[role]
            print(f"{role}: {operations} operations, {generated:,} test cases generated in {seconds:.0f} s, "
                  f"{failures} conformance failures", flush=True)
    finally:
        for process in (server, worker):
            process.send_signal(signal.SIGTERM)
        for process in (server, worker):
            process.wait(timeout=60)
    counts = answered(access_log)
    calls = sum(counts.values())
    errors = sum(n for status, n in counts.items() if status >= 500)
    failures = sum(run[3] for run in runs.values())
    seconds = sum(run[0] for run in runs.values())
    classes = collections.Counter()
    for status, n in counts.items():
        classes[f"{status // 100}xx"] += n
    print(f"gunicorn workers: {WORKERS}, PostgreSQL, schemathesis {schemathesis_version()}, phases {PHASES}, "
          f"{EXAMPLES} generated cases per operation and role")
    print(f"calls answered: {calls:,} in {seconds:.0f} s ({calls / seconds:.0f}/s); by class: "
          + ", ".join(f"{name} {n:,}" for name, n in sorted(classes.items())))
    print("statuses: " + ", ".join(f"{status} {n:,}" for status, n in sorted(counts.items())))
    figure("calls answered", calls, "", (">=", CALLS_TARGET))
    figure("5xx answers", errors, "", ("<=", 0))
    figure("conformance failures", failures, "", ("<=", 0))
    for role, (_, _, _, role_failures, output) in runs.items():
        if role_failures:
            print(f"--- {role}'s failures ---\n{output[-6000:]}")
    print(f"reports and logs: {directory}")


def schemathesis_version():
    from importlib.metadata import version

    return version("schemathesis")


if __name__ == "__main__":
    sys.exit(main())
