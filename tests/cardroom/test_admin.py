"""The admin is for administrators only; every change made in it reaches the audit log through the same
services as the API, with its reason; history is never reverted; regulator-issued records are never deleted.

The first tests are the findings of the security probe: a floor supervisor made himself an administrator
through a history "revert" page, a regulator revoked another jurisdiction's approval, a compliance officer
created tables in other establishments and another deleted an approval with its conditions."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import connection
from django.urls import reverse

from cardroom.admin_site import AuditedMixin, ReadOnlyAdmin
from cardroom.models import Approval, ApprovalCondition, AuditLogEntry, Membership, Source, Table
from cardroom.models.guards import NeverDeletedError
from compliance.models import RuleParameter
from fees.models import ScheduleDocument
from tests.factories import change_a_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def gega():
    return ScheduleDocument.objects.get(code="GEGA-002888")


@pytest.fixture
def administrator(client, people):
    client.force_login(people.admin)
    return client


def admin_urls():
    """Every changelist, the first change and history page of each model, and an add page."""
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        yield reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            yield reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk])
            yield reverse(f"admin:{opts.app_label}_{opts.model_name}_history", args=[first.pk])


@pytest.mark.parametrize("role", ["compliance", "floor", "regulator_ca", "regulator_wa", "compliance_wa",
                                  "outsider"])
def test_nobody_but_an_administrator_gets_anything_from_the_admin(client, people, role, gega):
    client.force_login(getattr(people, role))
    urls = [reverse("admin:index"), *admin_urls(),
            reverse("admin:fees_scheduleversion_new_draft", args=[gega.versions.get().pk]),
            reverse("admin:fees_tableposting_post")]
    for url in urls:
        answer = client.get(url)
        assert answer.status_code == 302 and answer["Location"].startswith("/admin/login/"), (url, answer.status_code)
    # Nor may they write: a POST is refused the same way, and changes nothing.
    approval = Approval.objects.get(key="one-for-the-money-wa-2014")
    answer = client.post(reverse("admin:cardroom_approval_change", args=[approval.pk]), {"status": "revoked"})
    assert answer.status_code == 302
    approval.refresh_from_db()
    assert approval.status == "approved"
    # The login page shows no data of any establishment, not even in a filter.
    page = client.get(reverse("admin:login")).content.decode()
    assert "Casino Marysville" not in page and "Evergreen" not in page


def test_a_floor_supervisor_cannot_make_himself_an_administrator(client, people):
    user = people.floor
    record = user.history.first() if hasattr(user, "history") else None  # users have no history table
    assert record is None
    client.force_login(user)
    answer = client.post(reverse("admin:auth_user_change", args=[user.pk]),
                         {"username": user.username, "is_superuser": "on", "is_staff": "on"})
    assert answer.status_code == 302 and answer["Location"].startswith("/admin/login/")
    user.refresh_from_db()
    assert not user.is_superuser and not user.is_staff
    assert not Membership.objects.filter(user=user, role="admin").exists()


def test_every_page_of_the_admin_renders_for_an_administrator(administrator):
    assert administrator.get(reverse("admin:index")).status_code == 200
    for url in admin_urls():
        assert administrator.get(url).status_code == 200, url


def test_every_model_admin_writes_through_the_audited_services():
    """No admin of any app (ours, auth's, axes') may save or delete around cardroom.changes."""
    for model, model_admin in admin.site._registry.items():
        audited = isinstance(model_admin, AuditedMixin) or isinstance(model_admin, ReadOnlyAdmin)
        writes_itself = type(model_admin).save_model is not admin.ModelAdmin.save_model
        assert audited or writes_itself, f"{model._meta.label} is saved by {type(model_admin).__name__}"


def test_history_is_never_reverted(administrator, people):
    approval = Approval.objects.get(key="one-for-the-money-wa-2014")
    old = approval.history.earliest()
    url = reverse("admin:cardroom_approval_simple_history", args=[approval.pk, old.history_id])
    assert administrator.get(url).status_code == 200  # a past version may be looked at
    answer = administrator.post(url, {"status": "revoked", "change_reason": "revert"})
    assert answer.status_code == 403
    approval.refresh_from_db()
    assert approval.status == "approved"


@pytest.mark.parametrize("model, lookup", [
    (Approval, {"key": "one-for-the-money-wa-2014"}),
    (ApprovalCondition, {"approval__key": "one-for-the-money-wa-2014"}),
    (RuleParameter, {"key": "house_banked_max_wager"}),
    (Source, {}),
])
def test_regulator_issued_records_are_never_deleted(administrator, model, lookup):
    record = model.objects.filter(**lookup).order_by("pk").first()
    with pytest.raises(NeverDeletedError):
        record.delete()
    with pytest.raises(NeverDeletedError):
        model.objects.filter(pk=record.pk).delete()
    opts = model._meta
    if model in admin.site._registry:
        answer = administrator.post(reverse(f"admin:{opts.app_label}_{opts.model_name}_delete", args=[record.pk]),
                                    {"post": "yes"})
        assert answer.status_code == 403
    assert model.objects.filter(pk=record.pk).exists()


@pytest.mark.services
def test_postgresql_refuses_to_delete_regulator_issued_records():
    """Even SQL around the application: a trigger refuses DELETE (migrations cardroom 0004, compliance 0003)."""
    from django.db import DatabaseError, transaction

    assert connection.vendor == "postgresql"
    for table in ("cardroom_source", "cardroom_approval", "cardroom_approvalcondition", "compliance_ruleparameter"):
        with pytest.raises(DatabaseError, match="never deleted"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"DELETE FROM {table}")


def test_an_approval_is_withdrawn_with_a_reason_and_the_change_is_logged(administrator, people):
    approval = Approval.objects.get(key="one-for-the-money-wa-2014")
    form = {field: getattr(approval, field) or "" for field in
            ("key", "reference", "licensee", "notes", "citation", "scope")}
    form.update({"game": approval.game_id, "jurisdiction": approval.jurisdiction_id, "source": approval.source_id,
                 "status": "withdrawn", "status_reason": "WSGC letter of 2026-11-01 withdrew it.",
                 "decided_on": approval.decided_on or "", "change_reason": "Letter received 2026-11-02",
                 "conditions-TOTAL_FORMS": 0, "conditions-INITIAL_FORMS": 0})
    answer = administrator.post(reverse("admin:cardroom_approval_change", args=[approval.pk]), form)
    assert answer.status_code == 302, answer.content.decode()[:3000]
    entry = AuditLogEntry.objects.get(action="cardroom.approval.change", object_id=str(approval.pk))
    assert entry.actor == people.admin and entry.jurisdiction == approval.jurisdiction
    assert entry.data["reason"] == "Letter received 2026-11-02"
    assert entry.data["changes"]["status"] == ["approved", "withdrawn"]
    assert approval.history.latest().history_change_reason == "Letter received 2026-11-02"


def test_tables_made_in_the_admin_are_logged_in_their_establishments_chain(administrator, people):
    answer = administrator.post(reverse("admin:cardroom_table_add"), {
        "establishment": people.wa_room.pk, "label": "9", "seats": 6, "active": "on",
        "change_reason": "New table for the WA room"})
    assert answer.status_code == 302
    table = Table.objects.get(establishment=people.wa_room, label="9")
    entry = AuditLogEntry.objects.get(action="cardroom.table.create", object_id=str(table.pk))
    assert entry.establishment == people.wa_room and entry.chain == f"establishment:{people.wa_room.pk}"
    assert entry.data["changes"]["label"] == [None, "9"]


def test_a_change_needs_its_reason(administrator, people):
    table = Table.objects.create(establishment=people.marysville, label="T-1", seats=6)
    answer = administrator.post(reverse("admin:cardroom_table_change", args=[table.pk]), {
        "establishment": people.marysville.pk, "label": "T-2", "seats": 6})
    assert answer.status_code == 200 and b"This field is required" in answer.content
    table.refresh_from_db()
    assert table.label == "T-1"


def test_roles_given_and_taken_in_the_admin_are_logged(administrator, people):
    user = get_user_model().objects.create_user("new-officer")
    answer = administrator.post(reverse("admin:cardroom_membership_add"), {
        "user": user.pk, "role": "compliance_officer", "establishment": people.marysville.pk,
        "change_reason": "Hired 2026-11-20"})
    assert answer.status_code == 302
    membership = Membership.objects.get(user=user)
    assert AuditLogEntry.objects.filter(action="cardroom.membership.create", object_id=str(membership.pk),
                                        establishment=people.marysville).exists()
    answer = administrator.post(reverse("admin:cardroom_membership_delete", args=[membership.pk]), {"post": "yes"})
    assert answer.status_code == 302 and not Membership.objects.filter(user=user).exists()
    removed = AuditLogEntry.objects.get(action="cardroom.membership.delete")
    assert removed.data["removed"]["role"] == "compliance_officer"


def test_a_users_password_change_is_logged_without_its_hash(administrator, people):
    user = people.floor
    answer = administrator.post(reverse("admin:auth_user_password_change", args=[user.pk]),
                                {"password1": "a-long-new-passphrase-1", "password2": "a-long-new-passphrase-1",
                                 "usable_password": "true"})
    assert answer.status_code == 302
    entry = AuditLogEntry.objects.get(action="auth.user.password_change", object_id=str(user.pk))
    user.refresh_from_db()
    algorithm = user.password.split("$", 1)[0]  # the hasher's name, which begins every stored hash
    assert user.password not in str(entry.data) and f"{algorithm}$" not in str(entry.data)


# -- schedules in the admin ----------------------------------------------------------------------------------


def test_new_draft_from_admin_then_edit_shows_history(administrator, gega, people):
    published = gega.versions.get(number=1)
    response = administrator.post(reverse("admin:fees_scheduleversion_new_draft", args=[published.pk]),
                                  {"effective_from": "2027-01-01", "reason": "Bureau letter 2026-12-01"})
    draft = gega.versions.get(number=2)
    assert response.status_code == 302 and response["Location"].endswith(f"/{draft.pk}/change/")

    option = draft.options.get(number=1)
    tiers = list(option.tiers.all())
    form = {
        "change_reason": "Raise the $1-$10 fee per the Bureau letter",
        "tiers-TOTAL_FORMS": len(tiers), "tiers-INITIAL_FORMS": len(tiers),
        "tiers-MIN_NUM_FORMS": 0, "tiers-MAX_NUM_FORMS": 1000,
        "number": option.number, "label": option.label, "basis": option.basis, "citation": option.citation,
        "notes": option.notes, "min_wager_from": "1", "min_wager_to": "1000", "max_wager_from": "100",
        "max_wager_to": "10000", "betting_structure": "",
    }
    for i, tier in enumerate(tiers):
        fee = "1.50" if tier.order == 1 else tier.fee
        form.update({f"tiers-{i}-{key}": value for key, value in {
            "id": tier.pk, "option": option.pk, "order": tier.order, "fee_kind": tier.fee_kind, "payer": tier.payer,
            "measure": tier.measure, "lower": tier.lower or "", "upper": tier.upper or "", "fee": fee,
            "taken": tier.taken, "printed_bounds": tier.printed_bounds, "printed_fee": tier.printed_fee,
            "note": tier.note,
        }.items()})
    response = administrator.post(reverse("admin:fees_feeoption_change", args=[option.pk]), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    tier = option.tiers.get(order=1)
    assert str(tier.fee) == "1.50"
    logged = AuditLogEntry.objects.get(action="fees.feetier.change", object_id=str(tier.pk))
    assert logged.data["reason"] == "Raise the $1-$10 fee per the Bureau letter"
    assert logged.data["changes"]["fee"][1] == "1.50" and logged.jurisdiction.code == "CA"

    page = administrator.get(reverse("admin:fees_scheduleversion_change", args=[draft.pk])).content.decode()
    assert "Raise the $1-$10 fee per the Bureau letter" in page
    assert "t-admin" in page
    assert "Ask for publication…" in page


def test_published_version_is_read_only_in_admin(administrator, gega):
    published = gega.versions.get(number=1)
    page = administrator.get(reverse("admin:fees_scheduleversion_change", args=[published.pk])).content.decode()
    assert 'name="reason"' not in page  # rendered read-only
    assert "Ask for publication…" not in page and "Approve and publish…" not in page
    assert "New draft from this version" in page
    option = published.options.get(number=1)
    response = administrator.post(reverse("admin:fees_feeoption_change", args=[option.pk]), {"notes": "x"})
    assert response.status_code == 403


def test_publish_from_admin_and_twice_is_refused(administrator, gega, people):
    published = gega.versions.get(number=1)
    administrator.post(reverse("admin:fees_scheduleversion_new_draft", args=[published.pk]),
                       {"effective_from": "2027-01-01", "reason": "r"})
    draft = gega.versions.get(number=2)
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    url = reverse("admin:fees_scheduleversion_publish", args=[draft.pk])
    administrator.post(url, {"reason": "Asked for"})
    draft.refresh_from_db()
    assert draft.status == "in_review"
    # The administrator started the draft, so cannot also approve it: a second administrator does.
    assert administrator.post(url, {"reason": "Approved"}).status_code == 403
    from cardroom.models import Role
    from cardroom.roles import appoint
    second = type(people.admin).objects.create_user("t-admin-2")
    appoint(second, Role.ADMIN)
    administrator.force_login(second)
    administrator.post(url, {"reason": "Approved"})
    draft.refresh_from_db()
    assert draft.is_published and draft.published_by == second
    assert AuditLogEntry.objects.filter(action="schedule.publish", object_id=str(draft.pk)).exists()
    response = administrator.post(url, {"reason": "Again"}, follow=True)
    assert "already published" in response.content.decode()
