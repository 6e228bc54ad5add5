"""An administrator's stumbles (issue 42), through the admin they used: a person's roles set on the person's own
page (inline, with help), login locks cleared in one go, and a jurisdiction named once ("Tribal gaming (NIGC)")."""

import datetime

import pytest
from axes.models import AccessAttempt
from django.urls import reverse
from django.utils import timezone

from cardroom.models import AuditLogEntry, Jurisdiction, Membership, Role

pytestmark = pytest.mark.django_db


@pytest.fixture
def administrator(client, people):
    client.force_login(people.admin)
    return client


def test_the_users_page_shows_and_edits_their_roles(administrator, people):
    user = people.floor
    page = administrator.get(reverse("admin:auth_user_change", args=[user.pk]))
    html = page.content.decode()
    assert "Roles (what this person may do, and where)" in html
    assert "For a compliance officer or a floor supervisor only." in html and "For a regulator only." in html
    (held,) = Membership.objects.filter(user=user)
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in ("username", "first_name", "last_name", "email")}
    data.update({"is_active": "on", "date_joined_0": "2026-01-01", "date_joined_1": "08:00:00",
                 "change_reason": "Also a compliance officer from today",
                 "memberships-TOTAL_FORMS": "2", "memberships-INITIAL_FORMS": "1", "memberships-MIN_NUM_FORMS": "0",
                 "memberships-MAX_NUM_FORMS": "1000",
                 "memberships-0-id": str(held.pk), "memberships-0-user": str(user.pk),
                 "memberships-0-role": held.role, "memberships-0-establishment": str(held.establishment_id),
                 "memberships-1-user": str(user.pk), "memberships-1-role": Role.COMPLIANCE_OFFICER,
                 "memberships-1-establishment": str(people.marysville.pk)})
    saved = administrator.post(reverse("admin:auth_user_change", args=[user.pk]), data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors if saved.context else saved
    assert set(Membership.objects.filter(user=user).values_list("role", flat=True)) == {
        Role.FLOOR_SUPERVISOR, Role.COMPLIANCE_OFFICER}
    assert AuditLogEntry.objects.filter(object_repr__contains="Compliance officer").exists()


def test_login_locks_are_cleared_in_one_go(administrator, people):
    now = timezone.now()
    locks = [AccessAttempt.objects.create(username=name, ip_address="10.0.0.9", user_agent="test", failures_since_start=9,
                                          attempt_time=now - datetime.timedelta(minutes=1), get_data="", post_data="")
             for name in ("t-floor", "t-compliance", "nobody")]
    changelist = reverse("admin:axes_accessattempt_changelist")
    assert "Unlock: clear the selected failed logins" in administrator.get(changelist).content.decode()
    answer = administrator.post(changelist, {"action": "unlock", "_selected_action": [a.pk for a in locks[:2]]},
                                follow=True)
    assert "2 locks cleared: t-compliance, t-floor." in answer.content.decode()
    assert list(AccessAttempt.objects.values_list("username", flat=True)) == ["nobody"]
    assert AuditLogEntry.objects.filter(action__contains="delete").count() >= 2


def test_a_jurisdiction_whose_name_says_its_code_is_named_once(administrator):
    nigc = Jurisdiction.objects.get(code="NIGC")
    assert str(nigc) == "Tribal gaming (NIGC)"
    assert str(Jurisdiction.objects.get(code="WA")) == "Washington (WA)"
    page = administrator.get(reverse("admin:cardroom_membership_add")).content.decode()
    assert "Tribal gaming (NIGC)</option>" in page and "(NIGC) (NIGC)" not in page
