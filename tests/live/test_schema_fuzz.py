"""The live service answers as its OpenAPI schema says (issue 10). schemathesis (pinned in requirements.txt)
reads /api/v1/schema/, generates requests for every operation, valid ones and invalid ones, and sends them as a
floor supervisor, a compliance officer and an administrator (token auth). A run fails on any 5xx and on any
answer the schema does not describe: a status it does not list, another content type, a body or a required
header that does not match; and on an invalid request the service accepts (negative_data_rejection). The
checks, and the two left out, are in schemathesis.toml beside this file.

Bounded, so bin/test's live stage stays within minutes: per role, the schema's examples, LIVE_FUZZ_EXAMPLES
generated cases per operation (8 by default) and a short stateful pass; schemathesis' coverage phase (every
boundary and every missing or wrong-typed value, ~3,000 cases) once, as the administrator.
benchmarks/api_fuzz.py runs all of it at length.

The fuzzer writes whatever the schema lets it (ledger entries, postings, prints, drafts published or
discarded) into the live database, so conftest.py runs this module after every other live test. It
authenticates with tokens only and generates no credentials of its own (ignored_auth, which sends made-up HTTP
Basic passwords, is left out: failed logins would lock 127.0.0.1 through the throttle). That every operation
refuses a request without valid credentials is tests/project/test_role_matrix.py's and
tests/cardroom/test_authentication_api.py's.
"""

import os
import secrets
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import psycopg

EXAMPLES = int(os.environ.get("LIVE_FUZZ_EXAMPLES", "8"))
# The checks (every one but ignored_auth and positive_data_acceptance, and why), shared with the benchmark.
CONFIG = Path(__file__).with_name("schemathesis.toml")
ROLES = ("floor", "compliance", "admin")


def tokens_for(database_url, usernames):
    """An API token for each user (made when missing), straight in the database: no password is sent."""
    with psycopg.connect(database_url, autocommit=True) as connection:
        for username in usernames:
            connection.execute(
                "INSERT INTO authtoken_token (key, created, user_id) SELECT %s, now(), id FROM auth_user "
                "WHERE username = %s ON CONFLICT (user_id) DO NOTHING", [secrets.token_hex(20), username])
        rows = connection.execute("SELECT u.username, t.key FROM authtoken_token t JOIN auth_user u "
                                  "ON u.id = t.user_id WHERE u.username = ANY(%s)", [list(usernames)]).fetchall()
    assert {username for username, _ in rows} == set(usernames), rows
    return dict(rows)


def schemathesis_run(base_url, token, *, phases, examples, directory):
    """``st run`` against the service's schema as the token's user; returns (exit code, output, JUnit report)."""
    junit = directory / f"junit-{phases.replace(',', '-')}.xml"
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run", f"{base_url}/api/v1/schema/",
        "--header", f"Authorization: Token {token}", "--phases", phases,
        "--max-examples", str(examples), "--generation-with-security-parameters", "false",
        "--generation-database", "none", "--request-timeout", "60", "--wait-for-schema", "30", "--no-color",
        "--report", "junit", "--report-junit-path", str(junit),
    ]
    if os.environ.get("LIVE_FUZZ_SEED"):
        command += ["--seed", os.environ["LIVE_FUZZ_SEED"]]
    done = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=900, check=False)
    return done.returncode, done.stdout + done.stderr, ElementTree.parse(junit).getroot()


def assert_conforms(base_url, token, tmp_path, *, phases):
    code, output, junit = schemathesis_run(base_url, token, phases=phases, examples=EXAMPLES, directory=tmp_path)
    operations = junit.findall(".//testcase")
    failed = [case.get("name") for case in operations if case.find("failure") is not None
              or case.find("error") is not None]
    # Every operation of the schema was tried (a schema that failed to load tries none), and none failed.
    assert len(operations) >= 55, output[-3000:]
    assert code == 0 and not failed, f"{failed}\n{output[-20000:]}"


def test_a_floor_supervisor_gets_only_answers_the_schema_describes(live_url, service_database_url, tmp_path,
                                                                    clear_failed_logins):
    token = tokens_for(service_database_url, ROLES)["floor"]
    assert_conforms(live_url, token, tmp_path, phases="examples,fuzzing,stateful")


def test_a_compliance_officer_gets_only_answers_the_schema_describes(live_url, service_database_url, tmp_path,
                                                                      clear_failed_logins):
    token = tokens_for(service_database_url, ROLES)["compliance"]
    assert_conforms(live_url, token, tmp_path, phases="examples,fuzzing,stateful")


def test_an_administrator_gets_only_answers_the_schema_describes(live_url, service_database_url, tmp_path,
                                                                 clear_failed_logins):
    token = tokens_for(service_database_url, ROLES)["admin"]
    assert_conforms(live_url, token, tmp_path, phases="examples,coverage,fuzzing,stateful")
