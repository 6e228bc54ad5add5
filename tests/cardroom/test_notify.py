"""Told, not only shown (cardroom.notify): a review step emails those it concerns once it commits."""

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction
from django.urls import reverse

from cardroom.exceptions import NotAllowed
from cardroom.models import Game, Table
from compliance.tasks import send_daily_digest
from fees.models import ScheduleDocument
from fees.schedules import services
from tests.factories import change_a_fee
from signage import postings
from signage import services as signage_services

LA = ZoneInfo("America/Los_Angeles")
PAI_GOW = "CMV-CA-FEES-PAI-GOW"


@pytest.fixture
def mailed(people):
    for user in (people.admin, people.compliance, people.compliance_2, people.compliance_wa, people.floor):
        user.email = f"{user.username}@example.test"
        user.save(update_fields=["email"])
    return people


def draft_of(code, people):
    document = ScheduleDocument.objects.get(code=code)
    draft = document.new_draft(based_on=document.versions.order_by("number").last(), user=people.compliance,
                               reason="Bureau letter", effective_from=datetime.date(2030, 1, 1))
    change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
    return draft


def ask(user, draft, reason):
    return services.request_publication(user, version=draft, reason=reason, effective_from=draft.effective_from)


def test_a_request_emails_the_second_officer_naming_what_with_a_link(mailed, mailoutbox,
                                                                    django_capture_on_commit_callbacks):
    draft = draft_of(PAI_GOW, mailed)
    with django_capture_on_commit_callbacks(execute=True):
        ask(mailed.compliance, draft, "New rates from January")
    assert [m.to for m in mailoutbox] == [["t-compliance-2@example.test"]]  # not the author, not another room
    mail = mailoutbox[0]
    assert f"{PAI_GOW} v{draft.number}" in mail.subject
    assert "New rates from January" in mail.body
    assert "http://127.0.0.1:8000" + reverse("console:compliance-publish", args=["casino-marysville", PAI_GOW,
                                                                                draft.number]) in mail.body


def test_approving_emails_the_author_once(mailed, mailoutbox, django_capture_on_commit_callbacks):
    draft = draft_of(PAI_GOW, mailed)
    ask(mailed.compliance, draft, "New rates from January")  # not committed: no mail
    with django_capture_on_commit_callbacks(execute=True):
        services.approve_publication(mailed.compliance_2, version=draft, reason="Checked against the letter")
    assert [m.to for m in mailoutbox] == [["t-compliance@example.test"]]
    assert mailoutbox[0].subject.startswith("Approved:") and "Checked against the letter" in mailoutbox[0].body


def test_a_refusal_says_who_refused_and_what_follows_in_one_sentence(mailed, mailoutbox,
                                                                     django_capture_on_commit_callbacks):
    """Issue 42: not "was refused: it is a draft again by t-compliance-2"."""
    draft = draft_of(PAI_GOW, mailed)
    ask(mailed.compliance, draft, "New rates from January")
    with django_capture_on_commit_callbacks(execute=True):
        services.refuse_publication(mailed.compliance_2, version=draft, reason="Not what the letter says")
    assert mailoutbox[0].subject.startswith("Refused:")
    assert ") was refused by t-compliance-2; it is a draft again.\n" in mailoutbox[0].body


def test_a_step_rolled_back_or_refused_sends_nothing(mailed, mailoutbox, django_capture_on_commit_callbacks):
    draft = draft_of(PAI_GOW, mailed)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            ask(mailed.compliance, draft, "New rates from January")
            raise RuntimeError("the surrounding work failed")
    assert callbacks == [] and mailoutbox == []
    draft.refresh_from_db()
    ask(mailed.compliance, draft, "New rates from January")
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(NotAllowed):
        services.approve_publication(mailed.compliance, version=draft, reason="I approve my own")  # the author: refused
    assert mailoutbox == []


def test_a_shared_schedule_asks_the_administrators_and_those_without_an_address_are_skipped(
        mailed, mailoutbox, django_capture_on_commit_callbacks):
    draft = draft_of("GEGA-002888", mailed)
    with django_capture_on_commit_callbacks(execute=True):
        ask(mailed.compliance, draft, "The Bureau's new table")
    assert [m.to for m in mailoutbox] == [["t-admin@example.test"]]
    mailed.admin.email = ""
    mailed.admin.save(update_fields=["email"])
    with django_capture_on_commit_callbacks(execute=True):
        services.withdraw_publication(mailed.compliance, version=draft, reason="Wrong date")
        draft.refresh_from_db()
        ask(mailed.compliance, draft, "The Bureau's new table")
    assert len(mailoutbox) == 1


def test_refusing_an_interpretation_emails_who_proposed_it(mailed, mailoutbox, django_capture_on_commit_callbacks):
    version = ScheduleDocument.objects.get(code=PAI_GOW).versions.get(number=1)
    with django_capture_on_commit_callbacks(execute=True):
        reading = services.propose_interpretation(mailed.compliance, version=version, option=1, tier=1, field="measure",
                                                  value="player_wager", statement="Each player's total base wager.",
                                                  decided_on=datetime.date(2026, 1, 5), citation="Bureau answer")
    assert [m.to for m in mailoutbox] == [["t-compliance-2@example.test"]]
    with django_capture_on_commit_callbacks(execute=True):
        services.refuse_interpretation(mailed.compliance_2, reading=reading, reason="The letter says otherwise.")
    assert mailoutbox[1].to == ["t-compliance@example.test"] and mailoutbox[1].subject.startswith("Refused:")


def test_a_print_override_asked_for_emails_the_rooms_other_officer(mailed, mailoutbox, time_machine,
                                                                   django_capture_on_commit_callbacks):
    time_machine.move_to(datetime.datetime(2026, 2, 27, 8, tzinfo=LA), tick=False)
    table = Table.objects.create(establishment=mailed.marysville, label="T-10", seats=6,
                                 game=Game.objects.get(slug="no-bust-21st-century-blackjack"))
    posting, _ = postings.post_table(None, fields={
        "table": table, "game": table.game, "schedule": ScheduleDocument.objects.get(code="CMV-CA-TABLE-ACTION"),
        "option_number": 1, "min_wager": 5, "max_wager": 500, "seats": 6,
        "effective_from": datetime.datetime(2026, 3, 1, 8, tzinfo=LA)}, actor_label="test")
    with django_capture_on_commit_callbacks(execute=True):
        signage_services.request_override(mailed.compliance, posting=posting,
                                          reason="The Bureau is reviewing the option")
    assert [m.to for m in mailoutbox] == [["t-compliance-2@example.test"]]
    assert "T-10" in mailoutbox[0].subject and f"/postings/{posting.pk}/override/" in mailoutbox[0].body


def test_the_daily_digest_tells_each_officer_of_the_room_its_new_errors_and_expiring_approvals(
        mailed, mailoutbox, time_machine):
    from cardroom.models import Approval

    time_machine.move_to(datetime.datetime(2026, 2, 27, 8, tzinfo=LA), tick=False)
    table = Table.objects.create(establishment=mailed.marysville, label="T-10", seats=6,
                                 game=Game.objects.get(slug="no-bust-21st-century-blackjack"))
    postings.post_table(None, fields={
        "table": table, "game": table.game, "schedule": ScheduleDocument.objects.get(code="CMV-CA-TABLE-ACTION"),
        "option_number": 1, "min_wager": 5, "max_wager": 500, "seats": 6,
        "effective_from": datetime.datetime(2026, 3, 1, 8, tzinfo=LA)}, actor_label="test")
    approval = Approval.objects.filter(jurisdiction=mailed.marysville.jurisdiction).exclude(
        status__in=Approval.ENDED).first()
    Approval.objects.filter(pk=approval.pk).update(expires_on=datetime.date(2026, 3, 20))
    result = send_daily_digest()
    to = sorted(m.to[0] for m in mailoutbox)
    assert to == ["t-compliance-2@example.test", "t-compliance@example.test"] and result["sent"] == 2
    body = mailoutbox[0].body
    assert "new error finding" in body and "T-10" in body
    assert approval.game.name in body and "2026-03-20" in body
    mailoutbox.clear()
    time_machine.move_to(datetime.datetime(2026, 2, 28, 9, tzinfo=LA), tick=False)
    send_daily_digest()  # a day later: the errors are no longer new, the approval still expires
    assert mailoutbox[0].subject == "Casino Marysville: 0 new error findings, 1 approval expiring soon"
    assert "T-10" not in mailoutbox[0].body
