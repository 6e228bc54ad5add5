"""The API docs work on a card room's offline network: their pages name no other host (Redoc's scripts come
from drf-spectacular-sidecar). tests/browser/test_content_security_policy.py checks no request leaves."""

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/api/v1/redoc/", "/api/v1/docs/"])
def test_the_api_docs_pages_name_no_other_host(people, url):
    client = Client()
    client.force_login(people.compliance)
    response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in page  # the docs' scripts, from this host
    assert set(re.findall(r"(?:https?:)?//([\w.-]+)", page)) <= {"testserver"}, page
