"""Approval conditions met per establishment (issue 12).

A prerequisite condition of an approval (the WSGC letter's internal controls for commercial card rooms; the
Tribal Gaming Agency's approval and the state's concurrence for tribal casinos) is met per establishment, with
the day, the reference of the evidence and who recorded it; it applies by the establishment's kind. A posting of
a game whose prerequisites are outstanding at that establishment is an error finding. Records are never changed
or deleted (a correction or a withdrawal is a new record, with a reason) and each goes to the audit log. The
nightly run warns of approvals expiring and trials ending within 30 days.
"""

import datetime
import io

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cardroom import conditions
from cardroom.access import Scope
from cardroom.exceptions import BadInput
from cardroom.exceptions import NotAllowed
from cardroom.models import (
    Approval,
    ApprovalCondition,
    AuditLogEntry,
    ConditionFulfilment,
    Establishment,
    Game,
    Source,
    Table,
)
from cardroom.models.approvals import FulfilmentImmutableError
from cardroom.models.guards import NeverDeletedError
from compliance import checking, tasks
from compliance.facts import Catalog
from compliance.models import Finding, ValidationRun
from compliance.rules import ERROR, WARNING, ParameterSet
from compliance.rules.lint import TableFacts, lint_approvals
from compliance.rules.postings import (
    ApprovalFacts,
    Condition,
    GameFacts,
    PostingFacts,
    conditions_outstanding,
    rule_game_approved,
)

pytestmark = pytest.mark.django_db

WA_LETTER = "one-for-the-money-wa-2014"
INTERNAL_CONTROLS = 2  # "Commercial card room operators ... must first submit their internal controls ..."
TGA_APPROVAL, STATE_CONCURRENCE = 5, 6
CHECK = "/api/v1/compliance/check"
FULFILMENTS = "/api/v1/approval-conditions/fulfilments/"
MET_ON = datetime.date(2026, 2, 1)
TCP = "three-card-poker-casino-marysville"  # its owner-agreement condition is a prerequisite at Casino Marysville


def condition(order, approval=WA_LETTER):
    return ApprovalCondition.objects.select_related("approval").get(approval__key=approval, order=order)


def tribal_casino(people):
    return Establishment.objects.create(slug="test-tribal", name="Test Tribal Casino", jurisdiction=people.washington,
                                        kind=Establishment.Kind.TRIBAL_CASINO, is_demo=True)


def meet(people, order=INTERNAL_CONTROLS, establishment=None, met_on=MET_ON, **kwargs):
    return conditions.record_condition_met(kwargs.pop("user", people.compliance_wa), condition=condition(order),
                                           establishment=establishment or people.wa_room, met_on=met_on,
                                           evidence=kwargs.pop("evidence", "WSGC letter IC-2026-17"), **kwargs)


# -- the seeded conditions ---------------------------------------------------------------------------------------


def test_seeded_conditions_keep_what_the_source_says_and_say_which_are_prerequisites():
    wa = {c.order: c for c in ApprovalCondition.objects.filter(approval__key=WA_LETTER)}
    assert {c.status for c in wa.values()} == {"outstanding"}  # the source says none was met
    prerequisites = {order: c.applies_to for order, c in wa.items() if c.kind == "prerequisite"}
    assert prerequisites == {INTERNAL_CONTROLS: "commercial", TGA_APPROVAL: "tribal", STATE_CONCURRENCE: "tribal",
                             7: "tribal"}
    assert "internal controls" in wa[INTERNAL_CONTROLS].text and "concurrence" in wa[STATE_CONCURRENCE].text
    assert wa[1].kind == wa[11].kind == "operating"  # rules of play; WAC wagering limits
    assert wa[10].kind == "other_party"  # the Financial Investigations Unit's review of the applicant
    assert condition(1, TCP).kind == "prerequisite"  # the owner's agreement


# -- the record ------------------------------------------------------------------------------------------------------


def test_recording_a_condition_met_keeps_who_when_what_and_logs_it(people):
    before = timezone.now()
    record = meet(people, note="Approved by letter.")
    assert (record.condition.order, record.establishment, record.met_on) == (INTERNAL_CONTROLS, people.wa_room, MET_ON)
    assert record.evidence == "WSGC letter IC-2026-17" and record.recorded_by == people.compliance_wa
    assert record.recorded_at >= before and not record.withdrawn and record.corrects is None
    assert record.history.get().history_change_reason == "Met on 2026-02-01: WSGC letter IC-2026-17"
    entry = AuditLogEntry.objects.get(action="approval.condition_met")
    assert entry.actor == people.compliance_wa and entry.establishment == people.wa_room
    assert entry.data["evidence"] == "WSGC letter IC-2026-17" and entry.data["met_on"] == "2026-02-01"
    assert (entry.data["approval"], entry.data["condition"]) == (WA_LETTER, INTERNAL_CONTROLS)
    assert conditions.standing(condition(INTERNAL_CONTROLS), people.wa_room) == record


def test_a_record_is_never_changed_or_deleted(people):
    record = meet(people)
    record.evidence = "changed"
    with pytest.raises(FulfilmentImmutableError):
        record.save()
    with pytest.raises(FulfilmentImmutableError):
        ConditionFulfilment.objects.filter(pk=record.pk).update(evidence="changed")
    with pytest.raises(NeverDeletedError):
        record.delete()
    with pytest.raises(NeverDeletedError):
        ConditionFulfilment.objects.all().delete()
    record.refresh_from_db()
    assert record.evidence == "WSGC letter IC-2026-17"


@pytest.mark.services
def test_postgresql_refuses_to_delete_a_record_of_a_condition_met(people):
    """Even SQL around the application: the trigger of migration 0004, on this table by migration 0005."""
    assert connection.vendor == "postgresql"
    meet(people)
    with pytest.raises(DatabaseError, match="never deleted"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM cardroom_conditionfulfilment")
    assert ConditionFulfilment.objects.count() == 1


def test_the_database_refuses_a_record_met_without_evidence_or_a_day(people):
    for values in ({"met_on": MET_ON, "evidence": ""}, {"met_on": None, "evidence": "x"}):
        with pytest.raises(IntegrityError), transaction.atomic():
            ConditionFulfilment.objects.create(condition=condition(INTERNAL_CONTROLS), establishment=people.wa_room,
                                               recorded_by=people.compliance_wa, **values)


def test_a_second_record_corrects_the_first_with_a_reason(people):
    first = meet(people)
    with pytest.raises(conditions.ConditionConflict, match="recorded as met .* on 2026-02-01"):
        meet(people, met_on="2026-02-03")
    with pytest.raises(BadInput, match="reason"):
        meet(people, met_on="2026-02-03", corrects=first.pk)
    second = meet(people, met_on="2026-02-03", corrects=first.pk, reason="The letter is dated the 3rd.")
    assert second.corrects == first and conditions.standing(condition(INTERNAL_CONTROLS), people.wa_room) == second
    with pytest.raises(conditions.ConditionConflict, match="corrected or withdrawn already"):
        meet(people, met_on="2026-02-04", corrects=first.pk, reason="Again.")
    with pytest.raises(BadInput, match="no record"):
        meet(people, met_on="2026-02-04", corrects=second.pk + 1000, reason="Again.")
    assert ConditionFulfilment.objects.count() == 2  # nothing more recorded by the refused attempts


def test_a_withdrawal_says_why_and_the_condition_can_be_met_again(people):
    record = meet(people)
    with pytest.raises(BadInput, match="reason"):
        conditions.withdraw_condition_met(people.compliance_wa, record=record, reason=" ")
    withdrawal = conditions.withdraw_condition_met(people.compliance_wa, record=record,
                                                   reason="The letter approved another game's controls.")
    assert withdrawal.withdrawn and withdrawal.corrects == record and withdrawal.met_on is None
    assert AuditLogEntry.objects.filter(action="approval.condition_withdrawn", establishment=people.wa_room).exists()
    with pytest.raises(conditions.ConditionConflict):
        conditions.withdraw_condition_met(people.compliance_wa, record=record, reason="Twice.")
    with pytest.raises(conditions.ConditionConflict, match="is a withdrawal"):
        conditions.withdraw_condition_met(people.compliance_wa, record=withdrawal,
                                          reason="A withdrawal of a withdrawal.")
    again = meet(people, met_on="2026-03-01", evidence="WSGC letter IC-2026-40")
    assert again.corrects == withdrawal  # the chain goes on
    facts = Catalog().approvals_for("one-for-the-money")
    (wa,) = [a for a in facts if a.key == WA_LETTER]
    assert [c.met for c in wa.conditions if c.order == INTERNAL_CONTROLS] == [(("test-wa-room", again.met_on),)]


@pytest.mark.parametrize("order,room,values,message", [
    (TGA_APPROVAL, "wa", {}, "does not apply at Test WA Room"),  # a tribal condition at a commercial card room
    (INTERNAL_CONTROLS, "tribal", {}, "does not apply at Test Tribal Casino"),
    (INTERNAL_CONTROLS, "ca", {}, "does not apply at Casino Marysville"),  # another jurisdiction's approval
    (1, "wa", {}, "is not met once"),  # an operating condition: the rules of play
    (INTERNAL_CONTROLS, "wa", {"met_on": "2199-01-01"}, "is after today"),
    (INTERNAL_CONTROLS, "wa", {"met_on": "1 Feb 2026"}, "met_on must be a date"),
    (INTERNAL_CONTROLS, "wa", {"evidence": "  "}, "evidence must not be blank"),
    (INTERNAL_CONTROLS, "wa", {"evidence": "a\x00b"}, "evidence"),
])
def test_a_condition_is_recorded_only_where_and_as_it_applies(people, order, room, values, message):
    establishment = {"wa": people.wa_room, "ca": people.marysville, "tribal": tribal_casino(people)}[room]
    with pytest.raises(BadInput, match=message):  # an administrator may record anywhere
        meet(people, order, establishment=establishment, user=people.admin, **values)
    assert not ConditionFulfilment.objects.exists()


def test_a_condition_is_recorded_only_by_the_establishments_compliance_officers(people):
    with pytest.raises(NotAllowed, match="Only compliance officers of the establishment record"):
        meet(people, establishment=people.marysville)  # compliance_wa, at a California room
    with pytest.raises(NotAllowed, match="Only compliance officers of the establishment record"):
        meet(people, user=people.regulator_wa)  # a regulator reads, never records
    record = meet(people)
    with pytest.raises(NotAllowed, match="Only compliance officers of this establishment withdraw"):
        conditions.withdraw_condition_met(people.compliance, record=record, reason="Not ours to withdraw.")
    assert ConditionFulfilment.objects.count() == 1


def test_a_condition_the_source_records_as_not_applicable_is_outstanding_nowhere(people):
    ic = condition(INTERNAL_CONTROLS)
    ic.status, ic._change_reason = ApprovalCondition.Status.NOT_APPLICABLE, "test"
    ic.save()
    with pytest.raises(BadInput, match="not applicable everywhere"):
        meet(people)
    (wa,) = [a for a in Catalog().approvals_for("one-for-the-money") if a.key == WA_LETTER]
    assert conditions_outstanding(wa, "test-wa-room", "card_room", MET_ON) == []


# -- the rules (pure) ------------------------------------------------------------------------------------------------

DAY = datetime.date(2026, 3, 3)
OFM = GameFacts("one-for-the-money", "One for the Money", None, "house_banked")


def letter(*conditions_):
    return ApprovalFacts("wa-letter", "one-for-the-money", "One for the Money", "WA", None, "all", "approved",
                         "WSGC letter of 2014-02-18", datetime.date(2014, 2, 18), None, None, None, "WSGC letter",
                         tuple(conditions_))


IC = Condition("Operators must first submit their internal controls and receive approval.", "commercial",
               "outstanding", "WSGC letter, 'Commercial Card Rooms', bullet 2", kind="prerequisite", order=2,
               met=(("room-a", datetime.date(2026, 3, 1)),))
TGA = Condition("Each Tribal Gaming Operation must obtain approval from its TGA.", "tribal", "outstanding",
                "WSGC letter, 'Tribal Casinos', bullet 2", kind="prerequisite", order=5)
RULES = Condition("Played under the enclosed rules.", "all", "outstanding", "WSGC letter, bullet 1",
                  kind="operating", order=1)


def posting(establishment, kind="card_room", day=DAY, approval=None):
    return PostingFacts(subject={"type": "posting"}, jurisdiction="WA", as_of=day, game=OFM,
                        establishment=establishment, establishment_kind=kind, max_wager=None, seats=6,
                        approvals=(approval or letter(IC, TGA, RULES),))


def outstanding_findings(facts):
    return [f for f in rule_game_approved(facts, ParameterSet([])) if f.rule == "approval.conditions_outstanding"]


def test_a_posting_where_the_internal_controls_are_outstanding_is_an_error_naming_and_citing_them():
    (found,) = outstanding_findings(posting("room-b"))
    assert found.severity == ERROR
    assert "may not be offered at room-b on 2026-03-03" in found.message
    assert "condition 2, \"Operators must first submit their internal controls" in found.message
    assert found.citation == "WSGC letter, 'Commercial Card Rooms', bullet 2"
    assert "TGA" not in found.message and "enclosed rules" not in found.message  # tribal; operating


def test_met_there_on_or_before_the_day_is_clean_and_before_it_is_not():
    assert outstanding_findings(posting("room-a")) == []
    assert outstanding_findings(posting("room-a", day=datetime.date(2026, 3, 1))) == []
    (early,) = outstanding_findings(posting("room-a", day=datetime.date(2026, 2, 28)))
    assert early.severity == ERROR


def test_a_tribal_casino_is_held_to_the_tribal_conditions():
    (found,) = outstanding_findings(posting("room-a", kind="tribal_casino"))
    assert "condition 5" in found.message and "condition 2" not in found.message  # room-a's IC do not count
    assert found.citation == "WSGC letter, 'Tribal Casinos', bullet 2"


def test_without_an_establishment_the_conditions_are_a_warning_to_name_it():
    facts = PostingFacts(subject={"type": "posting"}, jurisdiction="WA", as_of=DAY, game=OFM, seats=6,
                         approvals=(letter(IC, TGA),))
    (found,) = outstanding_findings(facts)
    assert found.severity == WARNING and "Name the establishment" in found.message
    assert "condition 2" in found.message and "condition 5" in found.message


def test_only_outstanding_prerequisites_count():
    not_applicable = Condition(IC.text, "commercial", "not_applicable", IC.citation, order=2)
    met_everywhere = Condition(IC.text, "commercial", "met", IC.citation, order=2)
    for approval in (letter(RULES), letter(not_applicable), letter(met_everywhere), letter()):
        assert outstanding_findings(posting("room-b", approval=approval)) == []


def test_the_table_lint_and_not_the_approval_carries_the_per_establishment_error():
    approvals = [letter(IC)]
    tables = [TableFacts("room-a", "card_room", "WA", "1", "one-for-the-money", "One for the Money"),
              TableFacts("room-b", "card_room", "WA", "2", "one-for-the-money", "One for the Money")]
    found = [(f.rule, f.severity, f.subject.get("table"), f.subject["type"]) for f in lint_approvals(approvals, tables,
                                                                                                    DAY)]
    assert found == [("approval.conditions_outstanding", ERROR, "2", "table")]


# -- through the database: the API's posting check, stored runs, the nightly run ---------------------------------------


def check(api, user, **body):
    api.force_login(user)
    answer = api.post(CHECK, {"establishment": "test-wa-room", "game": "one-for-the-money", "max_wager": "300",
                              "seats": 6, **body}, format="json")
    assert answer.status_code == 200, answer.json()
    return [f for f in answer.json()["findings"] if f["rule"] == "approval.conditions_outstanding"]


def test_a_wa_posting_in_a_room_whose_internal_controls_are_outstanding_gets_an_error_finding(api, people):
    (found,) = check(api, people.compliance_wa, as_of="2026-03-03")
    assert found["severity"] == "error" and "internal controls" in found["message"]
    assert found["citation"].endswith("Letter, 'Commercial Card Rooms', bullet 2")
    assert found["citation"].startswith(Source.objects.get(key="wsgc-letter-2014").title)
    meet(people)
    assert check(api, people.compliance_wa, as_of="2026-03-03") == []
    (before,) = check(api, people.compliance_wa, as_of="2026-01-31")  # the day before it was met
    assert before["severity"] == "error"


def test_an_establishment_run_flags_each_table_offering_the_game_until_the_condition_is_met(people):
    table = Table.objects.create(establishment=people.wa_room, label="OFM-1", seats=6,
                                 game=Game.objects.get(slug="one-for-the-money"))
    run = checking.run_establishment(people.wa_room, as_of=datetime.date(2026, 3, 3))
    (found,) = run.findings.filter(rule="approval.conditions_outstanding")
    assert (found.severity, found.table, found.subject_type) == ("error", table, "table")
    assert not run.findings.filter(rule="approval.conditions_outstanding", subject_type="approval").exists()
    meet(people)
    run = checking.run_establishment(people.wa_room, as_of=datetime.date(2026, 3, 3))
    assert not run.findings.filter(rule="approval.conditions_outstanding").exists()


def test_the_nightly_run_warns_of_approvals_expiring_and_trials_ending_within_30_days(people):
    day = datetime.date(2026, 3, 3)
    source = Source.objects.get(key="wsgc-letter-2014")
    game = Game.objects.get(slug="one-for-the-money")

    def approval(key, **dates):
        return Approval.objects.create(key=key, game=game, jurisdiction=people.washington, establishment=people.wa_room,
                                       status=dates.pop("status", "approved"), reference=key.upper(), source=source,
                                       citation="test", effective_from=datetime.date(2026, 1, 1), **dates)

    approval("expiring", expires_on=day + datetime.timedelta(days=20))
    approval("trial-ending", status="trial", trial_ends_on=day + datetime.timedelta(days=30))
    approval("far-off", expires_on=day + datetime.timedelta(days=31))
    result = tasks.validate_everything(as_of=day.isoformat())
    run = ValidationRun.objects.get(pk=result["run"])
    assert run.trigger == "nightly" and run.as_of == day
    warned = {(f.subject["approval"], f.severity) for f in run.findings.filter(rule="approval.expiring")}
    assert warned == {("expiring", "warning"), ("trial-ending", "warning")}
    messages = " ".join(run.findings.filter(rule="approval.expiring").values_list("message", flat=True))
    assert "expires on 2026-03-23" in messages and "trial ends on 2026-04-02" in messages


def test_the_nightly_run_is_scheduled_by_beat():
    entry = settings.CELERY_BEAT_SCHEDULE["compliance-validate-everything"]
    assert entry["task"] == tasks.validate_everything.name == "compliance.tasks.validate_everything"
    assert (entry["schedule"].hour, entry["schedule"].minute) == ({7}, {30})


# -- the API -----------------------------------------------------------------------------------------------------------


def body(**changes):
    return {"approval": WA_LETTER, "condition": INTERNAL_CONTROLS, "establishment": "test-wa-room",
            "met_on": "2026-02-01", "evidence": "WSGC letter IC-2026-17", **changes}


def test_a_compliance_officer_records_a_condition_met_through_the_api(api, people):
    api.force_login(people.compliance_wa)
    answer = api.post(FULFILMENTS, body(note="Filed in the binder."), format="json")
    assert answer.status_code == 201, answer.json()
    made = answer.json()
    assert {k: made[k] for k in ("approval", "condition", "establishment", "met_on", "evidence", "recorded_by",
                                 "withdrawn", "standing", "corrects", "corrected_by")} == {
        "approval": WA_LETTER, "condition": INTERNAL_CONTROLS, "establishment": "test-wa-room",
        "met_on": "2026-02-01", "evidence": "WSGC letter IC-2026-17", "recorded_by": "t-compliance-wa",
        "withdrawn": False, "standing": True, "corrects": None, "corrected_by": None}
    assert made["citation"].endswith("'Commercial Card Rooms', bullet 2") and "internal controls" in made[
        "condition_text"]
    again = api.post(FULFILMENTS, body(met_on="2026-02-02"), format="json")
    assert again.status_code == 409 and "corrects" in again.json()["error"]["message"]
    fixed = api.post(FULFILMENTS, body(met_on="2026-02-02", corrects=made["id"], reason="Wrong day."), format="json")
    assert fixed.status_code == 201 and fixed.json()["corrects"] == made["id"]
    listed = api.get(FULFILMENTS, {"establishment": "test-wa-room", "standing": "true"}).json()
    assert [r["id"] for r in listed["results"]] == [fixed.json()["id"]]
    assert api.get(f"{FULFILMENTS}{made['id']}/").json()["corrected_by"] == fixed.json()["id"]
    withdrawn = api.post(f"{FULFILMENTS}{fixed.json()['id']}/withdraw/", {"reason": "Controls not approved yet."},
                         format="json")
    assert withdrawn.status_code == 201 and withdrawn.json()["withdrawn"] is True
    twice = api.post(f"{FULFILMENTS}{fixed.json()['id']}/withdraw/", {"reason": "Again."}, format="json")
    assert twice.status_code == 409


@pytest.mark.parametrize("changes,field,message", [
    ({"establishment": "no-such-room"}, "establishment", "Unknown establishment"),
    ({"establishment": "casino-marysville"}, "establishment", "Unknown establishment"),  # not theirs: as unknown
    ({"approval": "no-such-approval"}, "approval", "Unknown approval"),
    ({"approval": TCP, "condition": 1}, "approval", "Unknown approval"),  # another jurisdiction's
    ({"condition": 99}, "condition", "has no condition 99"),
    ({"condition": "2"}, "condition", ""),
    ({"condition": TGA_APPROVAL}, "condition", "does not apply"),
    ({"met_on": "2026-02-30"}, "met_on", "no such day"),
    ({"met_on": "2199-01-01"}, "met_on", "after today"),
    ({"evidence": ""}, "evidence", ""),
    ({"evidence": "x" * 501}, "evidence", ""),
    ({"corrects": "one"}, "corrects", ""),
    ({"colour": "red"}, None, "unknown field(s): colour"),
])
def test_bad_input_is_a_400_naming_the_field_and_records_nothing(api, people, changes, field, message):
    api.force_login(people.compliance_wa)
    answer = api.post(FULFILMENTS, body(**changes), format="json")
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert message in error["message"]
    if field:
        assert field in error["details"], error
    assert not ConditionFulfilment.objects.exists()


@pytest.mark.parametrize("raw", [b"[]", b"null", b'"x"', b"{"])
def test_a_body_that_is_not_an_object_is_a_400(api, people, raw):
    api.force_login(people.compliance_wa)
    answer = api.generic("POST", FULFILMENTS, raw, content_type="application/json")
    assert answer.status_code == 400


def test_who_reads_and_who_writes(api, people):
    mine = meet(people)
    theirs = conditions.record_condition_met(people.compliance, condition=condition(1, TCP),
                                             establishment=people.marysville, met_on=MET_ON,
                                             evidence="Owner agreement on file")
    seen = {}
    for name, user in (("admin", people.admin), ("ca-officer", people.compliance), ("floor", people.floor),
                       ("regulator-ca", people.regulator_ca), ("regulator-wa", people.regulator_wa),
                       ("wa-officer", people.compliance_wa), ("outsider", people.outsider)):
        api.force_login(user)
        seen[name] = {r["id"] for r in api.get(FULFILMENTS).json()["results"]}
    assert seen == {"admin": {mine.pk, theirs.pk}, "ca-officer": {theirs.pk}, "floor": {theirs.pk},
                    "regulator-ca": {theirs.pk}, "regulator-wa": {mine.pk}, "wa-officer": {mine.pk},
                    "outsider": set()}
    api.force_login(people.regulator_wa)
    assert api.get(f"{FULFILMENTS}{theirs.pk}/").status_code == 404
    assert api.post(FULFILMENTS, body(), format="json").status_code == 403
    assert api.post(f"{FULFILMENTS}{mine.pk}/withdraw/", {"reason": "No."}, format="json").status_code == 403
    api.force_login(people.floor)
    assert api.post(FULFILMENTS, body(approval=TCP, condition=1, establishment="casino-marysville"),
                    format="json").status_code == 403
    api.force_login(people.compliance)  # another room's record: not there for them
    assert api.post(f"{FULFILMENTS}{mine.pk}/withdraw/", {"reason": "No."}, format="json").status_code == 404
    api.logout()
    assert api.get(FULFILMENTS).status_code == 401
    assert conditions.standing(condition(INTERNAL_CONTROLS), people.wa_room) == mine


# -- the pages ---------------------------------------------------------------------------------------------------------


def approvals_page(room="test-wa-room"):
    return reverse("console:compliance-approvals", args=[room])


def met_url(order=INTERNAL_CONTROLS, room="test-wa-room", approval=WA_LETTER):
    return reverse("console:compliance-condition-met", args=[room, condition(order, approval).pk])


def form(order=INTERNAL_CONTROLS, approval=WA_LETTER, **values):
    pk = condition(order, approval).pk
    return {f"c{pk}-{name}": value for name, value in
            {"met_on": "2026-02-01", "evidence": "WSGC letter IC-2026-17", "note": "", **values}.items()}


def test_the_officer_sees_each_condition_at_the_room_and_records_it_on_the_page(client, people):
    client.force_login(people.compliance_wa)
    page = client.get(approvals_page())
    (row,) = [r for r in page.context["rows"] if r["approval"].key == WA_LETTER]
    at = {a["condition"].order: a for a in row["at"]}
    assert at[INTERNAL_CONTROLS]["recordable"] and not at[INTERNAL_CONTROLS]["met"] and at[INTERNAL_CONTROLS]["form"]
    assert not at[TGA_APPROVAL]["applies"] and at[TGA_APPROVAL]["form"] is None  # tribal only
    assert at[1]["form"] is None  # operating: not met once
    assert row["attention"] and row["outstanding"] == [at[INTERNAL_CONTROLS]["condition"]]
    html = page.content.decode()
    assert "outstanding here" in html and f'action="{met_url()}"' in html

    refused = client.post(met_url(), form(evidence=" "))
    assert refused.status_code == 400 and not ConditionFulfilment.objects.exists()
    assert "This field is required" in refused.content.decode() or "is required" in refused.content.decode()
    future = client.post(met_url(), form(met_on="2199-01-01"))
    assert future.status_code == 400 and "is after today" in future.content.decode()

    done = client.post(met_url(), form(note="In the binder."))
    assert done.status_code == 302 and done["Location"].startswith(approvals_page())
    record = ConditionFulfilment.objects.get()
    assert (record.recorded_by, record.met_on, record.note) == (people.compliance_wa, MET_ON, "In the binder.")
    html = client.get(approvals_page()).content.decode()
    assert "met here" in html and "WSGC letter IC-2026-17" in html and "t-compliance-wa" in html
    again = client.post(met_url(), form(met_on="2026-02-02"))
    assert again.status_code == 409 and "corrects" in again.content.decode()


def test_the_approvals_page_reads_the_records_in_a_flat_number_of_queries(client, people):
    client.force_login(people.compliance_wa)
    record = meet(people)
    with CaptureQueriesContext(connection) as one:
        assert "met here" in client.get(approvals_page()).content.decode()
    conditions.withdraw_condition_met(people.compliance_wa, record=record, reason="Wrong letter.")
    meet(people, met_on="2026-02-05", user=people.admin)
    with CaptureQueriesContext(connection) as three:
        assert "met here" in client.get(approvals_page()).content.decode()
    assert len(three.captured_queries) == len(one.captured_queries)


def test_the_officer_withdraws_a_record_with_a_reason_on_the_page(client, people):
    record = meet(people)
    client.force_login(people.compliance_wa)
    url = reverse("console:compliance-condition-withdraw", args=["test-wa-room", record.pk])
    assert client.post(url, {f"w{record.pk}-reason": ""}).status_code == 400
    assert client.post(url, {f"w{record.pk}-reason": "Wrong letter."}).status_code == 302
    assert conditions.standing(condition(INTERNAL_CONTROLS), people.wa_room).withdrawn
    assert client.post(url, {f"w{record.pk}-reason": "Again."}).status_code == 409


def test_the_pages_are_scoped_and_need_their_csrf_token(client, people):
    client.force_login(people.floor)
    assert client.post(met_url(1, "casino-marysville", TCP), form(1, TCP)).status_code == 403
    client.force_login(people.compliance)  # another room's officer
    assert client.get(approvals_page()).status_code == 404
    assert client.post(met_url(), form()).status_code == 404
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(people.compliance_wa)
    assert strict.post(met_url(), form()).status_code == 403
    assert not ConditionFulfilment.objects.exists()


def test_the_regulator_sees_where_each_condition_stands_at_the_establishment(client, people):
    meet(people)
    client.force_login(people.regulator_wa)
    html = client.get(reverse("console:regulator-establishment", args=["test-wa-room"])).content.decode()
    assert "met here" in html and "WSGC letter IC-2026-17" in html
    tribal_casino(people)
    html = client.get(reverse("console:regulator-establishment", args=["test-tribal"])).content.decode()
    assert "outstanding here" in html and "met here" not in html


# -- the demo ----------------------------------------------------------------------------------------------------------


@pytest.mark.long
def test_the_demo_records_evergreen_internal_controls_so_its_wa_postings_are_clean():
    call_command("load_demo", force=True, days=0, stdout=io.StringIO(), stderr=io.StringIO())
    evergreen = Establishment.objects.get(slug="demo-evergreen-card-room")
    record = conditions.standing(condition(INTERNAL_CONTROLS), evergreen)
    assert record is not None and not record.withdrawn and record.evidence.startswith("DEMO-")
    assert record.recorded_by.username == "compliance-wa"
    assert record.met_on <= datetime.date(2026, 1, 1)  # before the demo postings take effect
    run = checking.run_establishment(evergreen, as_of=datetime.date(2026, 3, 3))
    assert Table.objects.filter(establishment=evergreen, game__slug="one-for-the-money", active=True).count() == 2
    assert not run.findings.filter(rule="approval.conditions_outstanding").exists()
    # The WA postings' own checks, made as they were saved (as of the day they take effect), are clean of it too.
    saved = Finding.objects.filter(run__kind="posting", run__establishment=evergreen)
    assert not saved.filter(rule="approval.conditions_outstanding").exists()
    marysville = Establishment.objects.get(slug="casino-marysville")
    run = checking.run_establishment(marysville, as_of=datetime.date(2026, 3, 3))
    assert not run.findings.filter(rule="approval.conditions_outstanding").exists()
    before = ConditionFulfilment.objects.count()
    call_command("load_demo", force=True, days=0, stdout=io.StringIO(), stderr=io.StringIO())
    assert ConditionFulfilment.objects.count() == before == 2  # a second run records nothing new
    assert Scope(record.recorded_by).compliance_establishments == {evergreen.pk}
