"""Accounts in the admin (issue 33): a weak password is refused wherever a password is set, and a user cannot be
given the same role at the same place twice."""

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.urls import reverse

from cardroom.models import Membership, Role

pytestmark = pytest.mark.django_db


@pytest.fixture
def administrator(client, people):
    client.force_login(people.admin)
    return client


@pytest.mark.parametrize("weak", ["floor", "12345678901234", "password12345"])
def test_a_weak_password_is_refused_in_the_admin(administrator, people, weak):
    user = people.floor
    before = user.password
    answer = administrator.post(reverse("admin:auth_user_password_change", args=[user.pk]),
                                {"password1": weak, "password2": weak, "usable_password": "true"})
    assert answer.status_code == 200  # the form again, with its errors
    assert answer.context["form"].errors["password2"]
    user.refresh_from_db()
    assert user.password == before


def test_a_new_user_with_a_weak_password_is_refused_in_the_admin(administrator):
    answer = administrator.post(reverse("admin:auth_user_add"), {
        "username": "floor-2", "password1": "floor", "password2": "floor", "usable_password": "true",
        "change_reason": "New floor supervisor"})
    assert answer.status_code == 200
    assert "This password is too short" in answer.content.decode()
    assert not get_user_model().objects.filter(username="floor-2").exists()


def test_a_strong_password_is_accepted_in_the_admin(administrator, people):
    answer = administrator.post(reverse("admin:auth_user_password_change", args=[people.floor.pk]),
                                {"password1": "correct horse battery staple", "usable_password": "true",
                                 "password2": "correct horse battery staple"})
    assert answer.status_code == 302


@pytest.mark.parametrize("role, place", [("floor_supervisor", "establishment"), ("regulator", "jurisdiction"),
                                         ("admin", None)])
def test_a_duplicate_membership_is_refused_in_the_admin(administrator, people, role, place):
    user = get_user_model().objects.create_user("new-person")
    form = {"user": user.pk, "role": role, "change_reason": "Hired"}
    if place == "establishment":
        form["establishment"] = people.marysville.pk
    elif place == "jurisdiction":
        form["jurisdiction"] = people.marysville.jurisdiction.pk
    assert administrator.post(reverse("admin:cardroom_membership_add"), form).status_code == 302
    answer = administrator.post(reverse("admin:cardroom_membership_add"), form)
    assert answer.status_code == 200
    assert "This user already holds this role" in answer.content.decode()
    assert Membership.objects.filter(user=user).count() == 1


def test_the_database_refuses_a_duplicate_membership(people):
    for role, where in ((Role.FLOOR_SUPERVISOR, {"establishment": people.marysville}),
                        (Role.REGULATOR, {"jurisdiction": people.washington}), (Role.ADMIN, {})):
        Membership.objects.create(user=people.outsider, role=role, **where)
        with pytest.raises(IntegrityError), transaction.atomic():
            Membership.objects.create(user=people.outsider, role=role, **where)


def test_the_same_role_at_another_place_is_no_duplicate(administrator, people):
    answer = administrator.post(reverse("admin:cardroom_membership_add"), {
        "user": people.floor.pk, "role": "floor_supervisor", "establishment": people.wa_room.pk,
        "change_reason": "Also works in Washington"})
    assert answer.status_code == 302
    assert Membership.objects.filter(user=people.floor, role="floor_supervisor").count() == 2
