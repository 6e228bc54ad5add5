"""Production settings come from the environment: with exactly the variables the README's "Real services"
section exports, Django's deploy check has nothing to warn about; weak or malformed values stop start-up."""

import ast
import os
import secrets
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def documented_environment():
    """The variables the README's "Real services" section exports, with a generated key for its SECRET_KEY=..."""
    section = (ROOT / "README.md").read_text().split("## Real services", 1)[1].split("\n## ", 1)[0]
    exported = {}
    for line in section.splitlines():
        if line.startswith("export "):
            exported.update(word.split("=", 1) for word in shlex.split(line)[1:])
    assert exported.pop("SECRET_KEY") == "..."
    return {**exported, "SECRET_KEY": secrets.token_urlsafe(50)}


def manage(*args, **env):
    """Run manage.py in an environment of only PATH and ``env``, as a fresh production process would start."""
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], **env}, timeout=120)


def settings_of(env, *names):
    code = "from django.conf import settings; print(repr([getattr(settings, name) for name in %r]))" % (names,)
    result = manage("shell", "--no-imports", "-c", code, **env)
    assert result.returncode == 0, result.stderr
    return ast.literal_eval(result.stdout)


def test_the_documented_production_environment_passes_the_deploy_check():
    env = documented_environment()
    assert env["DEBUG"] == "False"
    result = manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stdout + result.stderr


def test_production_defaults_to_https_only():
    assert settings_of(documented_environment(), "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
                       "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SESSION_COOKIE_SECURE",
                       "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER") == [
        True, 31536000, True, True, True, True, None]


def test_the_https_settings_are_read_from_the_environment():
    env = {**documented_environment(), "SECURE_SSL_REDIRECT": "False", "SECURE_HSTS_SECONDS": "3600",
           "SECURE_HSTS_PRELOAD": "False", "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
           "CSRF_TRUSTED_ORIGINS": "https://cardroom.example.org,https://*.example.net"}
    assert settings_of(env, "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_PRELOAD",
                       "SECURE_PROXY_SSL_HEADER", "CSRF_TRUSTED_ORIGINS") == [
        False, 3600, False, ("HTTP_X_FORWARDED_PROTO", "https"),
        ["https://cardroom.example.org", "https://*.example.net"]]


@pytest.mark.parametrize("key", ["too-short-to-be-a-real-secret", "a" * 64, "abcd" * 16,
                                 "django-insecure-" + secrets.token_urlsafe(50)],
                         ids=["short", "one-character", "repeated", "django-insecure"])  # the same ids in each process
def test_a_weak_secret_key_is_refused(key):
    result = manage("check", **{**documented_environment(), "SECRET_KEY": key})
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY must be a generated key of at least 50 characters" in result.stderr


@pytest.mark.parametrize("name, value", [
    ("SECURE_SSL_REDIRECT", "yes"),
    ("SECURE_HSTS_SECONDS", "a year"),
    ("SECURE_HSTS_SECONDS", "-1"),
    ("SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto: https"),
    ("CSRF_TRUSTED_ORIGINS", "cardroom.example.org"),
    ("LOGIN_FAILURE_LIMIT", "0"),
    ("AUDIT_LOG_ORIGIN", "marysville.example.com/audit/"),
])
def test_a_malformed_setting_stops_start_up(name, value):
    result = manage("check", **{**documented_environment(), name: value})
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {name}" in result.stderr
