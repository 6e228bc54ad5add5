"""Published schedule data is immutable; changes are new versions with a date and a reason."""

import datetime
from decimal import Decimal

import pytest

from cardroom.models import AuditLogEntry
from cardroom.models.audit import AppendOnlyError
from cardroom.seed import SEED_ACTOR
from fees.models import FeeOption, FeeTier, ImmutableVersionError, ScheduleDocument, VersionStateError
from fees.schedules.services import publish_without_review
from tests.factories import change_a_fee

pytestmark = pytest.mark.django_db


@pytest.fixture
def gega():
    return ScheduleDocument.objects.get(code="GEGA-002888")


@pytest.fixture
def published(gega):
    return gega.versions.get(number=1)


def test_seeded_version_is_published_with_reason_and_audit(published):
    assert published.is_published
    assert published.reason
    entry = AuditLogEntry.objects.get(action="schedule.publish", object_id=str(published.pk))
    assert entry.actor_label == SEED_ACTOR
    assert entry.data["code"] == "GEGA-002888"


def test_published_version_refuses_changes(published):
    published.reason = "sneaky edit"
    with pytest.raises(ImmutableVersionError):
        published.save()
    with pytest.raises(ImmutableVersionError):
        published.delete()


def test_published_options_and_tiers_refuse_changes(published):
    option = published.options.get(number=1)
    option.notes = "edited"
    with pytest.raises(ImmutableVersionError):
        option.save()
    tier = option.tiers.first()
    tier.fee = Decimal("99")
    with pytest.raises(ImmutableVersionError):
        tier.save()
    with pytest.raises(ImmutableVersionError):
        tier.delete()
    with pytest.raises(ImmutableVersionError):
        FeeTier.objects.filter(option=option).update(fee=Decimal("0"))
    with pytest.raises(ImmutableVersionError):
        FeeOption.objects.filter(version=published).delete()
    assert option.tiers.filter(fee=Decimal("99")).count() == 0


def test_publishing_twice_is_refused(published):
    with pytest.raises(VersionStateError, match="already published"):
        publish_without_review(published, reason="again", actor_label="test")


def test_new_draft_copies_everything_and_is_editable(gega, published):
    draft = gega.new_draft(based_on=published, reason="Raise option 1", effective_from=datetime.date(2027, 1, 1))
    assert draft.number == 2 and not draft.is_published
    assert draft.options.count() == published.options.count() == 49
    assert FeeTier.objects.filter(option__version=draft).count() == FeeTier.objects.filter(
        option__version=published
    ).count()
    tier = draft.options.get(number=1).tiers.get(order=1)
    tier.fee = Decimal("1.50")
    tier._change_reason = "Bureau letter of 2026-12-01"
    tier.save()
    # The published version is untouched by the draft's edit.
    assert published.options.get(number=1).tiers.get(order=1).fee == Decimal("1")
    record = FeeTier.history.filter(id=tier.pk).latest("history_date")
    assert record.history_change_reason == "Bureau letter of 2026-12-01"


def test_publish_needs_reason_and_effective_date(gega, published):
    draft = gega.new_draft(based_on=published, reason="")
    with pytest.raises(VersionStateError) as raised:
        publish_without_review(draft, reason="", actor_label="test")
    assert "reason is required" in str(raised.value)
    assert "effective-from date is required" in str(raised.value)
    draft.effective_from = datetime.date(2027, 1, 1)
    draft.save()
    change_a_fee(draft)
    publish_without_review(draft, reason="New rates approved", actor_label="test")
    assert draft.is_published and draft.published_at is not None


def test_as_of_resolves_the_version_in_force(gega, published):
    draft = gega.new_draft(based_on=published, reason="2027 rates", effective_from=datetime.date(2027, 1, 1))
    assert gega.version_as_of(datetime.date(2027, 1, 1)) == published  # a draft is never in force
    change_a_fee(draft)
    publish_without_review(draft, reason="2027 rates", actor_label="test")
    assert gega.version_as_of(datetime.date(2026, 12, 31)) == published
    assert gega.version_as_of(datetime.date(2027, 1, 1)) == draft
    assert gega.version_as_of(datetime.date(2030, 6, 1)) == draft
    # The first version states no effective date: it is in force for any earlier day.
    assert gega.version_as_of(datetime.date(1990, 1, 1)) == published


def test_audit_log_is_append_only():
    entry = AuditLogEntry.objects.first()
    entry.action = "tampered"
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        AuditLogEntry.objects.all().update(action="x")
    with pytest.raises(AppendOnlyError):
        AuditLogEntry.objects.all().delete()
