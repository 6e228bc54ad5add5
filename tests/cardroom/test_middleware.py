"""Headers that tell browsers how to treat an answer: a strict Content-Security-Policy on every page (nothing
inline, no plugins, no framing), and ``Cache-Control: no-store, private`` on whatever is answered to someone
signed in, so neither a browser nor a proxy keeps ledger rows, exports or the audit log. Public answers stay
cacheable. (tests/browser/test_content_security_policy.py checks the pages still work under the policy.)"""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.second_factor import token_for

pytestmark = pytest.mark.django_db

PRIVATE = "no-store, private"


def policy(response):
    """The Content-Security-Policy header as {directive: [sources]}."""
    return {name: sources for name, *sources in
            (part.split() for part in response["Content-Security-Policy"].split(";") if part.strip())}


def signed_in(user):
    client = Client()
    client.force_login(user)
    return client


def token_client(user):
    return Client(HTTP_AUTHORIZATION=f"Token {token_for(user).key}")


def test_a_page_allows_only_its_own_scripts_and_styles_and_no_framing(people):
    response = signed_in(people.compliance).get("/compliance/casino-marysville/")
    assert response.status_code == 200
    assert policy(response) == {
        "default-src": ["'self'"], "img-src": ["'self'", "data:"], "object-src": ["'none'"],
        "base-uri": ["'self'"], "frame-ancestors": ["'none'"], "form-action": ["'self'"],
    }


def test_the_login_page_has_the_policy_too():
    response = Client().get("/login/")
    assert response.status_code == 200
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert policy(response)["default-src"] == ["'self'"]


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_api_docs_alone_may_run_their_inline_start_up_script(people, url):
    response = signed_in(people.compliance).get(url)
    assert response.status_code == 200
    directives = policy(response)
    assert directives["script-src"] == ["'self'", "'unsafe-inline'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]


def test_a_page_behind_the_login_is_not_kept(people):
    response = signed_in(people.floor).get("/floor/casino-marysville/")
    assert response.status_code == 200
    assert response["Cache-Control"] == PRIVATE


@pytest.mark.parametrize("url", ["/api/v1/ledger/rounds/?gaming_day=2026-03-03",
                                 "/api/v1/ledger/entries/?gaming_day=2026-03-03",
                                 "/api/v1/ledger/reconciliations/", "/api/v1/jobs/"])
@pytest.mark.parametrize("client", [signed_in, token_client], ids=["session", "token"])
def test_an_authenticated_api_answer_is_not_kept(people, client, url):
    response = client(people.regulator_ca).get(url)
    assert response.status_code == 200
    assert response["Cache-Control"] == PRIVATE


def test_a_refused_api_answer_carries_no_data_and_no_private_mark():
    response = Client().get("/api/v1/ledger/rounds/")
    assert response.status_code == 401
    assert "no-store" not in response.get("Cache-Control", "")


@pytest.mark.parametrize("url", ["/api/v1/exports/public-key", "/api/v1/audit/keys"])
def test_public_answers_stay_cacheable(url):
    response = Client().get(url)
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")


def test_json_answers_carry_no_page_policy(people):
    """A policy says what a page may load; a JSON answer is never rendered (nosniff), and a PDF opens in the
    browser's own viewer, which a page policy can break."""
    response = token_client(people.regulator_ca).get("/api/v1/ledger/rounds/")
    assert "Content-Security-Policy" not in response


TEMPLATES = sorted(Path(settings.BASE_DIR, "templates").rglob("*.html"))
INLINE = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=|javascript:", re.I)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(settings.BASE_DIR)))
def test_no_template_has_inline_script_or_style(template):
    """The policy refuses inline script and style: any left in a template would be silently dropped."""
    assert INLINE.findall(template.read_text()) == []
