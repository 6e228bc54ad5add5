"""Every admin page a user can reach renders (no 500s), for each role."""

import pytest
from django.contrib import admin
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("role", ["admin", "compliance", "floor", "regulator_ca"])
def test_every_changelist_and_first_change_page_renders(client, people, role):
    client.force_login(getattr(people, role))
    assert client.get(reverse("admin:index")).status_code == 200
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        response = client.get(url)
        assert response.status_code in (200, 403), (url, response.status_code)
        if response.status_code == 200:
            first = model_admin.get_queryset(response.wsgi_request).first()
            if first is not None:
                change = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk]))
                assert change.status_code in (200, 403), (opts.label, change.status_code)
