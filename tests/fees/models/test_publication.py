"""One answer to "may this draft be published?" (issue 44): the publish form (the page), the services (asking for
publication: the API, the admin; publishing without review: the seed loader) and the model's publish step say the
same for the same drafts, and a draft that changes nothing is refused at every door."""

import datetime
import itertools
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from cardroom.exceptions import BadInput, StateConflict
from fees.forms import PublishForm
from fees.models import FeeOption, FeeTier, ScheduleVersion
from fees.schedules import services
from tests.factories import GEGA, change_a_fee, make_draft

pytestmark = pytest.mark.django_db

REASON = "Bureau letter of the 3rd"


@dataclass(frozen=True)
class Draft:
    """A draft of GEGA-002888 from v1: its effective date (days from today), whether it changes a fee or has no
    options, what the request confirms; and the fields the answer names (none: it may be published)."""
    days: int
    changed: bool = True
    retroactive: bool = False
    retroactive_reason: str = ""
    no_options: bool = False
    refused_for: tuple = ()


FAR_BACK = -(settings.RETROACTIVE_MAX_DAYS + 5)
DRAFTS = {
    "a change, dated later": Draft(30),
    "a change, dated today": Draft(0),
    "a change reaching back, confirmed with its reason": Draft(-10, retroactive=True, retroactive_reason="Late letter"),
    "nothing changed": Draft(30, changed=False, refused_for=("__all__",)),
    "reaching back, not confirmed": Draft(-10, refused_for=("retroactive",)),
    "reaching back, confirmed without a reason": Draft(-10, retroactive=True, refused_for=("retroactive_reason",)),
    "confirmed as retroactive, dated later": Draft(30, retroactive=True, retroactive_reason="x",
                                                  refused_for=("retroactive",)),
    "confirmed as retroactive, dated today": Draft(0, retroactive=True, retroactive_reason="x",
                                                  refused_for=("retroactive",)),
    "reaching back too far": Draft(FAR_BACK, retroactive=True, retroactive_reason="x",
                                   refused_for=("effective_from",)),
    "nothing changed, reaching back, not confirmed": Draft(-10, changed=False,
                                                           refused_for=("retroactive", "__all__")),
    "no options": Draft(30, no_options=True, refused_for=("__all__",)),
}


def make(people, case):
    draft = make_draft(user=people.compliance, effective_from=timezone.localdate() + datetime.timedelta(case.days))
    if case.changed and not case.no_options:
        change_a_fee(draft)
    if case.no_options:
        FeeTier.objects.filter(option__version=draft).delete()
        FeeOption.objects.filter(version=draft).delete()
    return draft


def attempt(step, pk):
    """What ``step`` says of the draft (read afresh), its error or None, leaving nothing behind."""
    try:
        with transaction.atomic():
            step(ScheduleVersion.objects.get(pk=pk))
            transaction.set_rollback(True)
    except (BadInput, StateConflict) as error:
        return error
    return None


def reads_as(message, sentences):
    """Whether ``message`` says ``sentences``, one after another, in some order."""
    return any(message == " ".join(order) for order in itertools.permutations(sentences))


@pytest.mark.parametrize("name", DRAFTS)
def test_the_form_the_services_and_the_model_give_one_answer(people, name):
    case = DRAFTS[name]
    draft = make(people, case)
    today, confirmed = timezone.localdate(), {"retroactive": case.retroactive,
                                              "retroactive_reason": case.retroactive_reason}
    form = PublishForm({"effective_from": draft.effective_from.isoformat(), "reason": REASON,
                        "retroactive": "on" if case.retroactive else "",
                        "retroactive_reason": case.retroactive_reason}, version=draft, today=today)
    form.is_valid()
    assert sorted(form.errors) == sorted(case.refused_for), form.errors.as_data()
    sentences = [message for messages in form.errors.values() for message in messages]

    def model(version):
        version.publication_reason = REASON
        version.retroactive, version.retroactive_reason = case.retroactive, case.retroactive_reason
        version.mark_published(user=None, reason=REASON)

    doors = {
        "asking (fees.schedules.services.request_publication)": lambda version: services.request_publication(
            people.compliance, version=version, reason=REASON, effective_from=version.effective_from, **confirmed),
        "publishing without review (fees.schedules.services.publish_without_review)":
            lambda version: services.publish_without_review(version, reason=REASON, actor_label="test", **confirmed),
        "the model (ScheduleVersion.mark_published)": model,
    }
    for door, step in doors.items():
        error = attempt(step, draft.pk)
        if not sentences:
            assert error is None, f"{door} refuses what the form accepts: {error}"
        else:
            assert error is not None, f"{door} accepts what the form refuses: {sentences}"
            assert reads_as(str(error), sentences), f"{door} says {error!s}; the form {sentences}"
    assert ScheduleVersion.objects.get(pk=draft.pk).status == "draft"


def test_asking_names_the_field_at_fault(people):
    """The service's refusal names the form's field, so the API's ``details`` and the page say it beside it."""
    draft = make(people, DRAFTS["reaching back, not confirmed"])
    with pytest.raises(BadInput) as refused:
        services.request_publication(people.compliance, version=draft, reason=REASON,
                                     effective_from=draft.effective_from)
    assert refused.value.field == "retroactive" and "a retroactive change" in str(refused.value)


def test_a_draft_that_changes_nothing_is_refused_by_the_api_and_the_admin(people, api, client):
    """Issue 42's refusal was the publish page's alone: the API and the admin's publish action sent it on."""
    draft = make(people, DRAFTS["nothing changed"])
    api.force_authenticate(people.compliance)
    refused = api.post(f"/api/v1/schedules/{GEGA}/versions/{draft.number}/publication-request/", {"reason": REASON},
                       format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("Nothing changed from version 1: ")
    client.force_login(people.admin)
    page = client.post(reverse("admin:fees_scheduleversion_publish", args=[draft.pk]), {"reason": REASON}, follow=True)
    assert "Nothing changed from version 1: " in page.content.decode()
    draft.refresh_from_db()
    assert draft.status == "draft"
    change_a_fee(draft)
    asked = api.post(f"/api/v1/schedules/{GEGA}/versions/{draft.number}/publication-request/", {"reason": REASON},
                     format="json")
    assert asked.status_code == 200 and asked.json()["status"] == "in_review", asked.json()
