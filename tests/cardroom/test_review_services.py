"""The services of the three two-person reviews (fees.schedules.services, signage.services) on the one mechanism
(cardroom.review): each refusal raises its one error (wrong person, the same person approving, wrong state, bad
input), and a draft with readings can be discarded."""

import datetime
from zoneinfo import ZoneInfo

import pytest

from cardroom import review
from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.models import AuditLogEntry
from fees.models import Interpretation, ScheduleDocument, ScheduleVersion, VersionStateError
from fees.schedules import services
from fees.schedules.interpretations import InterpretationConflict
from signage import services as signage_services
from signage.models import PrintOverride
from signage.services import OverrideStateError

from tests.factories import change_a_fee, make_table, post_as
from tests.publishing import publish

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
DECIDED = datetime.date(2026, 10, 15)
CITATION = "Test: Bureau answer of 2026-10-15"
READ_AS = ("taken", "before_deal", "Taken before the cards are dealt, as the provisions say.")


def raises(error, match=None):
    """``pytest.raises`` that accepts ``error`` itself, not a subclass or a parent of it."""
    class Exactly:
        def __enter__(self):
            self.raised = pytest.raises(error, match=match)
            self.info = self.raised.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.raised.__exit__(*exc)
            assert type(self.info.value) is error, f"{type(self.info.value).__name__} raised, not {error.__name__}"
            return handled
    return Exactly()


def ask(user, version, reason="New rates from the Bureau", **given):
    return services.request_publication(user, version=version, reason=reason,
                                        effective_from=given.pop("effective_from", version.effective_from), **given)


def propose(user, version, option=1, tier=1):
    field, value, statement = READ_AS
    return services.propose_interpretation(user, version=version, option=option, tier=tier, field=field, value=value,
                                           statement=statement, decided_on=DECIDED, citation=CITATION)


# -- drafts -----------------------------------------------------------------------------------------------------------


def test_discarding_a_draft_that_has_interpretations_takes_them_with_it(people, draft):
    reading = propose(people.compliance, draft)
    services.discard_draft(people.compliance, version=draft)
    assert not ScheduleVersion.objects.filter(pk=draft.pk).exists()
    assert not Interpretation.objects.filter(pk=reading.pk).exists()
    assert Interpretation.history.filter(id=reading.pk, history_type="-").exists()  # its history stays
    entry = AuditLogEntry.objects.get(action="schedule.discard_draft")
    assert entry.data["interpretations"] == [reading.pk]


def test_a_draft_is_discarded_only_by_an_editor_and_only_while_a_draft(people, draft):
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    with raises(NotAllowed):
        services.discard_draft(people.floor, version=draft)
    with raises(NotAllowed):
        services.start_draft(people.floor, based_on=draft, reason="Mine", effective_from=datetime.date(2031, 1, 1))
    published = ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=1)
    with raises(VersionStateError, match="is published and cannot be discarded"):
        services.discard_draft(people.compliance, version=published)
    ask(people.compliance, draft)
    with raises(VersionStateError, match="awaiting a second officer"):
        services.discard_draft(people.compliance, version=draft)
    services.withdraw_publication(people.compliance, version=draft, reason="One more change")
    with raises(VersionStateError, match="its review is kept|record of that review is kept"):
        services.discard_draft(people.compliance, version=draft)
    assert ScheduleVersion.objects.filter(pk=draft.pk, status="draft").exists()


# -- publication ------------------------------------------------------------------------------------------------------


def test_asking_for_publication_refuses_the_wrong_person_bad_input_and_the_wrong_state(people, draft):
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    with raises(NotAllowed):
        ask(people.floor, draft)
    with raises(NotAllowed):
        ask(people.compliance_wa, draft)  # another room's officer
    with raises(BadInput, match="not retroactive") as refused:
        ask(people.compliance, draft, retroactive=True, retroactive_reason="None, really")
    assert refused.value.field == "retroactive"
    published = ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=1)
    with raises(VersionStateError, match="is already published; this step needs it draft"):
        ask(people.compliance, published)
    ask(people.compliance, draft)
    with raises(VersionStateError, match="is awaiting a second officer; this step needs it draft"):
        ask(people.compliance, draft)
    draft.refresh_from_db()
    assert draft.status == "in_review" and draft.review_requested_by == people.compliance


def test_a_request_that_cannot_be_published_changes_nothing(people, draft):
    draft.options.all().delete()
    with raises(BadInput, match="no options cannot be published"):
        ask(people.compliance, draft, effective_from=datetime.date(2031, 1, 1))
    draft.refresh_from_db()
    assert (draft.status, draft.effective_from) == ("draft", datetime.date(2030, 1, 1))


def test_approving_needs_a_second_person_who_may_approve(people, draft):
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    ask(people.compliance, draft)
    with raises(NotAllowed):
        services.approve_publication(people.compliance, version=draft, reason="My own")
    # GEGA-002888 is the jurisdiction's shared schedule: an administrator approves it, no room's officer.
    for person in (people.compliance_2, people.floor):
        with raises(NotAllowed):
            services.approve_publication(person, version=draft, reason="Not mine to approve")
    with raises(BadInput, match="reason"):
        services.approve_publication(people.admin, version=draft, reason="  ")
    services.approve_publication(people.admin, version=draft, reason="Checked against the letter")
    draft.refresh_from_db()
    assert draft.is_published and draft.published_by == people.admin
    assert list(draft.reviews.values_list("step", "by__username")) == [
        ("requested", "t-compliance"), ("approved", "t-admin")]
    with raises(VersionStateError, match="already published"):
        services.approve_publication(people.admin, version=draft, reason="Again")


def test_whoever_changed_the_draft_may_refuse_but_not_approve_it(people, draft):
    tier = draft.options.get(number=1).tiers.first()
    tier._history_user, tier.note = people.admin, "changed by the administrator"
    tier.save()
    ask(people.compliance, draft)
    with raises(NotAllowed, match="Approving GEGA-002888 v2 needs a second person"):
        services.approve_publication(people.admin, version=draft, reason="I changed it")
    services.refuse_publication(people.admin, version=draft, reason="Option 1 needs the letter attached")
    draft.refresh_from_db()
    assert draft.status == "draft"
    with raises(VersionStateError, match="is draft; this step needs it awaiting a second officer"):
        services.refuse_publication(people.admin, version=draft, reason="Again")
    with raises(VersionStateError, match="is draft; this step needs it awaiting a second officer"):
        services.withdraw_publication(people.compliance, version=draft, reason="Nothing to withdraw")


def test_the_asker_cannot_refuse_their_own_request(people, draft):
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    ask(people.admin, draft)
    with raises(NotAllowed, match="Refusing GEGA-002888 v2 needs a second person"):
        services.refuse_publication(people.admin, version=draft, reason="Changed my mind")
    with raises(NotAllowed):
        services.withdraw_publication(people.floor, version=draft, reason="Not mine")


# -- interpretations --------------------------------------------------------------------------------------------------


@pytest.fixture
def gega():
    return ScheduleVersion.objects.select_related("document").get(document__code="GEGA-002888", number=1)


def test_proposing_refuses_the_wrong_person_bad_input_and_a_second_live_reading(people, gega):
    with raises(NotAllowed):
        propose(people.floor, gega)
    with raises(BadInput, match="has no option 999") as refused:
        propose(people.compliance, gega, option=999)
    assert refused.value.field == "option" and isinstance(refused.value, BadInput)
    propose(people.compliance, gega)
    with raises(InterpretationConflict, match="already has a reading proposed"):
        propose(people.compliance_2, gega)


def test_answering_a_reading_needs_a_second_person_a_reason_and_a_proposal(people, gega):
    own = propose(people.admin, gega, tier=2)
    with raises(NotAllowed, match=f"Approving Interpretation #{own.pk} needs a second person"):
        services.approve_interpretation(people.admin, reading=own, reason="My own reading")
    with raises(NotAllowed, match=f"Refusing Interpretation #{own.pk} needs a second person"):
        services.refuse_interpretation(people.admin, reading=own, reason="My own reading")
    reading = propose(people.compliance, gega)
    with raises(NotAllowed, match="administrator"):  # a jurisdiction's shared schedule: an administrator answers
        services.approve_interpretation(people.compliance_2, reading=reading, reason="Agreed")
    with raises(BadInput, match="reason must say why"):
        services.refuse_interpretation(people.admin, reading=reading, reason="no")
    services.refuse_interpretation(people.admin, reading=reading, reason="The letter says otherwise.")
    with raises(InterpretationConflict,
                match=f"Interpretation #{reading.pk} is already refused; this step needs it proposed"):
        services.approve_interpretation(people.admin, reading=reading, reason="Agreed after all")
    with raises(InterpretationConflict, match="needs it proposed or approved"):
        services.withdraw_interpretation(people.compliance, reading=reading, reason="Too late")


def test_an_approved_reading_is_withdrawn_once(people, gega):
    reading = services.approve_interpretation(people.admin, reading=propose(people.compliance, gega), reason="Agreed.")
    with raises(NotAllowed):
        services.withdraw_interpretation(people.floor, reading=reading, reason="Not mine")
    services.withdraw_interpretation(people.compliance, reading=reading, reason="The Bureau withdrew its answer.")
    reading.refresh_from_db()
    assert (reading.status, reading.reviewed_by) == ("withdrawn", people.compliance)
    with raises(InterpretationConflict, match="is already withdrawn"):
        services.withdraw_interpretation(people.compliance, reading=reading, reason="Again")


# -- print overrides --------------------------------------------------------------------------------------------------


MARCH_1 = datetime.datetime(2027, 3, 1, 8, 0, tzinfo=LA)


@pytest.fixture
def broken(people, clock):
    """A posting whose maximum ($20,000) is an error finding: it prints only under an override."""
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    table = make_table(people.marysville, label="7")
    posting = post_as(people.floor, {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5",
                                     "max_wager": "20000", "effective_from": MARCH_1.isoformat()})[0]
    clock(MARCH_1 + datetime.timedelta(hours=1))
    return posting


WHY = "The Bureau is reviewing the option; print meanwhile."


def test_asking_for_an_override_refuses_the_wrong_person_bad_input_and_asking_twice(people, broken):
    with raises(NotAllowed):
        signage_services.request_override(people.floor, posting=broken, reason=WHY)
    with raises(NotAllowed):
        signage_services.request_override(people.compliance_wa, posting=broken, reason=WHY)
    with raises(BadInput, match=r"reason must say why the sign may be printed .*10 characters"):
        signage_services.request_override(people.compliance, posting=broken, reason="Print it")
    signage_services.request_override(people.compliance, posting=broken, reason=WHY)
    with raises(OverrideStateError, match="already awaits a second compliance officer"):
        signage_services.request_override(people.compliance_2, posting=broken, reason=WHY)


def test_answering_an_override_needs_a_second_person_and_a_request(people, broken):
    with raises(OverrideStateError, match="awaits a second officer: one must be asked for first"):
        signage_services.approve_override(people.compliance_2, posting=broken, reason="Nothing was asked for")
    signage_services.request_override(people.compliance, posting=broken, reason=WHY)
    with raises(NotAllowed, match="Approving the print override of table 7's posting .* needs a second person"):
        signage_services.approve_override(people.compliance, posting=broken, reason="Approving my own request.")
    with raises(NotAllowed, match="Refusing the print override"):
        signage_services.refuse_override(people.compliance, posting=broken, reason="Refusing my own request.")
    with raises(NotAllowed):
        signage_services.approve_override(people.floor, posting=broken, reason="Not mine to approve.")
    approved = signage_services.approve_override(people.compliance_2, posting=broken,
                                                 reason="The Bureau's letter covers it.")
    assert (approved.status, approved.decided_by) == ("approved", people.compliance_2)
    with raises(OverrideStateError, match="already has an approved override"):
        signage_services.request_override(people.compliance, posting=broken, reason=WHY)


def test_an_override_asked_for_may_be_withdrawn_and_asked_again(people, broken):
    signage_services.request_override(people.compliance, posting=broken, reason=WHY)
    with raises(NotAllowed):
        signage_services.withdraw_override(people.floor, posting=broken, reason="Not mine to withdraw.")
    withdrawn = signage_services.withdraw_override(people.compliance, posting=broken,
                                                   reason="The Bureau answered: no need.")
    assert (withdrawn.status, withdrawn.decided_by) == (PrintOverride.Status.WITHDRAWN, people.compliance)
    assert AuditLogEntry.objects.filter(action="signage.print_override_withdrawn").exists()
    with raises(OverrideStateError, match="No override of posting"):
        signage_services.withdraw_override(people.compliance, posting=broken, reason="Nothing awaits now.")
    signage_services.request_override(people.compliance_2, posting=broken, reason=WHY)


def test_every_refusal_is_one_of_the_three_errors():
    for error in (review.ReviewConflict, OverrideStateError, InterpretationConflict, VersionStateError):
        assert issubclass(error, StateConflict)


def test_publish_for_the_test_goes_through_the_services(people, draft):
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    assert publish(draft, requested_by=people.compliance, approved_by=people.admin).is_published


# -- the admin's tier rows keep the grid's rule -------------------------------------------------------------------


def test_the_admin_refuses_overlapping_tiers_as_the_grid_does(client, people, draft):
    from django.urls import reverse

    from fees.models import FeeTier

    client.force_login(people.admin)
    option = draft.options.get(number=1)
    tiers = list(option.tiers.order_by("order"))
    banded = [t for t in tiers if t.upper is not None]
    assert len(banded) >= 2, "option 1 prints bands"
    form = {"change_reason": "Overlap the first two bands", "tiers-TOTAL_FORMS": len(tiers),
            "tiers-INITIAL_FORMS": len(tiers), "tiers-MIN_NUM_FORMS": 0, "tiers-MAX_NUM_FORMS": 1000,
            **{name: getattr(option, name) if getattr(option, name) is not None else ""
               for name in ("number", "label", "basis", "citation", "notes", "min_wager_from", "min_wager_to",
                            "max_wager_from", "max_wager_to", "betting_structure")}}
    for i, tier in enumerate(tiers):
        upper = tier.upper
        if tier.pk == banded[0].pk:
            upper = banded[1].upper  # the first band now reaches over the second
        form.update({f"tiers-{i}-{key}": "" if value is None else value for key, value in {
            "id": tier.pk, "option": option.pk, "order": tier.order, "fee_kind": tier.fee_kind, "payer": tier.payer,
            "measure": tier.measure, "lower": tier.lower, "upper": upper, "fee": tier.fee, "taken": tier.taken,
            "printed_bounds": tier.printed_bounds, "printed_fee": tier.printed_fee, "note": tier.note}.items()})
    response = client.post(reverse("admin:fees_feeoption_change", args=[option.pk]), form)
    assert response.status_code == 200  # the form again, with the refusal
    assert "overlap" in response.content.decode()
    assert FeeTier.objects.get(pk=banded[0].pk).upper == banded[0].upper


def test_the_asker_withdraws_an_override_from_its_page(client, people, broken):
    from django.urls import reverse

    address = reverse("console:compliance-override", args=["casino-marysville", broken.pk])
    signage_services.request_override(people.compliance, posting=broken, reason=WHY)
    client.force_login(people.compliance)
    assert 'value="withdraw"' in client.get(address).content.decode()
    done = client.post(address, {"step": "withdraw", "reason": "The Bureau answered: no need."})
    assert done.status_code == 302
    assert PrintOverride.objects.get(posting=broken).status == PrintOverride.Status.WITHDRAWN
    again = client.post(address, {"step": "withdraw", "reason": "Nothing awaits now, surely."})
    assert again.status_code == 409 and "No override of posting" in again.content.decode()
