"""The admin side of signage (administrators): post a table, look up what it showed at a moment, print its sign
(a POST; a GET is an unrecorded preview), start a batch, override a print block with a reason."""

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from cardroom.models import AuditLogEntry, Job, Table
from fees.models import TablePosting
from signage.models import PrintOverride, SignPrint

from tests import signs

pytestmark = pytest.mark.django_db


@pytest.fixture
def administrator(client, people, clock):
    clock(datetime.datetime(2026, 3, 1, 7, 0, tzinfo=ZoneInfo("America/Los_Angeles")))  # before the posting
    client.force_login(people.admin)
    return client


def posting_form(table, **changes):
    form = {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5", "max_wager": "500",
            "seats": "", "effective_from": "2026-03-01 08:00", "bonus_limits": "Fortune Bonus Bet, 1, 25",
            "notes": ""}
    form.update(changes)
    return form


def test_posts_looks_up_and_prints_from_the_admin(administrator, table, time_machine):
    client = administrator
    answer = client.post(reverse("admin:fees_tableposting_post"), posting_form(table))
    posting = TablePosting.objects.get(table=table)
    assert answer.status_code == 302 and answer["Location"].endswith(f"/{posting.pk}/change/")
    assert [(b.bet, b.minimum, b.maximum) for b in posting.bonus_limits.all()] == [
        ("Fortune Bonus Bet", 1, 25)]
    page = client.get(answer["Location"])
    assert b"May be printed." in page.content and posting.public_token.encode() in page.content

    found = client.get(reverse("admin:fees_tableposting_lookup"), {"table": table.pk, "at": "2026-03-03 02:30"})
    assert "Posted at table 7 at 2026-03-03 02:30 PST".encode() in found.content
    assert reverse("admin:fees_tableposting_change", args=[posting.pk]).encode() in found.content
    before = client.get(reverse("admin:fees_tableposting_lookup"), {"table": table.pk, "at": "2026-02-01 00:00"})
    assert b"had no posting in force" in before.content

    time_machine.move_to(datetime.datetime(2026, 3, 2, tzinfo=ZoneInfo("America/Los_Angeles")), tick=False)
    preview = client.get(reverse("admin:fees_tableposting_print", args=[posting.pk, "tent"]))
    assert "PREVIEW" in signs.text(preview.content) and not SignPrint.objects.exists()  # a GET records nothing
    pdf = client.post(reverse("admin:fees_tableposting_print", args=[posting.pk, "tent"]))
    assert pdf["Content-Type"] == "application/pdf" and signs.pages(pdf.content) == 1
    assert SignPrint.objects.get(posting=posting).channel == "admin"


def test_bad_posting_in_the_admin_says_why_and_saves_nothing(administrator, table):
    page = administrator.post(reverse("admin:fees_tableposting_post"), posting_form(table, option=77))
    assert page.status_code == 200 and b"has no option 77" in page.content
    assert not TablePosting.objects.exists()


def test_override_from_the_admin_takes_a_second_person(administrator, people, table):
    client = administrator
    client.post(reverse("admin:fees_tableposting_post"), posting_form(table, max_wager="20000"))
    posting = TablePosting.objects.get(table=table)
    blocked = client.post(reverse("admin:fees_tableposting_print", args=[posting.pk, "letter"]), follow=True)
    assert b"cannot be printed until a compliance officer asks for an override" in blocked.content
    form = client.get(reverse("admin:fees_tableposting_override", args=[posting.pk]))
    assert b"ca.wager_limits" in form.content
    client.post(reverse("admin:fees_tableposting_override", args=[posting.pk]),
                {"reason": "Letter from the Bureau dated 2026-03-02."})
    asked = PrintOverride.objects.get(posting=posting)
    assert (asked.requested_by, asked.status) == (people.admin, PrintOverride.Status.REQUESTED)
    assert AuditLogEntry.objects.filter(action="signage.print_override_requested").exists()
    # The asker sees it waiting and cannot approve it, even by posting the step.
    waiting = client.get(reverse("admin:fees_tableposting_override", args=[posting.pk]))
    assert b"awaiting a second officer" in waiting.content and b'value="approve"' not in waiting.content
    client.post(reverse("admin:fees_tableposting_override", args=[posting.pk]),
                {"reason": "I approve my own request.", "step": "approve"})
    assert PrintOverride.objects.get(posting=posting).status == PrintOverride.Status.REQUESTED
    blocked = client.post(reverse("admin:fees_tableposting_print", args=[posting.pk, "letter"]), follow=True)
    assert b"awaits a second officer" in blocked.content

    # A compliance officer of the room approves it (the console page, as such an officer works).
    client.force_login(people.compliance)
    client.post(f"/compliance/casino-marysville/postings/{posting.pk}/override/",
                {"reason": "The Bureau's letter covers it.", "step": "approve"})
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by) == (PrintOverride.Status.APPROVED, people.compliance)
    client.force_login(people.admin)
    pdf = client.post(reverse("admin:fees_tableposting_print", args=[posting.pk, "letter"]))
    assert pdf["Content-Type"] == "application/pdf"
    assert SignPrint.objects.get(posting=posting).override == asked


def test_batch_from_the_admin_shows_its_job(administrator, people, table, django_capture_on_commit_callbacks,
                                           time_machine):
    client = administrator
    client.post(reverse("admin:fees_tableposting_post"), posting_form(table))
    time_machine.move_to(datetime.datetime(2026, 3, 2, tzinfo=ZoneInfo("America/Los_Angeles")), tick=False)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(reverse("admin:fees_tableposting_batch"),
                             {"establishment": people.marysville.pk, "layout": "letter"})
    job = Job.objects.get()
    assert answer["Location"] == reverse("admin:cardroom_job_change", args=[job.pk])
    page = client.get(answer["Location"])
    assert page.status_code == 200 and b"100% (1 of 1)" in page.content
    assert f"/api/v1/jobs/{job.uuid}/download/".encode() in page.content
    assert "Refresh" not in page  # done: the page stops refreshing


def test_a_batch_from_the_admin_naming_another_rooms_table_is_refused(administrator, people, table):
    foreign = Table.objects.create(establishment=people.wa_room, label="1", seats=7, game=table.game)
    answer = administrator.post(reverse("admin:fees_tableposting_batch"),
                                {"establishment": people.marysville.pk, "layout": "letter", "tables": [foreign.pk]})
    assert answer.status_code == 200
    assert answer.context["form"].errors["tables"] == [
        f"Not tables of Casino Marysville: {foreign.pk}. Nothing was printed."]
    assert not Job.objects.exists()
