"""Two people for a print override, and signs printed under a schedule version since replaced (issue 13)."""

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from cardroom.exceptions import NotAllowed
from cardroom.models import AuditLogEntry
from fees.models import ScheduleDocument
from signage import printing
from signage.models import PrintOverride, SignPrint
from signage import services as signage_services
from signage.postings import PrintBlocked, print_permission
from signage.services import OverrideStateError
from tests.factories import change_a_fee, make_table, post_as

from tests.publishing import publish

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
# After the seed data's publication (today), so that no sign looks printed before its schedule was published.
MARCH_1 = datetime.datetime(2027, 3, 1, 8, 0, tzinfo=LA)
V2_FROM = datetime.date(2027, 3, 10)
ASKED = "The Bureau is reviewing the option; print meanwhile."


def post(people, label, max_wager="500"):
    """Table ``label`` posted on GEGA-002888 option 1 from 1 March (a maximum above $10,000 is an error finding)."""
    table = make_table(people.marysville, label=label)
    data = {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5", "max_wager": max_wager,
            "effective_from": MARCH_1.isoformat()}
    return post_as(people.floor, data)[0]


@pytest.fixture
def broken(people, clock):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    posting = post(people, "7", max_wager="20000")
    assert posting.validation_runs.get().errors
    clock(MARCH_1 + datetime.timedelta(hours=1))
    return posting


def ask(api, posting, user, reason=ASKED):
    api.force_login(user)
    return api.post(f"/api/v1/postings/{posting.pk}/override/", {"reason": reason}, format="json")


def answer(api, posting, user, step, reason="Findings read; the Bureau's letter covers it."):
    api.force_login(user)
    return api.post(f"/api/v1/postings/{posting.pk}/override/{step}/", {"reason": reason}, format="json")


# -- two people for an override -------------------------------------------------------------------------------------


def test_one_officer_cannot_approve_or_refuse_their_own_request(api, people, broken):
    asked = ask(api, broken, people.compliance)
    assert asked.status_code == 201, asked.json()
    printing_ = asked.json()["printing"]
    assert printing_["blocked"] is True and printing_["override"] is None
    assert (printing_["pending_override"]["requested_by"], printing_["pending_override"]["reason"]) == (
        "t-compliance", ASKED)
    for step in ("approve", "refuse"):
        refused = answer(api, broken, people.compliance, step)
        assert refused.status_code == 403, refused.json()
        assert "needs a second person" in refused.json()["error"]["message"]
    with pytest.raises(NotAllowed):
        signage_services.approve_override(people.compliance, posting=broken, reason="Approving my own request.")
    override = PrintOverride.objects.get(posting=broken)
    assert (override.status, override.decided_by) == (PrintOverride.Status.REQUESTED, None)
    assert not AuditLogEntry.objects.filter(action__in=["signage.print_override", "signage.print_override_refused"])
    # A second request while one awaits an answer is a conflict, whoever asks.
    assert ask(api, broken, people.compliance_2).status_code == 409
    assert PrintOverride.objects.filter(posting=broken).count() == 1


def test_a_pending_or_refused_override_does_not_unblock_printing(api, people, broken):
    assert ask(api, broken, people.compliance).status_code == 201
    with pytest.raises(PrintBlocked, match="awaits a second officer"):
        print_permission(broken)
    api.force_login(people.floor)
    assert api.post(f"/api/v1/postings/{broken.pk}/signage.pdf/").status_code == 409

    refused = answer(api, broken, people.compliance_2, "refuse", reason="The letter does not cover this table.")
    assert refused.status_code == 200 and refused.json()["printing"]["blocked"] is True
    override = PrintOverride.objects.get(posting=broken)
    assert (override.status, override.decided_by, override.decision_reason) == (
        PrintOverride.Status.REFUSED, people.compliance_2, "The letter does not cover this table.")
    logged = AuditLogEntry.objects.get(action="signage.print_override_refused", object_id=str(broken.pk))
    assert logged.actor == people.compliance_2 and logged.data["request_reason"] == ASKED
    api.force_login(people.floor)
    assert api.post(f"/api/v1/postings/{broken.pk}/signage.pdf/").status_code == 409
    assert not SignPrint.objects.filter(posting=broken).exists()
    # Nothing awaits an answer now: approving is a conflict; a new request may be made.
    assert answer(api, broken, people.admin, "approve").status_code == 409
    with pytest.raises(OverrideStateError):
        signage_services.refuse_override(people.admin, posting=broken, reason="Nothing to refuse here.")
    assert ask(api, broken, people.compliance_2, reason="Second try: the Bureau answered by phone.").status_code == 201
    assert PrintOverride.objects.filter(posting=broken).count() == 2  # the refusal is kept


def test_an_approved_override_unblocks_printing_and_keeps_who_when_and_why(api, people, broken):
    assert ask(api, broken, people.compliance).status_code == 201
    approved = answer(api, broken, people.compliance_2, "approve")
    assert approved.status_code == 200
    granted = approved.json()["printing"]["override"]
    assert approved.json()["printing"]["blocked"] is False and approved.json()["printing"]["pending_override"] is None
    assert (granted["status"], granted["requested_by"], granted["reason"], granted["decided_by"],
            granted["decision_reason"]) == ("approved", "t-compliance", ASKED, "t-compliance-2",
                                            "Findings read; the Bureau's letter covers it.")
    assert granted["requested_at"] and granted["decided_at"]
    assert [(e.action, e.actor) for e in AuditLogEntry.objects.filter(
        object_id=str(broken.pk), action__startswith="signage.print_override").order_by("id")] == [
        ("signage.print_override_requested", people.compliance), ("signage.print_override", people.compliance_2)]

    api.force_login(people.floor)
    assert api.post(f"/api/v1/postings/{broken.pk}/signage.pdf/").status_code == 200
    assert SignPrint.objects.get(posting=broken).override == PrintOverride.objects.get(posting=broken)
    assert ask(api, broken, people.compliance).status_code == 409  # already approved


def test_only_the_rooms_compliance_officers_or_an_administrator_answer(api, people, broken):
    assert ask(api, broken, people.compliance).status_code == 201
    assert answer(api, broken, people.floor, "approve").status_code == 403
    assert answer(api, broken, people.regulator_ca, "approve").status_code == 403
    assert answer(api, broken, people.compliance_wa, "approve").status_code == 404  # another room's posting
    assert answer(api, broken, people.admin, "approve").status_code == 200


def test_the_page_shows_the_asker_theirs_pending_and_the_second_officer_approve_and_refuse(client, people, broken):
    address = f"/compliance/casino-marysville/postings/{broken.pk}/override/"
    client.force_login(people.compliance)
    assert client.post(address, {"reason": ASKED, "step": "request"}).status_code == 302
    page = client.get(address).content.decode()
    assert 'id="awaiting"' in page and 'value="approve"' not in page
    assert client.post(address, {"reason": "Approving my own request.", "step": "approve"}).status_code == 403
    assert PrintOverride.objects.get(posting=broken).status == PrintOverride.Status.REQUESTED

    client.force_login(people.compliance_2)
    page = client.get(address).content.decode()
    assert 'value="approve"' in page and 'value="refuse"' in page and ASKED in page
    short = client.post(address, {"reason": "ok", "step": "approve"})
    assert short.status_code == 400 and PrintOverride.objects.get(posting=broken).status == "requested"
    assert client.post(address, {"reason": "Findings read; agreed.", "step": "approve"}).status_code == 302
    page = client.get(address).content.decode()
    assert "Approved by t-compliance-2: the sign may be printed." in page
    assert client.post(address, {"reason": "Refusing it after all.", "step": "refuse"}).status_code == 409


# -- signs printed under a schedule version since replaced --------------------------------------------------------


def flat(response):
    return " ".join(response.content.decode().split())


def test_a_sign_printed_under_v1_is_out_of_date_once_v2_is_in_force(api, client, people, clock):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    posting = post(people, "7")
    clock(MARCH_1 + datetime.timedelta(hours=1))
    _, (first,) = printing.print_signs([posting], "letter", user=people.floor, channel=SignPrint.Channel.API)
    assert first.schedule_version == 1

    document = ScheduleDocument.objects.get(code="GEGA-002888")
    draft = document.new_draft(based_on=document.versions.get(number=1), user=people.compliance,
                               reason="Bureau letter: new rates", effective_from=V2_FROM)
    change_a_fee(draft)
    publish(draft, requested_by=people.compliance, approved_by=people.admin)  # GEGA-002888 is shared: an administrator
    floor_page, table_page = "/floor/casino-marysville/", f"/floor/casino-marysville/tables/{posting.table_id}/"
    verify_page = reverse("signage-verify", args=[posting.public_token])
    client.force_login(people.floor)
    # Published but not yet in force: the sign still shows the fees in force.
    assert "out of date" not in flat(client.get(floor_page)) and "out of date" not in flat(client.get(table_page))
    assert 'id="sign-status"' not in flat(client.get(verify_page))

    clock(datetime.datetime.combine(V2_FROM, datetime.time(9), tzinfo=LA))
    why = "printed under version 1; version 2 in force since 2027-03-10: reprint it"
    page = flat(client.get(floor_page))
    assert "out of date" in page and why in page and "Signs to print or reprint (1)" in page
    assert f"Sign out of date</span> P{why[1:]}." in flat(client.get(table_page))
    client.logout()  # the public page needs no login and names nobody
    page = flat(client.get(verify_page))
    assert ('id="sign-status">Sign out of date: it was printed under version 1 of collection schedule GEGA-002888, '
            "but version 2 has been in force since 2027-03-10") in page and "must reprint the sign" in page
    assert "t-floor" not in page
    api.force_login(people.floor)
    state = api.get(f"/api/v1/postings/{posting.pk}/").json()["printing"]
    assert {key: state[key] for key in ("prints", "printed_version", "version_in_force", "version_in_force_since",
                                        "out_of_date", "reprint_due", "why")} == {
        "prints": 1, "printed_version": 1, "version_in_force": 2, "version_in_force_since": "2027-03-10",
        "out_of_date": True, "reprint_due": True, "why": why}

    # Reprinted under version 2: current again.
    _, (second,) = printing.print_signs([posting], "letter", user=people.floor, channel=SignPrint.Channel.API)
    assert (second.number, second.schedule_version) == (2, 2)
    client.force_login(people.floor)
    assert "out of date" not in flat(client.get(floor_page))
    client.logout()
    assert 'id="sign-status"' not in flat(client.get(verify_page))
    assert api.get(f"/api/v1/postings/{posting.pk}/").json()["printing"]["out_of_date"] is False


def test_sign_states_read_the_version_of_the_last_print_in_three_queries(people, clock, django_assert_num_queries):
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    postings = [post(people, label) for label in ("7", "8", "9")]
    clock(MARCH_1 + datetime.timedelta(hours=1))
    printing.print_signs(postings[:2], "letter", user=people.floor, channel=SignPrint.Channel.API)
    SignPrint.objects.filter(posting=postings[0]).update(schedule_version=None)  # as if printed with no version
    with django_assert_num_queries(3):  # the prints, the versions in force, the readings decided since
        states = printing.sign_states(postings, MARCH_1 + datetime.timedelta(hours=2))
    assert [(s["printed_version"], s["out_of_date"], s["reprint"]) for s in (states[p.pk] for p in postings)] == [
        (None, True, True), (1, False, False), (None, False, True)]
    assert states[postings[0].pk]["why"] == "printed with no version in force; version 1 in force: reprint it"
    assert states[postings[2].pk]["why"] == "never printed"


# -- the migration ---------------------------------------------------------------------------------------------------


@pytest.mark.migrations
@pytest.mark.django_db(transaction=True)
def test_migration_0002_keeps_granted_overrides_approved_and_finds_the_version_each_sign_shows(reseed, people):
    posting = post(people, "M-1", max_wager="20000")
    published_at = ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=1).published_at
    executor = MigrationExecutor(connection)
    executor.migrate([("signage", "0001_initial")])
    old = executor.loader.project_state([("signage", "0001_initial")]).apps
    granted = old.get_model("signage", "PrintOverride").objects.create(
        posting_id=posting.pk, reason="Granted alone, before two people.", granted_by_id=people.compliance.pk)
    OldPrint = old.get_model("signage", "SignPrint")
    for number, printed_at in ((1, published_at - datetime.timedelta(days=1)),  # before v1 was in the record
                               (2, published_at + datetime.timedelta(minutes=1))):
        OldPrint.objects.create(posting_id=posting.pk, layout="letter", number=number, channel="api",
                                printed_label="t-floor", printed_at=printed_at, override_id=granted.pk)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    override = PrintOverride.objects.get(pk=granted.pk)
    assert (override.status, override.requested_by, override.decided_by, override.decided_at) == (
        PrintOverride.Status.APPROVED, people.compliance, people.compliance, override.requested_at)
    assert print_permission(posting) == override  # nothing already printable stops printing
    assert list(SignPrint.objects.filter(posting=posting).order_by("number").values_list("schedule_version",
                                                                                         flat=True)) == [None, 1]
