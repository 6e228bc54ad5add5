"""Change control: two people publish, and the record answers both timelines (issue 13).

"Which fee applied on a day" (``as_of``) and "what did the record say at a moment about that day" (``as_of`` with
``known_at``) differ exactly where a retroactive version was published after the moment asked about.
"""

import datetime
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from cardroom.exceptions import NotAllowed
from cardroom.models import AuditLogEntry
from fees.models import FeeTier, ImmutableVersionError, ScheduleDocument, VersionReview, VersionStateError
from fees.schedules import services
from tests.publishing import publish

pytestmark = pytest.mark.django_db

GEGA = "GEGA-002888"
WAGERS = {"wagers": [{"player": "p1", "base": "5"}]}


@pytest.fixture
def gega():
    return ScheduleDocument.objects.get(code=GEGA)


def raise_option_1(draft, user, fee="9.00"):
    """Every tier of option 1 costs ``fee``: a change any quote of option 1 shows."""
    for tier in FeeTier.objects.filter(option__version=draft, option__number=1):
        tier.fee, tier.printed_fee = Decimal(fee), f"${fee}"
        tier._change_reason = "Bureau letter"
        tier._history_user = user
        tier.save()


@pytest.fixture
def retroactive_change(gega, people, clock):
    """v2 of GEGA-002888, published 30 days after the seed, in force from 10 days before its publication."""
    v1 = gega.versions.get(number=1)
    published_at = v1.published_at + datetime.timedelta(days=30)
    clock(published_at)
    effective = timezone.localdate() - datetime.timedelta(days=10)
    draft = gega.new_draft(based_on=v1, user=people.compliance, reason="Late letter", effective_from=effective)
    raise_option_1(draft, people.compliance)
    publish(draft, requested_by=people.compliance, approved_by=people.admin, reason="The Bureau's late letter",
            retroactive=True, retroactive_reason="The letter applies from its own date")
    before = published_at - datetime.timedelta(days=1)
    # "known at a day" means the end of that day in the service's time zone: the local day of ``before``.
    return {"v1": v1, "v2": draft, "effective": effective, "before": before,
            "before_day": timezone.localtime(before).date().isoformat()}


def test_as_of_and_known_at_differ_where_a_retroactive_change_happened(gega, retroactive_change):
    day, before = retroactive_change["effective"], retroactive_change["before"]
    assert gega.version_as_of(day) == retroactive_change["v2"]
    assert gega.version_as_of(day, known_at=before) == retroactive_change["v1"]
    assert gega.version_as_of(day, known_at=timezone.now()) == retroactive_change["v2"]
    # The day before it takes effect, both timelines agree.
    assert gega.version_as_of(day - datetime.timedelta(days=1), known_at=before) == retroactive_change["v1"]
    assert gega.version_as_of(day - datetime.timedelta(days=1)) == retroactive_change["v1"]


def test_the_api_answers_both_timelines(api, people, retroactive_change):
    api.force_authenticate(people.compliance)
    day, before = retroactive_change["effective"].isoformat(), retroactive_change["before"].isoformat()
    now = api.post("/api/v1/fees/quote", {"schedule": GEGA, "option": 1, "as_of": day, **WAGERS}, format="json")
    then = api.post("/api/v1/fees/quote", {"schedule": GEGA, "option": 1, "as_of": day, "known_at": before,
                                           **WAGERS}, format="json")
    assert now.status_code == then.status_code == 200, (now.json(), then.json())
    assert (now.json()["version"], then.json()["version"]) == (2, 1)
    assert now.json()["total"] != then.json()["total"] and then.json()["known_at"] == before
    before_day = retroactive_change["before_day"]
    document = api.get(f"/api/v1/schedules/{GEGA}/", {"as_of": day, "known_at": before_day}).json()
    assert document["version"]["number"] == 1 and document["known_at"].startswith(before_day)
    current = api.get(f"/api/v1/schedules/{GEGA}/", {"as_of": day}).json()["version"]
    assert current["number"] == 2 and current["retroactive"] is True
    assert current["publication_reason"] == "The Bureau's late letter" and current["reason"] == "Late letter"
    bad = api.get(f"/api/v1/schedules/{GEGA}/", {"known_at": "last week"})
    assert bad.status_code == 400 and "known_at" in bad.json()["error"]["message"]


def test_the_schedule_page_answers_both_timelines(client, people, retroactive_change):
    client.force_login(people.compliance)
    address = reverse("console:compliance-schedule", args=["casino-marysville", GEGA])
    day, before = retroactive_change["effective"].isoformat(), retroactive_change["before_day"]
    page = client.get(address, {"as_of": day, "known_at": before})
    looked_up = page.context["looked_up"]
    assert (looked_up["now"].number, looked_up["then"].number) == (2, 1)
    assert "The answer has changed since." in page.content.decode()
    assert client.get(address, {"as_of": "yesterday"}).status_code == 400


def test_one_officer_cannot_publish_alone(gega, people):
    draft = gega.new_draft(based_on=gega.versions.get(number=1), user=people.compliance, reason="r",
                           effective_from=datetime.date(2027, 1, 1))
    raise_option_1(draft, people.compliance)
    services.request_publication(people.compliance, version=draft, reason="Asked", effective_from=draft.effective_from)
    with pytest.raises(NotAllowed):
        services.approve_publication(people.compliance, version=draft, reason="Myself")
    with pytest.raises(NotAllowed):
        services.refuse_publication(people.compliance, version=draft, reason="Myself")
    draft.refresh_from_db()
    assert draft.status == "in_review" and not draft.is_published


def test_whoever_changed_the_draft_cannot_approve_it(people):
    document = ScheduleDocument.objects.get(code="CMV-POKER-HOLDEM")  # Casino Marysville's own: its officers approve
    current = document.published_versions().order_by("-number").first()
    draft = document.new_draft(based_on=current, user=people.compliance, reason="r",
                               effective_from=datetime.date(2027, 1, 1))
    raise_option_1(draft, people.compliance_2)  # the second officer edited a tier
    services.request_publication(people.compliance, version=draft, reason="Asked", effective_from=draft.effective_from)
    with pytest.raises(NotAllowed):
        services.approve_publication(people.compliance_2, version=draft, reason="I changed it")
    services.refuse_publication(people.compliance_2, version=draft, reason="Option 1 needs the letter attached")
    assert draft.status == "draft"
    services.request_publication(people.compliance_2, version=draft, reason="Letter attached",
                                 effective_from=draft.effective_from)
    with pytest.raises(NotAllowed):
        services.approve_publication(people.compliance, version=draft, reason="I started it")


def test_a_draft_awaiting_approval_is_frozen_until_withdrawn(gega, people):
    draft = gega.new_draft(based_on=gega.versions.get(number=1), user=people.compliance, reason="r",
                           effective_from=datetime.date(2027, 1, 1))
    raise_option_1(draft, people.compliance)
    services.request_publication(people.compliance, version=draft, reason="Asked",
                                 effective_from=datetime.date(2027, 1, 1))
    tier = FeeTier.objects.filter(option__version=draft).first()
    tier.fee = Decimal("7")
    with pytest.raises(ImmutableVersionError, match="second officer"):
        tier.save()
    with pytest.raises(ImmutableVersionError):
        draft.delete()
    with pytest.raises(VersionStateError):
        services.request_publication(people.compliance, version=draft, reason="twice",
                                     effective_from=draft.effective_from)
    services.withdraw_publication(people.compliance, version=draft, reason="One more change")
    tier.save()  # a draft again
    steps = list(VersionReview.objects.filter(version=draft).values_list("step", "by_label", "reason"))
    assert steps == [("requested", "t-compliance", "Asked"), ("withdrawn", "t-compliance", "One more change")]
    assert AuditLogEntry.objects.filter(action="schedule.withdrawn", object_id=str(draft.pk)).exists()


def test_both_reasons_and_both_people_are_kept(gega, people):
    draft = gega.new_draft(based_on=gega.versions.get(number=1), user=people.compliance, reason="Draft: the 2027 rates",
                           effective_from=datetime.date(2027, 1, 1))
    raise_option_1(draft, people.compliance)
    publish(draft, requested_by=people.compliance, approved_by=people.admin, reason="Publication: letter received")
    assert draft.reason == "Draft: the 2027 rates" and draft.publication_reason == "Publication: letter received"
    assert draft.review_requested_by == people.compliance and draft.published_by == people.admin
    logged = AuditLogEntry.objects.get(action="schedule.publish", object_id=str(draft.pk))
    assert logged.data["draft_reason"] == "Draft: the 2027 rates"
    assert logged.data["publication_reason"] == "Publication: letter received"


def test_the_export_lists_every_changed_tier_as_the_diff_api_does(api, people, retroactive_change):
    """The audit export's schedule_changes and the diff API give one answer (fees.engine.diff), and both timelines
    show in schedule_versions: the period's end as the record stands now, and as it stood then."""
    from exports.collect import ExportScope, change_rows, version_rows

    v2 = retroactive_change["v2"]
    day = timezone.localdate()
    scope = ExportScope(establishments=[people.marysville], start=retroactive_change["effective"], end=day)
    rows = [row for row in change_rows(scope) if row[0] == GEGA]
    api.force_authenticate(people.compliance)
    answer = api.get(f"/api/v1/schedules/{GEGA}/diff", {"from": 1, "to": 2}).json()
    from_api = {(o["number"], t["new"]["order"], f"tier.{name}") for o in answer["options"] for t in o["tiers"]
                for name in t["fields"]}
    exported = {(row[7], row[8], row[9]) for row in rows}
    assert exported == from_api and {("fee" in f) for _, _, f in exported} == {True}
    assert answer["summary"]["tiers_changed"] == len({(o, t) for o, t, _ in exported}) > 0
    assert {row[1] for row in rows} == {v2.number}

    # The export of the days before its publication, made then, would have shown v1 in force at the end; now
    # it shows v2 there, and says v1 was what the record showed when that period ended.
    before = ExportScope(establishments=[people.marysville], start=retroactive_change["effective"],
                         end=datetime.date.fromisoformat(retroactive_change["before_day"]) - datetime.timedelta(days=1))
    versions = {row[4]: row for row in version_rows(before) if row[0] == GEGA}
    assert versions[2][6] is True and versions[2][11] is False and versions[2][12] is True  # in force now; retroactive
    assert versions[1][6] is False and versions[1][11] is True  # ... but v1 as the record stood then
