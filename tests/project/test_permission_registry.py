"""Every door asks a named permission (cardroom.permissions): no address, API action or admin action without one.

The test walks the URL resolver (the API's viewsets and views action by action and method by method, the pages, the
admin) and every admin action. A door passes when it names a registered permission: an API view in
``permission_names`` (cardroom.api.permissions), a page by its decorator (``console.access.requires`` / ``page``),
an admin address through the admin site's own gate (``cardroom.use_admin``), an admin action by its
``permission_name``. A door anyone may open says so: ``permissions.PUBLIC`` (login, the keys file, a sign's QR page),
or, for another library's view, its place in ``LIBRARY_PUBLIC`` below. An API write must name its permission
itself: the view's ``"*"`` (reading) does not cover it.
"""

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from cardroom import permissions, registry
from cardroom.access import Scope, scope_for
from cardroom.api.permissions import permission_name
from cardroom.exceptions import NotAllowed
from cardroom.models import Establishment, Job, Jurisdiction, Membership, Role, Table
from cardroom.registry import JobKind

# Other libraries' views, public by their nature: the API's docs and schema, DRF's login, Django's logout, the API's
# root and its JSON 404 for any other address.
LIBRARY_PUBLIC = {
    "drf_spectacular.views.SpectacularAPIView", "drf_spectacular.views.SpectacularSwaggerView",
    "drf_spectacular.views.SpectacularRedocView", "rest_framework.routers.APIRootView",
    "django.contrib.auth.views.LoginView", "django.contrib.auth.views.LogoutView",
    "cardroom.api.errors.json_not_found",
}
# Admin actions from other libraries, behind the admin site's gate (cardroom.use_admin) like every admin address.
LIBRARY_ADMIN_ACTIONS = {"cleanup_expired_attempts"}  # django-axes: an administrator clears expired attempts
SAFE = {"get", "head", "options"}


def qualified(thing):
    return f"{thing.__module__}.{thing.__qualname__}"


def walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern


def api_doors(route, pattern):
    """(door, declared name, explicit) for each method of an API address."""
    view = pattern.callback.cls
    actions = getattr(pattern.callback, "actions", None) or {
        method: method for method in view.http_method_names if method not in SAFE - {"get"} and hasattr(view, method)}
    for method, action in actions.items():
        door = f"api {qualified(view)} {action}"
        if any(isinstance(p, type) and issubclass(p, AllowAny) for p in view.permission_classes):
            yield door, permission_name(view, action, method), True
            continue
        named = getattr(view, "permission_names", None) or {}
        explicit = f"{action}:{method}" in named or action in named
        yield door, permission_name(view, action, method), explicit or method in SAFE


def doors():
    """Every door: (door, the name it declares or None, whether a write names it itself)."""
    for route, pattern in walk(get_resolver().url_patterns):
        assert isinstance(pattern, URLPattern)
        callback = pattern.callback
        cls = getattr(callback, "cls", None)
        if route.startswith("admin/"):
            continue  # behind the admin site's gate: test_the_admin_is_gated_by_the_registry
        if cls is not None and issubclass(cls, APIView):
            if qualified(cls) in LIBRARY_PUBLIC:
                yield f"library {qualified(cls)}", permissions.PUBLIC, True
            else:
                yield from api_doors(route, pattern)
            continue
        view = getattr(callback, "view_class", None) or callback
        name = getattr(view, "permission_name", None) or getattr(callback, "permission_name", None)
        if name is None and qualified(view) in LIBRARY_PUBLIC:
            name = permissions.PUBLIC
        yield f"page {qualified(view)} {route}", name, True
    for model_admin in admin.site._registry.values():
        for action in model_admin.actions or ():
            function = getattr(type(model_admin), action) if isinstance(action, str) else action
            name = getattr(function, "permission_name", None)
            if name is None and function.__name__ in LIBRARY_ADMIN_ACTIONS:
                name = "cardroom.use_admin"
            yield f"admin action {qualified(type(model_admin))}.{function.__name__}", name, True


def test_every_door_names_a_registered_permission():
    known = set(permissions.names()) | {permissions.PUBLIC}
    undeclared, unknown, implicit = set(), set(), set()
    for door, name, explicit in doors():
        if name is None:
            undeclared.add(door)
        elif name not in known:
            unknown.add((door, name))
        elif not explicit:
            implicit.add(door)
    assert not unknown, f"Doors naming no registered permission: {sorted(unknown)}"
    missing = undeclared | implicit
    assert not missing, f"Doors without a named permission of their own: {sorted(missing)}"


def test_the_admin_is_gated_by_the_registry(rf, people):
    for user in (people.admin, people.compliance, people.floor, people.regulator_ca):
        request = rf.get("/admin/")
        request.user, request.session = user, {}
        user.is_verified = lambda: True  # passed its second factor (without: tests/cardroom/test_second_factor.py)
        assert admin.site.has_permission(request) is permissions.allowed(user, "cardroom.use_admin"), user
    assert permissions.allowed(people.admin, "cardroom.use_admin")
    assert not permissions.allowed(people.compliance, "cardroom.use_admin")


def test_every_permission_says_who_holds_it():
    for name in permissions.names():
        assert "." in name and name == name.lower(), name
        sentence = permissions.refusal(name)
        assert sentence.endswith(".") and sentence != "You may not do this.", name


def test_an_unknown_name_is_an_error_not_a_refusal(people):
    with pytest.raises(KeyError, match="No permission named 'fees.edit_schedules'"):
        permissions.allowed(people.admin, "fees.edit_schedules")


def test_a_refusal_is_not_allowed_with_the_registry_sentence(people):
    with pytest.raises(NotAllowed, match="^Only floor supervisors and compliance officers post tables.$"):
        permissions.require(people.regulator_ca, "signage.post_table", people.marysville)
    permissions.require(people.floor, "signage.post_table", people.marysville)
    with pytest.raises(NotAllowed, match="post tables"):
        permissions.require(people.floor, "signage.post_table", people.wa_room)


def test_the_scope_a_predicate_reads_follows_membership_changes(people):
    """The Scope is kept on the user object (one query per request) and recomputed once memberships change."""
    user = people.outsider
    assert not permissions.allowed(user, "console.view_floor")
    membership = Membership.objects.create(user=user, role=Role.FLOOR_SUPERVISOR, establishment=people.marysville)
    assert permissions.allowed(user, "console.view_floor")
    assert permissions.allowed(user, "fees.record_ledger", people.marysville)
    membership.delete()
    assert not permissions.allowed(user, "console.view_floor")


def test_the_scope_is_computed_once_while_memberships_stand(people, django_assert_num_queries):
    user = people.compliance
    scope_for(user)
    with django_assert_num_queries(0):
        for name in ("fees.record_ledger", "compliance.run_validation", "signage.print_sign", "console.view_floor"):
            permissions.allowed(user, name, people.marysville)
    assert isinstance(scope_for(user), Scope)


@pytest.mark.parametrize("name, holders", [
    ("fees.record_ledger", {"admin", "compliance", "floor"}),
    ("signage.print_sign", {"admin", "compliance", "floor"}),
    ("signage.override_print", {"admin", "compliance"}),
    ("compliance.acknowledge_finding", {"admin", "compliance"}),
    ("compliance.run_validation", {"admin", "compliance"}),
    ("cardroom.record_condition", {"admin", "compliance"}),
    ("exports.request_export", {"admin", "compliance", "regulator"}),
    ("exports.verify_bundle", {"admin", "compliance", "regulator", "other"}),  # any bundle: not a place's
    ("console.view_compliance", {"admin", "compliance"}),
    ("console.view_floor", {"admin", "compliance", "floor"}),
    ("console.view_regulator", {"admin", "regulator"}),
    ("console.view_admin", {"admin"}),
])
def test_who_holds_each_permission_at_casino_marysville(people, name, holders):
    users = {"admin": people.admin, "compliance": people.compliance, "floor": people.floor,
             "regulator": people.regulator_ca, "other": people.compliance_wa, "outsider": people.outsider}
    place = people.marysville
    assert {role for role, user in users.items() if permissions.allowed(user, name, place)} == holders


# -- the selector half: the same names answer which rows ---------------------------------------------------------

@pytest.fixture
def every_kind_of_row(people):
    """Rows of each kind a selector is asked about, at the people's rooms and beyond: (rows, via, what the predicate
    is asked about for a row). Jobs of every kind at each room and each whole jurisdiction, asked for by several."""
    from fees.models import ScheduleDocument, ScheduleVersion
    from tests.factories import make_draft, make_table

    for room in (people.marysville, people.wa_room):
        make_table(room)
    make_draft(user=people.compliance)
    for kind in (kind.value for kind in registry.entries(JobKind)):
        for place in ({"establishment": people.marysville}, {"establishment": people.wa_room},
                      {"jurisdiction": people.marysville.jurisdiction}, {"jurisdiction": people.washington}):
            for asker in (people.floor, people.compliance, people.regulator_wa, None):
                Job.objects.create(kind=kind, requested_by=asker, requested_label="test", **place)
    itself = lambda row: row  # noqa: E731
    return [
        (Establishment.objects.select_related("jurisdiction"), "", itself),
        (Jurisdiction.objects.all(), "", itself),
        (Table.objects.select_related("establishment"), "", itself),
        (ScheduleDocument.objects.select_related("establishment"), "", itself),
        (ScheduleVersion.objects.select_related("document__establishment"), "document", lambda row: row.document),
        (Job.objects.select_related("establishment"), "", itself),
    ]


@pytest.mark.parametrize("name", permissions.selectors())
def test_a_selector_selects_the_rows_its_predicate_allows(people, every_kind_of_row, name,
                                                          django_assert_max_num_queries):
    """For every role, a row is in the answer of ``rows`` exactly when ``allowed`` says yes for it, in one query."""
    answers = set()
    for role in ("admin", "compliance", "compliance_2", "floor", "regulator_ca", "regulator_wa", "compliance_wa",
                 "compliance_wa_2", "outsider"):
        user = getattr(people, role)
        scope = scope_for(user)
        for queryset, via, asked_about in every_kind_of_row:
            with django_assert_max_num_queries(1):
                selected = set(permissions.rows(scope, name, queryset, via=via).values_list("pk", flat=True))
            allowed = {row.pk for row in queryset if permissions.allowed(user, name, asked_about(row))}
            assert selected == allowed, (role, queryset.model.__name__)
            answers.add((queryset.model, frozenset(selected)))
    assert len(answers) > len(every_kind_of_row), "every role got the same answer: the rows do not tell them apart"


def test_a_name_that_answers_for_no_rows_is_an_error(people):
    with pytest.raises(KeyError, match="'console.view_pages' answers which rows"):
        permissions.rows(scope_for(people.admin), "console.view_pages", Establishment.objects.all())


def test_the_installation_selects_every_row_and_a_scope_with_no_user_none(people):
    everything = Scope(None)
    everything.is_admin = True  # as a command run with the installation's own authority (export_audit)
    assert permissions.rows(everything, "exports.request_export", Jurisdiction.objects.all()).count() == \
        Jurisdiction.objects.count()
    assert not permissions.rows(Scope(None), "cardroom.view_records", Job.objects.all()).exists()
