"""The functions behind the actions ask the named permission themselves, not only the doors that call them: a caller
that forgets the door's check (a new page, a command) still cannot act for someone who may not."""

import datetime

import pytest
from django.urls import reverse
from django.utils.html import escape

from cardroom.access import Scope
from cardroom.exceptions import BadInput, NotAllowed
from cardroom.models import AuditLogEntry
from cardroom.permissions import SYSTEM
from compliance import services as compliance_services
from compliance.models import ValidationRun
from exports import tasks as export_tasks
from fees import ledger
from fees.ledger import services as ledger_services
from fees.models import Interpretation, Reconciliation, ScheduleVersion, TablePosting
from fees.schedules import editing
from fees.schedules import services as fee_services
from signage import services as sign_services
from signage import tasks as sign_tasks
from signage.models import SignPrint


def test_a_regulator_cannot_queue_a_batch_of_signs(people):
    with pytest.raises(NotAllowed, match="Only floor supervisors and compliance officers"):
        sign_tasks.start_batch(people.regulator_ca, establishment=people.marysville, layout="letter", tables=None)


def test_a_floor_supervisor_cannot_save_a_drafts_tiers(people, draft):
    option = draft.options.order_by("number").first()
    with pytest.raises(NotAllowed, match="responsible for this schedule"):
        editing.save_tiers(people.floor, option=option, formset=None, reason="Not mine to change.")


def test_a_regulator_cannot_record_collections(people):
    with pytest.raises(NotAllowed, match="record collections"):
        ledger.record_entries([], scope=Scope(people.regulator_ca), user=people.regulator_ca)


def test_a_floor_supervisor_cannot_check_a_bundle(people):
    with pytest.raises(NotAllowed, match="regulators, compliance officers"):
        export_tasks.start_check(people.floor, upload=None)


# -- printing a sign, reconciling, validation runs: each service refuses the wrong person itself ------------------


@pytest.fixture
def posting(people):
    from tests import factories

    return TablePosting.objects.get(table=factories.make_posted_table(people.marysville))


def test_a_regulator_cannot_print_a_sign_and_nothing_is_recorded(people, posting):
    with pytest.raises(NotAllowed, match="^Only floor supervisors and compliance officers of the table's "
                                         "establishment print signs"):
        sign_services.print_sign(people.regulator_ca, posting=posting, layout="letter", channel=SignPrint.Channel.API)
    with pytest.raises(NotAllowed, match="print signs"):  # another room's officer, in a bulk print
        sign_services.print_signs(people.compliance_wa, postings=[posting], layout="tent",
                                  channel=SignPrint.Channel.ADMIN)
    assert not SignPrint.objects.exists() and not AuditLogEntry.objects.filter(action="signage.print").exists()


def test_printing_a_sign_in_an_unknown_layout_is_bad_input(people, posting):
    with pytest.raises(BadInput, match="^layout must be one of letter, tent, not 'poster'.$"):
        sign_services.print_sign(people.floor, posting=posting, layout="poster", channel=SignPrint.Channel.API)


def test_a_regulator_cannot_reconcile_and_another_room_cannot_either(people, table):
    day = datetime.date(2026, 3, 2)
    with pytest.raises(NotAllowed, match="record collections, rounds and reconciliations"):
        ledger_services.reconcile(people.regulator_ca, day_from=day, table_ids=[table.pk])
    with pytest.raises(NotAllowed, match="of the table's establishment"):
        ledger_services.reconcile(people.compliance_wa, day_from=day, table_ids=[table.pk])
    with pytest.raises(BadInput, match=r"^day_to \(2026-03-01\) comes before day_from \(2026-03-02\)\.$"):
        ledger_services.reconcile(people.floor, day_from=day, day_to=datetime.date(2026, 3, 1), table_ids=[table.pk])
    assert not Reconciliation.objects.exists()
    (stored,) = ledger_services.reconcile(people.floor, day_from=day, table_ids=[table.pk])
    assert (stored.run_by, stored.trigger, stored.status) == (people.floor, "on_demand", "balanced")


def test_the_nightly_reconciliation_is_the_schedulers_and_says_so(people, table):
    (stored,) = ledger_services.reconcile(SYSTEM, day_from=datetime.date(2026, 3, 2), table_ids=[table.pk])
    entry = AuditLogEntry.objects.get(action="ledger.reconcile", object_id=str(stored.pk))
    assert (stored.run_by, stored.trigger, entry.actor, entry.actor_label) == (None, "nightly", None,
                                                                               "reconciliation (nightly)")


def test_validation_runs_refuse_who_may_not_start_them(people, draft):
    with pytest.raises(NotAllowed, match=r"^Only a compliance officer of this establishment may start a run\.$"):
        compliance_services.run_establishment(people.floor, establishment=people.marysville)
    with pytest.raises(NotAllowed, match=r"^Only compliance officers may start a run\.$"):
        compliance_services.run_schedule(people.floor, version=draft.document.versions.get(number=1))
    with pytest.raises(NotAllowed, match=r"^Only an administrator may validate everything\.$"):
        compliance_services.run_everything(people.compliance)
    assert not ValidationRun.objects.exists()


def test_a_validation_run_by_the_installation_has_no_starter_and_is_logged(people):
    run = compliance_services.run_establishment(SYSTEM, establishment=people.marysville)
    entry = AuditLogEntry.objects.get(action="compliance.run")
    assert (run.started_by, run.trigger, entry.actor_label, entry.establishment) == (
        None, "on_demand", "validation (on_demand)", people.marysville)
    assert entry.data["run"] == run.pk and entry.data["kind"] == "establishment"


def test_the_admin_deletes_a_draft_with_readings_by_discarding_it(client, people, draft):
    reading = fee_services.propose_interpretation(
        people.compliance, version=draft, option=1, tier=1, field="taken", value="before_deal",
        statement="Taken before the cards are dealt.", decided_on=datetime.date(2026, 10, 15),
        citation="Test: a Bureau answer")
    client.force_login(people.admin)
    address = reverse("admin:fees_scheduleversion_delete", args=[draft.pk])
    page = client.get(address).content.decode()
    assert "Cannot delete" not in page and escape(f"Interpretation: {reading}") in page  # listed among what goes
    assert client.post(address, {"post": "yes"}).status_code == 302
    assert not ScheduleVersion.objects.filter(pk=draft.pk).exists()
    assert not Interpretation.objects.filter(pk=reading.pk).exists()
    entry = AuditLogEntry.objects.get(action="schedule.discard_draft")
    assert (entry.actor, entry.data["version"], entry.data["interpretations"]) == (people.admin, 2, [reading.pk])
