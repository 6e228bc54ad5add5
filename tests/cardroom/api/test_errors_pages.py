"""A person who reaches a page they may not open, or one that is not there, reads why on the role pages' own error
page (issue 33): not a bare "403 Forbidden", and, with DEBUG on as under bin/serve, not Django's list of URL
patterns."""

import pytest

pytestmark = pytest.mark.django_db
HTML = {"HTTP_ACCEPT": "text/html"}


def test_a_page_refused_says_why_on_a_page(client, people):
    client.force_login(people.floor)
    answer = client.get("/compliance/casino-marysville/", **HTML)
    page = answer.content.decode()
    assert answer.status_code == 403 and "<h1>Forbidden</h1>" in page
    assert "403 Forbidden" not in page and 'role="alert"' in page and len(page.split('role="alert">')[1]) > 20


@pytest.mark.parametrize("debug", [True, False], ids=["DEBUG on", "DEBUG off"])
def test_a_page_not_there_says_so_without_the_url_patterns(client, people, settings, debug):
    settings.DEBUG = debug
    client.force_login(people.compliance)
    for address in ("/no-such-page/", "/compliance/casino-marysville/schedules/GEGA-002888/versions/99/publish/"):
        answer = client.get(address, **HTML)
        page = answer.content.decode()
        assert answer.status_code == 404, address
        assert "URLconf" not in page and "urlpatterns" not in page and "Using the URLconf" not in page, address
        assert "<h1>Not Found</h1>" in page and 'role="alert"' in page, address
    # The API keeps its JSON.
    answer = client.get("/api/v1/no-such-thing/")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
