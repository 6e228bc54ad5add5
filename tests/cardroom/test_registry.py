"""The one registry (``cardroom.registry``): what a layer links to or renders of a layer above, the upper app
registers, and every link declared is answered."""

import importlib
from importlib.util import find_spec

import pytest
from django.test import RequestFactory

from cardroom import links, registry, responses
from cardroom.registry import Link, Route, Template
from tests.sources import APPS


def declared_links():
    """Every Link the apps declare in their ``links`` module."""
    found = []
    for app in APPS:
        if find_spec(f"{app}.links") is not None:
            module = importlib.import_module(f"{app}.links")
            found += [value for value in vars(module).values() if isinstance(value, Link)]
    return found


def test_every_link_an_app_declares_is_answered_by_a_page():
    found = declared_links()
    assert {link.name for link in found} >= {"cardroom.home", "fees.publish", "compliance.findings",
                                              "signage.override"}
    for link in found:
        path = link.path(**{name: "x" if name in ("room", "code") else 1 for name in link.args})
        assert path.startswith("/"), link


def test_a_link_is_made_with_the_arguments_it_declares():
    import fees.links

    assert fees.links.PUBLISH.path(room="marysville", code="GEGA-1", number=2) == \
        "/compliance/marysville/schedules/GEGA-1/versions/2/publish/"
    assert links.HOME.path() == "/"
    with pytest.raises(TypeError, match="takes room, code, number, not code, room"):
        fees.links.PUBLISH.path(room="marysville", code="GEGA-1")


def test_a_link_no_app_routes_says_so():
    with pytest.raises(LookupError, match="No Route is registered for .*made.up"):
        Link("made.up").path()


def test_only_the_kinds_of_entry_it_keeps_are_registered():
    with pytest.raises(TypeError, match="str is not a kind of entry"):
        registry.register("console:home")


def test_the_error_page_is_the_template_its_app_registered_or_plain_text(monkeypatch):
    request = RequestFactory().get("/somewhere/", HTTP_ACCEPT="text/html")
    page = responses.error_response(request, 413, "payload_too_large", "Too large.")
    assert page["Content-Type"].startswith("text/html") and b'role="alert">Too large.' in page.content
    monkeypatch.setitem(registry._ENTRIES, Template, {})  # no app gave the page its look
    plain = responses.error_response(request, 413, "payload_too_large", "Too large.")
    assert plain["Content-Type"].startswith("text/plain") and plain.content == b"Too large.\n"
    assert registry.entry(Route, links.ROOM).url_name == "console:compliance"


def test_each_app_registers_its_own_permissions_and_job_kinds():
    """The core defines only its own permissions; each app's are named for it and registered from its module."""
    from cardroom import permissions
    from cardroom.registry import JobKind, Permission

    found = []
    for app in APPS:
        if find_spec(f"{app}.permissions") is not None:
            names = [p.name for p in importlib.import_module(f"{app}.permissions").PERMISSIONS]
            assert all(name.startswith(f"{app}.") for name in names), app
            found += names
    assert sorted(found) == permissions.names() == sorted(p.name for p in registry.entries(Permission))
    assert len(found) == 23 and [n for n in found if n.startswith("cardroom.")] == [
        "cardroom.view_records", "cardroom.use_admin", "cardroom.record_condition"]
    owners = {kind.value: kind.task.__module__.split(".")[0] for kind in registry.entries(JobKind)}
    assert owners == {"signage_batch": "signage", "audit_export": "exports", "bundle_verify": "exports",
                      "ledger_import": "fees", "reconciliation": "fees"}
