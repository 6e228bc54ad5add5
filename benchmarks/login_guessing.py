"""Password guessing against the API beside a legitimate client: what the failed-login throttle saves.

    .venv/bin/python benchmarks/login_guessing.py [--without-throttle]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardroom_bench_login .venv/bin/python benchmarks/login_guessing.py

Uses a throw-away SQLite database unless DATABASE_URL is set (a PostgreSQL one is created when missing). Starts
gunicorn (DEBUG=False, 2 workers) on 127.0.0.1 and measures one legitimate client, a floor terminal with a token
sending GET /api/v1/tables/ one request at a time: first alone, then while 12 clients send wrong HTTP Basic
passwords for three accounts as fast as they are answered (BENCH_DURATION seconds, 20 by default). Prints the
guesses made, how many were refused with 429 (their passwords never reach the hasher) or checked and refused
with 401, and the legitimate client's p50/p99 latency with and without guessing. ``--without-throttle`` runs
the service with the throttle off (AXES_ENABLED=False), as it was before: every guess runs the password hasher.
Load goes only to 127.0.0.1 and stops by itself. At the smoke size (BENCH_SMOKE=1) one worker, 2 guessing clients
for 2.5 seconds after 1 quiet one, and an account locked after 2 failures rather than 5 (each failure before the
lock runs the password hasher, ~0.5 s of a core).
"""

import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from base64 import b64encode
from pathlib import Path

# benchmarks/ is on sys.path as a script
from support import SMOKE, figure, port, production_environment, setup_django, sized

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PORT = port(8022)
WORKERS = sized(2, 1, "BENCH_WORKERS")
DURATION = sized(20.0, 2.5, "BENCH_DURATION")
QUIET = sized(10.0, 1.0, "BENCH_QUIET")
GUESSERS = sized(12, 2)
ACCOUNTS = ["bench-guessed-1", "bench-guessed-2", "bench-guessed-3"]
PATH = "/api/v1/tables/"


def prepare():
    """Migrate, seed, make the legitimate client's token and the guessed accounts; forget earlier guesses."""
    setup_django()
    from axes.models import AccessAttempt
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from cardroom.models import Establishment, Role
    from cardroom.roles import appoint

    User = get_user_model()
    floor, _ = User.objects.get_or_create(username="bench-floor")
    appoint(floor, Role.FLOOR_SUPERVISOR, establishment=Establishment.objects.get(slug="casino-marysville"))
    for username in ACCOUNTS:
        if not User.objects.filter(username=username).exists():
            User.objects.create_user(username, password="the-right-password-nobody-guesses")
    AccessAttempt.objects.all().delete()
    return Token.objects.get_or_create(user=floor)[0].key


def request(headers):
    """Status and seconds taken of one GET (gunicorn's sync workers close the connection after each answer)."""
    connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
    started = time.perf_counter()
    connection.request("GET", PATH, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, time.perf_counter() - started


def legitimate_latencies(token, seconds):
    headers = {"Authorization": f"Token {token}"}
    latencies = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, elapsed = request(headers)
        assert status == 200, status
        latencies.append(elapsed)
    return latencies


def guess(seconds):
    """GUESSERS threads sending wrong passwords until the deadline; prints the answers counted by status."""
    counts, lock = {}, threading.Lock()
    deadline = time.monotonic() + seconds

    def client(number):
        account = ACCOUNTS[number % len(ACCOUNTS)]
        attempt = 0
        while time.monotonic() < deadline:
            attempt += 1
            credentials = b64encode(f"{account}:guess-{number}-{attempt}".encode()).decode()
            status, _ = request({"Authorization": f"Basic {credentials}"})
            with lock:
                counts[status] = counts.get(status, 0) + 1

    threads = [threading.Thread(target=client, args=(number,)) for number in range(GUESSERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps(counts))


def percentiles(latencies):
    if len(latencies) < 2:
        return f"{len(latencies)} request{'' if len(latencies) == 1 else 's'}: too few for percentiles"
    cuts = statistics.quantiles(latencies, n=100)
    return f"p50 {cuts[49] * 1000:.1f} ms, p99 {cuts[98] * 1000:.1f} ms ({len(latencies)} requests)"


def wait_for_server(token, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return request({"Authorization": f"Token {token}"})
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"gunicorn did not answer on 127.0.0.1:{PORT}")


def main(throttle):
    token = prepare()
    directory = Path(tempfile.mkdtemp(prefix="cardroom-bench-"))
    log = directory / "gunicorn.log"  # a line per refused guess
    env = production_environment()
    if SMOKE:
        env["LOGIN_FAILURE_LIMIT"] = "2"
    if not throttle:
        (directory / "unthrottled.py").write_text("from project.settings import *\nAXES_ENABLED = False\n")
        env.update(DJANGO_SETTINGS_MODULE="unthrottled", PYTHONPATH=str(directory))
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "project.wsgi", "--workers", str(WORKERS), "--bind", f"127.0.0.1:{PORT}",
         "--log-level", "warning", "--no-control-socket"], cwd=ROOT, env=env,
        stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    try:
        wait_for_server(token)
        legitimate_latencies(token, 2)  # warm every worker up
        quiet = legitimate_latencies(token, QUIET)
        guessers = subprocess.Popen([sys.executable, __file__, "guess", str(DURATION), str(PORT)],
                                    stdout=subprocess.PIPE, text=True)
        time.sleep(1)  # let every guesser start
        busy = legitimate_latencies(token, DURATION - 2)
        counts = {int(status): n for status, n in json.loads(guessers.communicate(timeout=DURATION + 60)[0]).items()}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    database = "PostgreSQL" if os.environ["DATABASE_URL"].startswith("postgres") else "SQLite"
    print(f"gunicorn workers: {WORKERS}, {database}, throttle {'on' if throttle else 'OFF'}, {GUESSERS} guessing "
          f"clients for {DURATION:.0f} s, 2-core machine")
    print(f"guesses made: {sum(counts.values())}; refused with 429: {counts.get(429, 0)}; "
          f"checked and refused with 401: {counts.get(401, 0)}; other answers: "
          f"{ {s: n for s, n in counts.items() if s not in (401, 429)} or 'none'}")
    print(f"legitimate client (token, GET {PATH}) without guessing: {percentiles(quiet)}")
    print(f"legitimate client (token, GET {PATH}) while guessing:   {percentiles(busy)}")
    for when, latencies in (("without guessing", quiet), ("while guessing", busy)):
        figure(f"the legitimate client's p50 {when}", statistics.median(latencies) * 1000, "ms")
    figure("guesses refused before the password hasher (429)", counts.get(429, 0))
    figure("guesses checked by the password hasher (401)", counts.get(401, 0))
    print(f"gunicorn's log: {log}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["guess"]:
        PORT = int(sys.argv[3])  # the server's, when it was a free one
        guess(float(sys.argv[2]))
    else:
        main(throttle="--without-throttle" not in sys.argv[1:])
