"""Dates and bounds that mean something (issue 33): a schedule version reaching back to 1900, a condition met
before its approval letter, a reading whose lower bound is above its upper were all taken. Each is refused with a
sentence at every door a person uses (the service, the API, the page), and nothing changes."""

import datetime

import pytest
from django.utils import timezone

from cardroom import conditions
from cardroom.exceptions import BadInput
from cardroom.models import ApprovalCondition, AuditLogEntry, ConditionFulfilment
from fees.models import Interpretation, ScheduleDocument

from tests.factories import change_a_fee, make_draft

pytestmark = pytest.mark.django_db

GEGA = "/api/v1/schedules/GEGA-002888/"
READINGS = "/api/v1/schedules/CMV-CA-FEES-PAI-GOW/interpretations/"
LETTER = "one-for-the-money-wa-2014"  # decided on 2014-02-18


def test_a_version_reaching_back_to_1900_is_refused_at_the_api_and_the_page(api, client, people):
    draft = make_draft(user=people.compliance, effective_from=datetime.date(1900, 1, 1))
    change_a_fee(draft)
    entries = AuditLogEntry.objects.count()
    api.force_authenticate(people.compliance)
    answer = api.post(f"{GEGA}versions/{draft.number}/publication-request/",
                      {"reason": "Late letter", "retroactive": True, "retroactive_reason": "The letter says so"},
                      format="json")
    assert answer.status_code == 400, answer.json()
    furthest = timezone.localdate() - datetime.timedelta(days=366)
    said = answer.json()["error"]["details"]["effective_from"]
    assert said.startswith(f"1900-01-01 reaches back more than 366 days, to before {furthest}")
    client.force_login(people.compliance)
    page = client.post(f"/compliance/casino-marysville/schedules/GEGA-002888/versions/{draft.number}/publish/",
                       {"effective_from": "1900-01-01", "reason": "Late letter", "retroactive": "on",
                        "retroactive_reason": "The letter says so"})
    assert page.status_code == 400 and "1900-01-01 reaches back more than 366 days" in page.content.decode()
    draft.refresh_from_db()
    assert draft.status == "draft" and AuditLogEntry.objects.count() == entries
    # A date within reach is taken.
    recent = timezone.localdate() - datetime.timedelta(days=30)
    assert api.patch(f"{GEGA}versions/{draft.number}/", {"effective_from": str(recent)},
                     format="json").status_code == 200
    answer = api.post(f"{GEGA}versions/{draft.number}/publication-request/",
                      {"reason": "Late letter", "retroactive": True,
                       "retroactive_reason": "The letter applies from its own date"}, format="json")
    assert answer.status_code in (200, 201, 202), answer.json()


def test_a_version_before_the_first_dated_one_is_refused(people):
    from fees.models.publication import earliest_problem

    document = ScheduleDocument.objects.get(code="GEGA-002888")
    first = document.versions.get(number=1)
    type(first).objects.filter(pk=first.pk).update(effective_from=datetime.date(2026, 1, 1))
    said = earliest_problem(document, datetime.date(2025, 12, 31), today=datetime.date(2026, 6, 1))
    assert said == ("GEGA-002888 cannot take effect on 2025-12-31: its record starts with version 1, in force from "
                    "2026-01-01. Give a date on or after it.")
    assert earliest_problem(document, datetime.date(2026, 1, 1), today=datetime.date(2026, 6, 1)) is None


def test_a_condition_met_before_its_approval_is_refused_at_the_service_the_api_and_the_page(api, client, people):
    condition = ApprovalCondition.objects.get(approval__key=LETTER, order=2)
    sentence = ("The day it was met, 1900-01-01, is before the approval it is a condition of "
                f"({condition.approval.reference}, 2014-02-18): a condition is met on or after its approval.")
    with pytest.raises(BadInput) as refused:
        conditions.record_condition_met(people.compliance_wa, condition=condition, establishment=people.wa_room,
                                        met_on="1900-01-01", evidence="Letter")
    assert str(refused.value) == sentence
    api.force_authenticate(people.compliance_wa)
    answer = api.post("/api/v1/approval-conditions/fulfilments/", {
        "approval": LETTER, "condition": 2, "establishment": "test-wa-room", "met_on": "1900-01-01",
        "evidence": "WSGC letter IC-2026-17"}, format="json")
    assert answer.status_code == 400 and sentence in str(answer.json())
    client.force_login(people.compliance_wa)
    page = client.post(f"/compliance/test-wa-room/approvals/conditions/{condition.pk}/met/",
                       {f"c{condition.pk}-met_on": "2014-02-17", f"c{condition.pk}-evidence": "Letter"})
    assert page.status_code == 400 and "is before the approval it is a condition of" in page.content.decode()
    assert not ConditionFulfilment.objects.exists()
    # A day after today is said in words; the day of the letter itself is taken.
    with pytest.raises(BadInput, match=r"^The day it was met, 2099-01-01, is after today"):
        conditions.record_condition_met(people.compliance_wa, condition=condition, establishment=people.wa_room,
                                        met_on="2099-01-01", evidence="Letter")
    conditions.record_condition_met(people.compliance_wa, condition=condition, establishment=people.wa_room,
                                    met_on="2014-02-18", evidence="Letter")


@pytest.mark.parametrize("field, value, sentence", [
    ("lower", "500", "a lower bound of 500.00 would be above the row's upper bound of 100.00 (as printed)"),
    ("upper", "5", "a lower bound of 10.00 would be above the row's upper bound of 5.00 (as printed)"),
])
def test_a_reading_whose_lower_bound_is_above_its_upper_is_refused(api, people, field, value, sentence):
    api.force_authenticate(people.compliance)
    answer = api.post(READINGS, {"version": 1, "option": 1, "tier": 1, "field": field, "value": value,
                                 "statement": "The row reads from this amount.", "decided_on": "2026-10-15",
                                 "citation": "Test: Bureau answer", "source": "cmv-binder"}, format="json")
    assert answer.status_code == 400 and sentence in str(answer.json()), answer.json()
    assert not Interpretation.objects.exists()
