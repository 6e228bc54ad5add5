"""bin/serve's first run, as a person starts it on another address: its steps and a short summary, never the demo's
emails (kept as files, and the summary says where), and the emails' links to the address served."""

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A line of an email's headers, as the console backend printed them among bin/serve's output.
MIME = re.compile(r"^(MIME-Version|Content-Type|Content-Transfer-Encoding|Subject|From|To|Date|Message-ID): ",
                  re.MULTILINE)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_run(tmp_path, bind):
    """bin/serve's output up to its "Serving" step, with its own database and files in ``tmp_path``; the server it
    starts is stopped there."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "EMAIL_HOST", "EMAIL_BACKEND", "PUBLIC_BASE_URL", "EMAIL_FILE_PATH")}
    env.update(BIND=bind, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", MEDIA_ROOT=str(tmp_path / "media"),
               LEDGER_ARCHIVE_DIR=str(tmp_path / "archive"), SIGNING_KEY_FILE=str(tmp_path / "signing-key.pem"),
               WITNESS_KEY_FILE=str(tmp_path / "witness-key.pem"), EMAIL_FILE_PATH=str(tmp_path / "mail"))
    serve = subprocess.Popen([str(ROOT / "bin" / "serve")], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines, deadline = [], time.monotonic() + 600
    try:
        for line in serve.stdout:
            lines.append(line)
            if "] Serving on " in line or time.monotonic() > deadline:
                break
    finally:
        os.killpg(serve.pid, signal.SIGTERM)  # bin/serve's own process group: the server it started
        serve.wait(timeout=30)
    return "".join(lines)


@pytest.mark.long
def test_the_first_run_prints_steps_and_a_summary_and_keeps_the_emails_with_links_to_the_address_served(tmp_path):
    port = free_port()
    out = first_run(tmp_path, f"127.0.0.1:{port}")
    assert f"Serving on http://127.0.0.1:{port}/" in out, out[-3000:]
    assert not MIME.findall(out), out[:3000]
    assert len(out.splitlines()) < 25, out  # the steps and a summary
    kept = sorted((tmp_path / "mail").iterdir())
    assert kept and f"{len(kept)} emails of the demo's approvals kept in {tmp_path / 'mail'}/" in out
    links = re.findall(r"https?://[^\s/]+/", "".join(path.read_text() for path in kept))
    assert links and set(links) == {f"http://127.0.0.1:{port}/"}
